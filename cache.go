// The cache folder, for platforms (or sandboxes) that cannot load the
// embedded library from memory: the library is written once under a
// content-addressed name, atomically, and compared with the embedded bytes
// before every load (cache_unix.go, cache_windows.go).

package blake3

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// cacheDirName is the per-user folder under os.UserCacheDir.
const cacheDirName = "purego-blake3"

// cacheFolder is dir, or the per-user default when dir is "".
func cacheFolder(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("cache folder: %w", err)
	}
	return filepath.Join(base, cacheDirName), nil
}

// contentName is the file name of library lib, from its sha256: a change
// of content is a change of name, so a stale file is never mistaken for
// another.
func contentName(lib []byte) string {
	sum := sha256.Sum256(lib)
	return libPrefix + "-" + hex.EncodeToString(sum[:16]) + libSuffix
}
