package blake3

// Differential tests: the native backend, the Go path and the reference
// (github.com/zeebo/blake3 directly, and the b3sum binary) must agree on
// random inputs at the lengths where the implementations change strategy.

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	zeebo "github.com/zeebo/blake3"
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
						// Each way of computing the output in turn, on both
						// backends (on the Go path, xofRuns alone counts).
						restore := setOutput(int(split % 3))
						nSum, nOut := streamOutput(t, newTestRand(split), m, key, ctx, data, seek, outLen)
						var gSum, gOut []byte
						withGoBackend(func() {
							gSum, gOut = streamOutput(t, newTestRand(split), m, key, ctx, data, seek, outLen)
						})
						restore()
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
