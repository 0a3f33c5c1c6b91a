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
func waitParallel(tb testing.TB) {
	tb.Helper()
	if lib == nil || threads() < parallelBelowThreads {
		return
	}
	parallelBelow(parallelLow, threads())
	for range 10000 {
		if parallelMeasured.Load() != nil {
			return
		}
		time.Sleep(time.Millisecond)
	}
	tb.Fatal("the measurement of the pool below parallelMin is not in after 10 s")
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
	waitParallel(t)
	saved := parallelMeasured.Load()
	defer parallelMeasured.Store(saved)
	defer SetMaxThreads(0)
	one, on := timeParallel(lib, tn)
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
	measureParallel(lib, tn, func() ([][]float64, [][]float64) { return timeParallel(lib, tn) })
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
	// With another thread count allowed (SetMaxThreads(1) since the hash
	// that started it): nothing below parallelMin, and no timing on the
	// pool.
	if one, on := timeParallel(lib, tn+1); one != nil || on != nil {
		t.Errorf("timeParallel for %d threads with %d allowed: timed the pool", tn+1, tn)
	}
	SetMaxThreads(1)
	measureParallel(lib, tn, func() (one, on [][]float64) {
		t.Errorf("measureParallel(%d) with one thread allowed: timed", tn)
		return nil, nil
	})
	if m := parallelMeasured.Load(); m.threads != tn || m.from != parallelMin {
		t.Errorf("measureParallel(%d) with one thread allowed: installed %+v, want from %d", tn, *m, parallelMin)
	}
}

// TestParallelBelowMin: where the measurement found the pool faster from
// parallelLow, one-shots and DeriveKey of that size go to the pool (each
// call makes the pool its width again: the test sets it to another width
// before each), and give the hashes the Go path gives; a Hasher's Write
// of that size does not (ReadFrom's and SumReaderAt's pieces are such
// writes); for another thread count than the one measured, with fewer
// than parallelBelowThreads allowed, and below parallelLow, nothing does.
// (GOMAXPROCS is raised to parallelBelowThreads where it is less: threads,
// not cores.)
func TestParallelBelowMin(t *testing.T) {
	if !nativeActive(t) {
		t.Skip("native backend not active")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(parallelBelowThreads, runtime.GOMAXPROCS(0))))
	defer SetMaxThreads(0)
	SetMaxThreads(0)
	waitParallel(t)
	saved := parallelMeasured.Load()
	defer parallelMeasured.Store(saved)
	few := parallelBelowThreads - 1
	SetMaxThreads(few)
	parallelMeasured.Store(&parallelFrom{threads: few, from: parallelLow})
	if parallelOneShot(1 << 20) {
		t.Errorf("%d threads, measured from %d bytes: 1 MiB goes to the pool", few, parallelLow)
	}
	SetMaxThreads(0)
	tn := threads()
	parallelMeasured.Store(&parallelFrom{threads: tn, from: parallelLow})
	if parallelOneShot(parallelLow - 1) {
		t.Errorf("%d bytes go to the pool", parallelLow-1)
	}
	if !parallelOneShot(parallelLow) {
		t.Fatalf("measured from %d bytes on %d threads: %d bytes stay on one thread", parallelLow, tn, parallelLow)
	}
	if parallel(parallelLow) {
		t.Errorf("measured from %d bytes on %d threads: an update of %d bytes goes to the pool", parallelLow, tn, parallelLow)
	}
	runtime.GOMAXPROCS(tn + 1)
	if parallelOneShot(parallelLow) {
		t.Errorf("measured for %d threads: %d bytes go to a pool of %d", tn, parallelLow, tn+1)
	}
	if !parallelOneShot(parallelMin) {
		t.Errorf("%d threads: %d bytes stay on one thread", tn+1, parallelMin)
	}
	runtime.GOMAXPROCS(tn)
	// onPool runs f with the pool at another width first, and reports
	// whether f made it tn threads wide again: whether f went to the pool.
	onPool := func(f func()) bool {
		if !pool(lib, tn+1) {
			t.Fatalf("no pool of %d threads", tn+1)
		}
		f()
		return lib.NumThreads() == tn
	}
	in := vectorInput(1<<20 + 1)
	for _, n := range []int{parallelLow, parallelLow + 13, 600 << 10, 1<<20 + 1} {
		data := in[:n]
		var s256 [32]byte
		if !onPool(func() { s256 = Sum256(data) }) {
			t.Errorf("Sum256 of %d bytes: not on the pool", n)
		}
		if want := zeebo.Sum256(data); s256 != want {
			t.Errorf("Sum256 of %d bytes on the pool: %x, want %x", n, s256, want)
		}
		var s512 [64]byte
		if !onPool(func() { s512 = Sum512(data) }) {
			t.Errorf("Sum512 of %d bytes: not on the pool", n)
		}
		if want := zeebo.Sum512(data); s512 != want {
			t.Errorf("Sum512 of %d bytes on the pool: %x, want %x", n, s512, want)
		}
		got, want := make([]byte, 40), make([]byte, 40)
		if !onPool(func() { DeriveKey(vectorContext, data, got) }) {
			t.Errorf("DeriveKey of %d bytes: not on the pool", n)
		}
		zeebo.DeriveKey(vectorContext, data, want)
		if !bytes.Equal(got, want) {
			t.Errorf("DeriveKey of %d bytes on the pool: %x, want %x", n, got, want)
		}
		h := New()
		_, _ = h.Write(data[:100])
		if onPool(func() { _, _ = h.Write(data[100:]) }) {
			t.Errorf("a Write of %d bytes went to the pool", n-100)
		}
		if got, want := h.Sum(nil), zeebo.Sum256(data); !bytes.Equal(got, want[:]) {
			t.Errorf("a Write of %d bytes: %x, want %x", n-100, got, want)
		}
	}
}
