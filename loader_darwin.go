//go:build !blake3_nonative && darwin && (amd64 || arm64)

package blake3

import "errors"

const (
	libPrefix = "libblake3_purego"
	libSuffix = ".dylib"
)

// openFromMemory: macOS cannot load a library from memory, so the embedded
// copy always goes through the cache folder.
func openFromMemory([]byte) (*loaded, error) {
	return nil, errors.New("loading from memory is not supported on darwin")
}

func checkObject(string) error { return nil }
