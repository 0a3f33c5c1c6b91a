//go:build !blake3_noembed && !blake3_nonative && linux && !android && arm64

package blake3

import _ "embed"

// embeddedLibrary is the native library for linux/arm64, built by
// rust/build.sh from the sources pinned in rust/deps.list.
//
//go:embed libs/linux_arm64/libblake3_purego.so
var embeddedLibrary []byte
