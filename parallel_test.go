package blake3

import (
	"bytes"
	"runtime"
	"slices"
	"testing"
	"time"

	zeebo "github.com/zeebo/blake3"
)

// waitParallel starts the measurement of the pool below parallelMin
// (parallelBelow) if it has not started, and waits up to 10 seconds for its
// result: so that its allocations and its hashes are over before a test
// counts or times anything, and that a test which sets a result of its own
// restores a measured one.
func waitParallel() {
	if lib == nil || threads() < parallelBelowThreads {
		return
	}
	parallel(parallelLow)
	for range 10000 {
		if parallelMeasured.Load() != nil {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// TestParallelFromTimes: the pool takes the sizes from the smallest one
// where it, and every larger size measured, has an upper quartile within
// parallelMargin of one thread's best; none where a larger size fails, or
// the measurement failed.
func TestParallelFromTimes(t *testing.T) {
	// times gives each size one thread's rounds, the best at 100, and the
	// pool's with the given upper quartiles (their median 5 below, one
	// round far above).
	times := func(quartiles ...float64) (one, on [][]float64) {
		for _, q := range quartiles {
			one = append(one, []float64{100, 120, 110})
			on = append(on, []float64{q + 500, q - 5, q - 30, q, q - 20, q - 5, q - 10})
		}
		return one, on
	}
	for _, c := range []struct {
		quartiles []float64
		want      int
	}{
		{[]float64{50, 40, 30}, parallelLow},
		{[]float64{80, 80, 80}, parallelLow}, // at the margin
		{[]float64{81, 40, 30}, 512 << 10},
		{[]float64{90, 90, 30}, 1 << 20},
		{[]float64{30, 90, 30}, 1 << 20}, // a larger size that fails stops it
		{[]float64{30, 30, 90}, parallelMin},
		{[]float64{200, 200, 200}, parallelMin},
	} {
		one, on := times(c.quartiles...)
		if got := parallelFromTimes(one, on); got != c.want {
			t.Errorf("the pool's upper quartiles %v against one thread's best 100: from %d, want %d", c.quartiles, got, c.want)
		}
	}
	if got := parallelFromTimes(nil, nil); got != parallelMin {
		t.Errorf("no times (a call failed): from %d, want %d", got, parallelMin)
	}
}

// TestParallelMeasure: the measurement on this machine installs, for the
// thread count it was made for, one of the sizes it may choose, and logs
// the times it chose from (not a speed check: any of them is allowed).
func TestParallelMeasure(t *testing.T) {
	if !nativeActive(t) {
		t.Skip("native backend not active")
	}
	tn := threads()
	if tn < 2 {
		t.Skip("one thread allowed: nothing to measure")
	}
	waitParallel()
	saved := parallelMeasured.Load()
	defer parallelMeasured.Store(saved)
	one, on := timeParallel(lib)
	if len(one) != len(parallelSizes) || len(on) != len(parallelSizes) {
		t.Fatalf("timeParallel: %d and %d sizes timed, want %d", len(one), len(on), len(parallelSizes))
	}
	for i, n := range parallelSizes {
		if len(one[i]) != parallelRounds || len(on[i]) != parallelRounds {
			t.Fatalf("%d bytes: %d and %d rounds, want %d", n, len(one[i]), len(on[i]), parallelRounds)
		}
		p := slices.Sorted(slices.Values(on[i]))
		q := p[len(p)*3/4]
		t.Logf("%d KiB on %d threads: one thread's best %.0f µs, the pool's upper quartile %.0f µs (%.2f)", n>>10, tn, slices.Min(one[i])/1e3, q/1e3, q/slices.Min(one[i]))
	}
	measureParallel(lib, tn, func() ([][]float64, [][]float64) { return timeParallel(lib) })
	m := parallelMeasured.Load()
	if m == nil || m.threads != tn || !slices.Contains(append(slices.Clone(parallelSizes), parallelMin), m.from) {
		t.Fatalf("measureParallel(%d) installed %+v", tn, m)
	}
	t.Logf("the pool of %d threads takes hashes from %d KiB", tn, m.from>>10)
	// What it installs is what its times give.
	for _, c := range []struct {
		pool float64
		want int
	}{{50, parallelLow}, {150, parallelMin}} {
		measureParallel(lib, tn, func() (one, on [][]float64) {
			for range parallelSizes {
				one = append(one, []float64{100})
				on = append(on, []float64{c.pool})
			}
			return one, on
		})
		if m := parallelMeasured.Load(); m.threads != tn || m.from != c.want {
			t.Errorf("measureParallel(%d) with the pool's times at %v of one thread's: installed %+v, want from %d", tn, c.pool/100, *m, c.want)
		}
	}
}

// TestParallelBelowMin: where the measurement found the pool faster from
// parallelLow, one-shots, DeriveKey and a Hasher's large Write of that size
// go to the pool, and give the hashes the Go path gives; for another
// thread count than the one measured, with fewer than parallelBelowThreads
// allowed, and below parallelLow, they stay on one thread. (GOMAXPROCS is
// raised to parallelBelowThreads where it is less: threads, not cores.)
func TestParallelBelowMin(t *testing.T) {
	if !nativeActive(t) {
		t.Skip("native backend not active")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(parallelBelowThreads, runtime.GOMAXPROCS(0))))
	defer SetMaxThreads(0)
	SetMaxThreads(0)
	waitParallel()
	saved := parallelMeasured.Load()
	defer parallelMeasured.Store(saved)
	few := parallelBelowThreads - 1
	SetMaxThreads(few)
	parallelMeasured.Store(&parallelFrom{threads: few, from: parallelLow})
	if parallel(1 << 20) {
		t.Errorf("%d threads, measured from %d bytes: 1 MiB goes to the pool", few, parallelLow)
	}
	SetMaxThreads(0)
	tn := threads()
	parallelMeasured.Store(&parallelFrom{threads: tn, from: parallelLow})
	if parallel(parallelLow - 1) {
		t.Errorf("%d bytes go to the pool", parallelLow-1)
	}
	if !parallel(parallelLow) {
		t.Fatalf("measured from %d bytes on %d threads: %d bytes stay on one thread", parallelLow, tn, parallelLow)
	}
	runtime.GOMAXPROCS(tn + 1)
	if parallel(parallelLow) {
		t.Errorf("measured for %d threads: %d bytes go to a pool of %d", tn, parallelLow, tn+1)
	}
	if !parallel(parallelMin) {
		t.Errorf("%d threads: %d bytes stay on one thread", tn+1, parallelMin)
	}
	runtime.GOMAXPROCS(tn)
	in := vectorInput(1<<20 + 1)
	for _, n := range []int{parallelLow, parallelLow + 13, 600 << 10, 1<<20 + 1} {
		data := in[:n]
		if got, want := Sum256(data), zeebo.Sum256(data); got != want {
			t.Errorf("Sum256 of %d bytes on the pool: %x, want %x", n, got, want)
		}
		if got, want := Sum512(data), zeebo.Sum512(data); got != want {
			t.Errorf("Sum512 of %d bytes on the pool: %x, want %x", n, got, want)
		}
		got, want := make([]byte, 40), make([]byte, 40)
		DeriveKey(vectorContext, data, got)
		zeebo.DeriveKey(vectorContext, data, want)
		if !bytes.Equal(got, want) {
			t.Errorf("DeriveKey of %d bytes on the pool: %x, want %x", n, got, want)
		}
		h, z := New(), zeebo.New()
		_, _ = h.Write(data[:100])
		_, _ = z.Write(data[:100])
		_, _ = h.Write(data[100:])
		_, _ = z.Write(data[100:])
		if got, want := h.Sum(nil), z.Sum(nil); !bytes.Equal(got, want) {
			t.Errorf("a Write of %d bytes on the pool: %x, want %x", n-100, got, want)
		}
	}
	if got := lib.NumThreads(); got != tn {
		t.Errorf("after hashes on the pool of %d threads, the library's pool has %d", tn, got)
	}
}
