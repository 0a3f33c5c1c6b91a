//go:build !blake3_nonative && darwin && !ios && (amd64 || arm64)

package blake3

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

const (
	libPrefix = "libblake3_purego"
	libSuffix = ".dylib"
)

// folderOpen is how walkFolder opens folders (darwin has no O_PATH: a
// folder on the way must be readable).
const folderOpen = unix.O_RDONLY

// openFromMemory: macOS cannot load a library from memory, so the embedded
// copy always goes through the cache folder.
func openFromMemory([]byte) (*loaded, error) {
	return nil, errors.New("loading from memory is not supported on darwin")
}

// checkObject: the Mach-O header is left to dyld.
func checkObject(*os.File, int64) error { return nil }

// privileged reports whether the process runs setuid or setgid, when its
// environment must not choose the code it loads.
func privileged() bool { return os.Getuid() != os.Geteuid() || os.Getgid() != os.Getegid() }

// loadDescriptor loads the file checked through f. macOS has no name that
// opens a descriptor's own file for dlopen, so it loads by path (loadByPath):
// the cache folder's checked ancestry keeps other users from swapping it.
func loadDescriptor(f *os.File, path, source string) (*loaded, error) {
	return loadByPath(f, path, source)
}
