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

// TestCVWords checks CVWords and CVBytes, and the portable code they take
// on a big-endian machine, against the words read and written one at a
// time, over values that held others.
func TestCVWords(t *testing.T) {
	var b [32]byte
	for i := range b {
		b[i] = byte(0x31 + 7*i)
	}
	var want [8]uint32
	for i := range want {
		want[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	for name, f := range map[string]func(*[8]uint32, *[32]byte){"CVWords": CVWords, "portable": func(w *[8]uint32, b *[32]byte) { wordsOf(w[:], b[:]) }} {
		w := [8]uint32{0xdeadbeef, 1, 2, 3, 4, 5, 6, 7}
		if f(&w, &b); w != want {
			t.Fatalf("%s: %x, want %x", name, w, want)
		}
	}
	for name, f := range map[string]func(*[32]byte, *[8]uint32){"CVBytes": CVBytes, "portable": func(b *[32]byte, w *[8]uint32) { bytesOf(b[:], w[:]) }} {
		got := [32]byte{0xee, 0xee}
		if f(&got, &want); got != b {
			t.Fatalf("%s: %x, want %x", name, got, b)
		}
	}
}
