package blake3

// Bad input to the API, on both backends: every misuse ends in an
// error, never a panic, and every empty or nil argument behaves as the
// empty input. Also the batching and dispatch contract of the native path
// (white box), which the mutation tests (scripts/mutate.sh) lean on.

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

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

func TestBadInputSeek(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		for _, n := range badSizes {
			data := vectorInput(n)
			h := New()
			_, _ = h.Write(data)
			d := h.Digest()
			ref := func(seek int64, k int) []byte { return refOutput(t, hashModePlain, nil, "", data, seek, k) }
			if pos, err := d.Seek(100, io.SeekStart); err != nil || pos != 100 {
				t.Fatalf("len %d: Seek(100, SeekStart) = %d, %v", n, pos, err)
			}
			bad := []struct {
				off    int64
				whence int
			}{
				{-1, io.SeekStart}, {math.MinInt64, io.SeekStart},
				{0, io.SeekEnd}, {10, io.SeekEnd}, {-10, io.SeekEnd},
				{0, 7}, {0, -1}, {0, 3}, {5, math.MaxInt32},
				{-101, io.SeekCurrent}, {math.MinInt64, io.SeekCurrent},
			}
			for _, b := range bad {
				badNoPanic(t, fmt.Sprintf("Seek(%d, %d)", b.off, b.whence), func() {
					if _, err := d.Seek(b.off, b.whence); err == nil || err.Error() == "" {
						t.Errorf("len %d: Seek(%d, whence %d) did not fail", n, b.off, b.whence)
					}
				})
			}
			// A failed seek leaves the position where it was.
			got := make([]byte, 40)
			if _, err := d.Read(got); err != nil || !bytes.Equal(got, ref(100, 40)) {
				t.Fatalf("len %d: read after failed seeks: %s, %v; want %s", n, shortHex(got), err, shortHex(ref(100, 40)))
			}
		}
	})
}

func TestBadInputSeekCurrent(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		for _, n := range badSizes {
			data := vectorInput(n)
			for _, m := range allHashModes {
				h := newModeHasher(t, m, []byte(vectorKey), vectorContext)
				_, _ = h.Write(data)
				d := h.Digest()
				ref := func(seek int64, k int) []byte {
					return refOutput(t, m, []byte(vectorKey), vectorContext, data, seek, k)
				}
				seek := func(off int64, whence int, want int64) {
					t.Helper()
					if pos, err := d.Seek(off, whence); err != nil || pos != want {
						t.Fatalf("%s len %d: Seek(%d, %d) = %d, %v; want %d", m, n, off, whence, pos, err, want)
					}
				}
				read := func(k int, at int64) {
					t.Helper()
					got := make([]byte, k)
					if _, err := d.Read(got); err != nil || !bytes.Equal(got, ref(at, k)) {
						t.Fatalf("%s len %d: %d bytes at %d: %s, %v; want %s", m, n, k, at, shortHex(got), err, shortHex(ref(at, k)))
					}
				}
				seek(0, io.SeekCurrent, 0)
				read(10, 0)
				seek(0, io.SeekCurrent, 10) // Read moves the position
				read(7, 10)
				read(1, 17)
				seek(0, io.SeekCurrent, 18)
				seek(100, io.SeekStart, 100)
				seek(30, io.SeekCurrent, 130)
				read(65, 130)
				seek(-80, io.SeekCurrent, 115)
				read(16, 115)
				seek(-131, io.SeekCurrent, 0)
				if _, err := d.Seek(-1, io.SeekCurrent); err == nil {
					t.Fatalf("%s len %d: Seek(-1, SeekCurrent) at 0 did not fail", m, n)
				}
				seek(0, io.SeekCurrent, 0)
				seek(1<<40+3, io.SeekCurrent, 1<<40+3)
				read(64, 1<<40+3)
				seek(math.MaxInt64, io.SeekStart, math.MaxInt64)
				seek(0, io.SeekCurrent, math.MaxInt64)
				// One more would overflow an int64: an error, not a wrap.
				if pos, err := d.Seek(1, io.SeekCurrent); err == nil {
					t.Fatalf("%s len %d: Seek(1, SeekCurrent) at MaxInt64 = %d, no error", m, n, pos)
				}
				seek(-(math.MaxInt64 - 5), io.SeekCurrent, 5)
				read(3, 5)
			}
		}
	})
}

// TestBadInputHugeRead reads 64 MiB of output in one Read, at the start and
// at a far offset, and compares it with reads in small pieces and with
// zeebo's output. (-short: a native digest at a far offset only.)
func TestBadInputHugeRead(t *testing.T) {
	const huge = 64 << 20
	big := make([]byte, huge)
	piece := make([]byte, huge)
	seeks, sizes := []int64{1<<50 + 13}, []int{bufSize + 1}
	if !testing.Short() {
		seeks, sizes = append(seeks, 0), append(sizes, 3)
	}
	wants := map[string][]byte{}
	forEachBackend(t, func(t *testing.T) {
		for _, n := range sizes {
			data := vectorInput(n)
			for _, seek := range seeks {
				h := New()
				_, _ = h.Write(data)
				d := h.Digest()
				_, _ = d.Seek(seek, io.SeekStart)
				if k, err := d.Read(big); k != huge || err != nil {
					t.Fatalf("len %d: Read(64 MiB) = %d, %v", n, k, err)
				}
				if pos, _ := d.Seek(0, io.SeekCurrent); pos != seek+huge {
					t.Fatalf("len %d: position after Read(64 MiB) from %d: %d", n, seek, pos)
				}
				// Pieces of odd sizes from another digest of the same hasher.
				d2 := h.Digest()
				_, _ = d2.Seek(seek, io.SeekStart)
				for off, k := 0, 1; off < huge; k = k*3 + 1 {
					k = min(k, huge-off)
					_, _ = d2.Read(piece[off : off+k])
					off += k
				}
				id := fmt.Sprint(n, "@", seek)
				want := wants[id]
				if want == nil {
					want = make([]byte, huge)
					z := zeebo.New()
					_, _ = z.Write(data)
					zd := z.Digest()
					_, _ = zd.Seek(seek, io.SeekStart)
					_, _ = zd.Read(want)
					wants[id] = want
				}
				if !bytes.Equal(big, want) {
					t.Fatalf("len %d seek %d: one 64 MiB Read differs from zeebo", n, seek)
				}
				if !bytes.Equal(piece, want) {
					t.Fatalf("len %d seek %d: 64 MiB read in pieces differs from zeebo", n, seek)
				}
			}
		}
		if n, err := new(Hasher).Digest().Read(big[:0]); n != 0 || err != nil {
			t.Fatalf("Read of an empty slice = %d, %v", n, err)
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

// badBuffered is the number of input bytes h holds on the Go side: its
// nbuf field where the buffer is an array in the Hasher, else the length of
// its buf slice. (Through reflect, so that the test does not depend on which
// of the two layouts hasher.go has.)
func badBuffered(h *Hasher) int {
	v := reflect.ValueOf(h).Elem()
	if n := v.FieldByName("nbuf"); n.IsValid() {
		return int(n.Int())
	}
	return v.FieldByName("buf").Len()
}

// TestBadInputBatching pins the native path's batching, which the output
// alone cannot show: the Go side holds at most bufSize bytes, the input
// after the last aligned group of bufSize bytes handed over; a write that
// would overflow the buffer first tops it up to the end of its group and
// hands that over, then whole groups straight from the write, keeping the
// last group (1 to bufSize bytes), whole or not. Sum and Digest hand
// nothing over.
func TestBadInputBatching(t *testing.T) {
	if !nativeActive(t) {
		t.Skip("native backend not active")
	}
	model := func(handed, buffered, n int) (int, int) {
		room := bufSize - handed%bufSize
		if buffered+n <= room {
			return handed, buffered + n
		}
		n -= room - buffered
		handed += room
		whole := (n - 1) / bufSize * bufSize
		return handed + whole, n - whole
	}
	rng := newTestRand(testSeed(t))
	pattern := vectorInput(12 * 3 * bufSize)
	edges := []int{0, 1, chunkLen - 1, chunkLen, bufSize - 1, bufSize, bufSize + 1, 2*bufSize - 1, 2 * bufSize, 2*bufSize + 1}
	for round := range 200 {
		h := New()
		var total, handed, buffered int
		var all []byte
		for i := range 12 {
			var n int
			switch {
			case round < len(edges)*len(edges):
				n = edges[(round/len(edges)+i*(round%len(edges)))%len(edges)]
			case i%2 == 0:
				n = edges[rng.IntN(len(edges))]
			default:
				n = rng.IntN(3 * bufSize)
			}
			p := pattern[total : total+n]
			if i%3 == 2 {
				_, _ = h.WriteString(string(p))
			} else {
				_, _ = h.Write(p)
			}
			all = append(all, p...)
			total += n
			handed, buffered = model(handed, buffered, n)
			got := 0
			if h.live {
				got = int(h.t.Chunks) * chunkLen
			}
			if got != handed || h.nbuf != buffered {
				t.Fatalf("round %d, after writes totalling %d (last %d): %d bytes handed over, %d buffered; want %d, %d",
					round, total, n, got, h.nbuf, handed, buffered)
			}
			if i%4 == 3 {
				before := *h
				sum := h.Sum(nil)
				h.Digest()
				if h.live != before.live || h.nbuf != before.nbuf || h.t != before.t {
					t.Fatalf("round %d: Sum or Digest changed the hasher", round)
				}
				if want := zeebo.Sum256(all); !bytes.Equal(sum, want[:]) {
					t.Fatalf("round %d: Sum of %d bytes wrong", round, total)
				}
			}
		}
		if got, want := h.Sum(nil), zeebo.Sum256(all); !bytes.Equal(got, want[:]) {
			t.Fatalf("round %d: Sum of %d bytes wrong", round, total)
		}
	}
}
