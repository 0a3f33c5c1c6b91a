//go:build !blake3_nonative && linux && !android && (amd64 || arm64)

package ffi

import (
	"bytes"
	"fmt"
	"testing"
)

// The tests here draw nothing at random: they go through every short shape
// the library hashes in one SIMD pass (up to 16 chunks) and just past it,
// so that a bug in those paths fails on every run, not on a lucky seed.

// failures stops a test after a few errors, so that a broken library gives
// a readable report rather than thousands of lines.
type failures struct {
	t *testing.T
	n int
}

func (f *failures) errorf(format string, args ...any) {
	f.t.Helper()
	f.t.Errorf(format, args...)
	if f.n++; f.n >= 12 {
		f.t.FailNow()
	}
}

// sweepLens are the tail lengths of the sweep: 0 to 17 chunks, each exact,
// a byte less, a byte more and 513 bytes more.
func sweepLens() []int {
	var lens []int
	for k := 0; k <= 17; k++ {
		for _, d := range []int{-1, 0, 1, 513} {
			if n := k*1024 + d; n >= 0 {
				lens = append(lens, n)
			}
		}
	}
	return lens
}

// TestCallsTreeSweep: in every mode, the trees of 0 to 33 chunks (one
// tree_update each), at input offsets 0, 16 KiB (where a subtree holds 16
// chunks at most) and 1 MiB, each followed by every call: tree_update of 1
// to 17 chunks (on one thread and on the pool), tree_update_last of 1 to 17
// chunks, and tree_finalize, tree_root and tree_finalize_non_root with the
// tails of sweepLens. Every code, tree and output is the model's (refTree),
// refusals included (a root call with an offset, a tail longer than the
// smallest subtree, a subtree past what its offset allows). Under -short,
// only the trees of 0 to 17 chunks and 31 to 33.
func TestCallsTreeSweep(t *testing.T) {
	s := testLibrary(t)
	if rc := s.InitThreads(2); rc != OK {
		t.Fatal(rc)
	}
	f := &failures{t: t}
	in := pattern(72 << 10)
	lens := sweepLens()
	for m := range uint32(3) {
		key := modeKey(t, s, m)
		for _, offset := range []uint64{0, 16 << 10, 1 << 20} {
			for c := 0; c <= 33; c++ {
				if testing.Short() && c > 17 && c < 31 {
					continue
				}
				// The tree tree_init must write, and the model's of it.
				want := Tree{Magic: TreeMagic, Mode: m, Offset: offset}
				if key != nil {
					want.Key = *key
				}
				ref := newRefTree(&want)
				var base Tree
				if rc := s.TreeInit(&base, m, key, offset); rc != OK || base != want {
					t.Fatalf("mode %d, offset %d: tree_init: %v (tree as expected: %v)", m, offset, rc, base == want)
				}
				p := in[:c*1024]
				rc, wrc := s.TreeUpdate(&base, p, false), ref.update(p)
				if rc != wrc || base != ref.t {
					f.errorf("mode %d, offset %d: tree_update of %d chunks into an empty tree: %v, want %v (tree equal: %v)", m, offset, c, rc, wrc, base == ref.t)
					continue
				}
				if rc != OK {
					continue // a tree past what its offset allows (at 16 KiB)
				}
				sweepTree(f, s, &base, in[c*1024:], lens, fmt.Sprintf("mode %d, offset %d, tree of %d chunks", m, offset, c))
			}
		}
	}
}

// sweepTree runs every call on copies of base, which rest follows.
func sweepTree(f *failures, s *Symbols, base *Tree, rest []byte, lens []int, what string) {
	f.t.Helper()
	for u := 1; u <= 17; u++ {
		p := rest[:u*1024]
		for _, par := range []bool{false, true} {
			tr, r := *base, newRefTree(base)
			rc, wrc := s.TreeUpdate(&tr, p, par), r.update(p)
			if rc != wrc || tr != r.t {
				f.errorf("%s: tree_update of %d chunks (parallel %v): %v, want %v (tree equal: %v)", what, u, par, rc, wrc, tr == r.t)
			}
		}
		tr, r := *base, newRefTree(base)
		var last [32]byte
		rc := s.TreeUpdateLast(&tr, p, &last)
		want, wrc := r.updateLast(p)
		if rc != wrc || tr != r.t || rc == OK && last != want {
			f.errorf("%s: tree_update_last of %d chunks: %v, want %v (tree equal: %v); last chunk %x, want %x", what, u, rc, wrc, tr == r.t, last[:8], want[:8])
		}
	}
	for _, n := range lens {
		tail := rest[:n]
		tr, r := *base, newRefTree(base)
		out, want := make([]byte, 64), make([]byte, 64)
		rc, wrc := s.TreeFinalize(&tr, tail, 3, out), r.finalize(tail, 3, want)
		if rc != wrc || rc == OK && !bytes.Equal(out, want) {
			f.errorf("%s: tree_finalize of a tail of %d bytes: %v, want %v; %x, want %x", what, n, rc, wrc, out[:8], want[:8])
		}
		var l, rt [32]byte
		rc = s.TreeRoot(&tr, tail, &l, &rt)
		wl, wr, wrc := r.root(tail)
		if rc != wrc || rc == OK && (l != wl || rt != wr) {
			f.errorf("%s: tree_root of a tail of %d bytes: %v, want %v; left %x, want %x; right %x, want %x", what, n, rc, wrc, l[:8], wl[:8], rt[:8], wr[:8])
		}
		var cv [32]byte
		rc = s.TreeFinalizeNonRoot(&tr, tail, &cv)
		wcv, wrc := r.nonRoot(tail)
		if rc != wrc || rc == OK && cv != wcv {
			f.errorf("%s: tree_finalize_non_root of a tail of %d bytes: %v, want %v; %x, want %x", what, n, rc, wrc, cv[:8], wcv[:8])
		}
		if tr != *base {
			f.errorf("%s: a finalization with a tail of %d bytes changed the tree", what, n)
		}
	}
}

// TestCallsShortOneShots: every one-shot call (hash, keyed_hash, derive_key
// with outputs of 32 and 131 bytes; hash_xof in every mode, on one thread
// and on the pool, from output offsets 0, 5 and 2^40+3) of the inputs that
// end at every chunk end of 1 to 17 chunks, a byte either side of it, and
// half a chunk past it (the one-pass path of 2 to 15 whole chunks and those
// around it), each into a buffer of its own and in place over the input,
// against zeebo.
func TestCallsShortOneShots(t *testing.T) {
	s := testLibrary(t)
	if rc := s.InitThreads(2); rc != OK {
		t.Fatal(rc)
	}
	f := &failures{t: t}
	in := pattern(18 << 10)
	keys := [3]*[32]byte{modeKey(t, s, ModeHash), modeKey(t, s, ModeKeyed), modeKey(t, s, ModeDeriveKey)}
	for k := 1; k <= 17; k++ {
		for _, d := range []int{-1, 0, 1, 512} {
			x := in[:k*1024+d]
			for m := range uint32(3) {
				for _, seek := range []uint64{0, 5, 1<<40 + 3} {
					want := oracle(m, x, int64(seek), 131)
					for _, size := range []int{32, 131} {
						// Into a buffer of its own, and in place: over the
						// start of a copy of the input, which the header
						// allows (every input is read before the output is
						// written).
						for _, inPlace := range []bool{false, true} {
							src, out := x, make([]byte, size)
							if inPlace {
								src = append([]byte(nil), x...)
								out = src[:size]
							}
							if seek == 0 {
								var rc Code
								var name string
								switch m {
								case ModeHash:
									name, rc = "hash", s.Hash(src, out)
								case ModeKeyed:
									name, rc = "keyed_hash", s.KeyedHash(keys[m], src, out)
								default:
									name, rc = "derive_key", s.DeriveKey(vectorContext, src, out)
								}
								if rc != OK || !bytes.Equal(out, want[:size]) {
									f.errorf("%s of %d bytes, %d out (in place: %v): %v, %x…, want %x…", name, len(x), size, inPlace, rc, out[:8], want[:8])
								}
							}
							for _, par := range []bool{false, true} {
								if inPlace {
									copy(src, x)
								}
								if rc := s.HashXOF(m, keys[m], par, src, seek, out); rc != OK || !bytes.Equal(out, want[:size]) {
									f.errorf("hash_xof, mode %d, parallel %v, of %d bytes, from %d, %d out (in place: %v): %v, %x…, want %x…", m, par, len(x), seek, size, inPlace, rc, out[:8], want[:8])
								}
							}
						}
					}
				}
			}
		}
	}
}
