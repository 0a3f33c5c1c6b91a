//go:build blake3_nonative || !((linux && !android && (amd64 || arm64)) || (darwin && !ios && (amd64 || arm64)) || (windows && amd64))

// Builds without a native library: the blake3_nonative tag, or a platform
// with no library. Nothing here imports purego, so such a binary built with
// CGO_ENABLED=0 is fully static. The functions below are never called: lib
// is always nil, and every caller checks it first.

package blake3

import (
	"fmt"
	"runtime"
)

const nativeBuild = false

// symbols is never bound here; stateWords only keeps the generic code compiling.
type symbols struct{ stateWords int }

var lib *symbols

// errNoLibrary is what the native entry points return in this build.
const errNoLibrary = -100

func init() {
	reason := fmt.Sprintf("no native library for %s/%s", runtime.GOOS, runtime.GOARCH)
	if nonativeTag {
		reason = "built with the blake3_nonative tag"
	}
	loadBackend = func() backendState { return goBackend(reason) }
}

func stInit([]uint64, *Hasher) int32               { return errNoLibrary }
func stUpdate([]uint64, []byte) int32              { return errNoLibrary }
func stFinalize([]uint64, uint64, []byte) int32    { return errNoLibrary }
func nativeHash([]byte, []byte) int32              { return errNoLibrary }
func nativeDeriveKey(string, []byte, []byte) int32 { return errNoLibrary }
func nativeContextKey(string, *[32]byte) int32     { return errNoLibrary }
