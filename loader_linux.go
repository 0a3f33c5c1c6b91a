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
