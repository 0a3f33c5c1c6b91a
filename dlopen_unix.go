//go:build !blake3_nonative && ((linux && !android) || (darwin && !ios)) && (amd64 || arm64)

package blake3

import (
	"fmt"
	"os"
	"runtime"
	"syscall"

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

// privateDir refuses a cache folder that others could write to, or that
// belongs to someone else: a library loaded from it runs with our rights.
func privateDir(dir string, fi os.FileInfo) error {
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("cache folder %s is writable by others (mode %v)", dir, fi.Mode().Perm())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("cache folder %s belongs to uid %d, not %d", dir, st.Uid, os.Getuid())
	}
	return nil
}
