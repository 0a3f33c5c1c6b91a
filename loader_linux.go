//go:build !blake3_nonative && linux && (amd64 || arm64)

package blake3

import (
	"fmt"
	"os"

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
