//go:build !blake3_nonative && linux && !android && (amd64 || arm64)

package ffi

import (
	"fmt"
	"testing"

	zeebo "github.com/zeebo/blake3"
)

// chunksName names a length in chunks and bytes past them: 5K, 6K+100.
func chunksName(n int) string {
	if n%1024 == 0 {
		return fmt.Sprintf("%dK", n/1024)
	}
	return fmt.Sprintf("%dK+%d", n/1024, n%1024)
}

// BenchmarkCallsTail times the calls that hash a tail of a few chunks in
// one pass and merge the chunks' values up to the root (or a subtree's
// value): tree_finalize (32 bytes) of a tail alone (chunks=0, the crate's
// Hasher) and after a tree of 16 chunks, tree_root of a tail alone, and
// tree_update of the chunks into an empty tree.
func BenchmarkCallsTail(b *testing.B) {
	s := testLibrary(b)
	var out [32]byte
	var left, right [32]byte
	for _, n := range []int{2, 3, 5, 7, 8, 15, 16} {
		tail := pattern(n * 1024)
		var t Tree
		if rc := s.TreeInit(&t, ModeHash, nil, 0); rc != OK {
			b.Fatal(rc)
		}
		var big Tree
		if rc := s.TreeInit(&big, ModeHash, nil, 0); rc != OK {
			b.Fatal(rc)
		}
		if rc := s.TreeUpdate(&big, pattern(16*1024), false); rc != OK {
			b.Fatal(rc)
		}
		name := chunksName(len(tail))
		b.Run("op=finalize/chunks=0/tail="+name, func(b *testing.B) {
			b.SetBytes(int64(len(tail)))
			for b.Loop() {
				if rc := s.TreeFinalize(&t, tail, 0, out[:]); rc != OK {
					b.Fatal(rc)
				}
			}
		})
		b.Run("op=finalize/chunks=16/tail="+name, func(b *testing.B) {
			b.SetBytes(int64(len(tail)))
			for b.Loop() {
				if rc := s.TreeFinalize(&big, tail, 0, out[:]); rc != OK {
					b.Fatal(rc)
				}
			}
		})
		b.Run("op=root/chunks=0/tail="+name, func(b *testing.B) {
			b.SetBytes(int64(len(tail)))
			for b.Loop() {
				if rc := s.TreeRoot(&t, tail, &left, &right); rc != OK {
					b.Fatal(rc)
				}
			}
		})
		b.Run("op=update/chunks=0/input="+name, func(b *testing.B) {
			b.SetBytes(int64(len(tail)))
			var u Tree
			if rc := s.TreeInit(&u, ModeHash, nil, 0); rc != OK {
				b.Fatal(rc)
			}
			for b.Loop() {
				u.Chunks = 0 // an empty tree again; the stack is overwritten
				if rc := s.TreeUpdate(&u, tail, false); rc != OK {
					b.Fatal(rc)
				}
			}
		})
	}
}

// BenchmarkCallsHash times the library's one-shot 32-byte hash of inputs of
// 3 to 16 chunks, those of a count of whole chunks that is not a multiple
// of 4 among them, next to the pure Go zeebo's.
func BenchmarkCallsHash(b *testing.B) {
	s := testLibrary(b)
	var out [32]byte
	for _, n := range []int{3 << 10, 5 << 10, 6<<10 + 100, 7 << 10, 8 << 10, 12 << 10, 15<<10 + 1, 16 << 10} {
		in := pattern(n)
		b.Run("size="+chunksName(n)+"/impl=library", func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				if rc := s.Hash(in, out[:]); rc != OK {
					b.Fatal(rc)
				}
			}
		})
		b.Run("size="+chunksName(n)+"/impl=zeebo", func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				out = zeebo.Sum256(in)
			}
		})
	}
}
