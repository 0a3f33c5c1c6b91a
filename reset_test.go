package blake3

import (
	"bytes"
	"math"
	"sync"
	"testing"
)

// resetSpareIn is TestResetSpare's input, and resetSpareKey the key of its
// keyed mode.
var (
	resetSpareIn  = vectorInput(20 << 10)
	resetSpareKey = []byte(vectorKey)
)

// pastFirst is a first write that goFront takes on the Go path: past what
// first holds, within the chunk after it.
const pastFirst = firstLen + 904

// checkZeebo fails t unless h's Sum and a Digest of it, read for 100
// bytes, are zeebo's for the first n bytes of resetSpareIn, in mode m.
func checkZeebo(t *testing.T, what string, m hashMode, h *Hasher, n int) {
	t.Helper()
	z := newRefHasher(t, m, resetSpareKey, vectorContext)
	_, _ = z.Write(resetSpareIn[:n])
	got, want := make([]byte, 100), make([]byte, 100)
	_, _ = h.Digest().Read(got)
	_, _ = z.Digest().Read(want)
	if !bytes.Equal(h.Sum(nil), z.Sum(nil)) || !bytes.Equal(got, want) {
		t.Fatalf("%s, %s, %d bytes: not zeebo's hash", m, what, n)
	}
}

// TestResetSpare: on the Go path, Reset keeps zeebo's hasher aside
// (spare), and a Hasher with a spare, or reset reuseAfter times after more
// than a chunk, is reused: it gathers up to a chunk, as a new one does,
// and hands a write past a chunk to zeebo's hasher at once, the spare,
// never a second one, or one made then and kept from there on. Before
// reuseAfter Resets, without a spare, a Hasher goes on as a new one
// (goFront), and a Hasher reset after a chunk or less never counts. Every
// Sum and Digest is zeebo's, in every mode, for inputs written whole and
// in 64-byte pieces; a reused Hasher's Reset, Write and Sum allocates
// nothing; a Clone is a new Hasher (no spare, not reused); and a copy by
// value that shares the spare panics once the other has written, and may
// be used again after a Reset.
func TestResetSpare(t *testing.T) {
	in := resetSpareIn
	withGoBackend(func() {
		for _, m := range allHashModes {
			small := newModeHasher(t, m, resetSpareKey, vectorContext)
			for range 2 * int(reuseAfter) {
				_, _ = small.Write(in[:chunkLen])
				small.Reset()
			}
			_, _ = small.Write(in[:pastFirst])
			if small.reused || small.reuses != 0 || small.front == 0 || small.g != nil {
				t.Fatalf("%s: reset after a chunk: reused %v (%d), front %d, zeebo's hasher %v; want goFront's", m, small.reused, small.reuses, small.front, small.g != nil)
			}
			checkZeebo(t, "reset after a chunk", m, small, pastFirst)

			h := newModeHasher(t, m, resetSpareKey, vectorContext)
			for i := 1; i <= int(reuseAfter); i++ {
				_, _ = h.Write(in[:pastFirst]) // goFront: no zeebo hasher
				if h.g != nil || h.front == 0 {
					t.Fatalf("%s, use %d: not goFront's", m, i)
				}
				checkZeebo(t, "goFront", m, h, pastFirst)
				h.Reset()
				if h.reused != (i == int(reuseAfter)) || h.spare != nil {
					t.Fatalf("%s, Reset %d: reused %v, spare %v", m, i, h.reused, h.spare != nil)
				}
			}
			_, _ = h.Write(in[:3000])
			if h.g == nil {
				t.Fatalf("%s: reused, a write past a chunk not in zeebo's hasher", m)
			}
			checkZeebo(t, "reused", m, h, 3000)
			spare := h.g
			for _, n := range []int{0, 1, 64, 65, chunkLen, chunkLen + 1, 3000, firstLen, firstLen + 1, 20 << 10} {
				for _, piece := range []int{n, 64} {
					h.Reset()
					if h.g != nil || h.spare != spare || !h.reused {
						t.Fatalf("%s: Reset did not keep zeebo's hasher as the spare", m)
					}
					writeSplit(h, in[:n], max(piece, 1))
					if n > chunkLen && h.g != spare || n <= chunkLen && (h.g != nil || h.spare != spare) {
						t.Fatalf("%s, %d bytes in pieces of %d: zeebo's hasher %p, spare %p; the spare was %p", m, n, piece, h.g, h.spare, spare)
					}
					checkZeebo(t, "reused", m, h, n)
				}
			}

			// A Hasher that used zeebo's hasher (a write past goFront's
			// last chunk) is reused at its first Reset: it has a spare.
			s := newModeHasher(t, m, resetSpareKey, vectorContext)
			_, _ = s.Write(in[:pastFirst])
			_, _ = s.Write(in[pastFirst : 2*pastFirst])
			s.Reset()
			if !s.reused || s.spare == nil || s.reuses != 1 {
				t.Fatalf("%s: Reset after zeebo's hasher: reused %v, spare %v, %d Resets counted", m, s.reused, s.spare != nil, s.reuses)
			}
			_, _ = s.Write(in[:2000])
			checkZeebo(t, "reused with a spare", m, s, 2000)

			if !raceEnabled {
				// The fewest of three counts, once the backend's plan,
				// measured in the background, is done: AllocsPerRun counts
				// the process's allocations, and another goroutine may be
				// running (a CI run on a loaded machine counted 1.0).
				waitPlan()
				sum := make([]byte, 0, 32)
				a := math.Inf(1)
				for range 3 {
					a = min(a, testing.AllocsPerRun(20, func() {
						h.Reset()
						_, _ = h.Write(in[:firstLen])
						sum = h.Sum(sum[:0])
					}))
				}
				if a != 0 {
					t.Errorf("%s: a reused Hasher's Reset, Write and Sum of %d bytes: %.1f allocations", m, firstLen, a)
				}
			}

			// A Clone is a new Hasher: no spare, not reused; it and its
			// original hash apart.
			h.Reset()
			cl := h.Clone()
			if cl.spare != nil || cl.reused || cl.reuses != 0 {
				t.Fatalf("%s: a Clone of a reused Hasher: spare %v, reused %v, %d Resets counted", m, cl.spare != nil, cl.reused, cl.reuses)
			}
			_, _ = cl.Write(in[:3000])
			_, _ = h.Write(in[:pastFirst])
			checkZeebo(t, "a Clone", m, cl, 3000)
			checkZeebo(t, "the Clone's original", m, h, pastFirst)

			// A copy by value shares the spare: the first to write past a
			// chunk takes it and leaves the other to panic, until its
			// Reset lets go.
			h.Reset()
			c := *h
			_, _ = h.Write(in[:3000])
			panicsWith(t, m.String()+": a copy by value after the other took the spare", "copy by value", func() { _, _ = c.Write(in[:3000]) })
			c.Reset()
			if c.spare != nil || c.g != nil {
				t.Fatalf("%s: a stale copy's Reset kept the shared hasher", m)
			}
			_, _ = c.Write(in[:3000])
			checkZeebo(t, "a stale copy, reset", m, &c, 3000)
			checkZeebo(t, "the copy's original", m, h, 3000)
		}
	})
}

// readsToMove writes 900 bytes to h, a reused Hasher with a spare, then
// a byte after each of ten Sums, so that its next read moves what it
// gathered to zeebo's hasher (reread), and returns the length written.
func readsToMove(h *Hasher) int {
	in := resetSpareIn
	_, _ = h.Write(in[:900])
	n := 900
	for range 10 {
		h.Sum(nil)
		_, _ = h.Write(in[n : n+1])
		n++
	}
	return n
}

// reusedWithSpare is a Hasher in mode m that used zeebo's hasher, reset:
// its spare kept.
func reusedWithSpare(t *testing.T, m hashMode) *Hasher {
	h := newModeHasher(t, m, resetSpareKey, vectorContext)
	_, _ = h.Write(resetSpareIn[:pastFirst])
	_, _ = h.Write(resetSpareIn[:pastFirst])
	h.Reset()
	if h.spare == nil {
		t.Fatalf("%s: no spare", m)
	}
	return h
}

// TestResetSpareReadCopies: copies by value of a reused Hasher that are
// only read may be read, in either order, and at once: a read that moves
// the input to zeebo's hasher makes one of its own, not the spare they
// share, which only a write (which leaves the other copy behind) takes.
// And the original, written after its copy's read, hashes its input.
func TestResetSpareReadCopies(t *testing.T) {
	withGoBackend(func() {
		for _, m := range allHashModes {
			for _, order := range []string{"copy first", "original first", "copy, then the original writes"} {
				h := reusedWithSpare(t, m)
				n := readsToMove(h)
				c := *h
				switch order {
				case "copy first":
					checkZeebo(t, order+": the copy", m, &c, n)
					checkZeebo(t, order+": the original", m, h, n)
				case "original first":
					checkZeebo(t, order+": the original", m, h, n)
					checkZeebo(t, order+": the copy", m, &c, n)
				default:
					c.Sum(nil)
					_, _ = h.Write(resetSpareIn[n : n+3000])
					checkZeebo(t, order, m, h, n+3000)
				}
				if c.g != nil && c.g == h.g || c.g != nil && c.g == h.spare {
					t.Fatalf("%s, %s: the copy's read took the spare", m, order)
				}
			}
			h := reusedWithSpare(t, m)
			n := readsToMove(h)
			c := *h
			var wg sync.WaitGroup
			for _, x := range []*Hasher{h, &c} {
				wg.Add(1)
				go func() { defer wg.Done(); x.Sum(nil) }()
			}
			wg.Wait()
			checkZeebo(t, "copies read at once", m, h, n)
			checkZeebo(t, "copies read at once", m, &c, n)
		}
	})
}
