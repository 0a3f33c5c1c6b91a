package blake3

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/purego-blake3/blake3/internal/ffi"

	zeebo "github.com/zeebo/blake3"
	"lukechampine.com/blake3/guts"
)

// The subtree tests are self-contained: their helpers below carry a sub
// prefix.

// subMode is a hashing mode with its reference (zeebo) hasher.
type subMode struct {
	name string
	mk   func() *Hasher
	ref  func() *zeebo.Hasher
}

var (
	subKey     = []byte("whats the Elvish word for friend")
	subContext = "BLAKE3 2019-12-27 16:29:52 test vectors context"
	// Not UTF-8: the derive-key hasher runs on the Go path even with the
	// library.
	subBadContext = "bad \xff context"
	// Longer than a chunk (and a 16-chunk group): a multi-chunk context key.
	subLongContext = strings.Repeat("a long context ", 1200)
)

func subModes() []subMode {
	keyed := func() *Hasher { h, _ := NewKeyed(subKey); return h }
	refKeyed := func() *zeebo.Hasher { h, _ := zeebo.NewKeyed(subKey); return h }
	derive := func(c string) subMode {
		name := "derive"
		switch c {
		case subBadContext:
			name = "derive-nonutf8"
		case subLongContext:
			name = "derive-long"
		}
		return subMode{name, func() *Hasher { return NewDeriveKey(c) }, func() *zeebo.Hasher { return zeebo.NewDeriveKey(c) }}
	}
	return []subMode{
		{"hash", New, zeebo.New},
		{"keyed", keyed, refKeyed},
		derive(subContext),
		derive(subBadContext),
		derive(subLongContext),
	}
}

// subBackends runs fn on the native backend (when loaded) and on the Go
// path. No t.Parallel: the backend is process-wide.
func subBackends(t *testing.T, fn func(t *testing.T)) {
	t.Helper()
	prev := active
	defer setBackend(prev)
	if lib != nil {
		t.Run("native", fn)
	} else if strictTests() && os.Getenv("BLAKE3_BACKEND") != "go" && ffi.Native {
		t.Fatalf("BLAKE3_STRICT=1 and no native library: %s", active.info.Reason)
	} else {
		t.Logf("no native library (%s): Go path only", active.info.Reason)
	}
	setBackend(goBackend("test: forced"))
	t.Run("go", fn)
}

// subRand is the subtree tests' generator, from testSeed.
func subRand(t *testing.T) *rand.Rand {
	seed := testSeed(t)
	return rand.New(rand.NewPCG(seed, seed^1))
}

func subData(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

func subRef(m subMode, data []byte, seek int64, n int) []byte {
	h := m.ref()
	_, _ = h.Write(data)
	d := h.Digest()
	_, _ = d.Seek(seek, io.SeekStart)
	out := make([]byte, n)
	_, _ = d.Read(out)
	return out
}

// subWrite writes p to h in random pieces.
func subWrite(t *testing.T, rng *rand.Rand, h *Hasher, p []byte) {
	t.Helper()
	for len(p) > 0 {
		var n int
		switch rng.IntN(4) {
		case 0:
			n = 1 + rng.IntN(100)
		case 1:
			n = 1 + rng.IntN(40000)
		default:
			n = len(p)
		}
		n = min(n, len(p))
		if k, err := h.Write(p[:n]); k != n || err != nil {
			t.Fatalf("Write(%d bytes) = %d, %v", n, k, err)
		}
		p = p[n:]
	}
}

// subLeaf hashes data[off:off+n] as one subtree.
func subLeaf(t *testing.T, rng *rand.Rand, m subMode, data []byte, off, n uint64) Subtree {
	t.Helper()
	h := m.mk()
	if err := h.SetInputOffset(off); err != nil {
		t.Fatalf("SetInputOffset(%d): %v", off, err)
	}
	subWrite(t, rng, h, data[off:off+n])
	s, err := h.FinalizeNonRoot()
	if err != nil {
		t.Fatalf("FinalizeNonRoot [%d,+%d): %v", off, n, err)
	}
	if s.Offset != off || s.Len != n {
		t.Fatalf("FinalizeNonRoot: got [%d,+%d), want [%d,+%d)", s.Offset, s.Len, off, n)
	}
	return s
}

// subHash hashes data[off:off+n], a valid subtree, either at once or split
// at random depths with LeftSubtreeLen and merged.
func subHash(t *testing.T, rng *rand.Rand, m subMode, data []byte, off, n uint64) Subtree {
	t.Helper()
	if n <= chunkLen || rng.IntN(3) == 0 {
		return subLeaf(t, rng, m, data, off, n)
	}
	l, err := LeftSubtreeLen(n)
	if err != nil {
		t.Fatal(err)
	}
	a := subHash(t, rng, m, data, off, l)
	b := subHash(t, rng, m, data, off+l, n-l)
	s, err := m.mk().MergeNonRoot(a, b)
	if err != nil {
		t.Fatalf("MergeNonRoot: %v", err)
	}
	return s
}

// subRoot checks that data, split into subtrees and merged, hashes as a
// whole: through MergeRoot and through MergeRootDigest at a seek.
func subRoot(t *testing.T, rng *rand.Rand, m subMode, data []byte) {
	t.Helper()
	n := uint64(len(data))
	l, _ := LeftSubtreeLen(n)
	a := subHash(t, rng, m, data, 0, l)
	b := subHash(t, rng, m, data, l, n-l)
	h := m.mk()
	sum, err := h.MergeRoot(a, b)
	if err != nil {
		t.Fatalf("MergeRoot: %v", err)
	}
	if want := subRef(m, data, 0, 32); !bytes.Equal(sum[:], want) {
		t.Fatalf("%s, %d bytes: MergeRoot %x, want %x", m.name, n, sum, want)
	}
	d, err := h.MergeRootDigest(a, b)
	if err != nil {
		t.Fatalf("MergeRootDigest: %v", err)
	}
	seek := rng.Int64N(1 << 20)
	if _, err := d.Seek(seek, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 1+rng.IntN(300))
	if _, err := d.Read(got); err != nil {
		t.Fatal(err)
	}
	if want := subRef(m, data, seek, len(got)); !bytes.Equal(got, want) {
		t.Fatalf("%s, %d bytes: MergeRootDigest at %d: %x, want %x", m.name, n, seek, got, want)
	}
}

func TestSubtreeLenFuncs(t *testing.T) {
	cases := []struct{ off, max uint64 }{
		{0, 0}, {1024, 1024}, {2048, 2048}, {3072, 1024}, {4096, 4096},
		{5 << 20, 1 << 20}, {1 << 40, 1 << 40}, {1<<63 + 1024, 1024}, {1 << 63, 1 << 63},
	}
	for _, c := range cases {
		got, err := MaxSubtreeLen(c.off)
		if err != nil || got != c.max {
			t.Errorf("MaxSubtreeLen(%d) = %d, %v; want %d", c.off, got, err, c.max)
		}
	}
	for _, off := range []uint64{1, 1023, 1025, 1<<40 + 512} {
		if _, err := MaxSubtreeLen(off); !errors.Is(err, ErrInvalidSubtree) {
			t.Errorf("MaxSubtreeLen(%d): err %v", off, err)
		}
	}
	lcases := []struct{ n, l uint64 }{
		{1025, 1024}, {2048, 1024}, {2049, 2048}, {3072, 2048}, {4096, 2048}, {4097, 4096},
		{8 << 20, 4 << 20}, {8<<20 + 1, 8 << 20}, {1<<64 - 1, 1 << 63},
	}
	for _, c := range lcases {
		got, err := LeftSubtreeLen(c.n)
		if err != nil || got != c.l {
			t.Errorf("LeftSubtreeLen(%d) = %d, %v; want %d", c.n, got, err, c.l)
		}
	}
	for _, n := range []uint64{0, 1, 1024} {
		if _, err := LeftSubtreeLen(n); !errors.Is(err, ErrInvalidSubtree) {
			t.Errorf("LeftSubtreeLen(%d): err %v", n, err)
		}
	}
	if lib == nil {
		t.Log("no native library: not compared with it")
		return
	}
	rng := subRand(t)
	for i := 0; i < 20000; i++ {
		v := rng.Uint64() >> rng.IntN(64)
		if i%2 == 0 {
			v &^= 1023
		}
		var nm, nl uint64
		rm := lib.MaxSubtreeLen(v, &nm)
		gm, em := MaxSubtreeLen(v)
		if (rm == 0) != (em == nil) || rm == 0 && nm != gm {
			t.Fatalf("MaxSubtreeLen(%d): Go %d, %v; native %d, code %d", v, gm, em, nm, rm)
		}
		rl := lib.LeftSubtreeLen(v, &nl)
		gl, el := LeftSubtreeLen(v)
		if (rl == 0) != (el == nil) || rl == 0 && nl != gl {
			t.Fatalf("LeftSubtreeLen(%d): Go %d, %v; native %d, code %d", v, gl, el, nl, rl)
		}
	}
}

func TestSubtreeMergeEqualsHash(t *testing.T) {
	subBackends(t, func(t *testing.T) {
		rng := subRand(t)
		sizes := []int{1025, 2048, 2049, 3 * 1024, 16 << 10, 16<<10 + 1, 32<<10 + 1, 3*64<<10 + 5, 1<<20 + 1}
		for range 6 {
			sizes = append(sizes, 1025+rng.IntN(300<<10))
		}
		for _, m := range subModes() {
			for _, n := range sizes {
				data := subData(rng, n)
				for range 3 {
					subRoot(t, rng, m, data)
				}
			}
		}
	})
}

// TestSubtreeMergeEightMiB merges the two 4 MiB halves of an 8 MiB input
// (and of 8 MiB + 1, whose left half is the whole 8 MiB).
func TestSubtreeMergeEightMiB(t *testing.T) {
	rng := subRand(t)
	data := subData(rng, 8<<20+1)
	want8 := zeebo.Sum256(data[:8<<20])
	want81 := zeebo.Sum256(data)
	subBackends(t, func(t *testing.T) {
		m := subModes()[0]
		a := subLeaf(t, rng, m, data, 0, 4<<20)
		b := subLeaf(t, rng, m, data, 4<<20, 4<<20)
		if a.Len != 4<<20 || b.Offset != 4<<20 {
			t.Fatalf("subtrees %+v %+v", a, b)
		}
		got, err := New().MergeRoot(a, b)
		if err != nil || got != want8 {
			t.Fatalf("8 MiB: %x, %v; want %x", got, err, want8)
		}
		ab, err := New().MergeNonRoot(a, b)
		if err != nil {
			t.Fatal(err)
		}
		c := subLeaf(t, rng, m, data, 8<<20, 1)
		got, err = New().MergeRoot(ab, c)
		if err != nil || got != want81 {
			t.Fatalf("8 MiB + 1: %x, %v; want %x", got, err, want81)
		}
	})
}

// TestSubtreeNativeEqualsGo compares the chaining values of random subtrees
// at random (large) offsets between the backends, and the context keys.
func TestSubtreeNativeEqualsGo(t *testing.T) {
	if lib == nil {
		t.Skip("no native library")
	}
	rng := subRand(t)
	type job struct {
		m      subMode
		off, n uint64
		data   []byte
	}
	var jobs []job
	for _, m := range subModes() {
		for range 12 {
			var off uint64
			if rng.IntN(4) != 0 {
				off = (rng.Uint64() >> rng.IntN(50)) &^ 1023
			}
			max, _ := MaxSubtreeLen(off)
			if off == 0 || max > 200<<10 {
				max = 200 << 10
			}
			n := 1 + rng.Uint64N(max)
			jobs = append(jobs, job{m, off, n, subData(rng, int(n))})
		}
	}
	hash := func(j job) (cv [32]byte, merged [32]byte) {
		h := j.m.mk()
		if err := h.SetInputOffset(j.off); err != nil {
			t.Fatal(err)
		}
		subWrite(t, rng, h, j.data)
		s, err := h.FinalizeNonRoot()
		if err != nil {
			t.Fatal(err)
		}
		// A merge of this CV with itself, as if it were a left 1-chunk and a
		// right subtree: exercises the merge's mode and key.
		l := Subtree{CV: s.CV, Len: 1024}
		r := Subtree{CV: s.CV, Offset: 1024, Len: 1}
		p, err := j.m.mk().MergeNonRoot(l, r)
		if err != nil {
			t.Fatal(err)
		}
		return s.CV, p.CV
	}
	native := make([][2][32]byte, len(jobs))
	for i, j := range jobs {
		native[i][0], native[i][1] = hash(j)
	}
	var ctxKeys [][32]byte
	contexts := []string{"", "x", subContext, strings.Repeat("c", 1024), strings.Repeat("d", 1025), subLongContext}
	for _, c := range contexts {
		var k [32]byte
		if rc := lib.ContextKey(c, &k); rc != ffi.OK {
			t.Fatalf("context key: %v", rc)
		}
		ctxKeys = append(ctxKeys, k)
	}
	withSubGoBackend(func() {
		for i, j := range jobs {
			cv, merged := hash(j)
			if cv != native[i][0] || merged != native[i][1] {
				t.Errorf("%s [%d,+%d): Go CV %x merge %x; native %x %x", j.m.name, j.off, j.n, cv, merged, native[i][0], native[i][1])
			}
		}
		for i, c := range contexts {
			if k := cvBytes(goContextKey(c)); k != ctxKeys[i] {
				t.Errorf("context key of %d bytes: Go %x, native %x", len(c), k, ctxKeys[i])
			}
		}
	})
}

func withSubGoBackend(fn func()) {
	prev := active
	defer setBackend(prev)
	setBackend(goBackend("test: forced"))
	fn()
}

// TestSubtreeOffsetZero: a hasher with input offset 0 is still a root
// hasher, and gives its chaining value too.
func TestSubtreeOffsetZero(t *testing.T) {
	subBackends(t, func(t *testing.T) {
		rng := subRand(t)
		for _, m := range subModes() {
			for _, n := range []int{0, 1, 1024, 1025, 40000, 300 << 10} {
				data := subData(rng, n)
				h := m.mk()
				if err := h.SetInputOffset(0); err != nil {
					t.Fatal(err)
				}
				if err := h.SetInputOffset(0); err != nil { // again, before input
					t.Fatal(err)
				}
				subWrite(t, rng, h, data)
				if h.Err() != nil {
					t.Fatalf("Err: %v", h.Err())
				}
				want := subRef(m, data, 0, 32)
				if got := h.Sum(nil); !bytes.Equal(got, want) {
					t.Fatalf("%s %d: Sum %x, want %x", m.name, n, got, want)
				}
				d := h.Digest()
				_, _ = d.Seek(100, io.SeekStart)
				got := make([]byte, 70)
				if _, err := d.Read(got); err != nil || !bytes.Equal(got, subRef(m, data, 100, 70)) {
					t.Fatalf("%s %d: Digest: %x, %v", m.name, n, got, err)
				}
				if n == 0 {
					if _, err := h.FinalizeNonRoot(); !errors.Is(err, ErrInvalidSubtree) {
						t.Fatalf("empty FinalizeNonRoot: %v", err)
					}
					continue
				}
				c := h.Clone()
				s, err := h.FinalizeNonRoot()
				if err != nil || s.Len != uint64(n) || s.Offset != 0 {
					t.Fatalf("FinalizeNonRoot: %+v, %v", s, err)
				}
				// Writing on after FinalizeNonRoot, and on the clone.
				more := subData(rng, 3000)
				_, _ = h.Write(more)
				all := append(append([]byte(nil), data...), more...)
				if got := h.Sum(nil); !bytes.Equal(got, subRef(m, all, 0, 32)) {
					t.Fatalf("Sum after FinalizeNonRoot and more input: wrong")
				}
				if got := c.Sum(nil); !bytes.Equal(got, want) {
					t.Fatalf("clone changed by the original")
				}
				if s2, _ := c.FinalizeNonRoot(); s2.CV != s.CV {
					t.Fatalf("clone's CV differs")
				}
				h.Reset()
				if _, err := h.FinalizeNonRoot(); err == nil {
					t.Fatal("FinalizeNonRoot after Reset: no error")
				}
				_, _ = h.Write(data)
				if got := h.Sum(nil); !bytes.Equal(got, want) {
					t.Fatalf("Sum after Reset wrong")
				}
			}
		}
	})
}

// TestSubtreeWithOffsetNoRoot: a hasher with a non-zero offset never gives a
// root hash, and rejects input past its subtree's end.
func TestSubtreeWithOffsetNoRoot(t *testing.T) {
	subBackends(t, func(t *testing.T) {
		for _, m := range subModes() {
			for _, n := range []int{0, 1, 64} { // no more than a block, which reads take apart
				h := m.mk()
				if err := h.SetInputOffset(3 * 1024); err != nil {
					t.Fatal(err)
				}
				_, _ = h.Write(make([]byte, n))
				if got := h.Sum([]byte("x")); string(got) != "x" {
					t.Fatalf("%d bytes: Sum with an offset appended %x", n, got[1:])
				}
				if _, err := h.Digest().Read(make([]byte, 8)); !errors.Is(err, ErrRootWithOffset) {
					t.Fatalf("%d bytes: Digest Read: %v", n, err)
				}
			}
			h := m.mk()
			if err := h.SetInputOffset(3 * 1024); err != nil { // at most 1024 bytes
				t.Fatal(err)
			}
			if _, err := h.WriteString(strings.Repeat("a", 1000)); err != nil {
				t.Fatal(err)
			}
			if got := h.Sum([]byte("x")); string(got) != "x" {
				t.Fatalf("Sum with an offset appended %x", got[1:])
			}
			if _, err := h.Digest().Read(make([]byte, 8)); !errors.Is(err, ErrRootWithOffset) {
				t.Fatalf("Digest Read: %v", err)
			}
			if !errors.Is(h.Err(), ErrRootWithOffset) {
				t.Fatalf("Err: %v", h.Err())
			}
			ok, err := h.FinalizeNonRoot()
			if err != nil {
				t.Fatal(err)
			}
			c := h.Clone()
			if n, err := h.Write(make([]byte, 25)); n != 0 || !errors.Is(err, ErrSubtreeTooLarge) {
				t.Fatalf("Write past the subtree: %d, %v", n, err)
			}
			if n, err := h.Write(make([]byte, 1)); n != 0 || !errors.Is(err, ErrSubtreeTooLarge) {
				t.Fatalf("Write after a rejected one: %d, %v (not sticky)", n, err)
			}
			if _, err := h.FinalizeNonRoot(); !errors.Is(err, ErrSubtreeTooLarge) {
				t.Fatalf("FinalizeNonRoot after a rejected Write: %v", err)
			}
			if !errors.Is(h.Err(), ErrSubtreeTooLarge) {
				t.Fatalf("Err: %v", h.Err())
			}
			// The clone, taken before, is unaffected: 24 more bytes fit.
			if _, err := c.Write(make([]byte, 24)); err != nil {
				t.Fatal(err)
			}
			if s, err := c.FinalizeNonRoot(); err != nil || s.Len != 1024 || s.CV == ok.CV {
				t.Fatalf("clone: %+v, %v", s, err)
			}
			h.Reset()
			if h.Err() != nil {
				t.Fatal("Err after Reset")
			}
			_, _ = h.Write([]byte("abc"))
			if got, want := h.Sum(nil), subRef(m, []byte("abc"), 0, 32); !bytes.Equal(got, want) {
				t.Fatal("Sum after Reset")
			}
		}
	})
}

func TestSubtreeMisuse(t *testing.T) {
	subBackends(t, func(t *testing.T) {
		inv := func(what string, err error) {
			t.Helper()
			if !errors.Is(err, ErrInvalidSubtree) {
				t.Errorf("%s: err %v, want ErrInvalidSubtree", what, err)
			}
		}
		h := New()
		inv("unaligned offset", h.SetInputOffset(1000))
		_, _ = h.Write([]byte("x"))
		inv("offset after small input", h.SetInputOffset(1024))
		big := New()
		_, _ = big.Write(make([]byte, 3*bufSize))
		inv("offset after large input", big.SetInputOffset(0))
		for _, m := range subModes() {
			g := m.mk()
			_, _ = g.Write([]byte("y"))
			inv(m.name+": offset after input", g.SetInputOffset(0))
			g = m.mk()
			_, _ = g.Write(nil)
			if err := g.SetInputOffset(2048); err != nil {
				t.Errorf("%s: offset after an empty Write: %v", m.name, err)
			}
			_, _ = g.Write([]byte("z"))
			inv(m.name+": offset after subtree input", g.SetInputOffset(0))
		}
		_, err := New().FinalizeNonRoot()
		inv("FinalizeNonRoot without SetInputOffset", err)
		if err == nil || !strings.Contains(err.Error(), "needs SetInputOffset") {
			t.Errorf("FinalizeNonRoot without SetInputOffset: %v, want the reason", err)
		}
		e := New()
		_, _ = e.Write([]byte("abc"))
		_, err = e.FinalizeNonRoot()
		inv("FinalizeNonRoot without SetInputOffset, with input", err)
		e = New()
		_ = e.SetInputOffset(1 << 20)
		_, err = e.FinalizeNonRoot()
		inv("empty subtree", err)

		cv := func(off, n uint64) Subtree {
			s := New()
			if err := s.SetInputOffset(off); err != nil {
				t.Fatal(err)
			}
			_, _ = s.Write(make([]byte, n))
			st, err := s.FinalizeNonRoot()
			if err != nil {
				t.Fatal(err)
			}
			return st
		}
		k1, k2 := cv(0, 1024), cv(1024, 1024)
		merges := []struct {
			what string
			l, r Subtree
		}{
			{"non-contiguous", cv(0, 2048), cv(4096, 100)},
			{"overlapping", cv(0, 2048), cv(1024, 100)},
			{"left not whole chunks", Subtree{Len: 1000}, Subtree{Offset: 1000, Len: 10}},
			{"left not a power of two chunks", cv(0, 3072), cv(3072, 1024)},
			{"right longer than left", k1, Subtree{CV: k2.CV, Offset: 1024, Len: 2048}},
			{"empty right", k1, Subtree{Offset: 1024}},
			{"empty left", Subtree{}, k1},
			{"parent too large for its offset", k2, cv(2048, 1024)},
			{"wrap-around", Subtree{Offset: 1<<64 - 1024, Len: 1024}, Subtree{Offset: 0, Len: 1}},
			{"right past 2^64-1 bytes", Subtree{Offset: 1 << 63, Len: 1 << 62}, Subtree{Offset: 1<<63 + 1<<62, Len: 1 << 62}},
			{"non-root parent past 2^63 bytes", Subtree{Len: 1 << 63}, Subtree{Offset: 1 << 63, Len: 1}},
		}
		for _, c := range merges {
			_, err := New().MergeNonRoot(c.l, c.r)
			inv("MergeNonRoot, "+c.what, err)
			if c.l.Offset == 0 && c.l.Len == 1<<63 {
				continue // a root: TestSubtreeMergeHalf
			}
			_, err = New().MergeRoot(c.l, c.r)
			inv("MergeRoot, "+c.what, err)
			_, err = New().MergeRootDigest(c.l, c.r)
			inv("MergeRootDigest, "+c.what, err)
		}
		// A valid non-root merge away from offset 0 is not a root.
		l, r := cv(4096, 1024), cv(5120, 1024)
		if _, err := New().MergeNonRoot(l, r); err != nil {
			t.Errorf("valid merge at 4096: %v", err)
		}
		_, err = New().MergeRoot(l, r)
		inv("root merge at offset 4096", err)
		_, err = New().MergeRootDigest(l, r)
		inv("root digest merge at offset 4096", err)

		// Modes: subtrees tagged with another mode than the merger's.
		kh, _ := NewKeyed(subKey)
		_ = kh.SetInputOffset(1024)
		_, _ = kh.Write([]byte("k"))
		kr, _ := kh.FinalizeNonRoot()
		for _, merger := range []*Hasher{New(), NewDeriveKey(subContext)} {
			_, err = merger.MergeNonRoot(k1, kr)
			inv("mode mix (right keyed)", err)
			_, err = merger.MergeRoot(k1, kr)
			inv("mode mix, root", err)
		}
		dk := NewDeriveKey(subContext)
		_ = dk.SetInputOffset(0)
		_, _ = dk.Write(make([]byte, 1024))
		dl, _ := dk.FinalizeNonRoot()
		_, err = New().MergeRoot(dl, Subtree{CV: kr.CV, Offset: 1024, Len: 1})
		inv("mode mix (left derive, right unknown)", err)
		// Unknown modes merge in the merger's mode.
		unk := func(s Subtree) Subtree { return Subtree{CV: s.CV, Offset: s.Offset, Len: s.Len} }
		kk, _ := NewKeyed(subKey)
		if _, err := kk.MergeRoot(unk(k1), kr); err != nil {
			t.Errorf("unknown left, keyed right, keyed merger: %v", err)
		}
	})
}

// TestSubtreeCopyByValue: SetInputOffset gives a Hasher shared state as a
// write does (TestCopyByValue), on both backends: a copy by value taken
// before it is independent of the original, size accounting and sticky
// error included; one taken after it panics once the original is written
// to, at SetInputOffset too, which would refuse it for its input.
func TestSubtreeCopyByValue(t *testing.T) {
	want := func(off uint64, in []byte) Subtree {
		s := New()
		_ = s.SetInputOffset(off)
		_, _ = s.Write(in)
		st, err := s.FinalizeNonRoot()
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	subBackends(t, func(t *testing.T) {
		h := New()
		h2 := *h
		if err := h.SetInputOffset(1024); err != nil {
			t.Fatal(err)
		}
		h3 := *h
		full := make([]byte, 1024) // all a subtree at 1024 may hold
		if _, err := h.Write(full); err != nil {
			t.Fatal(err)
		}
		panicsWith(t, "Write on a copy after SetInputOffset", copied, func() { _, _ = h3.Write([]byte{2}) })
		panicsWith(t, "FinalizeNonRoot on a copy after SetInputOffset", copied, func() { _, _ = h3.FinalizeNonRoot() })
		// Its reads too, which at an offset have no output.
		panicsWith(t, "Sum on a copy after SetInputOffset", copied, func() { h3.Sum(nil) })
		panicsWith(t, "Digest on a copy after SetInputOffset", copied, func() { h3.Digest() })
		panicsWith(t, "Err on a copy after SetInputOffset", copied, func() { _ = h3.Err() })
		// A copy that has input too: SetInputOffset panics, before it
		// would refuse a hasher with input (or an unaligned offset).
		h4 := New()
		_ = h4.SetInputOffset(0)
		_, _ = h4.Write(full[:10])
		h5 := *h4
		_, _ = h4.Write(full[:1])
		panicsWith(t, "SetInputOffset on a copy with input, after the original was written to", copied, func() { _ = h5.SetInputOffset(1024) })
		panicsWith(t, "SetInputOffset of an unaligned offset on that copy", copied, func() { _ = h5.SetInputOffset(1) })
		if _, err := h.Write([]byte{1}); err == nil {
			t.Fatal("a 1025th byte at offset 1024 was accepted")
		}
		if err := h2.SetInputOffset(1024); err != nil {
			t.Fatalf("the copy saw the original's offset: %v", err)
		}
		if _, err := h2.Write([]byte{2}); err != nil {
			t.Fatalf("the copy saw the original's input or error: %v", err)
		}
		got2, err := h2.FinalizeNonRoot()
		if err != nil || got2 != want(1024, []byte{2}) {
			t.Fatalf("copy: %+v, %v; want the subtree of its own byte", got2, err)
		}
		if _, err := h.FinalizeNonRoot(); err == nil {
			t.Fatal("the original lost its sticky error to the copy")
		}
	})
}

// TestSubtreeEndOfInput: an input has at most 2^64-1 bytes, so a subtree
// near the end of that range holds fewer than MaxSubtreeLen bytes: Write
// refuses the byte at 2^64 (ErrSubtreeTooLarge) on both backends, as
// UnmarshalBinary refuses such a state and the library such a tree, and
// FinalizeNonRoot works up to it, with the same chaining value on both.
func TestSubtreeEndOfInput(t *testing.T) {
	cvs := map[string][32]byte{}
	subBackends(t, func(t *testing.T) {
		h := New()
		if err := h.SetInputOffset(1<<64 - 1024); err != nil {
			t.Fatal(err)
		}
		if _, err := h.Write(make([]byte, 1024)); !errors.Is(err, ErrSubtreeTooLarge) {
			t.Fatalf("1024 bytes from 2^64-1024: %v, want ErrSubtreeTooLarge", err)
		}
		h.Reset()
		_ = h.SetInputOffset(1<<64 - 1024)
		if _, err := h.Write(make([]byte, 1023)); err != nil {
			t.Fatalf("1023 bytes from 2^64-1024: %v", err)
		}
		if _, err := h.Write([]byte{0}); !errors.Is(err, ErrSubtreeTooLarge) {
			t.Fatalf("the byte at 2^64: %v, want ErrSubtreeTooLarge", err)
		}
		h.Reset()
		_ = h.SetInputOffset(1<<64 - 1024)
		_, _ = h.Write(make([]byte, 1023))
		s, err := h.FinalizeNonRoot()
		if err != nil {
			t.Fatal(err)
		}
		cvs[t.Name()] = s.CV

		// The same from a saved state of 2^64-1 bytes.
		var r Hasher
		if err := r.UnmarshalBinary(marshalState(0, 1, [32]byte{}, 1<<64-2048, 1, 1023)); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Write([]byte{0}); !errors.Is(err, ErrSubtreeTooLarge) {
			t.Fatalf("resumed: the byte at 2^64: %v, want ErrSubtreeTooLarge", err)
		}
		// At input offset 0, 1,022 bytes short of the end: the error says
		// what was written and what was there (their sum wraps).
		if err := r.UnmarshalBinary(marshalState(0, 1, [32]byte{}, 0, 1<<54-1, 1)); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Write(make([]byte, 1023)); !errors.Is(err, ErrSubtreeTooLarge) || !strings.Contains(err.Error(), ": 1023 bytes after 18446744073709550593 at input offset 0,") {
			t.Fatalf("resumed at offset 0: 1023 bytes past 2^64-1: %v, want ErrSubtreeTooLarge saying 1023 bytes after 2^64-1023", err)
		}
	})
	if len(cvs) == 2 && cvs["TestSubtreeEndOfInput/native"] != cvs["TestSubtreeEndOfInput/go"] {
		t.Fatalf("the backends differ: %x", cvs)
	}
}

// TestSubtreeMergeHalf: the root of an input of more than 2^63 bytes, a
// left subtree of 2^63 bytes and a right one of 1 to 2^63-1: MergeRoot
// and MergeRootDigest give the root of the parent of their chaining
// values, as lukechampine's guts compute it (a parent's offset check once
// divided by twice 2^63, which is 0 in 64 bits, and panicked).
func TestSubtreeMergeHalf(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		for _, r := range []uint64{1, 1 << 62, 1<<63 - 1} {
			left := Subtree{Len: 1 << 63, CV: [32]byte{1, 2, 3}}
			right := Subtree{Offset: 1 << 63, Len: r, CV: [32]byte{4, 5, 6}}
			n := guts.ParentNode(cvWords(&left.CV), cvWords(&right.CV), &guts.IV, 0)
			n.Flags |= guts.FlagRoot
			out := guts.WordsToBytes(guts.CompressNode(n))
			got, err := New().MergeRoot(left, right)
			if err != nil || !bytes.Equal(got[:], out[:32]) {
				t.Fatalf("right of %d bytes: MergeRoot %x, %v; want %x", r, got, err, out[:32])
			}
			d, err := New().MergeRootDigest(left, right)
			if err != nil {
				t.Fatalf("right of %d bytes: MergeRootDigest: %v", r, err)
			}
			dout := make([]byte, 64)
			if _, err := d.Read(dout); err != nil || !bytes.Equal(dout, out[:]) {
				t.Fatalf("right of %d bytes: MergeRootDigest reads %x, %v; want %x", r, dout, err, out)
			}
		}
	})
}
