//go:build !blake3_noembed && !blake3_nonative && windows && amd64

package blake3

import _ "embed"

// embeddedLibrary is the native library for windows/amd64, built by
// rust/build.sh from the sources pinned in rust/deps.list.
//
//go:embed libs/windows_amd64/blake3_purego.dll
var embeddedLibrary []byte
