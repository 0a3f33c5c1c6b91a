package blake3

// Differential tests: the native backend, the Go path and the reference
// (github.com/zeebo/blake3 directly, and the b3sum binary) must agree on
// random inputs at the lengths where the implementations change strategy.

import (
	"bytes"
	zeebo "github.com/zeebo/blake3"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// diffLengths are the lengths the native-vs-Go tests use: block (64) and
// chunk (1024) edges, the package's dispatch sizes, and powers of two ±1 up
// to 4 MiB.
func diffLengths() []int {
	set := map[int]bool{}
	add := func(ns ...int) {
		for _, n := range ns {
			if n >= 0 {
				set[n] = true
			}
		}
	}
	add(0, 1, 2, 3, 7, 8, 31, 32, 33)
	for _, n := range []int{64, 128, 1024, 2048, 3072, chunkLen, bufSize, parallelMin, 31 * 1024, 33 * 1024} {
		add(n-1, n, n+1)
	}
	for k := 4; k <= 22; k++ {
		add(1<<k-1, 1<<k, 1<<k+1)
	}
	add(3<<20+17, 2*bufSize+63, 2*parallelMin+1025)
	out := make([]int, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// diffOracleLengths is the shorter list the b3sum tests use.
var diffOracleLengths = []int{0, 1, 63, 64, 65, 1023, 1024, 1025, 2049, 4097,
	bufSize - 1, bufSize, bufSize + 1, 65537, parallelMin - 1, parallelMin, parallelMin + 1,
	1<<20 - 1, 1<<20 + 1025, 3<<20 + 17}

// diffSeeks are output offsets: the start, block edges, far ones, and ones
// whose reads cross 2^63, the largest position Seek can reach.
func diffSeeks(rng *rand.Rand) []int64 {
	return []int64{0, 1, 63, 64, 65, 1000, 1 << 32, int64(rng.Uint64() >> 1), int64(rng.Uint64() >> 20),
		math.MaxInt64 - 130, math.MaxInt64 - 64, math.MaxInt64 - 63, math.MaxInt64 - 1, math.MaxInt64}
}

// diffKey is a random 32-byte key; diffContext a UTF-8 context.
const diffContext = "purego-blake3 2025-01-01 differential tests"

// diffBadContext is not UTF-8: the crate takes &str, so the package hashes
// it on the Go path, and the result must equal zeebo's.
const diffBadContext = "purego-blake3 \xff\xfe not UTF-8 \xc3"

// streamOutput hashes data with a package Hasher written in random pieces,
// cloned and reset along the way, and returns Sum and n bytes of output at
// seek.
func streamOutput(t testing.TB, rng *rand.Rand, m hashMode, key []byte, ctx string, data []byte, seek int64, n int) (sum, out []byte) {
	t.Helper()
	h := newModeHasher(t, m, key, ctx)
	// Some junk first, then Reset, half the time.
	if rng.IntN(2) == 0 {
		_, _ = h.Write(data[:rng.IntN(len(data)+1)])
		_ = h.Sum(nil)
		h.Reset()
	}
	cut := rng.IntN(len(data) + 1)
	writeRandomSplit(rng, h, data[:cut])
	c := h.Clone()
	_, _ = c.Write([]byte("diverge")) // the clone's writes must not reach h
	if rng.IntN(2) == 0 {
		h = h.Clone() // go on with a second clone instead of the original
	}
	writeRandomSplit(rng, h, data[cut:])
	sum = h.Sum(nil)
	d := h.Digest()
	if _, err := d.Seek(seek, io.SeekStart); err != nil {
		t.Fatalf("Seek(%d): %v", seek, err)
	}
	out = make([]byte, n)
	_, _ = d.Read(out)
	return sum, out
}

// TestDifferentialNativeGo compares the native backend with the Go path and
// with zeebo directly, on many lengths, every mode, random write splits,
// clones, resets and seeks, with one thread and with several.
func TestDifferentialNativeGo(t *testing.T) {
	if !nativeActive(t) {
		t.Skipf("native backend not active (%s); the Go path is checked against zeebo by TestDifferentialGoRef", active.info.Reason)
	}
	seed := testSeed(t)
	rng := newTestRand(seed)
	key := randomBytes(rng, 32)
	lengths := diffLengths()
	var total int
	for _, threads := range []int{1, 0} {
		withMaxThreads(threads, func() {
			for _, n := range lengths {
				data := randomBytes(rng, n)
				total += n
				name := "threads=" + strconv.Itoa(threads) + " len=" + strconv.Itoa(n)
				diffOneShots(t, name, data, key)
				for _, m := range allHashModes {
					for _, ctx := range []string{diffContext, diffBadContext} {
						if m != hashModeDerive && ctx == diffBadContext {
							continue
						}
						seeks := diffSeeks(rng)
						seek := seeks[rng.IntN(len(seeks))]
						outLen := 1 + rng.IntN(300)
						want := refOutput(t, m, key, ctx, data, seek, outLen)
						wantSum := refOutput(t, m, key, ctx, data, 0, 32)
						// The same choices of splits on both backends.
						split := rng.Uint64()
						nSum, nOut := streamOutput(t, newTestRand(split), m, key, ctx, data, seek, outLen)
						var gSum, gOut []byte
						withGoBackend(func() {
							gSum, gOut = streamOutput(t, newTestRand(split), m, key, ctx, data, seek, outLen)
						})
						for _, r := range []struct {
							what      string
							got, want []byte
						}{
							{"native Sum", nSum, wantSum}, {"Go Sum", gSum, wantSum},
							{"native Digest", nOut, want}, {"Go Digest", gOut, want},
						} {
							if !bytes.Equal(r.got, r.want) {
								t.Errorf("%s %s ctx=%q seek=%d: %s = %s, want %s (zeebo)",
									name, m, ctx, seek, r.what, shortHex(r.got), shortHex(r.want))
							}
						}
					}
				}
				if t.Failed() {
					t.FailNow()
				}
			}
		})
	}
	t.Logf("%d lengths, %d MiB of input per thread setting", len(lengths), total/2>>20)
}

// diffOneShots checks Sum256, Sum512 and DeriveKey, native and Go, against
// zeebo.
func diffOneShots(t *testing.T, name string, data, key []byte) {
	t.Helper()
	want := refOutput(t, hashModePlain, nil, "", data, 0, 64)
	check := func(backend string) {
		if got := Sum256(data); !bytes.Equal(got[:], want[:32]) {
			t.Errorf("%s %s: Sum256 = %x, want %x", name, backend, got, want[:32])
		}
		if got := Sum512(data); !bytes.Equal(got[:], want) {
			t.Errorf("%s %s: Sum512 = %x, want %x", name, backend, got, want)
		}
		for _, ctx := range []string{diffContext, diffBadContext, ""} {
			for _, n := range []int{0, 32, 77} {
				wantDK := make([]byte, n)
				zeebo.DeriveKey(ctx, data, wantDK)
				got := make([]byte, n)
				DeriveKey(ctx, data, got)
				if !bytes.Equal(got, wantDK) {
					t.Errorf("%s %s: DeriveKey(%q, out %d) = %s, want %s", name, backend, ctx, n, shortHex(got), shortHex(wantDK))
				}
			}
		}
	}
	check("native")
	withGoBackend(func() { check("go") })
}

// TestDifferentialGoRef checks the package's Go path against zeebo directly
// (meaningful when native is not loaded: the package's own code around
// zeebo, such as Digest and Clone, is still exercised).
func TestDifferentialGoRef(t *testing.T) {
	seed := testSeed(t)
	rng := newTestRand(seed)
	key := randomBytes(rng, 32)
	withGoBackend(func() {
		for _, n := range []int{0, 1, 64, 1023, 1025, bufSize + 1, parallelMin + 1} {
			data := randomBytes(rng, n)
			for _, m := range allHashModes {
				seeks := diffSeeks(rng)
				seek := seeks[rng.IntN(len(seeks))]
				want := refOutput(t, m, key, diffBadContext, data, seek, 100)
				_, got := streamOutput(t, rng, m, key, diffBadContext, data, seek, 100)
				if !bytes.Equal(got, want) {
					t.Errorf("len=%d %s seek=%d: %s, want %s", n, m, seek, shortHex(got), shortHex(want))
				}
			}
		}
	})
}

// TestDifferentialB3sum compares both backends with the reference b3sum on
// about twenty lengths, every mode, at output offset 0 and (in the subtest
// "far", which needs b3sum --seek) near 2^63.
func TestDifferentialB3sum(t *testing.T) {
	b3sumBinary(t)
	seed := testSeed(t)
	rng := newTestRand(seed)
	key := randomBytes(rng, 32)
	datas := make([][]byte, len(diffOracleLengths))
	for i, n := range diffOracleLengths {
		datas[i] = randomBytes(rng, n)
	}
	start := map[hashMode][][]byte{}
	for _, m := range allHashModes {
		start[m] = b3sumOutputs(t, m, key, diffContext, 0, 131, datas...)
	}
	forEachBackend(t, func(t *testing.T) {
		diffAgainstB3sum(t, rng, key, datas, 0, start, func(name string, i int, data []byte) {
			if s := Sum512(data); !bytes.Equal(s[:], start[hashModePlain][i][:64]) {
				t.Errorf("%s: Sum512 = %s, want %s (b3sum)", name, shortHex(s[:]), shortHex(start[hashModePlain][i]))
			}
			dk := make([]byte, 131)
			DeriveKey(diffContext, data, dk)
			if !bytes.Equal(dk, start[hashModeDerive][i]) {
				t.Errorf("%s: DeriveKey = %s, want %s (b3sum)", name, shortHex(dk), shortHex(start[hashModeDerive][i]))
			}
		})
	})
	t.Run("far", func(t *testing.T) {
		b3sumNeed(t, "--seek")
		farSeek := uint64(math.MaxInt64 - 70) // reads cross 2^63
		far := map[hashMode][][]byte{}
		for _, m := range allHashModes {
			far[m] = b3sumOutputs(t, m, key, diffContext, farSeek, 131, datas...)
		}
		forEachBackend(t, func(t *testing.T) {
			diffAgainstB3sum(t, rng, key, datas, farSeek, far, nil)
		})
	})
}

// diffAgainstB3sum checks the streamed output of every input in every mode
// at output offset seek against refs (b3sum's), with one thread and with
// the default; extra, if not nil, checks more for each input.
func diffAgainstB3sum(t *testing.T, rng *rand.Rand, key []byte, datas [][]byte, seek uint64, refs map[hashMode][][]byte, extra func(name string, i int, data []byte)) {
	t.Helper()
	for _, threads := range []int{1, 0} {
		withMaxThreads(threads, func() {
			for i, data := range datas {
				name := "threads=" + strconv.Itoa(threads) + " len=" + strconv.Itoa(len(data))
				if extra != nil {
					extra(name, i, data)
				}
				for _, m := range allHashModes {
					_, got := streamOutput(t, rng, m, key, diffContext, data, int64(seek), 131)
					if !bytes.Equal(got, refs[m][i]) {
						t.Errorf("%s %s at %d: %s, want %s (b3sum)", name, m, seek, shortHex(got), shortHex(refs[m][i]))
					}
				}
			}
		})
	}
}

// TestDifferentialSeekLimits checks that the native and Go digests agree at
// the edge of what Seek can reach: reads across 2^63, and the errors when a
// relative seek would overflow.
func TestDifferentialSeekLimits(t *testing.T) {
	data := vectorInput(bufSize + 5) // large enough for the native state
	results := map[string][]string{}
	forEachBackend(t, func(t *testing.T) {
		var log []string
		h := New()
		_, _ = h.Write(data)
		d := h.Digest()
		for _, st := range []struct {
			off    int64
			whence int
			read   int
		}{
			{math.MaxInt64 - 10, io.SeekStart, 20}, // now past 2^63
			{0, io.SeekCurrent, 0},                 // the position does not fit an int64
			{-100, io.SeekCurrent, 0},
			{math.MaxInt64, io.SeekStart, 1},
			{5, io.SeekStart, 3},
			{math.MaxInt64 - 8, io.SeekCurrent, 10}, // 8 + MaxInt64-8 = MaxInt64
			{1, io.SeekCurrent, 0},
		} {
			pos, err := d.Seek(st.off, st.whence)
			buf := make([]byte, st.read)
			_, _ = d.Read(buf)
			log = append(log, strconv.FormatInt(pos, 10)+" err="+strconv.FormatBool(err != nil)+" "+shortHex(buf))
		}
		want := refOutput(t, hashModePlain, nil, "", data, math.MaxInt64-10, 20)
		if got := log[0]; got != strconv.FormatInt(math.MaxInt64-10, 10)+" err=false "+shortHex(want) {
			t.Errorf("read across 2^63: %s, want %s", got, shortHex(want))
		}
		results[t.Name()] = log
	})
	var first []string
	for name, log := range results {
		if first == nil {
			first = log
			continue
		}
		if !slices.Equal(log, first) {
			t.Errorf("backends disagree at the seek limits:\n%s: %q\nother: %q", name, log, first)
		}
	}
}

// TestDifferentialNativeWrap checks the native digest at output offsets near
// 2^64, which only the native Digest's uint64 position can reach, against
// b3sum --seek (one read; the Rust crate's output blocks do not wrap).
func TestDifferentialNativeWrap(t *testing.T) {
	if !nativeActive(t) {
		t.Skip("native backend not active")
	}
	b3sumNeed(t, "--seek")
	data := vectorInput(2*bufSize + 3)
	h := New()
	_, _ = h.Write(data)
	for _, seek := range []uint64{math.MaxUint64 - 130, math.MaxUint64 - 63, math.MaxUint64 - 200} {
		want := b3sumOutput(t, hashModePlain, nil, "", data, seek, 131)
		d := h.Digest()
		d.pos = seek // beyond what Seek can set
		got := make([]byte, 131)
		_, _ = d.Read(got)
		if !bytes.Equal(got, want) {
			t.Errorf("native output at %d: %s, want %s (b3sum)", seek, shortHex(got), shortHex(want))
		}
	}
}

// TestDifferentialDigestSmallReads: the native Digest fetches output ahead
// for small reads (digest.go); every Read must still return exactly what
// the library gives at that position for that length, whatever the sizes,
// seeks, copies by value and positions near 2^64 (where the position wraps
// but the crate's output blocks do not). Fixed sequences hit the edges
// every run; random ones follow.
func TestDifferentialDigestSmallReads(t *testing.T) {
	if !nativeActive(t) {
		t.Skip("native backend not active")
	}
	h := New()
	_, _ = h.Write(vectorInput(3*bufSize + 5))
	read := func(d *Digest, what string, n int) {
		t.Helper()
		pos := d.pos
		want := make([]byte, n)
		d.fetch(pos, want)
		got := make([]byte, n)
		for i := range got {
			got[i] = ^want[i] // so that a byte left unwritten shows
		}
		if m, err := d.Read(got); m != n || err != nil {
			t.Fatalf("%s: Read(%d) at %d: %d, %v", what, n, pos, m, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: %d bytes at %d: %s, want %s", what, n, pos, shortHex(got), shortHex(want))
		}
		if d.pos != pos+uint64(n) {
			t.Fatalf("%s: position %d after reading %d at %d", what, d.pos, n, pos)
		}
	}
	at := func(pos uint64) *Digest {
		d := h.Digest()
		d.pos = pos // beyond what Seek can set, near 2^64
		return d
	}

	// The buffer is fetched at 1 by the second read and covers [1, 1025):
	// a read of 1023 at 3 runs one byte past it.
	d := at(0)
	for _, n := range []int{1, 1, 1, 1023, 0, 1024, 5, outBufLen - 1} {
		read(d, "edges", n)
	}
	// Across 2^64 from a buffer fetched before it, then at the wrapped
	// position, which the buffer must not serve.
	d = at(math.MaxUint64 - 15)
	for _, n := range []int{1, 1, 20, 1, 7} {
		read(d, "wrap", n)
	}
	// Copies go their own way, and the original is unaffected.
	d = at(100)
	read(d, "copy", 1)
	read(d, "copy", 2)
	c := *d
	read(&c, "the copy", 30)
	_, _ = c.Seek(5000, io.SeekStart)
	read(&c, "the copy after SeekStart", 3)
	read(d, "the original after a copy read", 30)

	rng := subRand(t)
	for _, start := range []uint64{0, 1000, 1<<40 + 7, math.MaxUint64 - 700, math.MaxUint64 - 3} {
		d := at(start)
		for range 400 {
			n := rng.IntN(80)
			switch rng.IntN(10) {
			case 0:
				n = outBufLen - 1 + rng.IntN(3) // around the buffer's size
			case 1:
				n = rng.IntN(outBufLen)
			case 2:
				if d.pos < math.MaxInt64-5000 {
					off := int64(rng.IntN(4000)) - 2000
					if int64(d.pos)+off >= 0 {
						_, _ = d.Seek(off, io.SeekCurrent)
					}
				}
			case 3:
				if d.pos < math.MaxInt64-5000 {
					_, _ = d.Seek(int64(d.pos)+int64(rng.IntN(3000)), io.SeekStart)
				}
			case 4: // a copy by value goes its own way
				c := *d
				read(&c, "random copy", 1+rng.IntN(500))
			}
			read(d, "random", n)
		}
	}
}
