// The size dispatch of one-shot hashes: which implementation hashes an input
// of n bytes, up to planMax, fastest on this machine.

package blake3

import (
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"golang.org/x/sys/cpu"

	"github.com/purego-blake3/blake3/internal/ffi"
	zeebo "github.com/zeebo/blake3"
)

// impl is an implementation of a one-shot hash.
type impl uint8

const (
	implNative impl = iota // the library, one crossing
	implZeebo              // github.com/zeebo/blake3
	implLuke               // lukechampine.com/blake3 (one chunk at most)
)

// The rule.
//
// Up to a chunk, all three compress the blocks of one chunk one after the
// other, so none has a SIMD advantage: the library adds a crossing, zeebo
// has SSE4.1 assembly for one block on amd64, lukechampine plain Go. Which
// is fastest depends on the CPU's microarchitecture, not on its features:
// on two AMD EPYC machines of the same kind, with the same features,
// lukechampine was 1.3x faster than zeebo on one and zeebo 1.5x faster on
// the other (docs/benchmarks.md). From two chunks to four, the library's
// SIMD over several chunks competes with zeebo's AVX2 (lukechampine's
// one-shot goes through its streaming hasher there, several times slower:
// it is not a candidate), and the crate's cost is not monotonic in the
// number of chunks. From planMax up, the library's SIMD over four chunks
// or more wins wherever it is loaded. Up to one block, zeebo and
// lukechampine are within a few percent of each other, and which leads
// there can depend on the caller's stack alignment (zeebo's assembly works
// on a hasher on the stack: the same measurement in two goroutines of one
// process ranked them both ways): the plan is only as good as that margin.
//
// So the plan starts from what each candidate can do on this CPU (the
// default plan: the library wherever it has SIMD and neither Go package has
// assembly, zeebo where it has assembly) and is then measured on this
// machine, in the background, from the first use of the package: the
// candidates side by side, interleaved, at a few sizes, in snapshots spread
// over a couple of seconds (planSnapshots). An implementation replaces the
// default at a size only if it is clearly faster there (planMargin). Where
// two candidates are close on average but trade places as the machine's
// state changes (from 3 to 4 KiB on the development host), two processes
// may still choose differently (TestPlanSpread, docs/dispatch.md). Each round
// hashes input at another place in memory (planStride): in the measuring
// goroutine, 64 bytes at the start or the end of a page took zeebo 1.4x
// as long as at other addresses (a 4 KiB alias, most likely with its own
// stack), and every plan measured there sent 1-64 bytes to lukechampine,
// which BenchmarkDispatch, hashing from other addresses, found slower.
const planMax = 4096

// planClass is the index of n's size class: one per 64-byte block.
func planClass(n int) int { return (n + 63) >> 6 }

// plan is an implementation for each size class up to planMax.
type plan [planMax/64 + 1]impl

// planNow is the plan in use: the default until the first snapshot is
// measured, then the plan measured so far.
var planNow atomic.Pointer[plan]

// implFor is the implementation for a one-shot hash of n bytes. A plan is
// installed by the backend's loading (startDispatch), so once there is one
// the backend is known without native()'s look at its sync.Once, which was
// a third of implFor's time (BenchmarkDispatch at 0 B).
func implFor(n int) impl {
	p := planNow.Load()
	if p == nil {
		native()
		p = planNow.Load()
	}
	if n > planMax {
		if lib != nil {
			return implNative
		}
		return implZeebo
	}
	return p[planClass(n)]
}

// startDispatch installs the default plan for backend l (nil: the Go path)
// and starts measuring a better one, which replaces it after the first
// snapshot and is refined after each of the others.
func startDispatch(l *ffi.Symbols) {
	p := defaultPlan(l != nil, runtime.GOARCH, cpu.X86.HasSSE41)
	planNow.Store(&p)
	if calibrate {
		done := make(chan struct{})
		planDone = done
		cur := &p
		go measurePlan(l, p, func(m *plan, _ [][]float64) bool {
			// A later startDispatch (a test's) has installed its own.
			if !planNow.CompareAndSwap(cur, m) {
				return false
			}
			cur = m
			return true
		}, func(plan) { close(done) })
	}
}

// calibrate turns the measurement on; tests that need a fixed plan turn it
// off. planDone is closed when the measurement started by the last
// startDispatch has finished.
var (
	calibrate = true
	planDone  chan struct{}
)

// defaultPlan is the plan from capabilities alone: the library (when
// loaded) on arm64, where neither Go package has assembly, and from two
// chunks up everywhere; zeebo up to a chunk on amd64 with SSE4.1 (its
// one-block assembly), and on the Go path above a chunk; lukechampine up
// to a chunk elsewhere on the Go path.
func defaultPlan(haveLib bool, goarch string, sse41 bool) plan {
	var p plan
	for c := range p {
		n := c * 64
		switch {
		case haveLib && (goarch == "arm64" || n > chunkLen):
			p[c] = implNative
		case goarch == "amd64" && sse41 || n > chunkLen:
			p[c] = implZeebo
		default:
			p[c] = implLuke
		}
	}
	return p
}

// planMargin: another implementation replaces the default at a size only
// if its best time there is at most this fraction of the default's.
const planMargin = 0.97

// planSizes are the sizes measured: the chunk's edge, and both ends of each
// number of chunks up to planMax, where the library's cost steps.
var planSizes = []int{0, 64, 128, 256, 512, 1024, 1088, 1536, 2048, 2112, 2560, 3072, 3136, 3584, 4096}

// measurePlan measures the plan on this machine (refinePlan), the
// library being among the candidates when l is loaded.
func measurePlan(l *ffi.Symbols, def plan, install func(p *plan, snap [][]float64) bool, done func(plan)) {
	cands := []impl{implZeebo, implLuke}
	if l != nil {
		cands = append(cands, implNative)
	}
	buf := make([]byte, planMax+4096)
	for i := range buf {
		buf[i] = byte(i)
	}
	refinePlan(def, cands, func(c impl, n, round int) float64 {
		at := planAt(round)
		return timeOneShot(l, c, buf[at:at+n])
	}, install, done)
}

// refinePlan times the candidates at planSizes (snapshotBest, with its
// clock), planSnapshots times, planGap apart, and after each snapshot
// passes install the plan that follows from the median of each candidate's
// best times so far, and that snapshot's best times ([size][impl]), until
// install returns false; then it calls done with the last plan. install
// may be nil. The first snapshot is taken before refinePlan returns, each
// later one from a timer (time.AfterFunc), so that no goroutine waits
// between them: a caller's leak check (go.uber.org/goleak, say) at the end
// of a test that hashed something finds none.
func refinePlan(def plan, cands []impl, timeOf func(c impl, n, round int) float64, install func(p *plan, snap [][]float64) bool, done func(plan)) {
	var snaps [][][]float64
	var step func()
	step = func() {
		snap := snapshotBest(cands, timeOf)
		snaps = append(snaps, snap)
		p := choosePlan(def, cands, medianCost(snaps)) // a new plan each time: install may keep it
		if install != nil && !install(&p, snap) || len(snaps) == planSnapshots {
			done(p)
			return
		}
		time.AfterFunc(planGap, step)
	}
	step()
}

// planSnapshots and planGap: how many times, and how far apart, the
// candidates are timed. Within a snapshot each one's best time counts
// (noise only adds time); across snapshots, the median of those. On a
// shared host one candidate's best time moved by 1.5x from one tenth of a
// second to the next while another's stayed put (TestPlanSpread,
// docs/dispatch.md), and the first snapshot is taken at the program's first
// hash, often while it is still starting up; so a plan from one snapshot is
// one draw, and two processes drew different plans where two candidates are
// close. The median over snapshots spread over a couple of seconds follows
// what each candidate takes most of the time. Each snapshot is a few
// milliseconds of one core. TestMain shortens the gap for tests that do
// not measure.
const planSnapshots = 9

var planGap = 200 * time.Millisecond

// planRounds is how many times each candidate is timed at each size.
const planRounds = 7

// planAt is where, in measurePlan's buffer, a round's input starts: each
// round planStride bytes after the last, modulo 4 KiB, whole cache lines
// apart and far enough that one 4 KiB alias of the input hits one round at
// most.
func planAt(round int) int { return round * planStride % 4096 }

// planStride is planAt's step.
const planStride = 9 * 64

// snapshotBest times each candidate planRounds times at each of planSizes
// (timeOf(c, n, round): one timing of candidate c at n bytes in the given
// round, in ns) and returns its best time there, [size][impl], -1 where it
// was not timed. The clock is given so that the choice can be tested on
// made-up timings.
func snapshotBest(cands []impl, timeOf func(c impl, n, round int) float64) [][]float64 {
	best := make([][]float64, len(planSizes))
	for i := range best {
		best[i] = []float64{-1, -1, -1}
	}
	for r := range planRounds {
		for i, n := range planSizes {
			for k := range cands {
				c := cands[(k+r)%len(cands)] // rotate the order each round
				if c == implLuke && n > chunkLen {
					continue
				}
				if t := timeOf(c, n, r); best[i][c] < 0 || t < best[i][c] {
					best[i][c] = t
				}
			}
		}
	}
	return best
}

// medianCost is, at each size and for each candidate, the median of its
// best times in snaps (the mean of the middle two for an even count).
func medianCost(snaps [][][]float64) [][]float64 {
	med := make([][]float64, len(planSizes))
	ts := make([]float64, len(snaps))
	for i := range med {
		med[i] = make([]float64, len(snaps[0][i]))
		for c := range med[i] {
			for s, snap := range snaps {
				ts[s] = snap[i][c]
			}
			slices.Sort(ts)
			med[i][c] = (ts[(len(ts)-1)/2] + ts[len(ts)/2]) / 2
		}
	}
	return med
}

// choosePlan is the plan that follows from cost, each candidate's time per
// hash at planSizes ([size][impl], -1 where not timed), interpolated
// between sizes: at each size class, the fastest candidate whose cost is at
// most planMargin of the default's, or the default.
func choosePlan(def plan, cands []impl, cost [][]float64) plan {
	p := def
	for cl := range p {
		n := cl * 64
		at := func(c impl) float64 { return interpolate(planSizes, cost, c, n) }
		d := at(def[cl])
		if d < 0 {
			continue
		}
		for _, c := range cands {
			if t := at(c); t >= 0 && t <= d*planMargin && t < at(p[cl]) {
				p[cl] = c
			}
		}
	}
	return p
}

// timeOneShot is the time of one hash of in by c, in ns: a batch of hashes
// of about 8 KiB of input in all (4 at least), divided, after a few untimed
// ones. Without the warm-up, the first hashes after another
// implementation's ran slow (its code and branch history cold), and
// batches of two or three hashes made plans that changed from one
// measurement to the next and ranked the candidates otherwise than
// BenchmarkDispatch, which hashes one size in a loop
// (scripts/dispatch-check.sh prints both).
func timeOneShot(l *ffi.Symbols, c impl, in []byte) float64 {
	reps := 4 + 8192/(len(in)+64)
	var out [32]byte
	hash := func(k int) {
		for range k {
			switch c {
			case implZeebo:
				out = zeebo.Sum256(in)
			case implLuke:
				out = lukeSum256(in)
			default:
				l.Hash(in, out[:])
			}
		}
	}
	hash(2 + reps/4)
	start := time.Now()
	hash(reps)
	return float64(time.Since(start).Nanoseconds()) / float64(reps)
}

// interpolate is c's cost at n, linear between the measured sizes around
// it; -1 where c was not measured.
func interpolate(sizes []int, best [][]float64, c impl, n int) float64 {
	for i := 1; i < len(sizes); i++ {
		if n <= sizes[i] {
			a, b := best[i-1][c], best[i][c]
			if a < 0 || b < 0 {
				return -1
			}
			f := float64(n-sizes[i-1]) / float64(sizes[i]-sizes[i-1])
			return a + f*(b-a)
		}
	}
	return best[len(sizes)-1][c]
}

func (i impl) String() string {
	return [...]string{implNative: "native", implZeebo: "zeebo", implLuke: "lukechampine"}[i]
}

// String writes the plan as runs of size classes: "0-1024B:lukechampine ...".
func (p *plan) String() string {
	var b []byte
	for c := 0; c < len(p); {
		e := c
		for e+1 < len(p) && p[e+1] == p[c] {
			e++
		}
		lo := max(0, c*64-63)
		b = fmt.Appendf(b, "%d-%dB:%s ", lo, e*64, p[c])
		c = e + 1
	}
	return string(b[:len(b)-1])
}
