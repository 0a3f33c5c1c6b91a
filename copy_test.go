package blake3

import (
	"bytes"
	"fmt"
	"testing"

	zeebo "github.com/zeebo/blake3"
)

// copied is what a Hasher that shares its state with a copy by value of it
// panics with.
const copied = "copy by value"

// TestCopyByValue: a Hasher keeps its input on the heap, which a copy by
// value (h2 := *h) shares with the Hasher it was copied from. Once one of
// the two is written to, the other panics at every use but Reset, at any
// input length and on both backends, and the one written to goes on as if
// there were no copy, a stream in small pieces too (Write's fast paths);
// reads (Sum) change nothing; a copy taken before any input is
// independent, but not one of a Clone or a restored Hasher taken
// before their first write; Reset makes a Hasher that panics usable again.
// Each result is checked against zeebo.
func TestCopyByValue(t *testing.T) {
	in := vectorInput(3*bufSize + 5)
	sum := func(p ...[]byte) []byte {
		s := zeebo.Sum256(bytes.Join(p, nil))
		return s[:]
	}
	// uses are what must panic on a Hasher whose state changed under it.
	uses := func(t *testing.T, what string, h *Hasher) {
		t.Helper()
		for name, use := range map[string]func(){
			"Write":           func() { _, _ = h.Write(in[:1]) },
			"Write (large)":   func() { _, _ = h.Write(in[:2*bufSize]) },
			"WriteString":     func() { _, _ = h.WriteString("a") },
			"Sum":             func() { h.Sum(nil) },
			"Digest":          func() { h.Digest() },
			"Clone":           func() { h.Clone() },
			"MarshalBinary":   func() { _, _ = h.MarshalBinary() },
			"ReadFrom":        func() { _, _ = h.ReadFrom(bytes.NewReader(in[:10])) },
			"SetInputOffset":  func() { _ = h.SetInputOffset(0) },
			"Err":             func() { _ = h.Err() },
			"FinalizeNonRoot": func() { _, _ = h.FinalizeNonRoot() },
		} {
			panicsWith(t, name+" on "+what, copied, use)
		}
	}
	subBackends(t, func(t *testing.T) {
		for _, n := range []int{1, 64, chunkLen, chunkLen + 1, firstLen, firstLen + 1, bufSize, bufSize + 1, 3*bufSize + 5} {
			x, y := in[:n], in[n/2:]

			// Before any input: independent.
			h := New()
			h2 := *h
			_, _ = h.Write(x)
			_, _ = h2.Write(y)
			if !bytes.Equal(h.Sum(nil), sum(x)) || !bytes.Equal(h2.Sum(nil), sum(y)) {
				t.Fatalf("%d bytes: a copy taken before any input is not independent", n)
			}

			// A Clone of a Hasher written to, and a Hasher restored from
			// its state, have heap state before their first write: a copy
			// of either shares it, as a copy after a write does.
			var restored Hasher
			if state, err := h.MarshalBinary(); err != nil || restored.UnmarshalBinary(state) != nil {
				t.Fatalf("%d bytes: the state does not save and restore: %v", n, err)
			}
			for _, c := range []struct {
				what string
				h    *Hasher
			}{{"a Clone", h.Clone()}, {"a restored Hasher", &restored}} {
				c2 := *c.h
				_, _ = c.h.Write(y)
				if !bytes.Equal(c.h.Sum(nil), sum(x, y)) {
					t.Fatalf("%d bytes: %s written to after a copy of it gives another hash", n, c.what)
				}
				uses(t, fmt.Sprintf("a copy of %s of %d bytes, the copy taken before its first write", c.what, n), &c2)
			}

			// After it, reads of both change nothing; the first written to
			// goes on, the other panics; Reset makes it new. The input in
			// one write, and in two (split), after which the Go path holds
			// a long one in zeebo's hasher, where Write has a fast path.
			for _, c := range []struct{ copyFirst, split bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
				copyFirst := c.copyFirst
				h := New()
				if c.split {
					_, _ = h.Write(x[:n/2])
					_, _ = h.Write(x[n/2:])
				} else {
					_, _ = h.Write(x)
				}
				h2 := *h
				if !bytes.Equal(h2.Sum(nil), sum(x)) || !bytes.Equal(h.Sum(nil), sum(x)) {
					t.Fatalf("%d bytes: a copy, or its original, read before any write gives another hash", n)
				}
				on, other := h, &h2
				if copyFirst {
					on, other = &h2, h
				}
				_, _ = on.Write(y)
				uses(t, fmt.Sprintf("a Hasher of %d bytes (in two writes: %v) whose copy was written to (the copy first: %v)", n, c.split, copyFirst), other)
				if !bytes.Equal(on.Sum(nil), sum(x, y)) {
					t.Fatalf("%d bytes: the Hasher written to after the copy lost input", n)
				}
				other.Reset()
				_, _ = other.Write(y)
				if !bytes.Equal(other.Sum(nil), sum(y)) || !bytes.Equal(on.Sum(nil), sum(x, y)) {
					t.Fatalf("%d bytes: a Hasher reset after its copy went on is not new, or not independent", n)
				}
			}
		}

		// A stream in small pieces, which Write's fast paths take without a
		// look but at the count of changes: gathered in first after a
		// hand-over (flim), in the buffer past halfUntil (lim), on the Go
		// path in zeebo's hasher (gw).
		long := vectorInput(halfUntil + firstLen + 100)
		for _, n := range []int{firstLen + 100, halfUntil + firstLen + 100} {
			h := New()
			writeSplit(h, long[:n], 64)
			if lib != nil && (h.flim == 0) != (n > halfUntil) || lib != nil && (h.lim == 0) != (n < halfUntil) {
				t.Fatalf("a stream of %d bytes: flim %d, lim %d, want the fast path into first below halfUntil, into the buffer past it", n, h.flim, h.lim)
			}
			h2 := *h
			_, _ = h.Write(long[:1])
			uses(t, fmt.Sprintf("a stream of %d bytes in pieces whose copy was written to", n), &h2)
			if !bytes.Equal(h.Sum(nil), sum(long[:n], long[:1])) {
				t.Fatalf("a stream of %d bytes: the Hasher written to after the copy lost input", n)
			}
		}

		// The keyed modes, whose Digest of a block or less reads the key
		// (or, on the Go path, the context) where it is.
		keyed := func() *Hasher { h, _ := NewKeyed(in[:32]); return h }
		derive := func() *Hasher { return NewDeriveKey("context") }
		for mode, newHasher := range map[string]func() *Hasher{"keyed": keyed, "derive-key": derive} {
			for _, n := range []int{1, 64} {
				h := newHasher()
				_, _ = h.Write(in[:n])
				h2 := *h
				_, _ = h.Write(in[:1])
				uses(t, fmt.Sprintf("a %s Hasher of %d bytes whose copy was written to", mode, n), &h2)
			}
		}

		// A copy of a Clone, or of a Hasher resumed from a saved state, which
		// hold their state on the heap as well.
		for _, n := range []int{5, 3*bufSize + 5} {
			h := New()
			_, _ = h.Write(in[:n])
			c := h.Clone()
			c2 := *c
			_, _ = c.Write(in[:1])
			panicsWith(t, fmt.Sprintf("a copy of a Clone of %d bytes", n), copied, func() { c2.Sum(nil) })
			state, err := h.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var r Hasher
			if err := r.UnmarshalBinary(state); err != nil {
				t.Logf("%d bytes: no resume on this path: %v", n, err)
				continue
			}
			r2 := r
			_, _ = r.Write(in[:1])
			panicsWith(t, fmt.Sprintf("a copy of a Hasher resumed at %d bytes", n), copied, func() { r2.Sum(nil) })
			if !bytes.Equal(r.Sum(nil), sum(in[:n], in[:1])) || !bytes.Equal(c.Sum(nil), sum(in[:n], in[:1])) {
				t.Fatalf("%d bytes: the Clone or the resumed Hasher lost input", n)
			}
		}

		// A Hasher restored from an earlier copy of itself (*h = saved) goes
		// on from there if nothing but reads came between, and panics if
		// anything was written, even a byte, or if it was reset; so do two
		// saves restored out of order.
		h := New()
		_, _ = h.Write(in[:100])
		saved := *h
		h.Sum(nil)
		*h = saved
		_, _ = h.Write(in[200:300])
		if !bytes.Equal(h.Sum(nil), sum(in[:100], in[200:300])) {
			t.Fatal("a Hasher restored from its copy, with only a Sum between, gives another hash")
		}
		for what, change := range map[string]func(){
			"a byte written":  func() { _, _ = h.Write(in[:1]) },
			"input handed on": func() { _, _ = h.Write(in[:3*bufSize]) },
			"Reset":           func() { h.Reset() },
		} {
			// Input held in the Hasher, and more, in two writes, in a
			// buffer on the heap (where a small write takes Write's fast
			// path).
			for _, n := range []int{100, 2000, 2 * firstLen} {
				h.Reset()
				_, _ = h.Write(in[:n/2])
				_, _ = h.Write(in[n/2 : n])
				saved = *h
				change()
				*h = saved
				uses(t, fmt.Sprintf("a Hasher of %d bytes restored after %s", n, what), h)
				h.Reset()
				_, _ = h.Write(in[:5])
				if !bytes.Equal(h.Sum(nil), sum(in[:5])) {
					t.Fatalf("after %s: Reset does not make a restored Hasher new", what)
				}
			}
		}

		// Two saves: the earlier one restored panics, and does nothing to
		// the later one, nor does its Reset.
		h.Reset()
		_, _ = h.Write(in[:100])
		a := *h
		_, _ = h.Write(in[100:150])
		b := *h
		*h = a
		panicsWith(t, "the earlier of two saves, restored and written to", copied, func() { _, _ = h.Write(in[1000:1050]) })
		h.Reset()
		_, _ = h.Write(in[2000:2010])
		if !bytes.Equal(h.Sum(nil), sum(in[2000:2010])) {
			t.Fatal("the earlier of two saves, restored and reset, is not new")
		}
		*h = b
		if !bytes.Equal(h.Sum(nil), sum(in[:150])) {
			t.Fatal("the later of two saves lost input to the earlier one")
		}
	})
}

// TestCopyByValueAppend: a slice of Hashers that append grows copies them
// by value: an element used after that panics if the one it was copied
// from, in the old array, was written to since, and goes on otherwise.
func TestCopyByValueAppend(t *testing.T) {
	hs := make([]Hasher, 1) // full: the next append copies it
	_, _ = hs[0].Write([]byte("abc"))
	old := &hs[0]
	hs = append(hs, Hasher{})
	_, _ = hs[0].Write([]byte("def"))
	if want := zeebo.Sum256([]byte("abcdef")); !bytes.Equal(hs[0].Sum(nil), want[:]) {
		t.Fatal("a Hasher moved by append lost input")
	}
	panicsWith(t, "the Hasher append moved, in the old array", copied, func() { old.Sum(nil) })
}
