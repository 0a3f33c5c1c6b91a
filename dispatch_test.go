package blake3

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	zeebo "github.com/zeebo/blake3"
	luke "lukechampine.com/blake3"
)

// dispatchSizes are the sizes scripts/dispatch-check.sh reports.
var dispatchSizes = []int{0, 64, 128, 256, 512, 1024, 1536, 2048, 2560, 3072, 3584, 4096, 8 << 10, 16 << 10, 32 << 10, 64 << 10}

// waitPlan waits for the measurement of the plan to end.
func waitPlan() {
	native()
	if planDone != nil {
		<-planDone
	}
}

// TestDispatchDefaultPlan: the plan from capabilities alone, for the
// platforms it distinguishes.
func TestDispatchDefaultPlan(t *testing.T) {
	for _, c := range []struct {
		lib    bool
		arch   string
		sse41  bool
		at     map[int]impl
		reason string
	}{
		{true, "arm64", false, map[int]impl{0: implNative, 64: implNative, 1024: implNative, 4096: implNative}, "no Go assembly on arm64"},
		{true, "amd64", true, map[int]impl{0: implZeebo, 1024: implZeebo, 1025: implNative, 4096: implNative}, "zeebo's one-block assembly"},
		{true, "amd64", false, map[int]impl{0: implLuke, 1024: implLuke, 1025: implNative}, "no SSE4.1"},
		{false, "amd64", true, map[int]impl{0: implZeebo, 4096: implZeebo}, "the Go path"},
		{false, "riscv64", false, map[int]impl{0: implLuke, 1024: implLuke, 1025: implZeebo, 4096: implZeebo}, "the Go path, no assembly"},
	} {
		p := defaultPlan(c.lib, c.arch, c.sse41)
		for n, want := range c.at {
			if got := p[planClass(n)]; got != want {
				t.Errorf("%s (library %v, %s, SSE4.1 %v): %d bytes go to %v, want %v", c.reason, c.lib, c.arch, c.sse41, n, got, want)
			}
		}
	}
}

// TestDispatchEveryImpl: whatever the plan picks at each size, one-shot
// hashes and short streams in every mode are right.
func TestDispatchEveryImpl(t *testing.T) {
	waitPlan()
	saved := planNow.Load()
	defer planNow.Store(saved)
	in := vectorInput(planMax + 1)
	impls := []impl{implZeebo, implLuke}
	if lib != nil {
		impls = append(impls, implNative)
	}
	for _, im := range impls {
		var p plan
		for c := range p {
			p[c] = im
			if im == implLuke && c*64 > chunkLen {
				p[c] = implZeebo // never planned: lukechampine is slow there
			}
		}
		planNow.Store(&p)
		for n := 0; n <= planMax+1; n += 1 + n/7 {
			data := in[:n]
			want := zeebo.Sum512(data)
			if got := Sum512(data); got != want {
				t.Fatalf("%v, %d bytes: Sum512 wrong", im, n)
			}
			if got := Sum256(data); !bytes.Equal(got[:], want[:32]) {
				t.Fatalf("%v, %d bytes: Sum256 wrong", im, n)
			}
			for _, m := range marshalModes {
				h, z := m.new(), m.ref()
				_, _ = h.Write(data)
				_, _ = z.Write(data)
				if !bytes.Equal(h.Sum(nil), z.Sum(nil)) {
					t.Fatalf("%v, %d bytes: %s Sum wrong", im, n, m.name)
				}
			}
		}
	}
}

// TestDispatchLukeOneChunk: lukeSum512, which the dispatch calls for
// lukechampine, is lukechampine.com/blake3's Sum512 at every length it is
// given (up to a chunk), and lukeSum256 its Sum256; longer inputs too.
func TestDispatchLukeOneChunk(t *testing.T) {
	in := vectorInput(3*chunkLen + 1)
	for n := 0; n <= len(in); n += 1 + n/chunkLen*97 {
		if got, want := lukeSum512(in[:n]), luke.Sum512(in[:n]); got != want {
			t.Fatalf("%d bytes: lukeSum512 %x, lukechampine %x", n, got[:8], want[:8])
		}
		if got, want := lukeSum256(in[:n]), luke.Sum256(in[:n]); got != want {
			t.Fatalf("%d bytes: lukeSum256 %x, lukechampine %x", n, got[:8], want[:8])
		}
	}
}

// TestDispatchMeasuredPlan: the measured plan only ever picks a candidate
// for its size: lukechampine up to a chunk, the library only when loaded.
func TestDispatchMeasuredPlan(t *testing.T) {
	p := untilDone(func(done func(plan)) { measurePlan(lib, defaultPlan(lib != nil, "amd64", true), nil, done) })
	for c, im := range p {
		if im == implLuke && c*64 > chunkLen || im == implNative && lib == nil {
			t.Errorf("class %d (up to %d bytes): %v", c, c*64, im)
		}
	}
	t.Logf("plan measured here: %s", &p)
}

// TestDispatchInterpolate: costs are linear between measured sizes, exact
// at them, and unknown (-1) wherever either end of the segment was not
// measured.
func TestDispatchInterpolate(t *testing.T) {
	sizes := []int{0, 100, 200}
	best := [][]float64{ // [size][impl]: native, zeebo, lukechampine
		{10, -1, 5},
		{20, -1, 6},
		{40, 7, -1},
	}
	for _, c := range []struct {
		im   impl
		n    int
		want float64
	}{
		{implNative, 0, 10},
		{implNative, 25, 12.5},
		{implNative, 100, 20},
		{implNative, 150, 30},
		{implNative, 200, 40},
		{implZeebo, 150, -1},
		{implZeebo, 200, -1},
		{implLuke, 0, 5},
		{implLuke, 100, 6}, // measured here, not after
		{implLuke, 150, -1},
	} {
		if got := interpolate(sizes, best, c.im, c.n); got != c.want {
			t.Errorf("%v at %d bytes: %v, want %v", c.im, c.n, got, c.want)
		}
	}
}

// TestDispatchPlanStride: each of choosePlan's rounds hashes from
// another place modulo 4 KiB (planAt), whole cache lines apart by more than an
// input block, so that one alias of the input's address, modulo 4 KiB,
// with anything else hits one round at most.
func TestDispatchPlanStride(t *testing.T) {
	var at []int
	for r := range planRounds {
		at = append(at, planAt(r))
	}
	for i, a := range at {
		if a%64 != 0 {
			t.Errorf("round %d starts at %d modulo 4096: not a cache line", i, a)
		}
		for j, b := range at[:i] {
			if d := min((a-b+4096)%4096, (b-a+4096)%4096); d < 2*64 {
				t.Errorf("rounds %d and %d start %d bytes apart modulo 4096", j, i, d)
			}
		}
	}
}

// TestDispatchChoosePlan: the choice made from timings, on made-up ones:
// the fastest candidate that beats the default by planMargin wins;
// lukechampine is never timed, so never planned, above a chunk; each
// candidate's best time counts, so a round in which one candidate is slow
// (an input address that aliases its stack) does not decide.
func TestDispatchChoosePlan(t *testing.T) {
	def := defaultPlan(true, "arm64", false) // the library everywhere
	var calls int
	timeOf := func(c impl, n, round int) float64 {
		calls++
		slow := float64(calls % 2 * 1000) // noise: every other timing is slow
		if c == implZeebo && round == 0 {
			slow += 500 // the first round's address is bad for zeebo
		}
		switch {
		case c == implNative:
			return 100 + slow
		case c == implLuke:
			return 90 + slow // under the margin everywhere
		case n <= chunkLen:
			return 50 + slow // zeebo: faster than lukechampine
		case n <= 2048:
			return 98 + slow // zeebo: faster than the library, within the margin
		}
		return 96 + slow // zeebo: faster than the library by more than the margin
	}
	cands := []impl{implZeebo, implLuke, implNative}
	p := choosePlan(def, cands, snapshotBest(cands, timeOf))
	for c, got := range p {
		n := c * 64
		want := implZeebo
		if n > chunkLen && n <= 2048 {
			want = implNative
		}
		if got != want {
			t.Errorf("class %d (up to %d bytes): %v, want %v (plan %s)", c, n, got, want, &p)
		}
	}
}

// TestDispatchMedian: across snapshots a candidate's cost is the median
// of its best times, so that a state of the machine seen in a minority of
// snapshots, fast or slow, does not decide: on made-up snapshots in which
// zeebo beats the library by far in two of five and loses narrowly in
// three, the library keeps the sizes above a chunk, and zeebo takes them
// when the counts are the other way round. Unmeasured costs stay unknown.
func TestDispatchMedian(t *testing.T) {
	snap := func(zeeboAbove float64) [][]float64 {
		s := make([][]float64, len(planSizes))
		for i, n := range planSizes {
			s[i] = []float64{100, 50, 60} // native, zeebo, lukechampine
			if n > chunkLen {
				s[i] = []float64{100, zeeboAbove, -1}
			}
		}
		return s
	}
	def := defaultPlan(true, "amd64", true)
	cands := []impl{implZeebo, implLuke, implNative}
	for _, c := range []struct {
		fast, slow int
		want       impl
	}{
		{2, 3, implNative},
		{3, 2, implZeebo},
		{1, 0, implZeebo},
		{0, 1, implNative},
		{1, 1, implZeebo}, // the mean of the middle two: 85
	} {
		// The minority in the middle, where an unsorted list's median
		// would fall.
		few, many := snap(60), snap(110)
		nFew, nMany := c.fast, c.slow
		if nFew > nMany {
			few, many, nFew, nMany = many, few, nMany, nFew
		}
		var snaps [][][]float64
		for range nMany / 2 {
			snaps = append(snaps, many)
		}
		for range nFew {
			snaps = append(snaps, few)
		}
		for range nMany - nMany/2 {
			snaps = append(snaps, many)
		}
		cost := medianCost(snaps)
		for i, n := range planSizes {
			if n > chunkLen && cost[i][implLuke] != -1 {
				t.Errorf("%d bytes: lukechampine's cost %v, want -1 (not timed)", n, cost[i][implLuke])
			}
		}
		p := choosePlan(def, cands, cost)
		for cl, got := range p {
			want := c.want
			if cl*64 <= chunkLen {
				want = implZeebo
			}
			if got != want {
				t.Errorf("%d fast and %d slow snapshots: class %d (up to %d bytes) goes to %v, want %v", c.fast, c.slow, cl, cl*64, got, want)
			}
		}
	}
}

// TestDispatchSnapshots: refinePlan installs a plan after each snapshot,
// from the median of the snapshots so far, and stops when install says so.
// On a made-up clock zeebo beats the library above a chunk in the first
// five of planSnapshots snapshots and loses in the rest: the plans
// installed send those sizes to zeebo, the last one too (the median), and
// each snapshot's times are passed along with its plan.
func TestDispatchSnapshots(t *testing.T) {
	calls := 0
	perSnap := -1
	timeOf := func(c impl, n, round int) float64 {
		calls++
		switch {
		case c == implNative:
			return 100
		case n <= chunkLen:
			return 50
		case (calls-1)/perSnap < planSnapshots/2+1:
			return 60 // zeebo, fast
		}
		return 150 // zeebo, slow
	}
	cands := []impl{implZeebo, implLuke, implNative}
	snapshotBest(cands, timeOf)
	perSnap, calls = calls, 0
	def := defaultPlan(true, "amd64", true)
	var plans []*plan
	var zeeboAt3K []float64
	last := untilDone(func(done func(plan)) {
		refinePlan(def, cands, timeOf, func(p *plan, snap [][]float64) bool {
			plans = append(plans, p)
			zeeboAt3K = append(zeeboAt3K, snap[slices.Index(planSizes, 3072)][implZeebo])
			return true
		}, done)
	})
	if len(plans) != planSnapshots {
		t.Fatalf("%d plans installed, want one per snapshot, %d", len(plans), planSnapshots)
	}
	for s, p := range plans {
		if got := p[planClass(3072)]; got != implZeebo {
			t.Errorf("plan after snapshot %d: 3 KiB goes to %v, want zeebo (fast in most snapshots so far)", s, got)
		}
		want := 60.0
		if s > planSnapshots/2 {
			want = 150
		}
		if zeeboAt3K[s] != want {
			t.Errorf("snapshot %d: zeebo's time at 3 KiB passed as %v, want %v", s, zeeboAt3K[s], want)
		}
	}
	if *plans[len(plans)-1] != last {
		t.Errorf("the plan returned is not the last one installed")
	}
	if plans[0] == plans[1] {
		t.Errorf("one plan's memory installed twice: a reader of the first would see it change")
	}
	calls, plans = 0, nil
	untilDone(func(done func(plan)) {
		refinePlan(def, cands, timeOf, func(p *plan, _ [][]float64) bool {
			plans = append(plans, p)
			return len(plans) < 2
		}, done)
	})
	if len(plans) != 2 || calls != 2*perSnap {
		t.Errorf("install said stop at the second plan: %d plans installed, %d timings (want 2 and %d)", len(plans), calls, 2*perSnap)
	}
}

// untilDone starts a measurement and returns the plan it ends with.
func untilDone(start func(done func(plan))) plan {
	ch := make(chan plan, 1)
	start(func(p plan) { ch <- p })
	return <-ch
}

// TestDispatchNoGoroutineBetween: between two snapshots no goroutine of the
// measurement is left, waiting (refinePlan's timer), so that a leak check
// at the end of a caller's test does not find one.
func TestDispatchNoGoroutineBetween(t *testing.T) {
	waitPlan() // this process's own measurement has ended
	saved := planGap
	planGap = 300 * time.Millisecond
	defer func() { planGap = saved }()
	installed := make(chan int)
	ended := make(chan struct{})
	n := 0
	go refinePlan(defaultPlan(true, "amd64", true), []impl{implZeebo, implNative},
		func(impl, int, int) float64 { return 1 },
		func(*plan, [][]float64) bool {
			n++
			installed <- n
			return n < 3
		},
		func(plan) { close(ended) })
	inMeasurement := func() string { // the stacks of goroutines in refinePlan
		buf := make([]byte, 1<<20)
		var in []string
		for g := range strings.SplitSeq(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, ".refinePlan") {
				in = append(in, g)
			}
		}
		return strings.Join(in, "\n\n")
	}
	for want := 1; want <= 2; want++ {
		if got := <-installed; got != want {
			t.Fatalf("plan %d installed, want %d", got, want)
		}
		deadline := time.Now().Add(200 * time.Millisecond)
		for inMeasurement() != "" && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if g := inMeasurement(); g != "" {
			t.Fatalf("after snapshot %d, during the gap, a goroutine of the measurement:\n%s", want, g)
		}
	}
	<-installed
	<-ended
}

// planEnv turns on TestPlanSpread, a measurement.
const planEnv = "BLAKE3_MEASURE_PLAN"

// TestPlanSpread measures the plan planRuns times in a row, as each
// process does once at its first use, and prints, for each size measured,
// the spread of the ratio of zeebo's best time to the library's over every
// snapshot of every run, and how many runs chose each implementation there:
// from their first snapshot alone (as a process did when a plan was one
// snapshot) and from all (the plan a process keeps). It shows how far one
// process's plan can be from the next one's (docs/dispatch.md).
// scripts/dispatch-check.sh runs it; it never fails on a timing.
func TestPlanSpread(t *testing.T) {
	measuring(t, planEnv, "the plan has no choice to make above a chunk")
	waitPlan()
	const planRuns = 8
	def := *planNow.Load()
	lo, hi := map[int]float64{}, map[int]float64{}
	first, all := map[int]*[3]int{}, map[int]*[3]int{}
	for range planRuns {
		snaps := 0
		p := untilDone(func(done func(plan)) {
			measurePlan(lib, def, func(p *plan, snap [][]float64) bool {
				for i, n := range planSizes {
					r := snap[i][implZeebo] / snap[i][implNative]
					if _, ok := lo[n]; !ok || r < lo[n] {
						lo[n] = r
					}
					hi[n] = max(hi[n], r)
					if snaps == 0 {
						count(first, n, p[planClass(n)])
					}
				}
				snaps++
				return true
			}, done)
		})
		for _, n := range planSizes {
			count(all, n, p[planClass(n)])
		}
	}
	fmt.Printf("| size | zeebo / native, best times, fewest–most over %d snapshots | runs choosing native, zeebo, lukechampine: first snapshot | all %d snapshots |\n|---|---:|---:|---:|\n", planRuns*planSnapshots, planSnapshots)
	for _, n := range planSizes {
		f, a := first[n], all[n]
		fmt.Printf("| %dB | %.2f–%.2f | %d, %d, %d | %d, %d, %d |\n", n, lo[n], hi[n], f[implNative], f[implZeebo], f[implLuke], a[implNative], a[implZeebo], a[implLuke])
	}
}

// count adds one to the count of im at n.
func count(m map[int]*[3]int, n int, im impl) {
	if m[n] == nil {
		m[n] = new([3]int)
	}
	m[n][im]++
}
