//go:build !blake3_nonative && linux && (amd64 || arm64)

package blake3

import (
	"debug/elf"
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

// openFromMemory loads the library from an anonymous memory file: nothing is
// written to disk. The descriptor is closed once dlopen has mapped it.
func openFromMemory(lib []byte) (*loaded, error) {
	fd, err := unix.MemfdCreate("blake3_purego", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "memfd:blake3_purego")
	defer f.Close()
	if _, err := f.Write(lib); err != nil {
		return nil, fmt.Errorf("memfd write: %w", err)
	}
	path := fmt.Sprintf("/proc/self/fd/%d", fd)
	return openChecked(path, "embedded (memfd)")
}

// checkObject refuses, before dlopen sees it, a file that is not an ELF
// shared object for this machine (glibc says "No such file or directory"
// for another architecture) or that is truncated (glibc maps segments past
// the end of the file and the process dies of SIGBUS).
func checkObject(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() == 0 {
		return fmt.Errorf("empty file")
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
