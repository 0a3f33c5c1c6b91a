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

	"github.com/ebitengine/purego"
	"golang.org/x/sys/unix"
)

const (
	libPrefix = "libblake3_purego"
	libSuffix = ".so"
)

// rtldNoload is glibc's RTLD_NOLOAD: dlopen only finds an object already
// loaded under that name.
const rtldNoload = 0x4

// memfds keeps open the memory files whose libraries were loaded: glibc
// finds loaded objects by name, so while the library is mapped its name
// /proc/self/fd/N must not be reused by another file (another package's
// memfd, say, which would then get this library back from dlopen).
var memfds []*os.File

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
	// A name another object was loaded under (a closed memfd with the same
	// number, by other code) would give that object back: move to a number
	// whose name is free.
	for range 8 {
		path := fmt.Sprintf("/proc/self/fd/%d", f.Fd())
		if !loadedAs(path) {
			l, err := openVerified(path, "embedded (memfd)", false)
			if err != nil {
				f.Close()
				return nil, err
			}
			memfds = append(memfds, f)
			return l, nil
		}
		nfd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, int(f.Fd())+1)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("memfd dup: %w", err)
		}
		f = os.NewFile(uintptr(nfd), "memfd:blake3_purego")
	}
	f.Close()
	return nil, errors.New("memfd: every name tried was taken by another loaded object")
}

// loadedAs reports whether an object is already loaded under this name.
func loadedAs(path string) bool {
	h, err := purego.Dlopen(path, purego.RTLD_LAZY|rtldNoload)
	if err != nil || h == 0 {
		return false
	}
	_ = purego.Dlclose(h)
	return true
}

// maxObjectSize bounds what checkObject parses: the library is under 1 MB.
const maxObjectSize = 64 << 20

// checkObject refuses, before dlopen sees it, a file that is not an ELF
// shared object for this machine (glibc says "No such file or directory"
// for another architecture) or that is truncated (glibc maps segments past
// the end of the file and the process dies of SIGBUS). debug/elf is not
// hardened against hostile input, so a panic in it is a refusal too.
func checkObject(path string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("not a valid ELF shared object (%v)", r)
		}
	}()
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	switch {
	case fi.Size() == 0:
		return errors.New("empty file")
	case fi.Size() > maxObjectSize:
		return fmt.Errorf("%d bytes is too large for this library", fi.Size())
	}
	ef, err := elf.NewFile(f)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("truncated: the file ends inside its ELF headers (%d bytes)", fi.Size())
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
		if p.Type == elf.PT_LOAD && (p.Off > uint64(fi.Size()) || p.Filesz > uint64(fi.Size())-p.Off) {
			return fmt.Errorf("truncated: a segment ends at byte %d, the file has %d", p.Off+p.Filesz, fi.Size())
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
