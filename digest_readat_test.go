package blake3

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"testing"

	"lukechampine.com/blake3/guts"
)

// A Digest is an io.ReaderAt.
var _ io.ReaderAt = (*Digest)(nil)

// TestOutputParts: a wide read's parts. Fewer than two parts of
// outputPart bytes, a single thread, and a read that wraps past 2^64 give
// none; else as many parts as the threads and the read's length allow, in
// order, of about the same size and none under outputPart less a block,
// each but the first starting on a block's edge, the last ending at the
// read's end.
func TestOutputParts(t *testing.T) {
	for _, c := range []struct {
		pos  uint64
		n, t int
	}{
		{0, 2*outputPart - 1, 8},
		{0, 8 * outputPart, 1},
		{0, 8 * outputPart, 0},
		{math.MaxUint64 - 3*outputPart, 4 * outputPart, 4},
	} {
		if ends := outputParts(c.pos, c.n, c.t, outputPart); ends != nil {
			t.Errorf("pos %d, %d bytes, %d threads: parts %v, want none", c.pos, c.n, c.t, ends)
		}
	}
	for _, c := range []struct {
		pos     uint64
		n, t, k int
	}{
		{0, 2 * outputPart, 2, 2},
		{0, 2 * outputPart, 16, 2},
		{1_000_001, 5*outputPart + 17, 4, 4},
		{63, 3*outputPart + 100, 3, 3},
		{64, 7*outputPart + 1, 16, 7},
		{math.MaxUint64 - 4*outputPart, 4 * outputPart, 4, 4}, // ends at 2^64-1
	} {
		ends := outputParts(c.pos, c.n, c.t, outputPart)
		if len(ends) != c.k || ends[len(ends)-1] != c.n {
			t.Fatalf("pos %d, %d bytes, %d threads: parts ending %v, want %d ending at %d", c.pos, c.n, c.t, ends, c.k, c.n)
		}
		from := 0
		for i, end := range ends {
			if size := end - from; size < outputPart-guts.BlockSize || size > c.n/c.k+guts.BlockSize {
				t.Fatalf("pos %d, %d bytes: part %d of %d bytes (%v)", c.pos, c.n, i, size, ends)
			}
			if i > 0 && (c.pos+uint64(from))%guts.BlockSize != 0 {
				t.Fatalf("pos %d, %d bytes: part %d starts at %d, within a block (%v)", c.pos, c.n, i, c.pos+uint64(from), ends)
			}
			from = end
		}
	}
}

// TestDigestReadAt: ReadAt is the output zeebo reads from its offset,
// from every source of a Digest (a block's node, the input of up to a
// chunk, under the library's plan without zeebo's assembly, a longer
// input's node, a copy of zeebo's Digest where its layout is not known),
// in every mode, from the library and from Go (each way of
// outputs): a read of two parts or more (fetchWide, on several
// goroutines) and one of less than a block, at a block's edge and within
// one, from a new Digest and from one with a block at hand, on all
// threads and on one (SetMaxThreads(1)); it leaves the Digest's position
// and its next Read as they were.
func TestDigestReadAt(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer capThreads(0)()
	defer func() { zeeboRoots = true }()
	key := []byte(vectorKey)
	n := 2*outputPart + 100
	subBackends(t, func(t *testing.T) {
		forEachOutput(t, func(t *testing.T) {
			for _, c := range []struct{ roots, short bool }{{true, false}, {false, false}, {true, true}} {
				roots := c.roots
				zeeboRoots = roots
				if !roots && lib != nil || c.short && lib == nil {
					continue // srcGo is the Go path's, srcShort the native path's
				}
				if c.short {
					// The library's plan, without zeebo's assembly: a
					// Digest of 65 bytes to a chunk holds the input
					// (srcShort), which a fetch turns into a node where
					// Go computes the output (setOutput).
					restore, asm := pinDispatch(), zeeboAsm
					planNow.Store(planAll(implNative))
					zeeboAsm = false
					defer func() { restore(); zeeboAsm = asm }()
				}
				for _, m := range allHashModes {
					for _, size := range []int{10, 100, 5000} {
						in := vectorInput(size)
						h := newModeHasher(t, m, key, vectorContext)
						_, _ = h.Write(in)
						next := refOutput(t, m, key, vectorContext, in, 100, 20)
						for _, off := range []int64{0, 1_000_001} {
							want := refOutput(t, m, key, vectorContext, in, off, n)
							for _, threads := range []int{0, 1} {
								SetMaxThreads(threads)
								for _, k := range []int{n, 1, 40, 0} {
									what := fmt.Sprintf("%v, %d bytes, zeebo's roots %v, the library's plan %v, %d threads: ReadAt(%d bytes, %d)", m, size, roots, c.short, threads, k, off)
									d := h.Digest()
									if short := size == 100 && c.short; short != (d.src == srcShort) {
										t.Fatalf("%s: a Digest from source %d; want the input (%d): %v", what, d.src, srcShort, short)
									}
									_, _ = d.Seek(100, io.SeekStart) // in the second block
									got := make([]byte, 20)
									_, _ = d.Read(got[:5]) // a block at hand
									got = make([]byte, k)
									if r, err := d.ReadAt(got, off); r != k || err != nil || !bytes.Equal(got, want[:k]) {
										t.Fatalf("%s: %d, %v, %s; want %s", what, r, err, shortHex(got), shortHex(want[:k]))
									}
									got = make([]byte, 15)
									if d.x.Pos != 105 {
										t.Fatalf("%s: position %d after it, want 105", what, d.x.Pos)
									}
									if _, _ = d.Read(got); !bytes.Equal(got, next[5:]) {
										t.Fatalf("%s: the Read after it: %x, want %x", what, got, next[5:])
									}
								}
							}
						}
					}
				}
			}
		})
	})
}

// TestDigestReadAtErrors: ReadAt refuses a negative offset, and returns the
// errors Read does: from a Digest with no output (a subtree's, the zero
// Digest), and past 2^63 bytes from a copy of zeebo's Digest, where its
// layout is not known; up to 2^63 it reads that copy's output.
func TestDigestReadAtErrors(t *testing.T) {
	h := New()
	_, _ = h.Write([]byte("abc"))
	p := make([]byte, 8)
	if k, err := h.Digest().ReadAt(p, -1); k != 0 || err == nil {
		t.Errorf("ReadAt at -1: %d, %v; want an error", k, err)
	}
	var zero Digest
	_, want := zero.Read(p)
	if k, err := zero.ReadAt(p, 0); k != 0 || err == nil || err.Error() != want.Error() {
		t.Errorf("the zero Digest's ReadAt: %d, %v; want Read's %v", k, err, want)
	}
	s := New()
	if err := s.SetInputOffset(1 << 20); err != nil {
		t.Fatal(err)
	}
	_, _ = s.Write([]byte("abc"))
	if k, err := s.Digest().ReadAt(p, 0); k != 0 || !errors.Is(err, ErrRootWithOffset) {
		t.Errorf("a subtree's Digest's ReadAt: %d, %v; want %v", k, err, ErrRootWithOffset)
	}
	defer func() { zeeboRoots = true }()
	zeeboRoots = false
	withGoBackend(func() {
		in := vectorInput(5000)
		h := New()
		_, _ = h.Write(in)
		d := h.Digest()
		if d.src != srcGo {
			t.Fatalf("a Digest from source %d, not zeebo's", d.src)
		}
		want := refOutput(t, hashModePlain, nil, "", in, math.MaxInt64-7, 8)
		if k, err := d.ReadAt(p, math.MaxInt64-7); k != 8 || err != nil || !bytes.Equal(p, want) {
			t.Errorf("zeebo's Digest, the 8 bytes before 2^63: %d, %v, %x; want %x", k, err, p, want)
		}
		if k, err := d.ReadAt(p, math.MaxInt64-6); k != 0 || err == nil {
			t.Errorf("zeebo's Digest, 8 bytes across 2^63: %d, %v; want an error", k, err)
		}
	})
}

// TestDigestReadAtConcurrent: ReadAt calls on one Digest at once, on
// several goroutines, each wide, read the output, from a Digest that
// holds its input, which each fetch turns into a node (under the race
// detector, where CI runs it: they share nothing they write).
func TestDigestReadAtConcurrent(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer capThreads(0)()
	in := vectorInput(100)
	h := New()
	_, _ = h.Write(in)
	if lib != nil {
		// The input in the Digest (srcShort), as TestDigestReadAt has it,
		// and the output in Go: each part's fetch makes a node of its
		// copy.
		defer pinDispatch()()
		defer setOutput(1)()
		asm := zeeboAsm
		defer func() { zeeboAsm = asm }()
		planNow.Store(planAll(implNative))
		zeeboAsm = false
	}
	d := h.Digest()
	if lib != nil && d.src != srcShort {
		t.Fatalf("a Digest from source %d; want the input (%d)", d.src, srcShort)
	}
	n := 2 * outputPart
	var wg sync.WaitGroup
	for i := range 4 {
		off := int64(i) * 12345
		want := refOutput(t, hashModePlain, nil, "", in, off, n)
		wg.Go(func() {
			got := make([]byte, n)
			if _, err := d.ReadAt(got, off); err != nil || !bytes.Equal(got, want) {
				t.Errorf("ReadAt at %d, at once with others: %v, %s", off, err, shortHex(got))
			}
		})
	}
	wg.Wait()
}

// TestDigestReadAtPanic: a wide ReadAt whose parts panic (the library
// refuses the call: an internal error) panics on the caller's goroutine,
// once every part has returned, not on a part's, which would end the
// process; the Digest is as it was, and once the call is right again, the
// read is the output.
func TestDigestReadAtPanic(t *testing.T) {
	if lib == nil {
		t.Skip("native backend not active")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	defer capThreads(0)()
	const refused = "internal error" // must's panic
	in := vectorInput(100)
	n := 3 * outputPart
	want := refOutput(t, hashModePlain, nil, "", in, 0, n)
	defer setOutput(0)() // the library computes the output
	d := Digest{src: srcShort, mode: 99}
	d.x.CV = guts.IV
	d.holdInput(in)
	got := make([]byte, n)
	if ends := outputParts(0, n, threads(), outputPart); len(ends) < 2 {
		t.Fatalf("parts %v: the read is not wide, which this test is for", ends)
	}
	panicsWith(t, "a wide read in a mode the library refuses", refused, func() { _, _ = d.ReadAt(got, 0) })
	if d.src != srcShort || d.x.Pos != 0 {
		t.Fatalf("source %d, position %d after a read that panicked; want %d, 0", d.src, d.x.Pos, srcShort)
	}
	d.mode = uint8(modeHash)
	if _, err := d.ReadAt(got, 0); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("after a recovered panic: %s, %v; want %s", shortHex(got), err, shortHex(want))
	}
}
