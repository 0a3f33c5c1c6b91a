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
	wordsOf(w[:], block[:])
}

// CVWords sets w to the little-endian words of b, a key or a chaining
// value: on a little-endian machine b's bytes copied over w, for
// BlockWords' reason. Words stored one at a time, then copied as wider
// loads right after, took about a tenth of a keyed Digest of 64 bytes read
// once (BenchmarkDigestNew, mode=keyed, input=64B; docs/stream.md).
func CVWords(w *[8]uint32, b *[32]byte) {
	if littleEndian {
		*(*[32]byte)(unsafe.Pointer(w)) = *b
	} else {
		wordsOf(w[:], b[:])
	}
}

// CVBytes sets b to the little-endian bytes of w, as CVWords reads them.
func CVBytes(b *[32]byte, w *[8]uint32) {
	if littleEndian {
		*b = *(*[32]byte)(unsafe.Pointer(w))
	} else {
		bytesOf(b[:], w[:])
	}
}

// wordsOf sets w to the little-endian words of b, on any machine.
func wordsOf(w []uint32, b []byte) {
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
}

// bytesOf sets b to the little-endian bytes of w, on any machine.
func bytesOf(b []byte, w []uint32) {
	for i, x := range w {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
}
