//go:build !blake3_nonative && ((linux && !android && (amd64 || arm64)) || (darwin && !ios))

package blake3

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/ebitengine/purego"
	"golang.org/x/sys/unix"
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
// ancestors are checked to be (cache_unix.go).
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

// maxObjectSize bounds the file BLAKE3_LIBRARY may name: the library is
// under 1 MB.
const maxObjectSize = 64 << 20

// openUserLibrary loads the file BLAKE3_LIBRARY names. It is opened once,
// non-blocking (a FIFO or a device then never holds the process up), and
// everything after is done on that open file: it must be a regular file of
// a sane size whose header is a shared object for this machine
// (checkObject), and it is loaded through the descriptor (loadDescriptor),
// so that what dlopen maps is the file that was checked, whatever the path
// names by then.
func openUserLibrary(path string) (*loaded, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("native library: %w", &os.PathError{Op: "open", Path: path, Err: err})
	}
	f := os.NewFile(uintptr(fd), path)
	if err := checkUserFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("native library %s: %w", path, err)
	}
	return loadDescriptor(f, path, path)
}

// checkUserFile applies openUserLibrary's checks to the open file.
func checkUserFile(f *os.File) error {
	fi, err := f.Stat()
	switch {
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return fmt.Errorf("not a regular file (%s)", fileKind(fi.Mode()))
	case fi.Size() == 0:
		return errors.New("empty file")
	case fi.Size() > maxObjectSize:
		return fmt.Errorf("%d bytes is too large for this library", fi.Size())
	}
	return checkObject(f, fi.Size())
}

// fileKind names what a file that is not a regular one is.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}
