package blake3

// The official test vectors (testdata/test_vectors.json, generated from the
// reference b3sum by scripts/gen-vectors.sh) through every entry point, on
// every backend.

import (
	"bytes"
	"io"
	"strconv"
	"testing"
)

func TestVectorsFile(t *testing.T) {
	v := loadVectors(t)
	if v.Key != vectorKey || v.Context != vectorContext {
		t.Fatalf("key/context = %q/%q, want %q/%q", v.Key, v.Context, vectorKey, vectorContext)
	}
	// The lengths scripts/gen-vectors.sh writes: every one must be there.
	want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 63, 64, 65, 127, 128, 129, 1023, 1024, 1025,
		2048, 2049, 3072, 3073, 4096, 4097, 5120, 5121, 6144, 6145, 7168, 7169,
		8192, 8193, 16384, 31744, 102400}
	if len(v.Cases) != len(want) {
		t.Fatalf("%d cases, want %d", len(v.Cases), len(want))
	}
	for i, c := range v.Cases {
		if c.InputLen != want[i] {
			t.Errorf("case %d: input_len %d, want %d", i, c.InputLen, want[i])
		}
	}
	if got := v.Cases[0].Hash[:32]; !bytes.Equal(got, mustHexBytes(t, emptyHash)) {
		t.Errorf("hash of the empty input is %x, want %s", got, emptyHash)
	}
}

func TestVectors(t *testing.T) {
	v := loadVectors(t)
	forEachBackend(t, func(t *testing.T) {
		for _, c := range v.Cases {
			t.Run(strconv.Itoa(c.InputLen), func(t *testing.T) {
				checkVectorCase(t, c)
			})
		}
	})
}

// checkVectorCase checks one case through every entry point.
func checkVectorCase(t *testing.T, c vectorCase) {
	in := vectorInput(c.InputLen)
	key := []byte(vectorKey)

	// One-shot functions.
	if got := Sum256(in); !bytes.Equal(got[:], c.Hash[:32]) {
		t.Errorf("Sum256 = %x, want %x", got, c.Hash[:32])
	}
	if got := Sum512(in); !bytes.Equal(got[:], c.Hash[:64]) {
		t.Errorf("Sum512 = %x, want %x", got, c.Hash[:64])
	}
	for _, n := range []int{32, 131, 1, 64, 65} {
		out := make([]byte, n)
		DeriveKey(vectorContext, in, out)
		if !bytes.Equal(out, c.DeriveKey[:n]) {
			t.Errorf("DeriveKey(out %d) = %s, want %s", n, shortHex(out), shortHex(c.DeriveKey[:n]))
		}
	}

	for _, m := range allHashModes {
		want := c.want(m)
		newH := func() *Hasher { return newModeHasher(t, m, key, vectorContext) }
		checkHasher := func(what string, h *Hasher) {
			t.Helper()
			if got := h.Sum(nil); !bytes.Equal(got, want[:32]) {
				t.Errorf("%s %s: Sum = %x, want %x", m, what, got, want[:32])
			}
			out := make([]byte, 131)
			if _, err := h.Digest().Read(out); err != nil || !bytes.Equal(out, want) {
				t.Errorf("%s %s: Digest = %s (err %v), want %s", m, what, shortHex(out), err, shortHex(want))
			}
		}

		// One write.
		h := newH()
		if n, err := h.Write(in); n != len(in) || err != nil {
			t.Fatalf("%s: Write = %d, %v", m, n, err)
		}
		checkHasher("one write", h)
		// Sum and Digest do not change the state: ask again.
		checkHasher("one write, again", h)

		// Split writes.
		for _, sizes := range [][]int{{1}, {63}, {64}, {1000}, {1, 63, 64, 1000}, {bufSize - 1, 7}, {chunkLen - 1, chunkLen + 1}} {
			h := newH()
			writeSplit(h, in, sizes...)
			checkHasher("writes of "+intsName(sizes), h)
		}

		// WriteString, in one and in two pieces.
		h = newH()
		if n, err := h.WriteString(string(in)); n != len(in) || err != nil {
			t.Fatalf("%s: WriteString = %d, %v", m, n, err)
		}
		checkHasher("WriteString", h)
		h = newH()
		_, _ = h.WriteString(string(in[:len(in)/3]))
		_, _ = h.WriteString(string(in[len(in)/3:]))
		checkHasher("WriteString split", h)

		// Sum appends to a non-empty slice, without touching its prefix.
		h = newH()
		_, _ = h.Write(in)
		prefix := []byte("prefix:")
		buf := append(make([]byte, 0, 8), prefix...)
		got := h.Sum(buf)
		if !bytes.Equal(got[:len(prefix)], prefix) || !bytes.Equal(got[len(prefix):], want[:32]) {
			t.Errorf("%s: Sum(prefix) = %q…, want prefix then %x", m, got, want[:32])
		}
		big := make([]byte, 3, 100)
		if got := h.Sum(big); len(got) != 35 || !bytes.Equal(got[3:], want[:32]) || &got[0] != &big[0] {
			t.Errorf("%s: Sum into spare capacity = %x (len %d)", m, got, len(got))
		}

		// Digest: in pieces, and after seeks.
		d := h.Digest()
		var pieces []byte
		for _, n := range []int{1, 7, 0, 31, 64, 28} {
			p := make([]byte, n)
			_, _ = d.Read(p)
			pieces = append(pieces, p...)
		}
		if !bytes.Equal(pieces, want) {
			t.Errorf("%s: Digest in pieces = %s, want %s", m, shortHex(pieces), shortHex(want))
		}
		for _, off := range []int{0, 1, 31, 32, 63, 64, 65, 100, 130, int(c.InputLen*7+3) % 131} {
			d := h.Digest()
			pos, err := d.Seek(int64(off), io.SeekStart)
			if err != nil || pos != int64(off) {
				t.Fatalf("%s: Seek(%d, SeekStart) = %d, %v", m, off, pos, err)
			}
			p := make([]byte, 131-off)
			_, _ = d.Read(p)
			if !bytes.Equal(p, want[off:]) {
				t.Errorf("%s: Digest from %d = %s, want %s", m, off, shortHex(p), shortHex(want[off:]))
			}
		}
		for _, st := range []struct{ start, rel int64 }{{40, -40}, {40, 10}, {0, 100}, {131, -3}, {64, -1}, {1, 63}} {
			d := h.Digest()
			p := make([]byte, st.start)
			_, _ = d.Read(p) // SeekCurrent counts what was read
			pos, err := d.Seek(st.rel, io.SeekCurrent)
			if err != nil || pos != st.start+st.rel {
				t.Fatalf("%s: Seek(%d, SeekCurrent) after reading %d = %d, %v", m, st.rel, st.start, pos, err)
			}
			q := make([]byte, 131-int(pos))
			_, _ = d.Read(q)
			if !bytes.Equal(q, want[pos:]) {
				t.Errorf("%s: Digest from %d (SeekCurrent) = %s, want %s", m, pos, shortHex(q), shortHex(want[pos:]))
			}
		}

		// Clone mid-stream: both go on independently.
		for _, cut := range []int{0, len(in) / 2, len(in)} {
			h := newH()
			_, _ = h.Write(in[:cut])
			c := h.Clone()
			_, _ = h.Write(in[cut:])
			checkHasher("original after Clone at "+strconv.Itoa(cut), h)
			_, _ = c.Write(in[cut:])
			checkHasher("clone at "+strconv.Itoa(cut), c)
			_, _ = c.Write([]byte("more"))
			checkHasher("original after the clone diverged", h)

			// Both orders of writes after a Clone, with the prefix written in
			// two pieces so that the buffer has spare capacity: neither may
			// see the other's input.
			for _, cloneFirst := range []bool{false, true} {
				h := newH()
				_, _ = h.Write(in[:cut/2])
				_, _ = h.Write(in[cut/2 : cut])
				c := h.Clone()
				junk := []byte{'x'}
				if cloneFirst {
					_, _ = c.Write(junk)
					_, _ = h.Write(in[cut:])
				} else {
					_, _ = h.Write(in[cut:])
					_, _ = c.Write(junk)
				}
				checkHasher("original beside a diverging clone at "+strconv.Itoa(cut), h)
				wantC := refOutput(t, m, key, vectorContext, append(in[:cut:cut], junk...), 0, 131)
				outC := make([]byte, 131)
				_, _ = c.Digest().Read(outC)
				if !bytes.Equal(outC, wantC) {
					t.Errorf("%s: clone at %d (clone wrote first: %v): %s, want %s", m, cut, cloneFirst, shortHex(outC), shortHex(wantC))
				}
			}
		}

		// Reset and reuse, from several states.
		for _, junk := range [][]byte{nil, in[:min(len(in), 5)], vectorInput(chunkLen + 5), vectorInput(bufSize + 5)} {
			h := newH()
			_, _ = h.Write(junk)
			_ = h.Sum(nil)
			h.Reset()
			_, _ = h.Write(in)
			checkHasher("after Reset", h)
		}
	}

	// The zero Hasher behaves as New().
	var z Hasher
	_, _ = z.Write(in)
	if got := z.Sum(nil); !bytes.Equal(got, c.Hash[:32]) {
		t.Errorf("Hasher{}: Sum = %x, want %x", got, c.Hash[:32])
	}
	out := make([]byte, 131)
	var z2 Hasher
	_, _ = z2.WriteString(string(in))
	_, _ = z2.Digest().Read(out)
	if !bytes.Equal(out, c.Hash) {
		t.Errorf("Hasher{}: Digest = %s, want %s", shortHex(out), shortHex(c.Hash))
	}
	var z3 Hasher
	if got := z3.Sum(nil); !bytes.Equal(got, mustHexBytes(t, emptyHash)) {
		t.Errorf("Hasher{} with no input: Sum = %x, want %s", got, emptyHash)
	}
	var z4 Hasher
	z4.Reset()
	_, _ = z4.Write(in)
	if got := z4.Clone().Sum(nil); !bytes.Equal(got, c.Hash[:32]) {
		t.Errorf("Hasher{} Reset, Write, Clone: Sum = %x, want %x", got, c.Hash[:32])
	}
}

func intsName(v []int) string {
	s := ""
	for i, n := range v {
		if i > 0 {
			s += ","
		}
		s += strconv.Itoa(n)
	}
	return s
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

func TestDigestSeekErrors(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		for _, small := range []bool{true, false} {
			h := New()
			if !small {
				_, _ = h.Write(vectorInput(bufSize + 1))
			}
			d := h.Digest()
			if _, err := d.Seek(0, io.SeekEnd); err == nil {
				t.Error("Seek(SeekEnd) did not fail")
			}
			if _, err := d.Seek(0, 42); err == nil {
				t.Error("Seek(whence 42) did not fail")
			}
			if _, err := d.Seek(-1, io.SeekStart); err == nil {
				t.Error("Seek(-1, SeekStart) did not fail")
			}
			_, _ = d.Seek(5, io.SeekStart)
			if _, err := d.Seek(-6, io.SeekCurrent); err == nil {
				t.Error("Seek(-6, SeekCurrent) at 5 did not fail")
			}
		}
	})
}
