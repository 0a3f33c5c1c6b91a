//go:build !blake3_nonative && windows && amd64

package blake3

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

const (
	libPrefix = "blake3_purego"
	libSuffix = ".dll"
)

// openLibrary loads a DLL by absolute path only. The search flags limit
// dependency lookup to the DLL's own folder and System32: never the current
// folder or PATH.
func openLibrary(path string) (uintptr, error) {
	h, err := windows.LoadLibraryEx(path, 0,
		windows.LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR|windows.LOAD_LIBRARY_SEARCH_SYSTEM32)
	return uintptr(h), err
}

func lookupSymbol(h uintptr, name string) (uintptr, error) {
	return windows.GetProcAddress(windows.Handle(h), name)
}

func closeLibrary(h uintptr) { _ = windows.FreeLibrary(windows.Handle(h)) }

// openFromMemory: Windows cannot load a DLL from memory, so the embedded copy
// always goes through the cache folder.
func openFromMemory([]byte) (*loaded, error) {
	return nil, errors.New("loading from memory is not supported on windows")
}

// openUserLibrary loads the file BLAKE3_LIBRARY names, by path, as the
// user chose it (Windows keeps named pipes under \\.\pipe\, not at a
// file's path, so the FIFO hang of Unix does not arise). The header is
// left to LoadLibraryEx.
func openUserLibrary(path string) (*loaded, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("native library: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("native library %s is not a regular file", path)
	}
	return openByPath(path, path)
}

// privileged: Windows has no setuid; a process's environment is its own.
func privileged() bool { return false }
