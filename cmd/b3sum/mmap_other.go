//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

import "os"

// mmapSupported reports whether this platform memory-maps input files.
// Elsewhere (Windows, Plan 9, wasm, ...) files are streamed.
const mmapSupported = false

// mmapFile always fails on platforms without memory-mapping support.
func mmapFile(f *os.File, size int64) ([]byte, func(), error) {
	return nil, nil, errNoMmap
}
