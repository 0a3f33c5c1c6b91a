//go:build !blake3_nonative && linux && !android && (amd64 || arm64)

package blake3

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/ebitengine/purego"
	"golang.org/x/sys/unix"
)

// rtldNoload is glibc's RTLD_NOLOAD: dlopen only finds an object already
// loaded under that name.
const rtldNoload = 0x4

// heldFiles keeps open the files whose libraries were loaded through their
// descriptors: glibc finds loaded objects by name, so while the library is
// mapped its name /proc/self/fd/N must not be reused by another file
// (another package's memfd, say, which would then get this library back
// from dlopen).
var (
	heldMu    sync.Mutex
	heldFiles []heldFile
)

// heldFile is a file in heldFiles, with what it is.
type heldFile struct {
	f  *os.File
	fi os.FileInfo
}

// heldName is the held name of the file fi describes, if it was loaded
// before: glibc also finds a loaded object by its file (device and inode),
// so for such a file every new name looks taken, while the held one
// certainly names it. heldMu must be held.
func heldName(fi os.FileInfo) (string, bool) {
	for _, h := range heldFiles {
		if os.SameFile(h.fi, fi) {
			return fdName(h.f), true
		}
	}
	return "", false
}

// loadDescriptor loads the file open as f, which the caller has checked,
// through its name /proc/self/fd/N: the kernel resolves that name to the
// open file itself, so nothing done to any path after the checks can put
// another file in its place. f stays open while the library is loaded and
// is closed on a refusal. Without /proc (a chroot without it) it falls
// back on loadByPath with path, or fails where there is none (a memfd).
func loadDescriptor(f *os.File, path, source string) (*loaded, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("native library %s: %w", source, err)
	}
	if !sameFile(fdName(f), fi) {
		if path == "" {
			f.Close()
			return nil, fmt.Errorf("native library %s: no /proc/self/fd to load it through", source)
		}
		return loadByPath(f, path, source)
	}
	// Held from the look at heldFiles to the append: two loads of one file
	// at once would otherwise each find the other's name taken.
	heldMu.Lock()
	defer heldMu.Unlock()
	if name, ok := heldName(fi); ok {
		defer f.Close()
		return openByPath(name, source)
	}
	// A name another object was loaded under (a closed descriptor with the
	// same number, by other code) would give that object back: move to a
	// number whose name is free.
	for range 8 {
		if name := fdName(f); !loadedAs(name) {
			l, err := openByPath(name, source)
			if err != nil {
				f.Close()
				return nil, err
			}
			heldFiles = append(heldFiles, heldFile{f, fi})
			return l, nil
		}
		nfd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, int(f.Fd())+1)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("native library %s: dup: %w", source, err)
		}
		f = os.NewFile(uintptr(nfd), source)
	}
	f.Close()
	return nil, fmt.Errorf("native library %s: %w", source, errors.New("every /proc/self/fd name tried was taken by another loaded object"))
}

// fdName is the name under which the kernel opens f itself.
func fdName(f *os.File) string { return "/proc/self/fd/" + strconv.Itoa(int(f.Fd())) }

// loadedAs reports whether an object is already loaded under this name.
func loadedAs(path string) bool {
	h, err := purego.Dlopen(path, purego.RTLD_LAZY|rtldNoload)
	if err != nil || h == 0 {
		return false
	}
	_ = purego.Dlclose(h)
	return true
}
