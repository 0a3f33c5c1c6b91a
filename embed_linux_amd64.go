//go:build !blake3_noembed && !blake3_nonative && linux && !android && amd64

package blake3

import _ "embed"

// embeddedLibrary is the native library for linux/amd64, built by
// rust/build.sh from the sources pinned in rust/deps.list.
//
//go:embed libs/linux_amd64/libblake3_purego.so
var embeddedLibrary []byte
