//go:build !blake3_nonative && ((linux && !android && (amd64 || arm64)) || (darwin && !ios && (amd64 || arm64)) || (windows && amd64))

// The cache folder, for platforms (or sandboxes) that cannot load the
// embedded library from memory: the library is written once under a
// content-addressed name, atomically, and compared with the embedded bytes
// before every load.

package blake3

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// cacheDirName is the per-user folder under os.UserCacheDir.
const cacheDirName = "purego-blake3"

// cachedLibrary returns the path of a file that holds exactly lib, writing
// it if needed. dir "" means the per-user default.
func cachedLibrary(dir string, lib []byte) (string, error) {
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("cache folder: %w", err)
		}
		dir = filepath.Join(base, cacheDirName)
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
	if err := privateDir(dir, fi); err != nil {
		return "", err
	}
	sum := sha256.Sum256(lib)
	path := filepath.Join(dir, contentName(sum[:]))
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
