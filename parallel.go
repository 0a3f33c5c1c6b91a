package blake3

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/purego-blake3/blake3/internal/ffi"
)

// parallelMin is the size from which a single update or one-shot hash uses
// every allowed core without a measurement: below it, on the 2-core
// machines this package is built on, the rayon pool's overhead outweighs
// the second core (BenchmarkDispatch, rayon-2 against native-1core).
const parallelMin = 2 << 20

// Below parallelMin the pool pays where a machine has cores to spare: on 16
// cores the crate's update_rayon hashed 256 KiB 2.1 times and 1 MiB 4.8
// times as fast as one core, where on 2 cores it gained nothing at 1 MiB
// (docs/cores.md). No count of cores says where it starts to pay, so for
// one-shot hashes (parallelOneShot) the size is measured once per process,
// on the machine at hand, like the size dispatch: at the first one-shot of
// parallelLow to parallelMin bytes, in the background, one thread against
// the pool at parallelSizes (measureParallel). Until then, for another
// thread count than the one measured, and with fewer than
// parallelBelowThreads allowed, such hashes run on one thread. A Hasher's
// updates keep parallelMin: ReadFrom's stream pieces and SumReaderAt's
// serial pieces are of these sizes, and are pipelined with their reads or
// bounded by their own worker count.
const parallelLow = 256 << 10

// parallelBelowThreads is the fewest threads for which the pool is measured
// below parallelMin. With two the pool can at best halve a hash's time, and
// there its fixed cost takes most of that: on the 2-core machine here its
// median time at 1 MiB went from 0.71 to 1.82 of one thread's best from
// process to process, and at 2 and 4 MiB from 0.66 to 1.46
// (docs/cores.md), so that a measurement at one moment says little about
// the next. From four, the best case (a quarter of the time) leaves room
// for such a spread; the 16-core machine gained 2.1 times at 256 KiB.
// Between two and sixteen no machine was measured.
const parallelBelowThreads = 4

// parallelSizes are the sizes measured, from parallelLow up.
var parallelSizes = []int{parallelLow, 512 << 10, 1 << 20}

// parallelMargin: the pool takes a size below parallelMin only where its
// upper quartile there (the 6th of parallelRounds times, sorted), and at
// every larger size measured, is at most this fraction of one thread's
// best. The pool's time varies more (threads to wake, sysmon): on the
// 2-core machine here its median at 1 MiB fell under the margin in 3
// processes of 8, its upper quartile in 2 of another 8 (docs/cores.md).
const parallelMargin = 0.8

// parallelRounds is how many times each size is timed each way, after one
// round that starts the pool's threads and is not counted.
const parallelRounds = 7

// parallelFrom is a measurement's result: from this size on, a hash goes
// to a pool of this many threads.
type parallelFrom struct {
	threads, from int
}

var (
	parallelMeasured atomic.Pointer[parallelFrom]
	parallelMeasure  sync.Once
)

// The library's rayon pool, sized from Go: built at the first multi-core
// hash with the thread count allowed then, and rebuilt when that count
// changes (GOMAXPROCS or SetMaxThreads). A size the library could not get
// (threads refused, by a pids limit say) is not asked for again; those
// hashes run on the calling thread.
var (
	poolMu     sync.Mutex
	poolSize   int
	poolFailed int
)

// parallel reports whether a native update of n bytes should run on the
// rayon pool, making the pool as wide as allowed first: from parallelMin.
func parallel(n int) bool {
	if n < parallelMin {
		return false
	}
	t := threads()
	return t >= 2 && pool(lib, t)
}

// parallelOneShot is parallel for a one-shot hash (Sum256, Sum512,
// DeriveKey), which goes to the pool below parallelMin too, from the size
// measured on this machine (parallelBelow).
func parallelOneShot(n int) bool {
	if n >= parallelMin || n < parallelLow {
		return parallel(n)
	}
	t := threads()
	return t >= parallelBelowThreads && parallelBelow(n, t) && pool(lib, t)
}

// parallelBelow reports whether n bytes, below parallelMin, go to a pool of
// t threads: where the measurement, made for t threads, found the pool
// faster from n on. The first call starts the measurement.
func parallelBelow(n, t int) bool {
	m := parallelMeasured.Load()
	if m == nil {
		l := lib
		parallelMeasure.Do(func() { go measureParallel(l, t, func() ([][]float64, [][]float64) { return timeParallel(l, t) }) })
		return false
	}
	return m.threads == t && n >= m.from
}

// pool makes library l's pool t threads wide, if it is not, and reports
// whether it is.
func pool(l *ffi.Symbols, t int) bool {
	poolMu.Lock()
	defer poolMu.Unlock()
	switch {
	case t == poolSize:
		return true
	case t == poolFailed:
		return false
	case l.InitThreads(t) != ffi.OK:
		poolFailed = t
		return false
	}
	poolSize = t
	return true
}

// measureParallel measures, for library l's pool of t threads, the size
// from which hashes below parallelMin go to the pool, with times
// (timeParallel), and installs it. It builds that pool, which a hash of
// parallelMin bytes would too, unless the thread count allowed is no longer
// t (SetMaxThreads(1) since, say): then, or if it changes during the
// measurement, nothing goes to the pool below parallelMin for t threads.
func measureParallel(l *ffi.Symbols, t int, times func() (one, on [][]float64)) {
	from := parallelMin
	if threads() == t && pool(l, t) {
		if f := parallelFromTimes(times()); threads() == t {
			from = f
		}
	}
	parallelMeasured.Store(&parallelFrom{threads: t, from: from})
}

// timeParallel times library l's one-shot hash at parallelSizes on one
// thread (one) and on its pool of t threads (on), in turns, parallelRounds
// times each after a round not counted; nil where a call fails, or where
// the thread count allowed is no longer t before a call on the pool.
func timeParallel(l *ffi.Symbols, t int) (one, on [][]float64) {
	in := make([]byte, parallelSizes[len(parallelSizes)-1])
	for i := range in {
		in[i] = byte(i % 251)
	}
	var out [32]byte
	one = make([][]float64, len(parallelSizes))
	on = make([][]float64, len(parallelSizes))
	for r := range parallelRounds + 1 {
		for i, n := range parallelSizes {
			for k := range 2 {
				pooled := (r+i+k)%2 == 1 // which goes first alternates
				if pooled && threads() != t {
					return nil, nil
				}
				start := time.Now()
				var rc ffi.Code
				if pooled {
					rc = l.HashXOF(modeHash, nil, true, in[:n], 0, out[:])
				} else {
					rc = l.Hash(in[:n], out[:])
				}
				d := float64(time.Since(start))
				switch {
				case rc != ffi.OK:
					return nil, nil
				case r == 0:
				case pooled:
					on[i] = append(on[i], d)
				default:
					one[i] = append(one[i], d)
				}
			}
		}
	}
	return one, on
}

// parallelFromTimes is the smallest of parallelSizes from which, at every
// size measured up, the pool's upper quartile (on) is at most
// parallelMargin of one thread's best (one); parallelMin where there is
// none.
func parallelFromTimes(one, on [][]float64) int {
	from := parallelMin
	for i := len(one) - 1; i >= 0; i-- {
		if len(one[i]) == 0 || len(on[i]) == 0 {
			break
		}
		p := slices.Sorted(slices.Values(on[i]))
		if p[len(p)*3/4] > parallelMargin*slices.Min(one[i]) {
			break
		}
		from = parallelSizes[i]
	}
	return from
}
