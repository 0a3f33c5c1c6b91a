package blake3

import (
	"bytes"
	"testing"
)

// TestResetSpare: on the Go path, a Hasher reset after more than a chunk
// (reused) gathers up to a chunk after it, as a new one does, and hands a
// write past a chunk to zeebo's hasher at once: the one Reset kept from
// the use before (spare), never a second one, or, after a use that had
// none (goFront's), one made then and kept from there on. A Hasher reset
// after a chunk or less is not reused. Every Sum and Digest is zeebo's, in
// every mode, for inputs written whole and in 64-byte pieces; a reused
// Hasher's Reset, Write and Sum allocates nothing; a Clone has a spare
// of its own to make; and a copy by value
// that shares the spare panics once the other has taken it, as for any
// state copies share, and may be used again after a Reset.
func TestResetSpare(t *testing.T) {
	in := vectorInput(20 << 10)
	key := []byte(vectorKey)
	withGoBackend(func() {
		for _, m := range allHashModes {
			check := func(what string, h *Hasher, n int) {
				t.Helper()
				z := newRefHasher(t, m, key, vectorContext)
				_, _ = z.Write(in[:n])
				got, want := make([]byte, 100), make([]byte, 100)
				_, _ = h.Digest().Read(got)
				_, _ = z.Digest().Read(want)
				if !bytes.Equal(h.Sum(nil), z.Sum(nil)) || !bytes.Equal(got, want) {
					t.Fatalf("%s, %s, %d bytes: not zeebo's hash", m, what, n)
				}
			}

			small := newModeHasher(t, m, key, vectorContext)
			_, _ = small.Write(in[:chunkLen])
			small.Reset()
			_, _ = small.Write(in[:5000])
			if small.reused || small.front == 0 || small.g != nil {
				t.Fatalf("%s: reset after a chunk: reused %v, front %d, zeebo's hasher %v; want goFront's", m, small.reused, small.front, small.g != nil)
			}
			check("reset after a chunk", small, 5000)

			h := newModeHasher(t, m, key, vectorContext)
			_, _ = h.Write(in[:5000]) // goFront: no zeebo hasher
			if h.g != nil {
				t.Fatalf("%s: zeebo's hasher after a first write", m)
			}
			h.Reset()
			if !h.reused || h.g != nil || h.spare != nil {
				t.Fatalf("%s: reset after goFront: reused %v, zeebo's hasher %v, spare %v", m, h.reused, h.g != nil, h.spare != nil)
			}
			_, _ = h.Write(in[:3000])
			if h.g == nil {
				t.Fatalf("%s: reused, a write past a chunk not in zeebo's hasher", m)
			}
			check("reused, after goFront", h, 3000)
			spare := h.g
			for _, n := range []int{0, 1, 64, 65, chunkLen, chunkLen + 1, 3000, firstLen, firstLen + 1, 20 << 10} {
				for _, piece := range []int{n, 64} {
					h.Reset()
					if h.g != nil || h.spare != spare {
						t.Fatalf("%s: Reset did not keep zeebo's hasher as the spare", m)
					}
					writeSplit(h, in[:n], max(piece, 1))
					if n > chunkLen && h.g != spare || n <= chunkLen && (h.g != nil || h.spare != spare) {
						t.Fatalf("%s, %d bytes in pieces of %d: zeebo's hasher %p, spare %p; the spare was %p", m, n, piece, h.g, h.spare, spare)
					}
					check("reused", h, n)
				}
			}

			if !raceEnabled {
				sum := make([]byte, 0, 32)
				if a := testing.AllocsPerRun(20, func() {
					h.Reset()
					_, _ = h.Write(in[:firstLen])
					sum = h.Sum(sum[:0])
				}); a != 0 {
					t.Errorf("%s: a reused Hasher's Reset, Write and Sum of 4 KiB: %.1f allocations", m, a)
				}
			}

			// A Clone has no spare of its own: it and its original hash
			// apart.
			h.Reset()
			cl := h.Clone()
			_, _ = cl.Write(in[:3000])
			_, _ = h.Write(in[:5000])
			check("a Clone", cl, 3000)
			check("the Clone's original", h, 5000)

			// A copy by value shares the spare: the first to take it
			// leaves the other to panic, until its Reset lets go.
			h.Reset()
			c := *h
			_, _ = h.Write(in[:3000])
			panicsWith(t, m.String()+": a copy by value after the other took the spare", "copy by value", func() { _, _ = c.Write(in[:3000]) })
			c.Reset()
			if c.spare != nil || c.g != nil {
				t.Fatalf("%s: a stale copy's Reset kept the shared hasher", m)
			}
			_, _ = c.Write(in[:3000])
			check("a stale copy, reset", &c, 3000)
			check("the copy's original", h, 3000)
		}
	})
}
