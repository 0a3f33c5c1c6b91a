//go:build !blake3_nonative && ((linux && !android && (amd64 || arm64)) || (darwin && !ios))

package blake3

import (
	"fmt"
	"os"
	"runtime"

	"github.com/ebitengine/purego"
)

// openLibrary opens a shared library by path. RTLD_LOCAL keeps its symbols
// out of the global namespace; RTLD_NOW resolves everything up front so a
// broken library fails here, not in the middle of a hash.
//
// dlerror's message is per thread, and purego reads it in a second call: the
// goroutine stays on one thread so the message is this dlopen's.
func openLibrary(path string) (uintptr, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
}

func lookupSymbol(h uintptr, name string) (uintptr, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return purego.Dlsym(h, name)
}

func closeLibrary(h uintptr) { _ = purego.Dlclose(h) }

// loadByPath loads the file checked through f by its path, where the
// platform cannot load through the descriptor itself (darwin; Linux
// without /proc), and closes f. It refuses a path that no longer names the
// checked file; the gap left between that look and dlopen's own is closed
// only by folders no one else can write to, which the cache folder's
// ancestors are checked to be (cachedir_unix.go).
func loadByPath(f *os.File, path, source string) (*loaded, error) {
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("native library %s: %w", source, err)
	}
	if path == "" {
		return nil, fmt.Errorf("native library %s: no path to load it by", source)
	}
	if !sameFile(path, fi) {
		return nil, fmt.Errorf("native library %s: %s changed after it was checked", source, path)
	}
	return openByPath(path, source)
}

// sameFile reports whether name (followed if a link) is the file fi
// describes.
func sameFile(name string, fi os.FileInfo) bool {
	st, err := os.Stat(name)
	return err == nil && os.SameFile(st, fi)
}
