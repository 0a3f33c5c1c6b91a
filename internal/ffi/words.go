package ffi

import (
	"encoding/binary"
	"unsafe"
)

// littleEndian reports whether this machine lays words out little-endian,
// as BLAKE3 reads them.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// BlockWords sets w to the little-endian words of in, a block (64 bytes)
// or less, zero-padded. On a little-endian machine those are in's bytes,
// copied over w's: a Digest reads the words right after they are set, and
// words loaded from a copy of the block just made and stored one at a time
// took Hasher.Digest of 64 bytes 22 ns instead of 15 (a scratch benchmark
// of Digest alone; BenchmarkDigestNew, input=64B; docs/stream.md).
func BlockWords(w *[16]uint32, in []byte) {
	if !littleEndian {
		blockWordsPortable(w, in)
		return
	}
	b := (*[64]byte)(unsafe.Pointer(w))
	clear(b[copy(b[:], in):])
}

// blockWordsPortable is BlockWords on any machine.
func blockWordsPortable(w *[16]uint32, in []byte) {
	var block [64]byte
	copy(block[:], in)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(block[4*i:])
	}
}
