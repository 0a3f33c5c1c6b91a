//go:build !blake3_nonative && ((linux && !android && (amd64 || arm64)) || (darwin && !ios))

package blake3

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

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
