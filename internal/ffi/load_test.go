//go:build !blake3_nonative && linux && !android && (amd64 || arm64)

package ffi

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/ebitengine/purego"
)

// testLibrary binds the library committed for this platform (or the one
// BLAKE3_LIBRARY names, so that two builds can be timed in alternate runs),
// for the tests and benchmarks of the calls.
func testLibrary(t testing.TB) *Symbols {
	t.Helper()
	path := os.Getenv("BLAKE3_LIBRARY")
	if path == "" {
		path = filepath.Join("..", "..", "libs", runtime.GOOS+"_"+runtime.GOARCH, "libblake3_purego.so")
	}
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		t.Fatalf("dlopen %s: %v", path, err)
	}
	s, err := Bind(func(name string) (uintptr, error) { return purego.Dlsym(h, name) })
	if err != nil {
		t.Fatalf("bind %s: %v", path, err)
	}
	return s
}
