// The Hasher: its API on bad and edge input, its batching, and concurrent
// use of independent hashers.

package blake3

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/purego-blake3/blake3/internal/ffi"
	"github.com/purego-blake3/blake3/internal/gctest"
	zeebo "github.com/zeebo/blake3"
)

// badNoPanic runs f and fails the test, naming what, if it panics.
func badNoPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s panicked: %v", what, r)
		}
	}()
	f()
}

// badSizes are input lengths on both sides of each native dispatch size: a
// hasher of a small one gives a Go digest, of a large one a native digest.
var badSizes = []int{0, 1, chunkLen - 1, chunkLen, bufSize, bufSize + 1, parallelMin + 5}

func TestBadInputKeyLengths(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		for _, key := range [][]byte{nil, {}, make([]byte, 1), make([]byte, 31), make([]byte, 33), make([]byte, 64)} {
			badNoPanic(t, fmt.Sprintf("NewKeyed(%d bytes)", len(key)), func() {
				h, err := NewKeyed(key)
				if err == nil || h != nil {
					t.Errorf("NewKeyed(%d bytes) = %v, %v; want nil and an error", len(key), h, err)
					return
				}
				if !strings.Contains(err.Error(), "key") {
					t.Errorf("NewKeyed(%d bytes): error %q does not mention the key", len(key), err)
				}
			})
		}
		// The key is copied: changing the caller's slice afterwards changes
		// nothing.
		key := make([]byte, 32)
		copy(key, vectorKey)
		h, err := NewKeyed(key)
		if err != nil {
			t.Fatal(err)
		}
		key[0] ^= 1
		_, _ = h.Write(vectorInput(bufSize + 7))
		if got, want := h.Sum(nil), refOutput(t, hashModeKeyed, []byte(vectorKey), "", vectorInput(bufSize+7), 0, 32); !bytes.Equal(got, want) {
			t.Errorf("keyed hash after the caller changed its key slice: %s, want %s", shortHex(got), shortHex(want))
		}
	})
}

func TestBadInputNilAndEmpty(t *testing.T) {
	empty := mustHexBytes(t, emptyHash)
	forEachBackend(t, func(t *testing.T) {
		for _, m := range allHashModes {
			key := []byte(vectorKey)
			want := refOutput(t, m, key, vectorContext, nil, 0, 32)
			badNoPanic(t, m.String()+" nil writes", func() {
				h := newModeHasher(t, m, key, vectorContext)
				if n, err := h.Write(nil); n != 0 || err != nil {
					t.Errorf("%s: Write(nil) = %d, %v", m, n, err)
				}
				if n, err := h.Write([]byte{}); n != 0 || err != nil {
					t.Errorf("%s: Write([]byte{}) = %d, %v", m, n, err)
				}
				if n, err := h.WriteString(""); n != 0 || err != nil {
					t.Errorf("%s: WriteString(\"\") = %d, %v", m, n, err)
				}
				if got := h.Sum(nil); !bytes.Equal(got, want) {
					t.Errorf("%s: Sum(nil) after empty writes = %s, want %s", m, shortHex(got), shortHex(want))
				}
				// Sum appends to its argument, whatever its capacity.
				if got := h.Sum([]byte{}); !bytes.Equal(got, want) {
					t.Errorf("%s: Sum([]byte{}) = %s", m, shortHex(got))
				}
				prefix := make([]byte, 3, 100)
				prefix[0] = 0xAA
				if got := h.Sum(prefix); len(got) != 35 || got[0] != 0xAA || !bytes.Equal(got[3:], want) {
					t.Errorf("%s: Sum(3-byte prefix, cap 100) = %x", m, got)
				}
				// Digest reads of nil and empty slices read nothing and do
				// not move the position.
				d := h.Digest()
				for _, p := range [][]byte{nil, {}} {
					if n, err := d.Read(p); n != 0 || err != nil {
						t.Errorf("%s: Digest.Read(%v) = %d, %v", m, p, n, err)
					}
				}
				got := make([]byte, 32)
				_, _ = d.Read(got)
				if !bytes.Equal(got, want) {
					t.Errorf("%s: Digest after empty reads = %s, want %s", m, shortHex(got), shortHex(want))
				}
			})
			// The same on the native path, after a large write.
			badNoPanic(t, m.String()+" nil writes, large", func() {
				data := vectorInput(bufSize + 1)
				h := newModeHasher(t, m, key, vectorContext)
				_, _ = h.Write(data)
				_, _ = h.Write(nil)
				_, _ = h.WriteString("")
				d := h.Digest()
				_, _ = d.Seek(9, io.SeekStart)
				_, _ = d.Read(nil)
				got := make([]byte, 33)
				_, _ = d.Read(got)
				if w := refOutput(t, m, key, vectorContext, data, 9, 33); !bytes.Equal(got, w) {
					t.Errorf("%s: large, after empty writes and reads: %s, want %s", m, shortHex(got), shortHex(w))
				}
			})
		}
		badNoPanic(t, "Sum256/Sum512 of nil", func() {
			for _, in := range [][]byte{nil, {}} {
				if s := Sum256(in); !bytes.Equal(s[:], empty) {
					t.Errorf("Sum256(%v) = %x", in, s)
				}
				if s := Sum512(in); !bytes.Equal(s[:32], empty) || s != zeebo.Sum512(nil) {
					t.Errorf("Sum512(%v) = %x", in, s)
				}
			}
		})
		badNoPanic(t, "DeriveKey with nil and empty", func() {
			for _, ctx := range []string{"", vectorContext, "bad \xff context"} {
				for _, material := range [][]byte{nil, {}, vectorInput(5)} {
					for _, n := range []int{-1, 0, 1, 32, 131} { // -1: a nil out
						var got, want []byte
						if n >= 0 {
							got, want = make([]byte, n), make([]byte, n)
						}
						DeriveKey(ctx, material, got)
						zeebo.DeriveKey(ctx, material, want)
						if !bytes.Equal(got, want) {
							t.Errorf("DeriveKey(%q, %d bytes, out %d) = %x, want %x", ctx, len(material), n, got, want)
						}
					}
				}
				h := NewDeriveKey(ctx)
				_, _ = h.Write(nil)
				if got, want := h.Sum(nil), refOutput(t, hashModeDerive, nil, ctx, nil, 0, 32); !bytes.Equal(got, want) {
					t.Errorf("NewDeriveKey(%q) of nothing = %x, want %x", ctx, got, want)
				}
			}
		})
		badNoPanic(t, "SumReaderAt of nothing", func() {
			for _, w := range []int{-3, 0, 1, 100} {
				got, err := SumReaderAt(bytes.NewReader(nil), 0, w)
				if err != nil || !bytes.Equal(got[:], empty) {
					t.Errorf("SumReaderAt(empty, 0, %d workers) = %x, %v", w, got, err)
				}
			}
			for _, size := range []int64{-1, math.MinInt64} {
				if _, err := SumReaderAt(bytes.NewReader(nil), size, 1); err == nil {
					t.Errorf("SumReaderAt(size %d) did not fail", size)
				}
				if d, err := new(Hasher).DigestReaderAt(bytes.NewReader(nil), size, 1); err == nil || d != nil {
					t.Errorf("DigestReaderAt(size %d) = %v, %v", size, d, err)
				}
			}
		})
	})
}

// TestBadInputHasherAfterDigest: Digest (and Sum) take snapshots; the
// hasher goes on, and the snapshots do not change, whatever is written,
// reset or cloned afterwards.
func TestBadInputHasherAfterDigest(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		for _, m := range allHashModes {
			key := []byte(vectorKey)
			for _, n1 := range badSizes {
				for _, n2 := range []int{1, chunkLen, bufSize + 3, parallelMin} {
					all := vectorInput(n1 + n2)
					first, rest := all[:n1], all[n1:]
					h := newModeHasher(t, m, key, vectorContext)
					_, _ = h.Write(first)
					d := h.Digest()
					early := make([]byte, 10)
					_, _ = d.Read(early) // partly read before the hasher goes on
					sum1 := h.Sum(nil)
					_, _ = h.Write(rest)
					d2 := h.Digest()
					late := make([]byte, 100)
					_, _ = d.Read(late)
					got := append(early, late...)
					if want := refOutput(t, m, key, vectorContext, first, 0, 110); !bytes.Equal(got, want) {
						t.Fatalf("%s %d+%d: the first Digest changed after more writes: %s, want %s", m, n1, n2, shortHex(got), shortHex(want))
					}
					if want := refOutput(t, m, key, vectorContext, first, 0, 32); !bytes.Equal(sum1, want) {
						t.Fatalf("%s %d+%d: Sum before more writes: %s, want %s", m, n1, n2, shortHex(sum1), shortHex(want))
					}
					wantAll := refOutput(t, m, key, vectorContext, all, 0, 64)
					if got := h.Sum(nil); !bytes.Equal(got, wantAll[:32]) {
						t.Fatalf("%s %d+%d: Sum after Digest and more writes: %s, want %s", m, n1, n2, shortHex(got), shortHex(wantAll))
					}
					// Reset and rewrite: the old Digests keep their output.
					h.Reset()
					_, _ = h.Write(rest)
					got2 := make([]byte, 64)
					_, _ = d2.Read(got2)
					if !bytes.Equal(got2, wantAll) {
						t.Fatalf("%s %d+%d: second Digest changed after Reset: %s, want %s", m, n1, n2, shortHex(got2), shortHex(wantAll))
					}
					if got, want := h.Sum(nil), refOutput(t, m, key, vectorContext, rest, 0, 32); !bytes.Equal(got, want) {
						t.Fatalf("%s %d+%d: Sum after Reset: %s, want %s", m, n1, n2, shortHex(got), shortHex(want))
					}
				}
			}
		}
	})
}

func TestBadInputZeroValues(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		badNoPanic(t, "zero Digest", func() {
			var d Digest
			for _, p := range [][]byte{make([]byte, 8), nil} {
				if n, err := d.Read(p); err == nil || n != 0 {
					t.Errorf("Digest{}.Read(%d bytes) = %d, %v; want 0 and an error", len(p), n, err)
				}
			}
			if _, err := d.Seek(0, io.SeekEnd); err == nil {
				t.Error("Digest{}.Seek(SeekEnd) did not fail")
			}
			if _, err := d.Seek(-1, io.SeekStart); err == nil {
				t.Error("Digest{}.Seek(-1) did not fail")
			}
			if _, err := new(Digest).Read(make([]byte, 1)); err == nil {
				t.Error("new(Digest).Read did not fail")
			}
		})
		badNoPanic(t, "zero Hasher", func() {
			for _, n := range badSizes {
				data := vectorInput(n)
				want := refOutput(t, hashModePlain, nil, "", data, 0, 64)
				var h Hasher
				_, _ = h.Write(data)
				if got := h.Sum(nil); !bytes.Equal(got, want[:32]) {
					t.Errorf("Hasher{} of %d bytes: %s, want %s", n, shortHex(got), shortHex(want))
				}
				got := make([]byte, 64)
				_, _ = h.Digest().Read(got)
				if !bytes.Equal(got, want) {
					t.Errorf("Hasher{}.Digest of %d bytes: %s", n, shortHex(got))
				}
				var z Hasher
				_, _ = z.WriteString(string(data))
				if got := z.Sum(nil); !bytes.Equal(got, want[:32]) {
					t.Errorf("Hasher{}.WriteString of %d bytes: %s", n, shortHex(got))
				}
			}
			// Each method on a fresh zero value.
			var a, b, c, e Hasher
			if got := a.Sum(nil); hexString(got) != emptyHash {
				t.Errorf("Hasher{}.Sum = %x", got)
			}
			b.Reset()
			_, _ = b.Write([]byte("abc"))
			if got, want := b.Sum(nil), zeebo.Sum256([]byte("abc")); !bytes.Equal(got, want[:]) {
				t.Errorf("Hasher{} after Reset: %x", got)
			}
			cl := c.Clone()
			_, _ = cl.Write([]byte("abc"))
			if hexString(c.Sum(nil)) != emptyHash || !bytes.Equal(cl.Sum(nil), b.Sum(nil)) {
				t.Errorf("Clone of Hasher{}: original %x, clone %x", c.Sum(nil), cl.Sum(nil))
			}
			out := make([]byte, 32)
			_, _ = e.Digest().Read(out)
			if hexString(out) != emptyHash {
				t.Errorf("Hasher{}.Digest = %x", out)
			}
			if e.Err() != nil || e.Size() != 32 || e.BlockSize() != 64 {
				t.Errorf("Hasher{}: Err %v, Size %d, BlockSize %d", e.Err(), e.Size(), e.BlockSize())
			}
		})
	})
}

func hexString(b []byte) string { return fmt.Sprintf("%x", b) }

// TestFirstGroups: on the native path, a new Hasher's stream in small
// pieces gathers in the 8 KiB the Hasher holds (first) and goes to the
// library from there, 8 chunks at a time, up to 64 KiB (halfUntil; both
// written here as the rule's figures), allocating no buffer; past that it
// allocates one of bufSize. Reset of a Hasher whose stream went from
// first makes its next stream allocate one of bufSize at the write past
// first (wide; or after one long write, which left a tree and no buffer),
// which a later Reset keeps; a Reset of one whose input stayed in first
// changes nothing; a Clone, a new Hasher, gathers in first where what it
// copies fits. Every hash is zeebo's.
func TestFirstGroups(t *testing.T) {
	if !nativeActive(t) {
		t.Skip("native backend not active")
	}
	if firstLen != 8<<10 || halfUntil != 64<<10 {
		t.Fatalf("first holds %d bytes and groups of it end at %d, want 8 KiB and 64 KiB", firstLen, halfUntil)
	}
	in := vectorInput(firstLen + 1000)
	long0 := vectorInput(halfUntil + 100)
	check := func(what string, h *Hasher, n, buf int) {
		t.Helper()
		if len(h.buf) != buf {
			t.Errorf("%s: a buffer of %d, want %d", what, len(h.buf), buf)
		}
		if got, want := h.Sum(nil), zeebo.Sum256(in[:n]); !bytes.Equal(got, want[:]) {
			t.Errorf("%s: %x, want %x", what, got, want)
		}
	}
	h := New()
	writeSplit(h, in, 64)
	if !h.live || h.t.Chunks != 8 || h.nbuf != 1000 {
		t.Errorf("a new Hasher's stream of %d bytes: %d chunks handed over, %d gathered, want 8 and 1000", len(in), h.t.Chunks, h.nbuf)
	}
	check("a new Hasher's stream", h, len(in), 0)
	h.Reset()
	if !h.wide {
		t.Error("Reset after a stream that went from first: not wide")
	}
	check("after Reset", h, 0, 0)
	writeSplit(h, in[:firstLen+64], 64)
	c := h.Clone() // at the Hasher's first read, which hands nothing over
	check("its next stream", h, firstLen+64, 16<<10)
	_, _ = c.Write(in[firstLen+64:])
	if c.wide {
		t.Error("a Clone is wide")
	}
	check("its Clone", c, len(in), 16<<10)
	kept := &h.buf[0]
	h.Reset()
	writeSplit(h, in, 64)
	check("the stream after another Reset", h, len(in), 16<<10)
	if &h.buf[0] != kept {
		t.Error("the stream after another Reset: a new buffer, where Reset keeps one of bufSize")
	}
	// A Clone of a stream whose pending input first holds gathers it there.
	h = New()
	writeSplit(h, in[:firstLen+64], 64)
	c = h.Clone()
	_, _ = c.Write(in[firstLen+64:])
	check("a Clone of a new Hasher's stream", c, len(in), 0)
	// A Reset after one write long enough to go from where it was is wide
	// too: the Hasher has a tree and no buffer.
	h = New()
	_, _ = h.Write(long0[:halfUntil+100])
	h.Reset()
	if !h.wide || h.buf != nil {
		t.Errorf("Reset after a write of %d bytes: wide %v, a buffer of %d; want wide and none", halfUntil+100, h.wide, len(h.buf))
	}
	writeSplit(h, in, 64)
	check("a stream after a Reset of a long write", h, len(in), 16<<10)
	// Reset after an input that stayed in first changes nothing.
	h = New()
	_, _ = h.Write(in[:firstLen])
	h.Reset()
	writeSplit(h, in, 64)
	check("a stream after a Reset of first alone", h, len(in), 0)
	// Past 64 KiB, the group of 16 chunks gathers in first until it
	// outgrows it, and then in a buffer of bufSize.
	long := vectorInput(72<<10 + 64)
	h = New()
	writeSplit(h, long[:64<<10], 64)
	if len(h.buf) != 0 || h.t.Chunks != 56 || h.nbuf != 8<<10 {
		t.Errorf("a stream of 64 KiB: a buffer of %d, %d chunks handed over, %d gathered; want none, 56, 8 KiB", len(h.buf), h.t.Chunks, h.nbuf)
	}
	writeSplit(h, long[64<<10:72<<10], 64)
	if len(h.buf) != 0 || h.t.Chunks != 64 || h.nbuf != 8<<10 {
		t.Errorf("a stream of 72 KiB: a buffer of %d, %d chunks handed over, %d gathered; want none, 64, 8 KiB", len(h.buf), h.t.Chunks, h.nbuf)
	}
	writeSplit(h, long[72<<10:], 64)
	if got, want := h.Sum(nil), zeebo.Sum256(long); len(h.buf) != 16<<10 || h.t.Chunks != 64 || !bytes.Equal(got, want[:]) {
		t.Errorf("a stream of 72 KiB + 64 B: a buffer of %d, %d chunks handed over, want %d, 64; %x, want %x", len(h.buf), h.t.Chunks, 16<<10, got, want)
	}
}

// TestBadInputBatching pins the native path's batching, which the output
// alone cannot show: the Go side holds at most bufSize bytes, the input
// after the last group handed over, groups being aligned in the input (of
// bufSize bytes, or the largest power of two that divides the position
// where one starts, if less, and, for input gathered in the input's first
// halfUntil bytes, at most what first holds while there is no buffer, but
// in a Hasher made wide by Reset: room); a write that would overflow its
// group first tops the gathered input up to the end of the group (in a
// buffer of bufSize on the heap, when first cannot hold the group) and
// hands that over, or, with nothing gathered, the whole group from the
// write, then whole groups of bufSize bytes straight from it, keeping the
// last group (1 to bufSize bytes), whole or not. In a write to a Hasher
// that had handed nothing over, without a buffer on the heap (its input
// gathered never outgrew first), a last group that first cannot hold, with
// nothing gathered, is handed over but for its last 1 to firstLen bytes,
// in whole groups of firstLen, or, where the Hasher has no tree on the heap
// and may keep one in itself (Linux), but for its last chunk, whole or not.
// Sum and Digest hand nothing over, but a read after another folds more
// than a chunk gathered in first into the Hasher's front (fold), after
// which writes gather up to what first holds, and a write past it hands
// over what is gathered but its last chunk before the rest.
func TestBadInputBatching(t *testing.T) {
	if !nativeActive(t) {
		t.Skip("native backend not active")
	}
	var handed, buffered, bufLen int // bufLen: the buffer on the heap, 0 before there is one
	var treeless, folded, wide bool
	// grow: the buffer for n bytes gathered, of bufSize, where first
	// does not hold them.
	grow := func(n int) {
		if n > max(bufLen, firstLen) {
			bufLen = bufSize
		}
	}
	keep := func(n int, fresh bool) {
		if fresh && bufLen == 0 && buffered == 0 && n > firstLen {
			k := (n - 1) / firstLen * firstLen
			if treeless && ffi.ArgsStay {
				k = (n - 1) / chunkLen * chunkLen
			}
			handed, n = handed+k, n-k
		}
		buffered += n
		grow(buffered)
	}
	model := func(n int) {
		if folded {
			// After a read's fold, with nothing on the heap: gathered up
			// to what first holds, else lift hands over what is gathered
			// past a chunk (fold) before the tree takes the front.
			if handed+buffered+n <= firstLen {
				buffered += n
				return
			}
			if buffered > chunkLen {
				k := (buffered - 1) / chunkLen * chunkLen
				handed, buffered = handed+k, buffered-k
			}
			folded = false
		}
		fresh := handed == 0
		for {
			room := bufSize
			for handed%room != 0 {
				room /= 2
			}
			if buffered > 0 && handed < halfUntil && !wide {
				// Gathered in the input's first halfUntil bytes: no more
				// than first holds, where there is no buffer.
				room = min(room, max(bufLen, firstLen))
			}
			if buffered+n <= room {
				keep(n, fresh)
				return
			}
			if buffered > 0 {
				// Topped up in the buffer, which grows to the group.
				grow(room)
			}
			n -= room - buffered
			handed, buffered, treeless = handed+room, 0, false
			if room == bufSize {
				break
			}
		}
		whole := (n - 1) / bufSize * bufSize
		handed += whole
		treeless = treeless && whole == 0
		keep(n-whole, fresh)
	}
	rng := newTestRand(testSeed(t))
	pattern := vectorInput(12 * 3 * bufSize)
	edges := []int{0, 1, chunkLen - 1, chunkLen, bufSize - 1, bufSize, bufSize + 1, 2*bufSize - 1, 2 * bufSize, 2*bufSize + 1}
	// Then streams that first gathers, and writes that take them past
	// halfUntil, one whose first buffer is past it, and one after a Reset
	// of a Hasher whose stream went from first (wide: the round after the
	// one before it), each followed by empty writes.
	halves := [][]int{
		{chunkLen, chunkLen, chunkLen, chunkLen, 64, 2*bufSize + 1, halfUntil},
		{firstLen, chunkLen, bufSize, bufSize + 3, 64, halfUntil - 3*bufSize, 64},
		{64, firstLen, 2*firstLen - 64, 1, firstLen - 1, halfUntil + firstLen + 1},
		{chunkLen + 1, firstLen, halfUntil, 5},
		{chunkLen, chunkLen, chunkLen, chunkLen, 64, halfUntil - firstLen - 64, firstLen + 1},
		{halfUntil + bufSize, 64, firstLen, 64}, // the first buffer past halfUntil
		{chunkLen, chunkLen, chunkLen, chunkLen, 64},
		{chunkLen, chunkLen, chunkLen, chunkLen, 64, 2 * firstLen}, // after a Reset of a stream that went from first
		{halfUntil, 64, firstLen, 64},                              // the first buffer at halfUntil
		{chunkLen, chunkLen, chunkLen, chunkLen, 64, halfUntil - firstLen - 64, 64},
	}
	var h *Hasher
	for round := range 200 + len(halves) {
		if round%4 == 3 {
			// The last round's Hasher, reset: it keeps its buffer, if any,
			// and is wide after a stream that went from first.
			if bufLen == 0 && h.live {
				wide = true
			}
			h.Reset()
		} else {
			h, bufLen, wide = New(), 0, false
		}
		folded = false
		total, all := 0, []byte(nil)
		handed, buffered = 0, 0
		for i := range 12 {
			var n int
			switch {
			case round >= 200:
				if seq := halves[round-200]; i < len(seq) {
					n = seq[i]
				}
			case round < len(edges)*len(edges):
				n = edges[(round/len(edges)+i*(round%len(edges)))%len(edges)]
			case i%2 == 0:
				n = edges[rng.IntN(len(edges))]
			case i%4 == 1:
				// Small pieces, which first gathers, and writes that take
				// its group past bufSize.
				n = rng.IntN(2 * chunkLen)
			default:
				n = rng.IntN(3 * bufSize)
			}
			p := pattern[total : total+n]
			treeless = h.t == nil
			if (i+round)%3 == 2 {
				_, _ = h.WriteString(string(p))
			} else {
				_, _ = h.Write(p)
			}
			all = append(all, p...)
			total += n
			model(n)
			got := int(h.front) * chunkLen
			if h.live {
				got = int(h.tchunks) * chunkLen
			}
			if got != handed || h.nbuf != buffered || len(h.buf) != bufLen {
				t.Fatalf("round %d, after writes totalling %d (last %d): %d bytes handed over, %d buffered, a buffer of %d; want %d, %d, %d",
					round, total, n, got, h.nbuf, len(h.buf), handed, buffered, bufLen)
			}
			if i%4 == 3 {
				// Sum and Digest leave the input where it was: gathered,
				// after as many chunks, with the same count of changes.
				// The second of them may hand the tree the whole chunks
				// gathered but the last byte (absorb), which then stay
				// gathered too.
				before, beforeIn := *h, string(h.store()[:h.nbuf])
				sum := h.Sum(nil)
				out := make([]byte, 32)
				_, _ = h.Digest().Read(out)
				absorbed := h.absorbed()
				if before.buf == nil && !before.live && before.front == 0 && len(h.buf) == bufSize {
					// A read after others that hashed what first holds
					// again moved it to a buffer (rereadNative).
					bufLen = bufSize
				}
				if !before.live && h.front != before.front {
					// A read of more than a chunk gathered after a read
					// folds it (fold): the same input, its last chunk
					// gathered after the front, the same count of changes.
					if h.live || int(h.front)*chunkLen+h.nbuf != int(before.front)*chunkLen+before.nbuf || h.nbuf > chunkLen ||
						string(h.store()[:h.nbuf]) != beforeIn[len(beforeIn)-h.nbuf:] || h.ngen != before.ngen {
						t.Fatalf("round %d: a read folded %d bytes gathered after %d chunks into %d after %d", round, before.nbuf, before.front, h.nbuf, h.front)
					}
					handed, buffered, folded = int(h.front)*chunkLen, h.nbuf, true
				} else if h.live && !before.live && h.tchunks != 0 || before.live && h.tchunks != before.tchunks || h.nbuf != before.nbuf ||
					h.front != before.front || h.fcv != before.fcv || string(h.store()[:h.nbuf]) != beforeIn || h.ngen != before.ngen ||
					absorbed%chunkLen != 0 || absorbed > 0 && absorbed >= h.nbuf {
					t.Fatalf("round %d: Sum or Digest changed the hasher's input (absorbed %d of %d bytes gathered)", round, absorbed, h.nbuf)
				}
				if want := zeebo.Sum256(all); !bytes.Equal(sum, want[:]) || !bytes.Equal(out, want[:]) {
					t.Fatalf("round %d: Sum or Digest of %d bytes wrong", round, total)
				}
			}
		}
		if got, want := h.Sum(nil), zeebo.Sum256(all); !bytes.Equal(got, want[:]) {
			t.Fatalf("round %d: Sum of %d bytes wrong", round, total)
		}
	}
}

// TestParallelPool: a hash of parallelMin bytes or more in one piece (a
// one-shot, or a Write's whole groups) runs on the library's pool, which is
// built as wide as the thread cap then in force, itself no wider than
// GOMAXPROCS; below parallelMin, for a thread count other than the one
// measured (TestParallelBelowMin), or with one thread allowed, the pool is
// not asked for. The pool's width is the library's own count.
func TestParallelPool(t *testing.T) {
	if !nativeActive(t) {
		t.Skip("native backend not active")
	}
	// Widths above any GOMAXPROCS other tests run with, so that only the
	// hash under test can have built a pool that wide.
	base := max(2, runtime.GOMAXPROCS(0))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(base + 4))
	defer SetMaxThreads(0)
	// Below parallelMin, no size is measured for these widths: the pool
	// stays as wide as the hash under test made it.
	waitParallel(t)
	SetMaxThreads(base + 9)
	if n := threads(); n != base+4 {
		t.Errorf("SetMaxThreads(%d) with GOMAXPROCS %d: %d threads, want %d", base+9, base+4, n, base+4)
	}
	SetMaxThreads(1)
	if parallel(parallelMin) {
		t.Errorf("SetMaxThreads(1): %d bytes go to the pool", parallelMin)
	}
	in := vectorInput(parallelMin + bufSize + 1)
	for _, c := range []struct {
		threads int
		what    string
		hash    func()
	}{
		{base + 1, "Sum256 of parallelMin bytes", func() { Sum256(in[:parallelMin]) }},
		{base + 2, "a Write whose whole groups are parallelMin bytes", func() { _, _ = New().Write(in) }},
	} {
		SetMaxThreads(c.threads)
		if parallel(parallelMin - 1) {
			t.Errorf("%d bytes go to the pool", parallelMin-1)
		}
		c.hash()
		if got := lib.NumThreads(); got != c.threads {
			t.Errorf("%s with %d threads allowed: the pool has %d", c.what, c.threads, got)
		}
	}
}

func TestNewKeyedKeySize(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		for _, n := range []int{0, 16, 31, 33, 64} {
			if h, err := NewKeyed(make([]byte, n)); err == nil || h != nil {
				t.Errorf("NewKeyed(%d bytes) = %v, %v; want nil and an error", n, h, err)
			}
		}
	})
}

func TestHasherSizes(t *testing.T) {
	var h Hasher
	if h.Size() != 32 || h.BlockSize() != 64 {
		t.Fatalf("Size, BlockSize = %d, %d; want 32, 64", h.Size(), h.BlockSize())
	}
}

// concurrencySizes cross chunkLen, bufSize and parallelMin.
var concurrencySizes = []int{0, 1, chunkLen - 1, chunkLen, 4097, bufSize - 1, bufSize + 1, parallelMin, parallelMin + 1025, 300 << 10}

func TestConcurrency(t *testing.T) {
	rng := newTestRand(testSeed(t))
	key := randomBytes(rng, 32)
	shared := make([][]byte, len(concurrencySizes))
	for i, n := range concurrencySizes {
		shared[i] = randomBytes(rng, n)
	}
	// Expected values, from zeebo, before any goroutine starts.
	type answer struct{ sum, keyed, derive []byte }
	want := make([]answer, len(shared))
	for i, d := range shared {
		want[i] = answer{
			sum:    refOutput(t, hashModePlain, nil, "", d, 0, 64),
			keyed:  refOutput(t, hashModeKeyed, key, "", d, 0, 64),
			derive: refOutput(t, hashModeDerive, nil, diffContext, d, 0, 64),
		}
	}

	const workers = 16
	forEachBackend(t, func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan string, workers*len(shared)*8)
		report := func(format string, a ...any) { errs <- fmt.Sprintf(format, a...) }
		start := make(chan struct{})
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for k := range shared {
					i := (k + w) % len(shared) // every worker in a different order
					d, a := shared[i], want[i]
					// Shared input, one-shot calls.
					if s := Sum256(d); !bytes.Equal(s[:], a.sum[:32]) {
						report("worker %d: Sum256(len %d) = %x", w, len(d), s)
					}
					if s := Sum512(d); !bytes.Equal(s[:], a.sum) {
						report("worker %d: Sum512(len %d) = %x", w, len(d), s)
					}
					dk := make([]byte, 64)
					DeriveKey(diffContext, d, dk)
					if !bytes.Equal(dk, a.derive) {
						report("worker %d: DeriveKey(len %d) = %x", w, len(d), dk)
					}
					// Own hashers, written in pieces that depend on the worker.
					h, err := NewKeyed(key)
					if err != nil {
						report("worker %d: NewKeyed: %v", w, err)
						return
					}
					writeSplit(h, d, 1+w*997, 64, bufSize+w)
					c := h.Clone()
					out := make([]byte, 64)
					_, _ = h.Digest().Read(out)
					if !bytes.Equal(out, a.keyed) {
						report("worker %d: keyed Hasher(len %d) = %x", w, len(d), out)
					}
					// A clone handed to another goroutine.
					done := make(chan []byte)
					go func() { done <- c.Sum(nil) }()
					if got := <-done; !bytes.Equal(got, a.keyed[:32]) {
						report("worker %d: clone in another goroutine (len %d) = %x", w, len(d), got)
					}
					var z Hasher
					_, _ = z.Write(d)
					if got := z.Sum(nil); !bytes.Equal(got, a.sum[:32]) {
						report("worker %d: Hasher{}(len %d) = %x", w, len(d), got)
					}
					z.Reset()
					dh := NewDeriveKey(diffContext)
					_, _ = dh.WriteString(string(d))
					if got := dh.Sum(nil); !bytes.Equal(got, a.derive[:32]) {
						report("worker %d: NewDeriveKey(len %d) = %x", w, len(d), got)
					}
					_ = Backend()
				}
			}()
		}
		// The thread cap changes while workers hash; results must not.
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := 0; i < 50; i++ {
				SetMaxThreads(i % 3)
			}
			SetMaxThreads(0)
		}()
		close(start)
		wg.Wait()
		close(errs)
		n := 0
		for e := range errs {
			if n++; n <= 20 {
				t.Error(e)
			}
		}
		if n > 20 {
			t.Errorf("… and %d more errors", n-20)
		}
	})
}

// TestAllocationsStackBuffers: input and output in the caller's stack
// frame stay there, as they do with zeebo: a call that made them escape
// would allocate them at every call (the library's crossing did, marked
// uintptrescapes, and lukechampine's Sum256 does). Except through
// purego.SyscallN (darwin, windows), which takes integers: there they move
// to the heap (internal/ffi/call_purego.go).
func TestAllocationsStackBuffers(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	if lib != nil && runtime.GOOS != "linux" {
		t.Skip("through purego.SyscallN, what a call points to moves to the heap")
	}
	if optimizationsOff() {
		t.Skip("built with -N or -l: without inlining, locals escape")
	}
	waitPlan()
	waitParallel(t)
	h := New()
	for _, n := range []int{0, 64, 65, 1024, 1025, 3000, 4096, 4097, bufSize + 7} {
		check := func(what string, f func()) {
			t.Helper()
			if a := testing.AllocsPerRun(20, f); a != 0 {
				t.Errorf("%s of %d bytes on the stack: %.1f allocations per call", what, n, a)
			}
		}
		check("Sum256", func() {
			var in [bufSize + 7]byte
			in[n/2] = 1
			_ = Sum256(in[:n])
		})
		check("Sum512", func() {
			var in [bufSize + 7]byte
			in[n/2] = 1
			_ = Sum512(in[:n])
		})
		if lib != nil { // the Go path's DeriveKey is zeebo's, which allocates its hasher
			check("DeriveKey", func() {
				var in [bufSize + 7]byte
				var out [64]byte
				in[n/2] = 1
				DeriveKey(vectorContext, in[:n], out[:])
			})
		}
		check("Write and Sum", func() {
			var in [bufSize + 7]byte
			var sum [32]byte
			in[n/2] = 1
			h.Reset()
			_, _ = h.Write(in[:n])
			_ = h.Sum(sum[:0])
		})
		d := h.Digest()
		check("Digest.Read", func() {
			var out [64]byte
			_, _ = d.Read(out[:])
		})
	}
}

// optimizationsOff reports that the test binary was built with the
// compiler's optimizations or inlining turned off (-gcflags -N or -l).
func optimizationsOff() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-gcflags" {
			for _, f := range strings.Fields(s.Value) {
				if f == "-N" || f == "-l" || strings.HasSuffix(f, "=-N") || strings.HasSuffix(f, "=-l") {
					return true
				}
			}
		}
	}
	return false
}

// TestAllocations: hashing allocates nothing per call, at every size the
// dispatch distinguishes, on whichever path it picks: one-shot hashes,
// DeriveKey, a Hasher's Write, Sum and Reset, a Digest's reads.
func TestAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	waitPlan()
	waitParallel(t) // which a one-shot from parallelLow starts, and which allocates
	in := vectorInput(parallelMin + 5)
	out := make([]byte, 64)
	h := New()
	sum := make([]byte, 0, 32)
	for _, n := range []int{0, 64, 65, 1024, 1025, 3000, 4096, 4097, bufSize + 7, 1 << 20, parallelMin + 5} {
		data := in[:n]
		check := func(what string, f func()) {
			t.Helper()
			if a := testing.AllocsPerRun(20, f); a != 0 {
				t.Errorf("%s of %d bytes: %.1f allocations per call", what, n, a)
			}
		}
		check("Sum256", func() { _ = Sum256(data) })
		check("Sum512", func() { _ = Sum512(data) })
		if lib != nil { // the Go path's DeriveKey is zeebo's, which allocates its hasher
			check("DeriveKey", func() { DeriveKey(vectorContext, data, out) })
		}
		check("Write, Sum and Reset", func() {
			h.Reset()
			_, _ = h.Write(data)
			sum = h.Sum(sum[:0])
		})
		d := h.Digest()
		check("Digest.Read", func() { _, _ = d.Read(out) })
	}
}

// newHashHash is New as a hash.Hash, as a caller that keeps it behind the
// interface gets it: a call the compiler can neither inline nor
// devirtualize, so the Hasher goes to the heap, as it does for such a
// caller (a direct `var h hash.Hash = New()` stays on the stack).
var newHashHash = func() hash.Hash { return New() }

// TestAllocationsNewHasher: a new Hasher for an input of up to firstLen
// bytes (New, Write, Sum; NewKeyed and NewDeriveKey up to a chunk)
// allocates only its count of changes, 8 bytes, when the compiler keeps it
// on the stack, and that and itself when it is on the heap (through
// hash.Hash); with 16 KiB of input, on the native path, it allocates
// nothing more: it hands the front over and keeps the library's tree of it
// in itself (BenchmarkNewSum). Before, a Hasher held 16 KiB in itself and allocated all of it through hash.Hash, then one that
// held a chunk allocated a buffer as large as the input, and then one that
// held 4 KiB allocated the tree (2 KiB).
func TestAllocationsNewHasher(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	if optimizationsOff() {
		t.Skip("built with -N or -l: without inlining, locals escape")
	}
	if !ffi.ArgsStay {
		t.Skip("memory passed to the library escapes to the heap in this build (internal/ffi/call_purego.go), and with it every Hasher: TestAllocations checks what a reused one allocates")
	}
	waitPlan()
	waitParallel(t)
	in := vectorInput(bufSize)
	var sum [32]byte
	// Per run, the allocations rounded down as testing.AllocsPerRun does
	// (another goroutine may allocate meanwhile), and the bytes, with the
	// garbage collector off: a collection during the runs makes the
	// runtime allocate for itself (the first one starts the collector's
	// worker goroutines, and each empties the sync.Pools, which Sum256's
	// refills), 14-73 bytes a run in the WriteString case once the
	// hash.Hash cases put their Hashers on the heap; a memory profile
	// found only those beside the buffer, and GOGC=off none. The least of
	// three tries: another goroutine's allocations only add (63 bytes a
	// run, now and then, in the whole package's tests on a loaded machine).
	perRun := func(f func()) (allocs, bytes uint64) {
		const runs = 100
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		f()
		allocs, bytes = math.MaxUint64, math.MaxUint64
		for range 3 {
			var a, b runtime.MemStats
			runtime.ReadMemStats(&a)
			for range runs {
				f()
			}
			runtime.ReadMemStats(&b)
			allocs = min(allocs, (b.Mallocs-a.Mallocs)/runs)
			bytes = min(bytes, (b.TotalAlloc-a.TotalAlloc)/runs)
		}
		return allocs, bytes
	}
	// An object of n bytes takes its size class, at most a quarter more
	// above 1 KiB (4,464 bytes take 4,864); gen takes 8 or 16 bytes.
	class := func(n uintptr) uint64 { return uint64(n + n/4) }
	hasher := class(unsafe.Sizeof(Hasher{}))
	subBackends(t, func(t *testing.T) {
		waitPlan() // the backend's dispatch measures, and allocates, meanwhile
		for _, c := range []struct {
			n             int
			allocs, bytes uint64
			iface         bool
		}{
			{0, 1, 16, false}, {64, 1, 16, false}, {chunkLen, 1, 16, false}, {firstLen, 1, 16, false},
			{0, 2, hasher + 16, true}, {64, 2, hasher + 16, true}, {firstLen, 2, hasher + 16, true},
			// The first piece of a single write is handed over (keep),
			// its tree kept in the Hasher (handFront).
			{bufSize, 1, 16, false}, {bufSize, 2, hasher + 16, true},
		} {
			f := func() {
				h := New()
				_, _ = h.Write(in[:c.n])
				h.Sum(sum[:0])
			}
			if c.iface {
				f = func() {
					h := newHashHash()
					_, _ = h.Write(in[:c.n])
					h.Sum(sum[:0])
				}
			}
			if a, b := perRun(f); a > c.allocs || b > c.bytes {
				t.Errorf("New, Write and Sum of %d bytes (through hash.Hash: %v): %d allocations, %d bytes per run; want at most %d and %d",
					c.n, c.iface, a, b, c.allocs, c.bytes)
			}
		}
		// Up to firstLen in pieces, a plain hash is gathered on either
		// path: a piece after the first chunk does not spill into zeebo's
		// hasher (10 KiB) on the Go path, as it would past what goGather
		// allows.
		pieces := func() {
			h := New()
			_, _ = h.Write(in[:chunkLen])
			_, _ = h.Write(in[chunkLen : chunkLen+64])
			_, _ = h.Write(in[chunkLen+64 : firstLen])
			h.Sum(sum[:0])
		}
		if a, b := perRun(pieces); a > 1 || b > 16 {
			t.Errorf("New, Write of %d bytes in three pieces and Sum: %d allocations, %d bytes per run; want at most 1 and 16", firstLen, a, b)
		}
		// A Clone that its caller does not keep stays on the caller's
		// stack, as zeebo's does: Clone is inlined, as New is, and the
		// clone allocates only its count of changes (and the original
		// its own); on the heap, Clone of 64 bytes took four times
		// zeebo's time (docs/zeebo-api.md).
		for _, n := range []int{64, firstLen} {
			cloned := func() {
				h := New()
				_, _ = h.Write(in[:n])
				h.Clone().Sum(sum[:0])
			}
			if a, b := perRun(cloned); a > 2 || b > 32 {
				t.Errorf("New, Write of %d bytes, Clone and Sum: %d allocations, %d bytes per run; want at most 2 and 32", n, a, b)
			}
		}
		// A keyed or derive-key Hasher stays on its caller's stack too:
		// NewKeyed and NewDeriveKey are inlined, as New is.
		key := in[:32]
		for _, n := range []int{0, 64, chunkLen} {
			for _, c := range []struct {
				name string
				f    func()
			}{
				{"NewKeyed", func() {
					h, _ := NewKeyed(key)
					_, _ = h.Write(in[:n])
					h.Sum(sum[:0])
				}},
				{"NewDeriveKey", func() {
					h := NewDeriveKey("example.com 2026-12-02 allocations")
					_, _ = h.Write(in[:n])
					h.Sum(sum[:0])
				}},
			} {
				if a, b := perRun(c.f); a > 1 || b > 16 {
					t.Errorf("%s, Write and Sum of %d bytes: %d allocations, %d bytes per run; want at most 1 and 16", c.name, n, a, b)
				}
			}
		}
		// WriteString allocates no more than Write of the same bytes: it
		// hashes the string where it is. Before, a string longer than
		// what the Hasher gathers was copied to a slice of its length,
		// and one written after a first write that had handed its front
		// over made the tree on the heap even where it was only gathered.
		// On the native path the Hasher stays on the stack and allocates
		// what Write's table above says: its count of changes, and the
		// buffer or the tree only where the input needs them, with the
		// lock of that state (mu: 8 bytes, which the tiny allocator puts
		// beside the count). (The
		// closures are straight-line: a Hasher used through a branch on
		// which call to make went to the heap, hiding the difference.)
		for _, c := range []struct {
			pre, n        int
			allocs, bytes uint64
		}{
			{10, firstLen + 1000, 3, bufSize + 16}, {0, 2 * firstLen, 1, 16}, {0, bufSize, 1, 16},
			{firstLen + 100, 10, 1, 16}, {firstLen + 100, chunkLen, 3, class(unsafe.Sizeof(ffi.Tree{})) + 16},
		} {
			s := string(in[c.pre : c.pre+c.n])
			viaString := func() {
				h := New()
				_, _ = h.Write(in[:c.pre])
				_, _ = h.WriteString(s)
				h.Sum(sum[:0])
			}
			viaBytes := func() {
				h := New()
				_, _ = h.Write(in[:c.pre])
				_, _ = h.Write(in[c.pre : c.pre+c.n])
				h.Sum(sum[:0])
			}
			a, b := perRun(viaString)
			if wa, wb := perRun(viaBytes); a > wa || b > wb {
				t.Errorf("New, Write of %d bytes, WriteString of %d, Sum: %d allocations, %d bytes per run; Write of the same: %d and %d",
					c.pre, c.n, a, b, wa, wb)
			}
			if native() != nil && (a > c.allocs || b > c.bytes) {
				t.Errorf("New, Write of %d bytes, WriteString of %d, Sum: %d allocations, %d bytes per run; want at most %d and %d",
					c.pre, c.n, a, b, c.allocs, c.bytes)
			}
		}
		// A Hasher that has no tree on the heap (its input gathered, or
		// its front held in itself) is read where it is: a saved state
		// appended to a buffer with room allocates nothing, and a Digest
		// only itself, however often, and for an input of a block to a
		// chunk that the plan hashes in the library where zeebo's
		// compression is portable Go, a copy of it (setShort), under each
		// plan. (On the Go path these sizes are in
		// zeebo's hasher, whose export allocates.)
		// A Digest on the heap is zeebo's, laid out in place
		// (ffi.ZeeboXOF), and what its source reads besides (held): 208
		// bytes where zeebo's takes 192, which BenchmarkDigestNew
		// (use=reader) measured no slower; the size class after that
		// (224) is more than it needs.
		var kept any
		_, ours := perRun(func() { kept = new(Digest) })
		_, zeebos := perRun(func() { kept = new(zeebo.Digest) })
		if ours > zeebos+16 || unsafe.Sizeof(Digest{}) > unsafe.Sizeof(ffi.ZeeboXOF{})+24 {
			t.Errorf("a Digest on the heap takes %d bytes (%d in itself), where zeebo's takes %d (%d)", ours, unsafe.Sizeof(Digest{}), zeebos, unsafe.Sizeof(zeebo.Digest{}))
		}
		_ = kept
		saved, savedAsm := planNow.Load(), zeeboAsm
		defer func() { planNow.Store(saved); zeeboAsm = savedAsm }()
		for i, im := range []impl{implLuke, implZeebo, implNative, implNative} {
			planNow.Store(planAll(im))
			zeeboAsm = i != 3 // the library's copy where zeebo's compression is portable Go
			for _, n := range []int{0, 64, 65, chunkLen, 2 * chunkLen, 2 * firstLen} {
				if lib == nil {
					break
				}
				var copies, copied uint64
				if im == implNative && !zeeboAsm && n > 64 && n <= chunkLen {
					copies, copied = 1, class(uintptr(n))
				}
				h := New()
				_, _ = h.Write(in[:n])
				if a, b := perRun(func() { h.Digest() }); a > 1+copies || b > class(unsafe.Sizeof(Digest{}))+copied {
					t.Errorf("plan %v: Digest after a write of %d bytes: %d allocations, %d bytes per run; want at most %d and %d",
						im, n, a, b, 1+copies, class(unsafe.Sizeof(Digest{}))+copied)
				}
				// One not kept stays on the caller's stack, as zeebo's does,
				// however it is read.
				out := make([]byte, 64)
				reads := []func(){
					func() { _, _ = h.Digest().Read(out) },
					func() { d := h.Digest(); _, _ = d.Read(out[:32]); _, _ = d.Read(out[32:]) },
					func() { d := h.Digest(); _, _ = d.Read(out[:16]); _, _ = d.Read(out[16:32]); _, _ = d.Read(out[32:]) },
				}
				for i, read := range reads {
					if a, b := perRun(read); a != copies || b > copied {
						t.Errorf("plan %v: Digest and %d reads of it after a write of %d bytes: %d allocations, %d bytes per run; want %d and at most %d",
							im, i+1, n, a, b, copies, copied)
					}
				}
				if im != implLuke {
					continue
				}
				st := make([]byte, 0, 2*n)
				if a, b := perRun(func() { st, _ = h.AppendBinary(st[:0]) }); a != 0 {
					t.Errorf("AppendBinary after a write of %d bytes: %d allocations, %d bytes per run; want none", n, a, b)
				}
				if n == 0 {
					continue // an empty subtree has no chaining value: an error
				}
				s := New()
				_ = s.SetInputOffset(0)
				_, _ = s.Write(in[:n])
				if a, b := perRun(func() { _, _ = s.FinalizeNonRoot() }); a != 0 {
					t.Errorf("FinalizeNonRoot after a write of %d bytes: %d allocations, %d bytes per run; want none", n, a, b)
				}
			}
		}
	})
}

// TestStackBuffersMoving: input, output and Hasher in goroutine stacks that
// start small and grow before the calls (a recursion of varying depth),
// while the garbage collector runs all the while: what reaches the
// library is what the caller wrote, and the results are zeebo's. A pointer
// converted to an integer before the stack moved would hand the library the
// old stack (internal/ffi's rules).
func TestStackBuffersMoving(t *testing.T) {
	rounds := 400
	if testing.Short() {
		rounds = 100
	}
	stop := gctest.Loop()
	defer stop()
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			var err error
			for r := 0; r < rounds && err == nil; r++ {
				// Each round in a new goroutine, whose stack starts small.
				done := make(chan error)
				go func() { done <- stackRound(g*rounds+r, (g*37+r*13)%200) }()
				err = <-done
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// stackRound recurses depth frames of 256 bytes, then hashes from buffers in
// its own frame: one-shot, through a Hasher on the stack, and DeriveKey.
// Nothing it hashes from or into escapes (the errors copy what they show).
func stackRound(seed, depth int) error {
	if depth > 0 {
		var pad [256]byte
		pad[seed%len(pad)] = byte(depth)
		err := stackRound(seed, depth-1)
		return errors.Join(err, stackUse(&pad))
	}
	var in [3*bufSize + 100]byte
	for i := range in {
		in[i] = byte(i*7 + seed)
	}
	n := (seed * 997) % len(in)
	want := zeebo.Sum512(in[:n])
	if got := Sum512(in[:n]); got != want {
		return fmt.Errorf("round %d, %d bytes: Sum512 %s, want %s", seed, n, hex.EncodeToString(got[:8]), hex.EncodeToString(want[:8]))
	}
	var h Hasher
	_, _ = h.Write(in[:n/3])
	_, _ = h.Write(in[n/3 : n])
	var sum [32]byte
	if got := h.Sum(sum[:0]); !bytes.Equal(got, want[:32]) {
		return fmt.Errorf("round %d, %d bytes: Hasher on the stack %s, want %s", seed, n, hex.EncodeToString(got[:8]), hex.EncodeToString(want[:8]))
	}
	var out, ref [64]byte
	DeriveKey(vectorContext, in[:n], out[:])
	zeebo.DeriveKey(vectorContext, in[:n], ref[:])
	if out != ref {
		return fmt.Errorf("round %d, %d bytes: DeriveKey %s, want %s", seed, n, hex.EncodeToString(out[:8]), hex.EncodeToString(ref[:8]))
	}
	return nil
}

// stackUse keeps a frame's padding from being optimized away.
//
//go:noinline
func stackUse(p *[256]byte) error {
	if p[0] == 0xff && p[1] == 0xfe {
		return errors.New("unreachable")
	}
	return nil
}

// TestFirstWriteThenEachOp: a first write longer than first hands its
// front to the library and, on a Hasher without a tree, keeps that tree in
// itself (handFront); every operation that may follow must see the whole
// input: Sum, Digest, a saved state resumed, Clone, more writes of every
// kind, ReadFrom (a file large enough to be read in parallel), Reset,
// SetInputOffset (refused). Checked against zeebo in each mode, on each
// backend.
func TestFirstWriteThenEachOp(t *testing.T) {
	key := vectorInput(32)
	const ctx = "purego-blake3 2026-12-01 first write"
	data := vectorInput(3*bufSize + 4<<20 + 77)
	file := filepath.Join(t.TempDir(), "rest")
	if err := os.WriteFile(file, data[bufSize:], 0o600); err != nil {
		t.Fatal(err)
	}
	firsts := []int{firstLen + 1, firstLen + chunkLen, firstLen + 2*chunkLen + 1, firstLen + 3*chunkLen, 2*firstLen - 1, 2 * firstLen, 2*firstLen + 1, 3 * firstLen, 3*firstLen + 5, bufSize - 1, bufSize}
	rests := []int{1, 100, chunkLen - 1, chunkLen, bufSize, 3*bufSize + 7}
	forEachBackend(t, func(t *testing.T) {
		for _, m := range allHashModes {
			// checkN compares got, after a first write of n bytes and then
			// op, with zeebo's output for in from seek.
			checkN := func(n int, op string, got, in []byte, seek int64) {
				t.Helper()
				if want := refOutput(t, m, key, ctx, in, seek, len(got)); !bytes.Equal(got, want) {
					t.Errorf("%v, first write %d, %s: %s, want %s", m, n, op, shortHex(got), shortHex(want))
				}
			}
			for _, n := range firsts {
				fresh := func() *Hasher {
					h := newModeHasher(t, m, key, ctx)
					_, _ = h.Write(data[:n])
					return h
				}
				check := func(op string, got, in []byte, seek int64) {
					t.Helper()
					checkN(n, op, got, in, seek)
				}
				h := fresh()
				// A write of whole chunks leaves its last chunk's value
				// held where the Hasher holds its front's tree: of fewer
				// than 16 chunks (fcv).
				if held := n%chunkLen == 0 && n <= chunkLen<<len(h.fcv) && ffi.ArgsStay && h.path == pathNative; h.lastHeld() != held {
					t.Errorf("%v, first write %d: the last chunk's value held %v, want %v", m, n, h.lastHeld(), held)
				}
				check("Sum", h.Sum(nil), data[:n], 0)
				d := h.Digest()
				out := make([]byte, 200)
				_, _ = d.Seek(1000, io.SeekStart)
				_, _ = d.Read(out)
				check("Digest at 1000", out, data[:n], 1000)
				check("Sum after Digest", h.Sum(nil), data[:n], 0)

				st, err := h.MarshalBinary()
				if err != nil {
					t.Fatalf("MarshalBinary: %v", err)
				}
				r := new(Hasher)
				if err := r.UnmarshalBinary(st); err != nil {
					t.Fatalf("UnmarshalBinary: %v", err)
				}
				_, _ = r.Write(data[n : n+100])
				check("resumed, then 100 more", r.Sum(nil), data[:n+100], 0)

				c := h.Clone()
				_, _ = c.Write(data[n : n+chunkLen])
				_, _ = h.Write(data[n : n+1])
				check("Clone, then a chunk more", c.Sum(nil), data[:n+chunkLen], 0)
				check("its original, then 1 more", h.Sum(nil), data[:n+1], 0)

				for _, k := range rests {
					h := fresh()
					_, _ = h.Write(data[n : n+k])
					check(fmt.Sprintf("Write of %d more", k), h.Sum(nil), data[:n+k], 0)
					h = fresh()
					_, _ = h.WriteString(string(data[n : n+k]))
					check(fmt.Sprintf("WriteString of %d more", k), h.Sum(nil), data[:n+k], 0)
				}

				// A copy by value reads the same input, and goes on alone.
				h = fresh()
				v := *h
				check("copy by value", v.Sum(nil), data[:n], 0)
				_, _ = v.Write(data[n : n+chunkLen])
				check("copy by value, then a chunk more", v.Sum(nil), data[:n+chunkLen], 0)

				// A state resumed over a Hasher that holds a front (and
				// the last chunk's value) is the state's alone.
				st100, err := newModeHasher(t, m, key, ctx).AppendBinary(nil)
				if err != nil {
					t.Fatalf("AppendBinary: %v", err)
				}
				h = fresh()
				if err := h.UnmarshalBinary(st100); err != nil {
					t.Fatalf("UnmarshalBinary: %v", err)
				}
				_, _ = h.Write(data[:100])
				check("a state resumed over it, then 100", h.Sum(nil), data[:100], 0)

				h = fresh()
				if err := h.SetInputOffset(0); err == nil {
					t.Errorf("%v, first write %d: SetInputOffset after it accepted", m, n)
				}
				h.Reset()
				_, _ = h.Write(data[:100])
				check("Reset, then 100", h.Sum(nil), data[:100], 0)

				// Reset, then another first write, of whole chunks and not.
				for _, k := range []int{7 * chunkLen, 5*chunkLen + 3} {
					h = fresh()
					h.Reset()
					_, _ = h.Write(data[bufSize : bufSize+k])
					d := h.Digest()
					_, _ = d.Read(out[:64])
					check(fmt.Sprintf("Reset, then a first write of %d: Digest", k), out[:64], data[bufSize:bufSize+k], 0)
					check(fmt.Sprintf("Reset, then a first write of %d: Sum", k), h.Sum(nil), data[bufSize:bufSize+k], 0)
				}
			}
			// ReadFrom after a first write of bufSize, from a file of
			// more than 4 MiB, which it reads in parallel after it makes
			// the tree (lift).
			h := newModeHasher(t, m, key, ctx)
			_, _ = h.Write(data[:bufSize])
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := h.ReadFrom(f); err != nil {
				t.Fatalf("ReadFrom: %v", err)
			}
			_ = f.Close()
			checkN(bufSize, "ReadFrom of the rest", h.Sum(nil), data, 0)
		}
	})
}

// roString is a string constant, in the binary's read-only data: 17 KiB and
// one byte, longer than a batch of the buffer and not a whole chunk.
const (
	ro64     = "0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789ABCDE\n"
	ro1K     = ro64 + ro64 + ro64 + ro64 + ro64 + ro64 + ro64 + ro64 + ro64 + ro64 + ro64 + ro64 + ro64 + ro64 + ro64 + ro64
	ro4K     = ro1K + ro1K + ro1K + ro1K
	roString = ro4K + ro4K + ro4K + ro4K + ro1K + "!"
)

// TestWriteStringReadOnly hashes a string in read-only memory with
// WriteString, whole and in pieces, on each backend, against zeebo: the
// string's bytes are handed over where they are (ffi.StringBytes), and a
// write to them would fault.
func TestWriteStringReadOnly(t *testing.T) {
	want := zeebo.Sum256([]byte(roString))
	subBackends(t, func(t *testing.T) {
		for _, piece := range []int{len(roString), 1, 63, chunkLen, firstLen + 1, bufSize} {
			// A plain hasher, and a subtree one (the Go path's tree on the
			// Go backend).
			sub := New()
			if err := sub.SetInputOffset(0); err != nil {
				t.Fatal(err)
			}
			for _, h := range []*Hasher{New(), sub} {
				for s := roString; len(s) > 0; {
					k := min(piece, len(s))
					if n, err := h.WriteString(s[:k]); n != k || err != nil {
						t.Fatalf("subtree %v: WriteString of %d bytes = %d, %v", h == sub, k, n, err)
					}
					s = s[k:]
				}
				if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
					t.Errorf("subtree %v: WriteString in pieces of %d bytes: %x, want %x", h == sub, piece, got, want)
				}
			}
		}
	})
}

// TestSumAbsorbs: the second of the reads Sum, Digest, Clone and
// AppendBinary since the input gathered was last handed over hands the
// tree that input's whole chunks but the last byte (absorb), which stay
// gathered. Whatever is written and read between, in every mode, every
// hash after that is zeebo's: from the Hasher, from its Clones, from its
// saved states resumed, and from its copies by value, which share the
// tree and read it at once. It counts the reads that found input
// absorbed, and fails on the native path if there are none.
func TestSumAbsorbs(t *testing.T) {
	key := []byte(vectorKey)
	rng := newTestRand(testSeed(t))
	in := randomBytes(rng, 400<<10)
	forEachBackend(t, func(t *testing.T) {
		native := lib != nil
		var seen atomic.Int64
		check := func(what string, m hashMode, h *Hasher, n int) {
			t.Helper()
			want := refOutput(t, m, key, vectorContext, in[:n], 0, 64)
			for range 2 {
				got := make([]byte, 64)
				_, _ = h.Digest().Read(got)
				if s := h.Sum(nil); !bytes.Equal(s, want[:32]) || !bytes.Equal(got, want) {
					t.Fatalf("%v, %s after %d bytes: Sum %x, Digest %x; zeebo %x", m, what, n, s, got, want)
				}
			}
			if h.absorbed() > 0 {
				seen.Add(1)
			}
		}
		for round := range 45 {
			m := allHashModes[round%len(allHashModes)]
			h := newModeHasher(t, m, key, vectorContext)
			n := 0
			// Room for the longest write (2*bufSize+1) and a Clone's
			// (bufSize+1) after it: with less, a seed that drew both
			// near the end sliced past the input.
			for step := 0; step < 24 && n+3*bufSize+2 <= len(in); step++ {
				k := []int{1, 64, chunkLen - 1, chunkLen, chunkLen + 1, 3000, firstLen, bufSize - 1, bufSize + 1, 2*bufSize + 1, rng.IntN(2 * bufSize)}[rng.IntN(11)]
				if round%3 == 1 {
					// Halves of chunks: input that ends within a chunk, and
					// at a chunk's end after a read that absorbed up to
					// one.
					k = chunkLen / 2 * (1 + rng.IntN(24))
				}
				if rng.IntN(2) == 0 {
					_, _ = h.Write(in[n : n+k])
				} else {
					writeInPieces(rng, h, in[n:n+k])
				}
				n += k
				switch rng.IntN(6) {
				case 0, 1:
					check("reads", m, h, n)
				case 2:
					// A Clone goes on on its own; h goes on too.
					c := h.Clone()
					_, _ = c.Write(in[n : n+bufSize+1])
					check("a Clone written to", m, c, n+bufSize+1)
					check("the Hasher cloned", m, h, n)
				case 3:
					// Saved (its read may absorb) and resumed: the resumed
					// Hasher goes on.
					h.Sum(nil)
					state, err := h.MarshalBinary()
					if err != nil {
						t.Fatal(err)
					}
					h = new(Hasher)
					if err := h.UnmarshalBinary(state); err != nil {
						t.Fatalf("%v: a state saved after %d bytes: %v", m, n, err)
					}
					check("resumed", m, h, n)
				case 4:
					// Copies by value read at once (each may absorb into
					// the tree they share), then one goes on.
					c := *h
					var wg sync.WaitGroup
					for _, x := range []*Hasher{h, &c} {
						wg.Go(func() { check("a copy by value", m, x, n) })
					}
					wg.Wait()
					if rng.IntN(2) == 0 {
						h = &c
					}
				}
			}
			check("the end", m, h, n)
		}
		t.Logf("%d of the reads found input absorbed", seen.Load())
		if native && seen.Load() == 0 {
			t.Fatal("no read found input absorbed on the native path")
		}
	})
}

// TestSumAbsorbsAtOnce: copies by value of a Hasher that gathered a
// stream, each reading it for the second time on its own goroutine, change
// what they share one at a time (the lock in shared), and all read zeebo's
// hash: on the native path they absorb into one tree (at their second
// read), on the Go path zeebo's Sum hands its chunks over in the one
// zeebo hasher they share (at their first).
func TestSumAbsorbsAtOnce(t *testing.T) {
	// Ending within a chunk; and at a chunk's end after a tree ahead was
	// made (with no tail, of the chunks pending after the tree's, and as
	// a right half), which the copies share, take the group from and make
	// again for the last chunk, at once. The right half is of 8 chunks
	// pending in a Hasher used again (reused), whose buffer of bufSize
	// Reset kept; in a new one, first holds them until the write of the
	// chunk after them.
	ins := []struct {
		in            []byte
		ahead, reused bool
	}{
		{vectorInput(3*bufSize - 100), false, false},
		{vectorInput(3*bufSize - 3*chunkLen), true, false},
		{vectorInput(halfUntil + 9*chunkLen), true, false},
		{vectorInput(9 * chunkLen), true, true},
	}
	long := vectorInput(halfUntil + firstLen + chunkLen) // past a buffer's first need
	// A read that overlaps another one's change, where the lock is
	// missing, is rare: many rounds (fewer under the race detector, which
	// sees it at once).
	rounds := 3000
	if raceEnabled {
		rounds = 100
	}
	forEachBackend(t, func(t *testing.T) {
		for round := range rounds {
			in, ahead := ins[round%len(ins)].in, ins[round%len(ins)].ahead
			want := zeebo.Sum256(in)
			h := New()
			if ins[round%len(ins)].reused {
				writeSplit(h, long, 64)
				h.Reset()
				if lib != nil && len(h.buf) != bufSize {
					t.Fatalf("round %d: a Hasher reset after a stream of %d bytes holds a buffer of %d, want %d", round, len(long), len(h.buf), bufSize)
				}
			}
			switch {
			case lib == nil:
				writeSplit(h, in, 64)
			case ahead:
				writeSplit(h, in[:len(in)-chunkLen], 64)
				h.Sum(nil)
				h.Sum(nil) // the tree ahead
				_, _ = h.Write(in[len(in)-chunkLen:])
			default:
				writeSplit(h, in, 64)
				h.Sum(nil) // the copies' next read is their second
			}
			copies := make([]Hasher, 4)
			for i := range copies {
				copies[i] = *h
			}
			// The copies start their reads together, once all are ready.
			var wg, ready sync.WaitGroup
			var start atomic.Bool
			errs := make([]error, len(copies))
			for i := range copies {
				ready.Add(1)
				wg.Go(func() {
					ready.Done()
					for !start.Load() {
						runtime.Gosched()
					}
					// Sum, Digest, Sum or Digest, Sum, Digest: the first
					// read of one of the copies makes the tree ahead, the
					// others find it.
					for r := range 3 {
						var got [32]byte
						if (r+i)%2 == 1 {
							_, _ = copies[i].Digest().Read(got[:])
						} else {
							copies[i].Sum(got[:0])
						}
						if got != want {
							errs[i] = fmt.Errorf("round %d, copy %d, read %d: %x, want %x", round, i, r, got, want)
							return
						}
					}
				})
			}
			ready.Wait()
			start.Store(true)
			wg.Wait()
			if err := errors.Join(errs...); err != nil {
				t.Fatal(err)
			}
			if got := h.Sum(nil); lib != nil && h.absorbed() == 0 || !bytes.Equal(got, want[:]) {
				t.Fatalf("round %d: the Hasher copied: %x (absorbed %d), want %x", round, got, h.absorbed(), want)
			}
		}
	})
}

// TestAbsorbLen: what absorb hands over from any input pending of up to a
// buffer's length, after any count of chunks, is whole chunks, and leaves
// a tail that the library takes after them (no longer than the smallest
// subtree they end, never empty): a part of a chunk, or where the input
// ends at a chunk's end, the largest aligned group of up to absorbGroup
// chunks that ends there.
func TestAbsorbLen(t *testing.T) {
	var sizes []int
	for n := 0; n <= bufSize+chunkLen; n += 1 + n%97 {
		sizes = append(sizes, n)
	}
	for n := 0; n <= bufSize+chunkLen; n += chunkLen {
		sizes = append(sizes, n-1, n, n+1)
	}
	for at := range uint64(70) {
		for _, n := range sizes {
			if n < 0 {
				continue
			}
			k := absorbLen(at, n)
			tail := n - k
			end := at + uint64(k/chunkLen)
			switch {
			case k < 0 || k%chunkLen != 0 || k > 0 && tail <= 0:
				t.Fatalf("after %d chunks, %d bytes: %d handed over, not whole chunks before a tail", at, n, k)
			case end > 0 && uint64(tail) > (end&-end)*chunkLen:
				t.Fatalf("after %d chunks, %d bytes: a tail of %d after %d chunks, longer than the smallest subtree", at, n, tail, end)
			case n%chunkLen != 0 && tail >= chunkLen:
				t.Fatalf("after %d chunks, %d bytes: a tail of %d, more than the last part of a chunk", at, n, tail)
			case n%chunkLen == 0 && n > 0 && (bits.OnesCount(uint(tail/chunkLen)) != 1 || end%uint64(tail/chunkLen) != 0):
				t.Fatalf("after %d chunks, %d bytes: a tail of %d chunks after %d, not one aligned group", at, n, tail/chunkLen, end)
			case n%chunkLen == 0 && tail > absorbGroup*chunkLen:
				t.Fatalf("after %d chunks, %d bytes: a tail of %d chunks, more than %d", at, n, tail/chunkLen, absorbGroup)
			case n%chunkLen == 0 && n > 0 && 2*tail <= min(n, absorbGroup*chunkLen) && (end+uint64(tail/chunkLen))%uint64(2*tail/chunkLen) == 0:
				t.Fatalf("after %d chunks, %d bytes: a tail of %d chunks, where twice as many end there aligned", at, n, tail/chunkLen)
			}
		}
	}
}

// TestAbsorbHalf: on the native path, 2 or 4 whole chunks, which absorbLen
// leaves whole, are handed half over at the read that moves them to the
// heap (rereadNative), so that the reads after it hash neither half again;
// but in a Hasher whose input was already on the heap (reused after
// Reset), a second read hands none over, as absorbLen says, and hashes
// them all again: a reused Hasher whose input of 4 KiB is read twice
// would otherwise pay for the tree ahead at its second read. Every read
// is zeebo's hash.
func TestAbsorbHalf(t *testing.T) {
	if !nativeActive(t) {
		t.Skip("no native library: the native path's reads")
	}
	in := vectorInput(absorbGroup * chunkLen)
	for _, n := range []int{2 * chunkLen, absorbGroup * chunkLen} {
		want := zeebo.Sum256(in[:n])
		h := New()
		_, _ = h.Write(in[:n])
		for k := 1; h.buf == nil; k++ {
			if k > rereadMove/n+3 {
				t.Fatalf("%d bytes: not moved after %d reads", n, k)
			}
			if got := h.Sum(nil); !bytes.Equal(got, want[:]) {
				t.Fatalf("%d bytes, read %d: %x, want %x", n, k, got, want)
			}
		}
		if h.absorbed() != n/2 {
			t.Fatalf("%d bytes: %d handed over at the move, want %d", n, h.absorbed(), n/2)
		}
		for k := range 3 {
			if got := h.Sum(nil); !bytes.Equal(got, want[:]) || h.absorbed() != n/2 || !h.aheadHolds(uint64(n/chunkLen), uint64(n/chunkLen/2)) {
				t.Fatalf("%d bytes, read %d after the move: %x (handed over %d, ahead %v), want %x", n, k, got, h.absorbed(), h.aheadHolds(uint64(n/chunkLen), uint64(n/chunkLen/2)), want)
			}
		}
		h.Reset()
		_, _ = h.Write(in[:n])
		for k := range 3 {
			if got := h.Sum(nil); !bytes.Equal(got, want[:]) || h.absorbed() != 0 {
				t.Fatalf("%d bytes, reused, read %d: %x (handed over %d), want %x and none", n, k, got, h.absorbed(), want)
			}
		}
	}
}

// TestSumAbsorbedByCopy: a Hasher whose copy by value (or whose self,
// before a restore from a copy) absorbed into the tree they share goes on
// from the copy's tree: more input, then every read, is zeebo's hash, and
// its saved state resumes.
func TestSumAbsorbedByCopy(t *testing.T) {
	in := vectorInput(bufSize + 8000)
	twoReads := func(h Hasher) { h.Sum(nil); h.Sum(nil) }
	for name, absorbElsewhere := range map[string]func(h *Hasher){
		"a copy read twice": func(h *Hasher) { twoReads(*h) },
		"itself read twice, then restored from before": func(h *Hasher) {
			saved := *h
			h.Sum(nil)
			h.Digest()
			*h = saved
		},
	} {
		forEachBackend(t, func(t *testing.T) {
			for _, read := range []string{"Sum", "Digest", "Clone", "MarshalBinary"} {
				h := New()
				_, _ = h.Write(in[:bufSize]) // the tree is live
				writeSplit(h, in[bufSize:bufSize+5500], 100)
				absorbElsewhere(h)
				_, _ = h.Write(in[bufSize+5500 : bufSize+6500])
				n := bufSize + 6500
				switch read {
				case "Digest":
					out := make([]byte, 32)
					_, _ = h.Digest().Read(out)
					h.Sum(out[:0])
				case "Clone":
					c := h.Clone()
					_, _ = c.Write(in[n : n+100])
					if got, want := c.Sum(nil), zeebo.Sum256(in[:n+100]); !bytes.Equal(got, want[:]) {
						t.Fatalf("%s, then a Clone written to: %x, want %x", name, got, want)
					}
				case "MarshalBinary":
					state, err := h.MarshalBinary()
					if err != nil {
						t.Fatal(err)
					}
					h = new(Hasher)
					if err := h.UnmarshalBinary(state); err != nil {
						t.Fatalf("%s, then saved: %v", name, err)
					}
				}
				if got, want := h.Sum(nil), zeebo.Sum256(in[:n]); !bytes.Equal(got, want[:]) {
					t.Fatalf("%s, then %s: %x, want %x", name, read, got, want)
				}
			}
		})
	}
}

// TestSumAhead: reads after another of a stream that ends at a chunk's end
// find its last group in the tree ahead (rootOf) rather than hash it again,
// with no tail after two subtrees or more, and as the root's right half
// after one (a power of two of chunks); absorb and the next hand-over take
// the group from there. Every Sum and Digest, after each piece, of a Hasher
// used again after Reset, of its Clone and of its copy by value going on
// with other input, is zeebo's hash. It fails if no read found the tree
// ahead holding what is pending, of either kind.
func TestSumAhead(t *testing.T) {
	const total = 160 << 10 // past 64 and 128 chunks
	inputs := [][]byte{vectorInput(total), make([]byte, total)}
	for i := range inputs[1] {
		inputs[1][i] = byte(i*7 + i>>10)
	}
	forEachBackend(t, func(t *testing.T) {
		var held [2]int // reads that found ahead holding what is pending: no tail, a right half
		read := func(what string, h *Hasher, in []byte) {
			t.Helper()
			want := zeebo.Sum256(in)
			for i := range 3 {
				var got [32]byte
				if i == 1 {
					_, _ = h.Digest().Read(got[:])
				} else {
					h.Sum(got[:0])
				}
				if got != want {
					t.Fatalf("%s, read %d after %d bytes: %x, want %x", what, i, len(in), got, want)
				}
			}
			if aheadHeld(h) {
				held[min(h.ahead.Offset, 1)]++
			}
		}
		for _, piece := range []int{chunkLen, 3 * chunkLen, 4 * chunkLen, bufSize} {
			h := New()
			for round, in := range inputs {
				if round > 0 {
					h.Reset() // the same tree and tree ahead, for other input
				}
				for n := piece; n <= total; n += piece {
					_, _ = h.Write(in[n-piece : n])
					if round == 0 || n == total {
						// After Reset, the first read is where the tree
						// ahead last held the other input's group.
						read(fmt.Sprintf("piece %d, round %d", piece, round), h, in[:n])
					}
				}
			}
			// A Clone and a copy by value of a Hasher whose tree ahead
			// holds a group go on with other input than each other (the
			// Hasher copied is not used again).
			h.Reset()
			n := 5 * bufSize
			_, _ = h.Write(inputs[0][:n])
			read("before a Clone", h, inputs[0][:n])
			other := append(inputs[0][:n:n], inputs[1][n:]...)
			c, v := h.Clone(), *h
			for k := n; k < n+4*bufSize; k += 4 * chunkLen {
				_, _ = c.Write(inputs[0][k : k+4*chunkLen])
				read("the Clone", c, inputs[0][:k+4*chunkLen])
				_, _ = v.Write(other[k : k+4*chunkLen])
				read("the copy by value", &v, other[:k+4*chunkLen])
			}
		}
		// A copy by value left behind, Reset and used for other input, lets
		// go of the tree ahead it shared: the Hasher that went on keeps its
		// own input.
		a, b := inputs[0][:21*chunkLen], inputs[1][:21*chunkLen]
		h := New()
		writeSplit(h, a[:20*chunkLen], chunkLen)
		read("before a copy by value", h, a[:20*chunkLen])
		v := *h
		_, _ = h.Write(a[20*chunkLen:])
		v.Reset()
		writeSplit(&v, b, chunkLen)
		read("a copy left behind, Reset and reused", &v, b)
		read("the Hasher that went on", h, a)
		// A single Sum of a new Hasher makes no tree ahead; the first read
		// after a hand-over of a Hasher that has one makes it.
		h = New()
		_, _ = h.Write(inputs[0][:5*bufSize])
		h.Sum(nil)
		if h.ahead != nil {
			t.Fatal("a single Sum of a new Hasher made a tree ahead")
		}
		h.Sum(nil)
		_, _ = h.Write(inputs[0][5*bufSize : 6*bufSize])
		h.Sum(nil)
		if lib != nil && !aheadHeld(h) {
			t.Fatal("the first read after a hand-over of a Hasher that has a tree ahead made none")
		}
		read("the first read after a hand-over", h, inputs[0][:6*bufSize])
		// Nor does a single Sum of a Clone, or of the Hasher after Reset.
		c := h.Clone()
		c.Sum(nil)
		h.Reset()
		_, _ = h.Write(inputs[1][:5*bufSize])
		h.Sum(nil)
		if c.ahead != nil || aheadHeld(h) {
			t.Fatalf("a single Sum made a tree ahead: of a Clone %v, after Reset %v", c.ahead != nil, aheadHeld(h))
		}
		t.Logf("reads that found the tree ahead holding what is pending: %d with no tail, %d as the right half", held[0], held[1])
		if lib != nil && (held[0] == 0 || held[1] == 0) {
			t.Fatalf("reads that found the tree ahead holding what is pending: %d with no tail, %d as the right half", held[0], held[1])
		}
	})
}

// aheadHeld reports whether h's tree ahead holds its tree's input and the
// chunks pending after it.
func aheadHeld(h *Hasher) bool {
	p := h.pending()
	return h.live && h.ahead != nil && len(p) > 0 && len(p)%chunkLen == 0 &&
		h.ahead.Offset/chunkLen+h.ahead.Chunks == h.t.Chunks+uint64(len(p)/chunkLen)
}

// TestSumTailInGo: a Sum or a Digest after each write of a stream, with a
// part of a chunk after the library's tree, gives zeebo's output whether
// the plan computes that root in Go (tailGo: with lukechampine's code or
// zeebo's compression) or in the library, in every mode, on the native
// path; and so do a Sum and a Digest after one write of whole chunks and a
// part of one, whose tree the Hasher holds in itself (front).
func TestSumTailInGo(t *testing.T) {
	if !nativeActive(t) {
		t.Skip("no native library: the tail goes to Go only after the library's tree")
	}
	defer pinDispatch()()
	in := vectorInput(3*bufSize + 3*chunkLen + 7)
	for _, c := range []struct {
		im     impl
		levels uint8
	}{{implLuke, 64}, {implZeebo, 64}, {implNative, 64}, {implZeebo, 0}} {
		im := c.im
		planNow.Store(planAll(im))
		setTailLevels(c.levels)
		inGo := im != implNative && c.levels > 0
		for _, m := range marshalModes {
			for _, piece := range []int{1, 64, 100, 1000} {
				h, z := m.new(), m.ref()
				tailsInGo := 0
				for off, step := 0, 0; off < len(in); off, step = off+piece, step+1 {
					if piece == 1 && off > firstLen+chunkLen+70 {
						break // every length through the chunk after first
					}
					p := in[off:min(off+piece, len(in))]
					_, _ = h.Write(p)
					_, _ = z.Write(p)
					if got, want := h.Sum(nil), z.Sum(nil); !bytes.Equal(got, want) {
						t.Fatalf("plan %s, levels %d, %s, pieces of %d, %d bytes: Sum %x, zeebo %x", im, c.levels, m.name, piece, off+len(p), got[:8], want[:8])
					}
					// What Sum took its root from, after its absorb.
					if h.t != nil && tailInGo(h.t, h.pending()) {
						tailsInGo++
					}
					if step%7 == 0 {
						got, want := make([]byte, 100), make([]byte, 100)
						_, _ = h.Digest().Read(got)
						_, _ = z.Digest().Read(want)
						if !bytes.Equal(got, want) {
							t.Fatalf("plan %s, levels %d, %s, pieces of %d, %d bytes: Digest %x, zeebo %x", im, c.levels, m.name, piece, off+len(p), got[:8], want[:8])
						}
					}
				}
				if inGo && tailsInGo == 0 {
					t.Errorf("plan %s, levels %d, %s, pieces of %d: no root computed in Go", im, c.levels, m.name, piece)
				}
				if !inGo && tailsInGo != 0 {
					t.Errorf("plan %s, levels %d, %s, pieces of %d: %d roots computed in Go", im, c.levels, m.name, piece, tailsInGo)
				}
			}
			// One write, read again and again: up to firstLen gathered,
			// then moved to the library's tree (rereadNative); past it,
			// the tree of its chunks held in the Hasher (front), and a
			// part of a chunk after them.
			for _, n := range []int{chunkLen + 1, 3*chunkLen + 1023, 5*chunkLen + 1, 8*chunkLen + 700, 15*chunkLen + 500} {
				h, z := m.new(), m.ref()
				_, _ = h.Write(in[:n])
				_, _ = z.Write(in[:n])
				if n > firstLen && ffi.ArgsStay {
					if h.front == 0 {
						t.Fatalf("%d bytes in one write: no tree held in the Hasher", n)
					}
					if front := tailGo(h.front, h.pending()); front != inGo {
						t.Errorf("plan %s, levels %d, %s, %d bytes in one write: root in Go %v", im, c.levels, m.name, n, front)
					}
				}
				for range 12 {
					got, want := make([]byte, 100), make([]byte, 100)
					_, _ = h.Digest().Read(got)
					_, _ = z.Digest().Read(want)
					if !bytes.Equal(got, want) || !bytes.Equal(h.Sum(nil), z.Sum(nil)) {
						t.Fatalf("plan %s, levels %d, %s, %d bytes in one write: Digest %x, zeebo %x, or Sum not zeebo's", im, c.levels, m.name, n, got[:8], want[:8])
					}
				}
			}
		}
		// Far into the input: the tail's chunk counter and the stack's
		// subtrees past 2^32 chunks, from a saved state, against zeebo
		// resumed from the same state.
		if !ffi.ZeeboOK() {
			continue
		}
		for _, chunks := range []uint64{1 << 40, 1<<40 + 0x5a5a5, 1<<33 - 1} {
			for mode, key := range map[uint32][32]byte{modeHash: {}, modeKeyed: [32]byte([]byte(vectorKey))} {
				var h Hasher
				if err := h.UnmarshalBinary(marshalState(byte(mode), 0, key, 0, chunks, 10)); err != nil {
					t.Fatal(err)
				}
				kw := keyWords(mode, &key)
				z := ffi.ZeeboImport(&ffi.ZeeboState{Key: *kw, Flags: modeFlags(mode), Chunks: chunks, Tail: vectorInput(10)})
				for _, n := range []int{1, 63, 64, 400, 500} {
					p := in[:n]
					_, _ = h.Write(p)
					_, _ = z.Write(p)
					if got, want := h.Sum(nil), z.Sum(nil); !bytes.Equal(got, want) {
						t.Fatalf("plan %s, mode %d, resumed at %#x chunks, then %d bytes: Sum %x, zeebo %x", im, mode, chunks, n, got[:8], want[:8])
					}
				}
			}
		}
	}
}

// TestRootKept: a native-path Hasher read again and again, with a part of
// a chunk after its chunks, keeps the root node its read computed in Go
// (rootKept), and its Sums and Digests after that are zeebo's; and every
// change after it gives the new input's output: a write, an empty one, a
// Reset (and then another input of the same length), a Clone written to,
// a state resumed into it, and a copy by value written to (the Hasher
// copied panics, and the copy, Reset, hashes another input of the same
// length as the Hasher did, which takes its new count of changes to the
// one its root was kept at), in every mode, with zeebo's compression and
// lukechampine's code for the tail, the input written in one write and in
// pieces (through Write's fast path); and a subtree hasher's rejected
// write after a root kept leaves it no output, as without the root.
func TestRootKept(t *testing.T) {
	if !nativeActive(t) {
		t.Skip("no native library: the Go path keeps its root node another way (goRoot)")
	}
	defer pinDispatch()()
	setTailLevels(64)
	in, in2 := vectorInput(16*chunkLen+2), vectorInput(16*chunkLen + 3)[1:]
	for _, c := range []struct {
		im    impl
		piece int // the input written in one write, or in pieces of this many bytes
	}{{implZeebo, 0}, {implLuke, 0}, {implZeebo, 100}} {
		im := c.im
		planNow.Store(planAll(im))
		write := func(h *Hasher, p []byte) {
			if c.piece == 0 {
				_, _ = h.Write(p)
				return
			}
			writeSplit(h, p, c.piece)
		}
		for _, m := range marshalModes {
			for _, n := range []int{chunkLen + 1, 3*chunkLen + 100, 8*chunkLen + 1, 13*chunkLen + 1000} {
				what := fmt.Sprintf("plan %s, %s, %d bytes, pieces of %d", im, m.name, n, c.piece)
				// same checks h's Sum and a read of 100 bytes of its Digest
				// against z's.
				same := func(h *Hasher, z *zeebo.Hasher, step string) {
					t.Helper()
					got, want := make([]byte, 100), make([]byte, 100)
					_, _ = h.Digest().Read(got)
					_, _ = z.Digest().Read(want)
					if !bytes.Equal(got, want) || !bytes.Equal(h.Sum([]byte("b3")), z.Sum([]byte("b3"))) {
						t.Fatalf("%s, %s: Digest %x, zeebo %x, or Sum (after 2 bytes) not zeebo's", what, step, got[:8], want[:8])
					}
				}
				// kept reads h by Sum or by Digest (use) until it keeps its
				// root node, and then both ways.
				kept := func(h *Hasher, z *zeebo.Hasher, step, use string) {
					t.Helper()
					for range 12 {
						got, want := make([]byte, 32), make([]byte, 32)
						if use == "Sum" {
							got, want = h.Sum(got[:0]), z.Sum(want[:0])
						} else {
							_, _ = h.Digest().Read(got)
							_, _ = z.Digest().Read(want)
						}
						if !bytes.Equal(got, want) {
							t.Fatalf("%s, %s: %s %x, zeebo %x", what, step, use, got[:8], want[:8])
						}
						if h.rootKept() {
							same(h, z, step+", root kept")
							return
						}
					}
					t.Fatalf("%s, %s: no root kept after 12 reads by %s", what, step, use)
				}
				h, z := m.new(), m.ref()
				write(h, in[:n])
				_, _ = z.Write(in[:n])
				kept(h, z, "one write", "Sum")

				h2 := *h
				_, _ = h.Write(in[n : n+1])
				_, _ = z.Write(in[n : n+1])
				kept(h, z, "a byte more, after a copy by value", "Digest")
				panicsWith(t, what+", Sum after a copy by value was written to", "copy by value", func() { h2.Sum(nil) })
				h2.Reset()
				write(&h2, in2[:n])
				z2 := m.ref()
				_, _ = z2.Write(in2[:n])
				same(&h2, z2, "a copy by value, stale, Reset, another input in one write")

				c, zc := h.Clone(), z.Clone()
				_, _ = c.Write(in[n+1 : n+2])
				_, _ = zc.Write(in[n+1 : n+2])
				same(c, zc, "a Clone written to")
				same(h, z, "after a Clone")

				_, _ = h.Write(nil)
				same(h, z, "an empty write")

				kept(h, z, "an empty write", "Sum")
				h.Reset()
				z.Reset()
				same(h, z, "Reset")
				write(h, in2[:n])
				_, _ = z.Write(in2[:n])
				kept(h, z, "Reset, another input", "Sum")
				s, err := c.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				if err := h.UnmarshalBinary(s); err != nil {
					t.Fatal(err)
				}
				same(h, zc, "a Clone's state resumed")
			}
		}
	}

	// A subtree hasher at offset 0, resumed 1,022 bytes short of 2^64-1
	// bytes (2^54-1 chunks and a byte), with its root kept or not, then
	// a write it rejects: at offset 0 the input is a whole one, which
	// refuses what does not fit and goes on, as without the offset (the
	// SetInputOffset doc): Sum and Digest give the root of what it holds,
	// as a plain hasher resumed from the same state does.
	planNow.Store(planAll(implZeebo))
	var plain Hasher
	if err := plain.UnmarshalBinary(marshalState(byte(modeHash), 0, [32]byte{}, 0, 1<<54-1, 1)); err != nil {
		t.Fatal(err)
	}
	want := plain.Sum(nil)
	wantOut := make([]byte, 100)
	_, _ = plain.Digest().Read(wantOut)
	for _, readFirst := range []bool{false, true} {
		var h Hasher
		if err := h.UnmarshalBinary(marshalState(byte(modeHash), stateSubtree, [32]byte{}, 0, 1<<54-1, 1)); err != nil {
			t.Fatal(err)
		}
		if readFirst {
			h.Sum(nil)
			if !h.rootKept() {
				t.Fatal("a subtree hasher 1,022 bytes short of the end: no root kept")
			}
		}
		if _, err := h.Write(make([]byte, 1023)); !errors.Is(err, ErrSubtreeTooLarge) {
			t.Fatalf("a write past 2^64-1 bytes: %v, want ErrSubtreeTooLarge", err)
		}
		if s := h.Sum(nil); !bytes.Equal(s, want) {
			t.Errorf("read before %v: Sum after a rejected write %x, want %x", readFirst, s, want)
		}
		out := make([]byte, 100)
		if _, err := h.Digest().Read(out); err != nil || !bytes.Equal(out, wantOut) {
			t.Errorf("read before %v: a Digest's Read after a rejected write: %v, or not the plain hasher's output", readFirst, err)
		}
		if err := h.Err(); err != nil {
			t.Errorf("read before %v: Err after a rejected write at offset 0: %v, want nil", readFirst, err)
		}
	}
}
