//go:build blake3_nonative || !((linux && !android && (amd64 || arm64)) || (darwin && !ios) || (windows && amd64))

package ffi

import "runtime"

// This is the one file that says which builds have no native library, and
// why; the rest of the module asks ffi.Native.
//
//   - The blake3_nonative tag asks for the Go path only, and a binary free
//     of purego (fully static with CGO_ENABLED=0).
//   - A library is built for linux/amd64, linux/arm64, windows/amd64 and
//     darwin (rust/README.md); everywhere else there is none to load.
//   - android and ios satisfy the linux and darwin build tags, but purego
//     needs cgo there, and no library is built for them.

// Native reports whether this build can load the native library.
const Native = false

// Unavailable says why this build cannot.
var Unavailable = unavailable()

// ArgsStay reports whether memory passed to a call stays where it is:
// there are no calls.
const ArgsStay = false

func unavailable() string {
	switch runtime.GOOS + "/" + runtime.GOARCH {
	case "linux/amd64", "linux/arm64", "windows/amd64", "darwin/amd64", "darwin/arm64":
		return "built with the blake3_nonative tag"
	}
	return "no native library for " + runtime.GOOS + "/" + runtime.GOARCH
}

// call is never reached in these builds: no Symbols can be bound.
func call(c *cArgs) uintptr {
	panic("blake3: no native library in this build")
}
