//go:build blake3_nonative || !((linux && !android && (amd64 || arm64)) || (darwin && !ios) || (windows && amd64))

// Builds without a native library (internal/ffi/call_none.go says which and
// why): the loader's platform primitives are these stubs, which refuse, so
// the package is the Go path with Backend().Reason saying why. Nothing here
// imports purego, so such a binary built with CGO_ENABLED=0 is fully static.

package blake3

import (
	"errors"

	"github.com/purego-blake3/blake3/internal/ffi"
)

var errNoLibrary = errors.New(ffi.Unavailable)

const (
	libPrefix = "none"
	libSuffix = ""
)

func openLibrary(string) (uintptr, error)           { return 0, errNoLibrary }
func lookupSymbol(uintptr, string) (uintptr, error) { return 0, errNoLibrary }
func closeLibrary(uintptr)                          {}
func openFromMemory([]byte) (*loaded, error)        { return nil, errNoLibrary }
func openUserLibrary(string) (*loaded, error)       { return nil, errNoLibrary }
func openCached(string, []byte) (*loaded, error)    { return nil, errNoLibrary }
func privileged() bool                              { return false }
