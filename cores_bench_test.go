package blake3

import (
	"runtime"
	"strconv"
	"testing"
)

// coresSizes are the one-shot sizes of scripts/cores-check.sh: across
// parallelMin, up to inputs where the rayon pool has all its cores busy.
var coresSizes = []int{256 << 10, 512 << 10, 1 << 20, 2 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20}

// coresSweepSizes are the sizes of its thread sweep.
var coresSweepSizes = []int{16 << 20, 256 << 20}

// coresThreads are the caps of the thread sweep below GOMAXPROCS: 2, 4, 8,
// ... (1 is impl=auto-1core and GOMAXPROCS is impl=auto).
func coresThreads() []int {
	var ts []int
	for t := 2; t < runtime.GOMAXPROCS(0); t *= 2 {
		ts = append(ts, t)
	}
	return ts
}

// coresInput is the input of BenchmarkCores: n bytes of vectorInput's
// pattern, each size a prefix of one buffer filled once.
var coresInput []byte

func coresData(n int) []byte {
	if len(coresInput) < n {
		const period = 251
		b := make([]byte, max(n, coresSizes[len(coresSizes)-1]))
		for i := range period {
			b[i] = byte(i)
		}
		// The pattern repeats every 251 bytes: copy what is filled (a
		// whole number of periods) after itself until the buffer is full.
		for filled := period; filled < len(b); filled *= 2 {
			copy(b[filled:], b[:filled])
		}
		coresInput = b
	}
	return coresInput[:n]
}

// BenchmarkCores is this package's side of scripts/cores-check.sh: Sum256
// on all cores (impl=auto), capped at one core (impl=auto-1core) and at
// each cap of coresThreads (impl=auto-Ncores, at coresSweepSizes only), on
// however many cores the machine has. The script runs rust/examples/bench.rs
// (update_rayon and blake3::hash) in turns with it and takes medians.
func BenchmarkCores(b *testing.B) {
	waitPlan()
	waitParallel(b)
	b.Logf("backend: %+v; GOMAXPROCS %d; NumCPU %d", Backend(), runtime.GOMAXPROCS(0), runtime.NumCPU())
	if m := parallelMeasured.Load(); m != nil {
		b.Logf("pool below parallelMin: from %d KiB on %d threads (measured)", m.from>>10, m.threads)
	}
	run := func(n int, name string, limit int) {
		b.Run("size="+sizeName(n)+"/impl="+name, func(b *testing.B) {
			data := coresData(n)
			defer capThreads(limit)()
			Sum256(data) // sizes the rayon pool to the limit, untimed
			b.SetBytes(int64(n))
			for b.Loop() {
				Sum256(data)
			}
		})
	}
	for _, n := range coresSizes {
		run(n, "auto", 0)
		run(n, "auto-1core", 1)
	}
	for _, n := range coresSweepSizes {
		for _, t := range coresThreads() {
			run(n, "auto-"+strconv.Itoa(t)+"cores", t)
		}
	}
}
