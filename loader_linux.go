//go:build !blake3_nonative && linux && !android && (amd64 || arm64)

package blake3

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"sync"

	"github.com/ebitengine/purego"
	"golang.org/x/sys/unix"
)

const (
	libPrefix = "libblake3_purego"
	libSuffix = ".so"
)

// folderOpen is how walkFolder opens folders: O_PATH needs no read
// permission (a folder that may be searched but not listed, mode 0711, is
// walked as path lookup would), and is enough for fstat and openat.
const folderOpen = unix.O_PATH

// openFromMemory loads the library from an anonymous, sealed memory file:
// nothing is written to disk, and nothing can change the bytes between the
// checks and dlopen.
func openFromMemory(lib []byte) (*loaded, error) {
	fd, err := unix.MemfdCreate("blake3_purego", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING|unix.MFD_EXEC)
	if errors.Is(err, unix.EINVAL) {
		// Kernels before 6.3 do not know MFD_EXEC (and need no such flag).
		fd, err = unix.MemfdCreate("blake3_purego", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	}
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "memfd:blake3_purego")
	if _, err := f.Write(lib); err != nil {
		f.Close()
		return nil, fmt.Errorf("memfd write: %w", err)
	}
	seals := unix.F_SEAL_WRITE | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_SEAL
	if _, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, seals); err != nil {
		f.Close()
		return nil, fmt.Errorf("memfd seals: %w", err)
	}
	return loadDescriptor(f, "", "embedded (memfd)")
}

// checkObject refuses, before dlopen sees it, a file of size bytes open as
// f that is not an ELF shared object for this machine (glibc says "No such
// file or directory" for another architecture) or that is truncated (glibc
// maps segments past the end of the file and the process dies of SIGBUS).
// debug/elf is not hardened against hostile input, so a panic in it is a
// refusal too.
func checkObject(f *os.File, size int64) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("not a valid ELF shared object (%v)", r)
		}
	}()
	ef, err := elf.NewFile(io.NewSectionReader(f, 0, size))
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("truncated: the file ends inside its ELF headers (%d bytes)", size)
	}
	if err != nil {
		return fmt.Errorf("not an ELF shared object: %w", err)
	}
	want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[runtime.GOARCH]
	if ef.Class != elf.ELFCLASS64 || ef.Machine != want {
		return fmt.Errorf("built for another architecture (%v, %v), this process is %s", ef.Class, ef.Machine, runtime.GOARCH)
	}
	if ef.Type != elf.ET_DYN {
		return fmt.Errorf("not a shared object (ELF type %v)", ef.Type)
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_LOAD && (p.Off > uint64(size) || p.Filesz > uint64(size)-p.Off) {
			return fmt.Errorf("truncated: a segment ends at byte %d, the file has %d", p.Off+p.Filesz, size)
		}
	}
	return nil
}

// atSecure is the auxiliary vector's AT_SECURE tag.
const atSecure = 23

// privileged reports whether the process runs with more rights than the
// user who started it (setuid, setgid, file capabilities: the kernel's
// AT_SECURE), whose environment must then not choose the code it loads.
func privileged() bool {
	if os.Getuid() != os.Geteuid() || os.Getgid() != os.Getegid() {
		return true
	}
	auxv, err := os.ReadFile("/proc/self/auxv")
	if err != nil {
		return false
	}
	for i := 0; i+16 <= len(auxv); i += 16 {
		if binary.NativeEndian.Uint64(auxv[i:]) == atSecure {
			return binary.NativeEndian.Uint64(auxv[i+8:]) != 0
		}
	}
	return false
}

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
