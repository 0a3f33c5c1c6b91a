//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// mmapSupported reports whether this platform memory-maps input files.
const mmapSupported = true

// mmapFile maps the first size bytes of f read-only. The returned function
// unmaps it. The caller only calls it for regular files of at least
// mmapMinSize bytes.
func mmapFile(f *os.File, size int64) ([]byte, func(), error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, nil, errNoMmap
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, mmapFlags)
	if err != nil {
		return nil, nil, err
	}
	return b, func() { _ = unix.Munmap(b) }, nil
}
