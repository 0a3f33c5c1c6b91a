// The size dispatch of one-shot hashes: which implementation hashes an input
// of n bytes, up to planMax, fastest on this machine.

package blake3

import (
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/purego-blake3/blake3/internal/ffi"
	zeebo "github.com/zeebo/blake3"
	"lukechampine.com/blake3/guts"
)

// impl is an implementation of a one-shot hash.
type impl uint8

const (
	implNative impl = iota // the library, one crossing
	implZeebo              // github.com/zeebo/blake3
	implLuke               // lukechampine.com/blake3 (one chunk at most)
	implTree               // lukechampine.com/blake3/guts in a goTree (above a chunk, on the Go path)
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
// or more wins wherever it is loaded. On the Go path, from two chunks up,
// lukechampine's SIMD over the chunks in a goTree (treeSum512, without its
// own one-shot's allocation) competes with zeebo's AVX2: a candidate of the
// plan up to planMax, and above a group of 16 chunks where measureTree
// finds it faster (bigByTree); zeebo takes the sizes between (one pass of
// 16 lanes for fewer chunks lost to zeebo's 8). Up to one block, zeebo and
// lukechampine are within a few percent of each other, and which leads
// there can depend on the caller's stack alignment (zeebo's assembly works
// on a hasher on the stack: the same measurement in two goroutines of one
// process ranked them both ways): the plan is only as good as that margin.
//
// So the plan starts from what each candidate can do on this CPU (the
// default plan: the library wherever it has SIMD and neither Go package has
// assembly, zeebo where it has assembly) and is then measured on this
// machine, in the background, from the first use of the package: the
// candidates side by side, interleaved, at a few sizes, keeping each one's
// best time (noise only adds time), in a snapshot at once and a few more
// over the next minute (planRechecks). An implementation replaces the
// default at a size only if it is clearly faster there (planMargin). Where
// two candidates trade places as the machine's state changes, for seconds
// at a time, two processes may still choose differently there, and
// spreading the rounds over more time did not change that (TestPlanSpread,
// docs/dispatch.md). Each round
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

// planNow is the plan in use: the default until the measurement is done.
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
		switch {
		case lib != nil:
			return implNative
		case n > groupLen && bigByTree.Load():
			return implTree
		}
		return implZeebo
	}
	return p[planClass(n)]
}

// startDispatch installs the default plan for backend l (nil: the Go path)
// and starts measuring a better one: a snapshot now, in the background,
// and more later (planRechecks).
func startDispatch(l *ffi.Symbols) {
	p := defaultPlan(l != nil, runtime.GOARCH, zeeboAsm)
	dispatchMu.Lock() // not after a snapshot of the last backend's: dispatchMu
	planNow.Store(&p)
	tailMax.Store(nil)
	dispatchMu.Unlock()
	planDone = make(chan struct{})
	d := &dispatchRun{l: l, def: p, cur: &p, treeClock: treeClock, rechecks: planRechecks}
	go func(done chan struct{}) {
		defer close(done)
		d.snapshot()
	}(planDone)
}

// planDone is closed when the first snapshot of the measurement started by
// the last startDispatch has ended: installed, or found its plan replaced.
var planDone chan struct{}

// planRechecks are the waits between one snapshot of the measurement and
// the next, after the first: snapshots about 1, 4, 16 and 64 s after it.
//
// A snapshot takes a few milliseconds, and a machine can be disturbed for
// seconds at a time in a way that slows one candidate far more than the
// others: after a large write to a file, lukechampine's plain Go was
// measured slow from 128 B to 1 KiB while zeebo's assembly and the
// library were not, and a plan made then sent those sizes to the
// library, slower than lukechampine there once the machine was at rest
// (CI's first process of scripts/dispatch-check.sh, right after the
// cross-compiled builds, did the same; docs/dispatch.md, "Snapshots
// again, a minute apart"). Noise
// only adds time, so each candidate's time is its best over the snapshots
// so far (keepLeast), as within one snapshot it is its best round: one
// undisturbed snapshot sets the plan right, and a disturbed one after it
// changes nothing. A lower median of the snapshots, tried first, let two
// disturbed snapshots out of three make a right plan wrong. A program
// that ends within the first second keeps the first snapshot's plan.
var planRechecks = []time.Duration{time.Second, 3 * time.Second, 12 * time.Second, 48 * time.Second}

// dispatchMu is held by a snapshot from its check that its plan is still
// in use until it has installed its own: a snapshot whose plan was
// replaced since the last one (by a test, or a switch of backends)
// measures nothing and installs nothing, and one that installs keeps the
// plan and the choices made with it together. startDispatch takes it to
// install a new backend's default plan, so that a snapshot of the last
// backend's measurement installs nothing after it; pinDispatch, in the
// tests, to hold the dispatch.
var dispatchMu sync.Mutex

// dispatchRun is a measurement of the dispatch for one backend: its
// snapshots so far, and what it needs for the next.
type dispatchRun struct {
	l         *ffi.Symbols
	def       plan                            // the default plan
	cur       *plan                           // the plan it installed last
	treeClock func(c impl, in []byte) float64 // treeClock when it started
	rechecks  []time.Duration                 // planRechecks when it started
	snaps     int                             // how many snapshots it took
	best      dispatchTimes                   // their best times
}

// dispatchTimes are best times, in ns, -1 where not timed: each
// candidate's one-shot at each of planSizes ([size][impl]); one block of
// output by zeebo's compression and by lukechampine's (measureBlocks);
// zeebo and lukechampine's tree at each of treeSizes, on the Go path
// (measureTree).
type dispatchTimes struct {
	plan   [][]float64
	blocks [2]float64
	tree   [len(treeSizes)][2]float64
	tail   [len(tailWays)][len(tailShapes)]float64
}

// snapshot times the candidates once, makes the plan and the choices that
// follow from the best times of every snapshot so far, installs them, and
// schedules the next snapshot, if any; unless the plan was replaced since
// the last snapshot, when it does nothing.
func (d *dispatchRun) snapshot() {
	dispatchMu.Lock()
	if planNow.Load() != d.cur {
		dispatchMu.Unlock()
		return
	}
	t := dispatchTimes{plan: measurePlan(d.l), blocks: measureBlocks(), tail: measureTail(d.l)}
	if d.l == nil {
		t.tree = measureTree(d.treeClock)
	} else {
		for i := range t.tree {
			t.tree[i] = [2]float64{-1, -1} // not timed: the library hashes those sizes
		}
	}
	if d.snaps == 0 {
		d.best = t
	} else {
		d.best.keepLeast(&t)
	}
	d.snaps++
	p := planFrom(d.def, planCands(d.l), d.best.plan)
	byLuke := blocksFrom(d.best.blocks)
	tree := treeFrom(d.best.tree)           // false where not timed (the library)
	ok := planNow.CompareAndSwap(d.cur, &p) // tests replace it without the lock
	if ok {
		blocksByLuke.Store(byLuke)
		bigByTree.Store(tree)
		tailMax.Store(tailLevelsFrom(&p, d.best.tail))
	}
	dispatchMu.Unlock()
	if ok && d.snaps <= len(d.rechecks) {
		d.cur = &p
		time.AfterFunc(d.rechecks[d.snaps-1], d.snapshot)
	}
}

// keepLeast lowers each of b's times to the same time in t where t's is
// less; -1 (not timed) in either stands for no time.
func (b *dispatchTimes) keepLeast(t *dispatchTimes) {
	least := func(x *float64, y float64) {
		if y >= 0 && (*x < 0 || y < *x) {
			*x = y
		}
	}
	for i := range b.plan {
		for c := range b.plan[i] {
			least(&b.plan[i][c], t.plan[i][c])
		}
	}
	for c := range b.blocks {
		least(&b.blocks[c], t.blocks[c])
	}
	for i := range b.tree {
		for c := range b.tree[i] {
			least(&b.tree[i][c], t.tree[i][c])
		}
	}
	for w := range b.tail {
		for k := range b.tail[w] {
			least(&b.tail[w][k], t.tail[w][k])
		}
	}
}

// defaultPlan is the plan from capabilities alone: the library (when
// loaded) on arm64, where neither Go package has assembly, and from two
// chunks up everywhere; zeebo up to a chunk on amd64 with SSE4.1 (its
// one-block assembly, as zeeboAsm has it), and on the Go path above a
// chunk; lukechampine up to a chunk elsewhere on the Go path.
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

// planCands are the candidates of the plan for backend l (nil: the Go
// path): zeebo and lukechampine, and the library where it is loaded, else
// lukechampine's tree.
func planCands(l *ffi.Symbols) []impl {
	if l != nil {
		return []impl{implZeebo, implLuke, implNative}
	}
	return []impl{implZeebo, implLuke, implTree}
}

// measurePlan times the candidates of the plan at planSizes and returns
// their best times ([size][impl]).
func measurePlan(l *ffi.Symbols) [][]float64 {
	buf := make([]byte, planMax+4096)
	for i := range buf {
		buf[i] = byte(i)
	}
	return timePlan(planCands(l), func(c impl, n, round int) float64 {
		at := planAt(round)
		return timeOneShot(l, c, buf[at:at+n])
	})
}

// planRounds is how many times each candidate is timed at each size.
const planRounds = 7

// planAt is where, in measurePlan's buffer, a round's input starts: each
// round planStride bytes after the last, modulo 4 KiB, whole cache lines
// apart and far enough that one 4 KiB alias of the input hits one round at
// most.
func planAt(round int) int { return round * planStride % 4096 }

// planStride is planAt's step.
const planStride = 9 * 64

// timePlan is measurePlan with the clock given: timeOf(c, n, round) is one
// timing of candidate c at n bytes in the given round, in ns. It returns
// each candidate's best time at each of planSizes, -1 where it is no
// candidate. It is apart so that it can be tested on made-up timings.
func timePlan(cands []impl, timeOf func(c impl, n, round int) float64) [][]float64 {
	best := make([][]float64, len(planSizes)) // ns per hash, [size][impl]
	for i := range best {
		best[i] = []float64{-1, -1, -1, -1}
	}
	for r := range planRounds {
		for i, n := range planSizes {
			for k := range cands {
				c := cands[(k+r)%len(cands)] // rotate the order each round
				if c == implLuke && n > chunkLen || c == implTree && n <= chunkLen {
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

// planFrom is the plan that follows from the candidates' times at
// planSizes ([size][impl], -1 where not timed), interpolated between the
// sizes: the fastest candidate at least planMargin faster than the
// default, else the default.
func planFrom(def plan, cands []impl, best [][]float64) plan {
	p := def
	for cl := range p {
		n := cl * 64
		cost := func(c impl) float64 { return interpolate(planSizes, best, c, n) }
		d := cost(def[cl])
		if d < 0 {
			continue
		}
		for _, c := range cands {
			if t := cost(c); t >= 0 && t <= d*planMargin && t < cost(p[cl]) {
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
// BenchmarkDispatch, which hashes one size in a loop.
func timeOneShot(l *ffi.Symbols, c impl, in []byte) float64 {
	reps := 4 + 8192/(len(in)+64)
	var out [32]byte
	hash := func(k int) {
		for range k {
			switch {
			case c == implZeebo && len(in) <= blockLen:
				// As Sum256 calls it there (but for zeeboBlocks, which
				// only tests turn off, and which this goroutine does not
				// read: as measureBlocks).
				if !ffi.ZeeboBlockOutput(&guts.IV, 0, in, out[:]) {
					s := zeebo.Sum512(in)
					out = [32]byte(s[:32])
				}
			case c == implZeebo && len(in) <= chunkLen:
				s := zeebo.Sum512(in) // as Sum256 calls it there
				out = [32]byte(s[:32])
			case c == implZeebo:
				out = zeeboSum256(in)
			case c == implLuke:
				out = lukeSum256(in)
			case c == implTree:
				out = treeSum256(in)
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
	return [...]string{implNative: "native", implZeebo: "zeebo", implLuke: "lukechampine", implTree: "lukechampine-tree"}[i]
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

// tailMax holds, for each size class up to a chunk, the most subtrees a
// tree may have for the root of its input and then a part of a chunk of
// that size to be computed in Go on the native path (tailGo), as
// tailLevelsFrom makes it: none (the library) until it is measured.
var tailMax atomic.Pointer[levels]

// levels is tailMax's table: a count of subtrees for each size class up to
// a chunk.
type levels [chunkLen/blockLen + 1]uint8

// tailLevels is tailMax's count for a part of a chunk of n bytes.
func tailLevels(n int) int {
	if l := tailMax.Load(); l != nil {
		return int(l[planClass(n)])
	}
	return 0
}

// tailShapes are the roots measureTail times: after a tree of one chunk
// (one subtree) and a tail of one byte (one block); after 65,535 chunks
// (16 subtrees) and one byte; after one chunk and 1,023 bytes (16
// blocks). The cost of a subtree, and of a block of the tail, is the
// slope from the first (tailLevelsFrom).
var tailShapes = [3]struct {
	chunks uint64
	tail   int
}{{1, 1}, {1<<16 - 1, 1}, {1, chunkLen - 1}}

// measureTail times the root output of a tree of the library's and a part
// of a chunk after it (the first block of the output), in each of
// tailShapes, side by side, as measurePlan times the one-shot hashes: by
// the library (tree_finalize), and in Go (xof.setTail) with zeebo's
// compression and with lukechampine's. It returns their best times,
// [way][shape], the ways being tailWays; -1 where not timed (zeebo's out
// of reach, or no library).
func measureTail(l *ffi.Symbols) [len(tailWays)][len(tailShapes)]float64 {
	var best [len(tailWays)][len(tailShapes)]float64
	for w := range best {
		for k := range best[w] {
			best[w][k] = -1
		}
	}
	var t ffi.Tree
	if l == nil || l.TreeInit(&t, modeHash, nil, 0) != ffi.OK {
		return best
	}
	for i := range t.Stack {
		t.Stack[i][0] = byte(i)
	}
	var tail [chunkLen]byte
	for r := range planRounds {
		for k := range tailWays {
			w := (k + r) % len(tailWays)
			if tailWays[w] == implZeebo && !ffi.ZeeboDigestOK() {
				continue
			}
			for sh, shape := range tailShapes {
				t.Chunks = shape.chunks
				if ns := timeTail(l, tailWays[w], &t, tail[:shape.tail]); ns >= 0 && (best[w][sh] < 0 || ns < best[w][sh]) {
					best[w][sh] = ns
				}
			}
		}
	}
	return best
}

// tailWays are the ways measureTail times.
var tailWays = [...]impl{implNative, implZeebo, implLuke}

// timeTail is the time of the root output of t and then tail by c
// (measureTail), in ns: a batch, divided, after a few untimed ones; -1
// (not timed) where the library refuses the call.
func timeTail(l *ffi.Symbols, c impl, t *ffi.Tree, tail []byte) float64 {
	const reps = 8
	var out [32]byte
	refused := false
	root := func(k int) {
		for range k {
			if c == implNative {
				refused = refused || l.TreeFinalize(t, tail, 0, out[:]) != ffi.OK
				continue
			}
			var x xof
			x.setTail(c == implZeebo, t.Chunks, cvStack{lo: t.Stack[:]}, &guts.IV, 0, tail)
			x.firstBlock(out[:])
		}
	}
	root(2)
	start := time.Now()
	root(reps)
	if refused {
		return -1
	}
	return float64(time.Since(start).Nanoseconds()) / reps
}

// tailLevelsFrom is tailMax from the plan p and measureTail's times: for
// each size class up to a chunk where p picks a Go package, the most
// subtrees for which that package's root of a tree and a part of a chunk
// of that size costs no more than the library's. Each way, a root costs
// its time after one subtree and one block, and for each subtree more,
// and each block of the tail more, its slope from there (tailShapes).
// Where the Go package's cost of a subtree is no more than the library's,
// any count; else as many as what it saves on the rest pays for. The
// one-shot times of the plan were tried first for the blocks' cost: they
// ranked zeebo's compression of a tail's blocks, by seeks, ahead of the
// library's, which hashes them faster. On one AVX-512 host the library
// took about as long for each subtree as zeebo's compression of a parent
// node, less for each block of the tail, and far longer for the rest; a
// Sum after each 128- or 256-byte piece of a stream still ran 2 to 3%
// slower than with every root in the library, whose next call runs
// slower after a root in Go, which this measurement of one way at a time
// does not see (docs/dispatch.md).
func tailLevelsFrom(p *plan, tail [len(tailWays)][len(tailShapes)]float64) *levels {
	var l levels
	subtrees := float64(bits.OnesCount64(tailShapes[1].chunks) - bits.OnesCount64(tailShapes[0].chunks))
	blocks := float64(planClass(tailShapes[2].tail) - planClass(tailShapes[0].tail))
	for cl := 1; cl < len(l); cl++ {
		w := slices.Index(tailWays[:], p[cl])
		if w <= 0 {
			continue // the library's (tailWays[0]), or no way of tailSum's
		}
		if !(min(tail[0][0], tail[0][1], tail[0][2], tail[w][0], tail[w][1], tail[w][2]) >= 0) {
			continue // not timed (-1)
		}
		// At one subtree, the tail's blocks after its first at each
		// way's cost of a block.
		goBlock, libBlock := (tail[w][2]-tail[w][0])/blocks, (tail[0][2]-tail[0][0])/blocks
		save := tail[0][0] - tail[w][0] + float64(cl-1)*(libBlock-goBlock)
		goEach, libEach := (tail[w][1]-tail[w][0])/subtrees, (tail[0][1]-tail[0][0])/subtrees
		switch {
		case save < 0:
		case goEach <= libEach:
			l[cl] = 64
		default:
			l[cl] = uint8(min(64, 1+save/(goEach-libEach)))
		}
	}
	return &l
}

// blocksByLuke reports whether goXOF, and a Digest for its block at hand
// (Digest.blockGo), compute single output blocks with lukechampine's
// portable code (outputBlock) rather than zeebo's compression
// (ffi.ZeeboOutput; in place, ffi.ZeeboXOF.Output): false (zeebo's, which
// has SSE4.1 assembly on amd64) until measureBlocks has timed both on
// this machine. The plan is no
// guide: a one-shot hash of a block through each package's API is not
// what a block of output from a known node costs, and on one AVX-512 host
// lukechampine's CompressNode (outputBlock's code, then called with its
// copies) took 0.8x the time of zeebo's
// through its Digest, where zeebo's one-shot hash of a block was as fast
// as lukechampine's (docs/stream.md).
var blocksByLuke atomic.Bool

// measureBlocks times the two ways of computing one output block side by
// side (zeebo's as a Digest takes it, in place where it can), as
// measurePlan times the one-shot hashes, and returns their best times:
// zeebo's, lukechampine's; -1 where zeebo's is out of reach.
func measureBlocks() [2]float64 {
	best := [2]float64{-1, -1}
	if !ffi.ZeeboDigestOK() {
		return best
	}
	n := guts.Node{CV: guts.IV, BlockLen: guts.BlockSize, Flags: guts.FlagChunkStart | guts.FlagChunkEnd | guts.FlagRoot}
	for r := range planRounds {
		for k := range 2 {
			c := (k + r) % 2
			if t := timeBlocks(c == 1, n); best[c] < 0 || t < best[c] {
				best[c] = t
			}
		}
	}
	return best
}

// blocksFrom is blocksByLuke from measureBlocks' times: whether
// lukechampine's is clearly faster (planMargin), or zeebo's out of reach.
func blocksFrom(best [2]float64) bool {
	return best[0] < 0 || best[1] <= best[0]*planMargin
}

// timeBlocks is the time of one block of output of n, in ns, by
// lukechampine's code (luke: outputBlock) or zeebo's compression: a batch,
// divided, after a few untimed ones.
func timeBlocks(luke bool, n guts.Node) float64 {
	const reps = 64
	var out [guts.BlockSize]byte
	x := ffi.ZeeboXOF{CV: n.CV, Block: n.Block, BlockLen: n.BlockLen, Flags: n.Flags}
	blocks := func(k int) {
		for i := range k {
			if luke {
				outputBlock(refOf(&n), uint64(i), &out)
			} else if !x.Output(uint64(i)) {
				ffi.ZeeboOutput(&n.CV, &n.Block, n.BlockLen, n.Flags, uint64(i), 0, out[:])
			}
		}
	}
	blocks(16)
	start := time.Now()
	blocks(reps)
	return float64(time.Since(start).Nanoseconds()) / reps
}

// bigByTree reports whether, on the Go path, a one-shot hash longer than a
// group of guts.MaxSIMD chunks goes to treeSum512, lukechampine's
// compression of 16 chunks side by side (AVX-512) in a goTree, rather than
// to zeebo, whose assembly hashes 8 chunks side by side (AVX2): false
// (zeebo's) until measureTree has timed both on this machine, and always
// where the library is loaded, which hashes those sizes. Where
// lukechampine has only AVX2, or no assembly, the two are alike or zeebo
// is faster; the measurement decides. lukechampine's own Sum256 is
// no candidate: it allocates its hasher for every input longer than a
// chunk (BenchmarkTreeSum, docs/dispatch.md).
var bigByTree atomic.Bool

// treeSizes are the sizes measureTree times: a group and four.
var treeSizes = [...]int{groupLen + 64, 4 * groupLen}

// measureTree times zeebo and treeSum256 at treeSizes side by side, as
// measurePlan times the one-shot hashes, with clock (treeClock), and
// returns their best times ([size]{zeebo's, the tree's}). It took about
// 2.4 ms on one AVX-512 host (docs/dispatch.md).
func measureTree(clock func(c impl, in []byte) float64) [len(treeSizes)][2]float64 {
	buf := make([]byte, treeSizes[len(treeSizes)-1]+4096)
	for i := range buf {
		buf[i] = byte(i)
	}
	return timeTree(func(c impl, n, round int) float64 {
		at := planAt(round)
		return clock(c, buf[at:at+n])
	})
}

// treeClock is measureTree's clock: one timing of c hashing in, in ns.
// Tests replace it with made-up timings.
var treeClock = func(c impl, in []byte) float64 { return timeOneShot(nil, c, in) }

// timeTree is measureTree with the clock given, timeOf(c, n, round) being
// one timing of zeebo or the tree at n bytes in a round: each one's best
// time at each of treeSizes, the two taking turns first in each round.
func timeTree(timeOf func(c impl, n, round int) float64) [len(treeSizes)][2]float64 {
	cands := [2]impl{implZeebo, implTree}
	var best [len(treeSizes)][2]float64
	for i, n := range treeSizes {
		best[i] = [2]float64{-1, -1}
		for r := range planRounds {
			for k := range 2 {
				c := (k + r) % 2
				if t := timeOf(cands[c], n, r); best[i][c] < 0 || t < best[i][c] {
					best[i][c] = t
				}
			}
		}
	}
	return best
}

// treeFrom is bigByTree from timeTree's times: whether the tree's time is
// at most planMargin of zeebo's at every one of treeSizes.
func treeFrom(best [len(treeSizes)][2]float64) bool {
	for _, b := range best {
		if b[0] < 0 || b[1] < 0 || b[1] > b[0]*planMargin {
			return false
		}
	}
	return true
}
