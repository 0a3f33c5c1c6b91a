//go:build !blake3_nonative && darwin && !ios

package blake3

import "os"

// loadDescriptor loads the file checked through f. macOS has no name that
// opens a descriptor's own file for dlopen, so it loads by path (loadByPath):
// the cache folder's checked ancestry keeps other users from swapping it.
func loadDescriptor(f *os.File, path, source string) (*loaded, error) {
	return loadByPath(f, path, source)
}
