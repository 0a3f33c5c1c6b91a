//go:build !blake3_nonative && windows && amd64

package blake3

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// openCached loads lib from a content-addressed file in the cache folder
// dir ("" = the per-user default), writing it if needed, checked and
// loaded by path: the per-user folder under %LocalAppData% is private by
// its ACL, so only the user (or an administrator) can change what a path
// in it names.
func openCached(dir string, lib []byte) (*loaded, error) {
	path, err := cachedLibrary(dir, lib)
	if err != nil {
		return nil, err
	}
	return openByPath(path, "embedded (cached at "+path+")")
}

// cachedLibrary returns the path of a file that holds exactly lib, writing
// it if needed.
func cachedLibrary(dir string, lib []byte) (string, error) {
	dir, err := cacheFolder(dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("cache folder: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("cache folder: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("cache folder %s is not a folder", dir)
	}
	path := filepath.Join(dir, contentName(lib))
	if sameBytes(path, lib) {
		return path, nil
	}
	if err := writeAtomically(dir, path, lib); err != nil {
		return "", fmt.Errorf("cache file: %w", err)
	}
	if !sameBytes(path, lib) {
		return "", fmt.Errorf("cache file %s does not hold the embedded library", path)
	}
	return path, nil
}

// writeAtomically writes lib to a temporary file in dir and renames it over
// path, so that a reader (another process extracting at the same time, say)
// never sees a torn file.
func writeAtomically(dir, path string, lib []byte) error {
	f, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(lib)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o500)
	}
	if err == nil {
		// Windows refuses to replace a read-only file (the 0500 above), so a
		// damaged one is made writable first.
		_ = os.Chmod(path, 0o600)
		err = os.Rename(tmp, path)
		if err != nil && sameBytes(path, lib) {
			err = nil // another process won the race with the same bytes
		}
	}
	if err != nil {
		return errors.Join(err, removeIfExists(tmp))
	}
	return nil
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// sameBytes reports whether a file holds exactly want.
func sameBytes(path string, want []byte) bool {
	got, err := os.ReadFile(path)
	return err == nil && bytes.Equal(got, want)
}
