//go:build !blake3_nonative && windows && amd64

package blake3

import (
	"errors"
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

// privateDir: the per-user cache folder under %LocalAppData% is private by
// its ACL; there is no mode to check.
func privateDir(string, os.FileInfo) error { return nil }

func checkObject(string) error { return nil }

// privileged: Windows has no setuid; a process's environment is its own.
func privileged() bool { return false }
