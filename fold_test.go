package blake3

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/purego-blake3/blake3/internal/ffi"
	"lukechampine.com/blake3/guts"
)

// TestGoFold: on the Go path, a stream past 4 KiB in pieces, with a read
// after each (Sum, Digest, or both in turn), reads zeebo's hash and output
// every time, in every mode and under each plan (zeebo; lukechampine, then
// zeebo or lukechampine's tree past a chunk), with zeebo's layout known
// (reads fold) or not (they do not), and with zeeboRoots off. A state
// saved and resumed, a Clone written on, and a copy by value agree with
// zeebo too, here and there, before reads and after them. goFoldInvariants
// says what else each read must leave.
func TestGoFold(t *testing.T) {
	withGoBackend(func() {
		defer pinDispatch()()
		defer func() { zeeboRoots = true }()
		for _, layout := range []bool{true, false} {
			if !layout {
				defer ffi.ForgetZeeboLayout()()
			}
			for _, roots := range []bool{true, false} {
				zeeboRoots = roots
				for _, im := range []impl{implZeebo, implLuke, implTree} {
					planNow.Store(planAll(im))
					if im == implTree {
						// lukechampine for a chunk or less, its tree past
						// it: a plan that picks no zeebo.
						planNow.Store(lukeTreePlan())
					}
					for _, m := range allHashModes {
						for _, piece := range []int{1, 63, 64, 255, 256, 300, chunkLen, 1500, firstLen} {
							if piece == 1 && (m != hashModePlain || !roots || im != implZeebo) {
								continue // long: one case is enough
							}
							for _, read := range []string{"Sum", "Digest", "both"} {
								name := fmt.Sprintf("layout %v, zeeboRoots %v, plan %v, %s, pieces of %d, %s", layout, roots, im, m, piece, read)
								testFold(t, name, m, piece, read, goFoldInvariants(roots, layout && roots))
							}
						}
					}
				}
			}
		}
	})
}

// foldState is what a fold test's invariants look at after a read: the
// Hasher, the input's end, the piece size, whether the read was a Sum, and
// whether a read of more than a block came before it.
type foldState struct {
	h          *Hasher
	m          hashMode
	end, piece int
	sum, read1 bool
}

// testFold is TestGoFold's and TestNativeFold's stream of 4 KiB and 1,500
// bytes in pieces of piece bytes, with a read (read: Sum, Digest or both) after each, checked
// against zeebo, and then by invariant, which returns what is wrong, if
// anything.
func testFold(t *testing.T, name string, m hashMode, piece int, read string, invariant func(s foldState) string) {
	t.Helper()
	key, in := []byte(vectorKey), vectorInput(firstLen+1500)
	h := newModeHasher(t, m, key, vectorContext)
	z := newRefHasher(t, m, key, vectorContext)
	check := func(what string, h *Hasher, end int) {
		t.Helper()
		if bad := refMismatch(t, m, key, h, in[:end], 100); bad != "" {
			t.Fatalf("%s, %s at %d: %s", name, what, end, bad)
		}
	}
	// others checks what else reads h at end: a saved state (resumed, and
	// written on), a Clone written on, and a copy by value.
	others := func(end int) {
		t.Helper()
		// A state is saved, and resumed, where zeebo's layout is known;
		// without it, one of a Hasher with no zeebo hasher is saved.
		state, err := h.MarshalBinary()
		if err != nil && (ffi.ZeeboOK() || h.g == nil) {
			t.Fatalf("%s: MarshalBinary at %d: %v", name, end, err)
		}
		r := new(Hasher)
		if err := r.UnmarshalBinary(state); err == nil {
			check("resumed", r, end)
			_, _ = r.Write(in[end:])
			check("resumed, written on", r, len(in))
		} else if ffi.ZeeboOK() {
			t.Fatalf("%s: UnmarshalBinary at %d: %v", name, end, err)
		}
		c := h.Clone()
		_, _ = c.Write(in[end:])
		check("clone written on", c, len(in))
		v := *h
		check("a copy by value", &v, end)
	}
	read1 := false // whether a read saw more than a block gathered: a Sum after it folds
	for k, end := 0, 0; end < len(in); k++ {
		n := min(piece, len(in)-end)
		_, _ = h.Write(in[end : end+n])
		_, _ = z.Write(in[end : end+n])
		end += n
		if k%3 == 1 {
			others(end) // before the read: what writes gathered, not folded
		}
		sum := read == "Sum" || read == "both" && k%2 == 0
		if sum {
			if got, want := h.Sum(nil), z.Sum(nil); !bytes.Equal(got, want) {
				t.Fatalf("%s: Sum at %d: %x, want %x", name, end, got, want)
			}
		} else {
			got, want := make([]byte, 100), make([]byte, 100)
			_, _ = h.Digest().Read(got)
			_, _ = z.Digest().Read(want)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: Digest at %d: %s, want %s", name, end, shortHex(got), shortHex(want))
			}
		}
		if bad := invariant(foldState{h, m, end, piece, sum, read1}); bad != "" {
			t.Fatalf("%s: after the read at %d (%d gathered after %d chunks): %s", name, end, h.nbuf, h.front, bad)
		}
		read1 = read1 || end > guts.BlockSize
		if k%3 == 2 {
			others(end)
		}
	}
	check("the end", h, len(in))
}

// goFoldInvariants is what TestGoFold checks after each read: where reads
// fold (folds), a chunk or less is left gathered, but after a first Sum,
// which hashes it all in one call and folds none; none is folded without
// zeeboRoots (roots); where reads come a quarter of a chunk apart or more,
// or 63 bytes apart or more under a plan that picks lukechampine for a
// chunk, the Hasher takes no zeebo hasher before 4 KiB.
func goFoldInvariants(roots, folds bool) func(s foldState) string {
	return func(s foldState) string {
		h := s.h
		switch {
		case folds && h.g == nil && h.nbuf > chunkLen && (h.front != 0 || !s.sum || s.read1):
			return "more than a chunk left gathered"
		case folds && s.sum && !s.read1 && h.front != 0 && s.m == hashModePlain:
			return "a first Sum folded what was gathered"
		case !roots && h.front != 0:
			return "chunks folded without zeeboRoots"
		case folds && s.end <= firstLen && h.g != nil && (s.piece >= chunkLen/4 || s.piece >= 63 && implFor(64) != implZeebo):
			// Closer reads take zeebo's hasher where the plan hashes their
			// last chunk with zeebo, and pieces of less than 63 bytes where
			// the reads of a chunk or less hashed 8 KiB again (spillReread).
			return "zeebo's hasher, where reads this far apart fold, or read the last chunk with lukechampine's code"
		}
		return ""
	}
}

// TestNativeFold is TestGoFold on the native path, with each plan, where
// the library's tree on the stack stays there (ffi.ArgsStay): a read less
// than a chunk after another folds what is gathered, which leaves a chunk
// or less gathered, and the Hasher takes no buffer or tree on the heap
// before 4 KiB; reads a chunk apart or more fold nothing before 4 KiB, nor
// does a first read.
func TestNativeFold(t *testing.T) {
	if !nativeActive(t) {
		t.Skip("native backend not active")
	}
	defer pinDispatch()()
	for _, im := range []impl{implNative, implZeebo, implLuke} {
		planNow.Store(planAll(im))
		for _, m := range allHashModes {
			for _, piece := range []int{1, 63, 64, 256, 300, chunkLen - 1, chunkLen, 1500, firstLen} {
				if piece == 1 && (m != hashModePlain || im != implNative) {
					continue
				}
				for _, read := range []string{"Sum", "Digest", "both"} {
					name := fmt.Sprintf("plan %v, %s, pieces of %d, %s", im, m, piece, read)
					testFold(t, name, m, piece, read, nativeFoldInvariants)
				}
			}
		}
	}
}

// nativeFoldInvariants is what TestNativeFold checks after each read.
func nativeFoldInvariants(s foldState) string {
	h := s.h
	held := !h.live && h.buf == nil
	switch {
	case !ffi.ArgsStay:
		if h.front != 0 && held && s.end <= firstLen {
			return "a fold where the library's tree on the stack may not stay there"
		}
	case held && h.nbuf > chunkLen && (h.front != 0 || s.piece < chunkLen && s.read1):
		return "more than a chunk left gathered"
	case s.piece < chunkLen && s.end <= firstLen && !held:
		return "a buffer or tree on the heap, where reads this close fold"
	case s.piece >= chunkLen && s.end <= firstLen && h.front != 0:
		return "a fold, where reads a chunk apart hash all that is gathered"
	case !s.read1 && h.front != 0:
		return "a first read folded"
	}
	return ""
}

// TestAllocationsFold: on each path, a new Hasher on the stack written 4
// KiB in pieces of 256 bytes, with a Digest read or a Sum after each piece,
// and on the Go path in pieces of 1 KiB, allocates only its count of
// changes (8 bytes): its reads fold (fold), where they took zeebo's hasher
// (10 KiB), or on the native path the library's buffer and tree (18 KiB),
// before. On the native path where the library's tree on the stack may not
// stay there (not ffi.ArgsStay), nothing folds.
func TestAllocationsFold(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	if optimizationsOff() {
		t.Skip("built with -N or -l: without inlining, locals escape")
	}
	in := vectorInput(firstLen)
	forEachBackend(t, func(t *testing.T) {
		pieces := []int{256, chunkLen}
		if lib != nil {
			if !ffi.ArgsStay {
				t.Skip("no fold where the library's tree on the stack may not stay there")
			}
			pieces = pieces[:1] // reads a chunk apart fold nothing (readNative)
		}
		for _, piece := range pieces {
			var out [32]byte
			if a := testing.AllocsPerRun(20, func() { digestEachWrite(in, piece, out[:]) }); a > 1 {
				t.Errorf("a Digest after each piece of %d: %v allocations, want at most 1", piece, a)
			}
			if a := testing.AllocsPerRun(20, func() {
				h := New()
				for off := 0; off < len(in); off += piece {
					_, _ = h.Write(in[off : off+piece])
					h.Sum(out[:0])
				}
			}); a > 1 {
				t.Errorf("a Sum after each piece of %d: %v allocations, want at most 1", piece, a)
			}
		}
	})
}

// lukeTreePlan is a plan that picks lukechampine's one-chunk code up to a
// chunk, and its tree past it.
func lukeTreePlan() *plan {
	p := planAll(implLuke)
	for c := range p {
		if c*64 > chunkLen {
			p[c] = implTree
		}
	}
	return p
}

// TestFoldSequences: on each path, writes and reads in the orders that
// reads after each piece do not reach: more than a chunk gathered after a
// fold without a read between (the next read folds it, a saved state
// folds it first), of whole chunks (it keeps the last one), and then a
// write past what the Hasher holds (zeebo's hasher resumed with it, or the
// library's tree made from the front after it is folded). Each read, and
// in one run of each sequence a state saved and resumed at each step,
// against zeebo, in every mode.
func TestFoldSequences(t *testing.T) {
	key := []byte(vectorKey)
	in := vectorInput(16 << 10)
	// Each sequence: a write of that many bytes, or a read (0).
	seqs := [][]int{
		{1500, 0, 100, 0, 1472, 0, 500},
		{1500, 0, 100, 0, 1472, 2000, 0, 300, 0},
		{1500, 0, 100, 0, 1472, 0, 1024, 0, 1, 0},
		{2048, 0, 1, 0, 1023, 1024, 0},
		{1100, 0, 10, 0, 900, 1000, 0, 5000, 0},
		{1025, 0, 0, 1, 0, 3070, 0, 1, 0},
		// The same past what first holds.
		{1500, 0, 100, 0, 1472, firstLen - 2072, 0, 300, 0},
		{1100, 0, 10, 0, 900, 1000, 0, firstLen, 0},
		{1025, 0, 0, 1, 0, firstLen - 1026, 0, 1, 0},
	}
	forEachBackend(t, func(t *testing.T) {
		for _, m := range allHashModes {
			for i := range 2 * len(seqs) {
				// Each sequence with a state saved at each step (which folds),
				// and without (the write past what the Hasher holds finds
				// more than a chunk after the front).
				saves, seq := i%2 == 0, seqs[i/2]
				h := newModeHasher(t, m, key, vectorContext)
				end := 0
				check := func(step int, h *Hasher, what string) {
					t.Helper()
					if bad := refMismatch(t, m, key, h, in[:end], 80); bad != "" {
						t.Fatalf("%s, sequence %d, step %d (%s, %d bytes): %s", m, i, step, what, end, bad)
					}
				}
				for step, n := range seq {
					if n > 0 {
						_, _ = h.Write(in[end : end+n])
						end += n
					} else {
						check(step, h, "read")
					}
					if !saves {
						continue
					}
					// A saved state, resumed, before any read of what this
					// step wrote.
					state, err := h.MarshalBinary()
					if err != nil {
						t.Fatalf("%s, sequence %d, step %d: MarshalBinary: %v", m, i, step, err)
					}
					r := new(Hasher)
					if err := r.UnmarshalBinary(state); err != nil {
						t.Fatalf("%s, sequence %d, step %d: UnmarshalBinary: %v", m, i, step, err)
					}
					check(step, r, "resumed")
				}
				check(len(seq), h, "the end")
			}
		}
	})
}

// TestGoFoldRefused: on the Go path, where a read cannot fold what was
// gathered past a chunk after a fold (zeeboRoots turned off between the
// write and the read, as a layout not known would), the read takes zeebo's
// hasher with it all (spillGo), not the root of more than a chunk as one
// chunk's, in every mode.
func TestGoFoldRefused(t *testing.T) {
	in := vectorInput(firstLen)
	key := []byte(vectorKey)
	withGoBackend(func() {
		defer func() { zeeboRoots = true }()
		for _, m := range allHashModes {
			h := newModeHasher(t, m, key, vectorContext)
			_, _ = h.Write(in[:1500])
			h.Digest() // folds: a front of one chunk, 476 bytes after it
			_, _ = h.Write(in[1500:3000])
			zeeboRoots = false
			bad := refMismatch(t, m, key, h, in[:3000], 64)
			zeeboRoots = true
			if bad != "" || h.g == nil {
				t.Errorf("%v: %s; zeebo's hasher %v", m, bad, h.g != nil)
			}
		}
	})
}
