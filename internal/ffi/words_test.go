package ffi

import (
	"encoding/binary"
	"testing"
)

// TestBlockWords checks BlockWords, and the portable code it takes on a
// big-endian machine, against the words read one at a time, for every
// length of a block or less, over words that held other values.
func TestBlockWords(t *testing.T) {
	in := make([]byte, 64)
	for i := range in {
		in[i] = byte(0xa0 + i)
	}
	for n := range len(in) + 1 {
		var block [64]byte
		copy(block[:], in[:n])
		var want [16]uint32
		for i := range want {
			want[i] = binary.LittleEndian.Uint32(block[4*i:])
		}
		for name, f := range map[string]func(*[16]uint32, []byte){"BlockWords": BlockWords, "portable": blockWordsPortable} {
			w := [16]uint32{}
			for i := range w {
				w[i] = 0xdeadbeef
			}
			f(&w, in[:n])
			if w != want {
				t.Fatalf("%s of %d bytes: %x, want %x", name, n, w, want)
			}
		}
	}
}
