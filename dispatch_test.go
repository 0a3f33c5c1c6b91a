package blake3

import (
	"bytes"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/cpuid/v2"
	"github.com/purego-blake3/blake3/internal/ffi"
	zeebo "github.com/zeebo/blake3"
	luke "lukechampine.com/blake3"
)

// dispatchSizes are the sizes scripts/dispatch-check.sh reports: up to
// 4 KiB, most of planSizes; past them, powers of two and counts of chunks
// that are not a multiple of 4 (5, 7 and 15 KiB), which the crate's
// hash_many hashes in more than one pass.
var dispatchSizes = []int{0, 64, 128, 256, 512, 1024, 1536, 2048, 2560, 3072, 3584, 4096, 5 << 10, 7 << 10, 8 << 10, 15 << 10, 16 << 10, 32 << 10, 64 << 10}

// dispatchImpl is a one-shot hash to time, by name.
type dispatchImpl struct {
	name string
	sum  func([]byte) [32]byte
}

// dispatchImpls are what BenchmarkDispatch and TestDispatchTable time:
// this package's Sum256 and the three it chooses from, the library
// through one crossing.
var dispatchImpls = []dispatchImpl{{"auto", Sum256}, {"native", nativeOneShot}, {"zeebo", zeebo.Sum256}, {"lukechampine", luke.Sum256}}

// waitPlan waits for the measurement of the plan to end.
func waitPlan() {
	native()
	if planDone != nil {
		<-planDone
	}
}

// pinDispatch keeps the dispatch as it is until the returned func is
// called, which restores the plan, bigByTree and blocksByLuke: a later
// snapshot of the measurement (planRechecks) installs nothing meanwhile,
// so that what a test sets stays. It puts a copy of the plan in use in its
// place, which no measurement installed.
func pinDispatch() (restore func()) {
	waitPlan()
	dispatchMu.Lock()
	saved := planNow.Load()
	p := *saved
	planNow.Store(&p)
	tree, byLuke, levels := bigByTree.Load(), blocksByLuke.Load(), tailMax.Load()
	dispatchMu.Unlock()
	return func() {
		tailMax.Store(levels)
		bigByTree.Store(tree)
		blocksByLuke.Store(byLuke)
		planNow.Store(saved)
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

// TestZeeboAsm: zeeboAsm is zeebo's own test of its assembly: the CPU's
// SSE4.1 on amd64 as klauspost/cpuid reports it, off with BLAKE3_PUREGO or BLAKE3_DISABLE_SSE41 set (in
// a child process, which reads them at init) and with the purego tag.
func TestZeeboAsm(t *testing.T) {
	const child = "BLAKE3_TEST_ZEEBO_ASM_CHILD"
	if os.Getenv(child) != "" {
		fmt.Printf("zeeboAsm=%v\n", zeeboAsm)
		return
	}
	cpuHas := runtime.GOARCH == "amd64" && cpuid.CPU.Has(cpuid.SSE4) && !zeeboPurego
	for _, c := range []struct {
		env  string
		want bool
	}{{"", cpuHas}, {"BLAKE3_PUREGO=1", false}, {"BLAKE3_DISABLE_SSE41=1", false}, {"BLAKE3_DISABLE_AVX2=1", cpuHas}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestZeeboAsm$", "-test.count=1", "-test.v")
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "BLAKE3_PUREGO=") && !strings.HasPrefix(kv, "BLAKE3_DISABLE_") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, child+"=1")
		if c.env != "" {
			cmd.Env = append(cmd.Env, c.env)
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child with %q: %v\n%s", c.env, err, out)
		}
		if want := fmt.Sprintf("zeeboAsm=%v\n", c.want); !strings.Contains(string(out), want) {
			t.Errorf("child with %q: %s; want %s", c.env, out, want)
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
	impls := []impl{implZeebo, implLuke, implTree}
	if lib != nil {
		impls = append(impls, implNative)
	}
	for _, im := range impls {
		planNow.Store(planAll(im))
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

// TestDispatchBlock: Sum256, Sum512, and the Sum of a new Hasher and of
// one reused after a long input, of a block or less, on each backend, are
// zeebo's hashes, whatever the plan picks for the size (zeebo,
// lukechampine, the library), with zeebo's compression of the block
// written into the output (ffi.ZeeboBlockOutput), with it turned off
// (zeeboBlocks), and where zeebo's Digest is not the layout known; and so
// are a Hasher's Sums of up to a chunk and a byte (sumHeld up to a chunk)
// in the three modes, a derive-key Hasher made where zeebo's layout is not
// known included (no context key kept on the Go path). Sum appends to
// what b holds, with room after it or none.
func TestDispatchBlock(t *testing.T) {
	defer pinDispatch()()
	saved, savedBlocks := planNow.Load(), zeeboBlocks
	defer func() { planNow.Store(saved); zeeboBlocks = savedBlocks }()
	in := vectorInput(chunkLen + 1)
	key := vectorInput(32)
	const ctx = "TestDispatchBlock context"
	lens := []int{100, 256, chunkLen - 1, chunkLen, chunkLen + 1}
	for n := blockLen + 1; n >= 0; n-- {
		lens = append(lens, n)
	}
	forEachBackend(t, func(t *testing.T) {
		impls := []impl{implZeebo, implLuke}
		if lib != nil {
			impls = append(impls, implNative)
		}
		for _, im := range impls {
			planNow.Store(planAll(im))
			for way := range 3 {
				zeeboBlocks = way != 1
				restore := func() {}
				if way == 2 {
					restore = ffi.ForgetZeeboLayout()
				}
				for _, m := range []struct {
					name string
					ours func() *Hasher
					want func(p []byte) []byte
				}{
					{"hash", New, func(p []byte) []byte { s := zeebo.Sum256(p); return s[:] }},
					{"keyed", func() *Hasher { h, _ := NewKeyed(key); return h }, func(p []byte) []byte {
						z, _ := zeebo.NewKeyed(key)
						_, _ = z.Write(p)
						return z.Sum(nil)
					}},
					{"derive-key", func() *Hasher { return NewDeriveKey(ctx) }, func(p []byte) []byte {
						out := make([]byte, 32)
						zeebo.DeriveKey(ctx, p, out)
						return out
					}},
				} {
					// A new Hasher, and one that has hashed a long input
					// before (past halfUntil, so that the native path's
					// buffer is of bufSize, which Reset keeps), and holds
					// a buffer or zeebo's hasher after Reset.
					used := m.ours()
					writeSplit(used, bytes.Repeat([]byte{0xa5}, halfUntil+firstLen+4<<10), 1<<10) // not in's bytes
					used.Sum(nil)
					used.Reset()
					if used.buf == nil && used.spare == nil {
						t.Fatalf("%s: a Hasher that hashed %d bytes, reset, holds neither a buffer nor zeebo's hasher", m.name, halfUntil+firstLen+4<<10)
					}
					for _, n := range lens {
						want := m.want(in[:n])
						if m.name == "hash" && n <= blockLen+1 {
							want := zeebo.Sum512(in[:n])
							if got := Sum512(in[:n]); got != want {
								t.Fatalf("%v, way %d, %d bytes: Sum512 %x, zeebo %x", im, way, n, got[:8], want[:8])
							}
							if got := Sum256(in[:n]); !bytes.Equal(got[:], want[:32]) {
								t.Fatalf("%v, way %d, %d bytes: Sum256 %x, zeebo %x", im, way, n, got[:8], want[:8])
							}
						}
						for i, h := range []*Hasher{m.ours(), used} {
							h.Reset()
							_, _ = h.Write(in[:n])
							for _, b := range [][]byte{nil, []byte("ab"), make([]byte, 2, 64)} {
								got := h.Sum(b)
								if len(got) != len(b)+32 || !bytes.Equal(got[:len(b)], b) || !bytes.Equal(got[len(b):], want) {
									t.Fatalf("%v, way %d, %s, %d bytes, Hasher %d: Sum(%q) %x, want %q then %x", im, way, m.name, n, i, b, got, b, want)
								}
							}
						}
					}
				}
				restore()
			}
		}
	})
}

// TestImplForClasses: implFor gives each size up to planMax its class's
// implementation in the plan (0 bytes, 1 to 64, 65 to 128, ...), under a
// plan whose neighbouring classes differ. (TestDispatchTreeSum checks the
// sizes past planMax.)
func TestImplForClasses(t *testing.T) {
	defer pinDispatch()()
	var p plan
	for c := range p {
		p[c] = []impl{implZeebo, implLuke, implNative}[c%3]
	}
	planNow.Store(&p)
	for n := 0; n <= planMax; n++ {
		want := p[(n+blockLen-1)/blockLen]
		if got := implFor(n); got != want {
			t.Fatalf("%d bytes: implFor %s, want %s", n, got, want)
		}
	}
}

// planAll is a plan that picks im at every size, but lukechampine above a
// chunk, where no plan picks it (it is slow there): zeebo then.
// setTailLevels makes tailGo allow trees of up to k subtrees at every
// length of a part of a chunk.
func setTailLevels(k uint8) {
	var l levels
	for i := range l {
		l[i] = k
	}
	tailMax.Store(&l)
}

func planAll(im impl) *plan {
	var p plan
	for c := range p {
		p[c] = im
		if im == implLuke && c*64 > chunkLen {
			p[c] = implZeebo
		}
	}
	return &p
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

// TestDispatchZeeboSum: zeeboSum512 and zeeboSum256, which the dispatch
// calls for zeebo above a chunk, are zeebo's Sum512 and Sum256: at every
// length up to two chunks, at the edges of zeebo's 8 KiB batches, and at
// lengths between; and allocate nothing, with zeebo's layout known or not.
func TestDispatchZeeboSum(t *testing.T) {
	in := vectorInput(17*chunkLen + 1)
	lens := []int{8191, 8192, 8193, 16383, 16384, 16385, len(in)}
	for n := 0; n <= len(in); n += 1 + n/(2*chunkLen)*251 {
		lens = append(lens, n)
	}
	for _, n := range lens {
		if got, want := zeeboSum512(in[:n]), zeebo.Sum512(in[:n]); got != want {
			t.Fatalf("%d bytes: zeeboSum512 %x, zeebo %x", n, got[:8], want[:8])
		}
		if got, want := zeeboSum256(in[:n]), zeebo.Sum256(in[:n]); got != want {
			t.Fatalf("%d bytes: zeeboSum256 %x, zeebo %x", n, got[:8], want[:8])
		}
	}
	// Its hasher comes from a pool, and goes back to it; where zeebo's
	// layout is not the one known, it is made on the stack.
	defer pinDispatch()() // no snapshot of the plan reads zeebo's layout meanwhile
	for _, known := range []bool{true, false} {
		if !known {
			defer ffi.ForgetZeeboLayout()()
		}
		if a := testing.AllocsPerRun(50, func() { zeeboSum512(in) }); a != 0 && !raceEnabled {
			t.Errorf("zeebo's layout known %v: %v allocations per zeeboSum512 of %d bytes, want 0", known, a, len(in))
		}
		if got, want := zeeboSum512(in), zeebo.Sum512(in); got != want {
			t.Errorf("zeebo's layout known %v: zeeboSum512 %x, zeebo %x", known, got[:8], want[:8])
		}
	}
}

// TestDispatchTreeSum: treeSum512 and treeSum256, which the dispatch calls
// for lukechampine-tree, are zeebo's Sum512 and Sum256: at every length up
// to two chunks, around each of the first five groups' ends (a byte and a
// chunk either side), and at lengths between; and on the Go path Sum256
// and Sum512 take them above a group where bigByTree is set, and zeebo
// where it is not.
func TestDispatchTreeSum(t *testing.T) {
	in := vectorInput(5*groupLen + 3*chunkLen + 1)
	lens := []int{len(in)}
	for g := 1; g <= 5; g++ {
		for _, d := range []int{-chunkLen - 1, -chunkLen, -chunkLen + 1, -1, 0, 1, chunkLen - 1, chunkLen, chunkLen + 1} {
			lens = append(lens, g*groupLen+d)
		}
	}
	for n := 0; n <= len(in); n += 1 + n/(2*chunkLen)*509 {
		lens = append(lens, n)
	}
	for _, n := range lens {
		if got, want := treeSum512(in[:n]), zeebo.Sum512(in[:n]); got != want {
			t.Fatalf("%d bytes: treeSum512 %x, zeebo %x", n, got[:8], want[:8])
		}
		if got, want := treeSum256(in[:n]), zeebo.Sum256(in[:n]); got != want {
			t.Fatalf("%d bytes: treeSum256 %x, zeebo %x", n, got[:8], want[:8])
		}
	}
	waitPlan()
	forEachTree(func(tree bool) {
		for _, n := range []int{planMax + 1, groupLen, groupLen + 1, 3*groupLen + 7} {
			want := implZeebo
			if tree && n > groupLen {
				want = implTree
			}
			if got := implFor(n); got != want {
				t.Fatalf("bigByTree %v, %d bytes: %s, want %s", tree, n, got, want)
			}
			if got, want := Sum256(in[:n]), zeebo.Sum256(in[:n]); got != want {
				t.Fatalf("bigByTree %v, %d bytes: Sum256 %x, zeebo %x", tree, n, got[:8], want[:8])
			}
			if got, want := Sum512(in[:n]), zeebo.Sum512(in[:n]); got != want {
				t.Fatalf("bigByTree %v, %d bytes: Sum512 %x, zeebo %x", tree, n, got[:8], want[:8])
			}
		}
	})
}

// TestDispatchChooseTree: the tree replaces zeebo above a group only where
// its best time is clearly the lower (planMargin) at every size measured,
// on made-up timings.
func TestDispatchChooseTree(t *testing.T) {
	for _, c := range []struct {
		ratio [len(treeSizes)]float64 // the tree's time over zeebo's, at each size
		slow  int                     // a round in which the tree's timing is 10 times as long
		want  bool
	}{
		{[len(treeSizes)]float64{0.8, 0.8}, -1, true},
		{[len(treeSizes)]float64{0.8, 0.8}, planRounds - 1, true}, // best times: noise only adds
		{[len(treeSizes)]float64{0.96, 0.96}, -1, true},
		{[len(treeSizes)]float64{0.98, 0.8}, -1, false},
		{[len(treeSizes)]float64{0.8, 0.98}, -1, false},
		{[len(treeSizes)]float64{1.2, 1.2}, -1, false},
	} {
		got := treeFrom(timeTree(func(im impl, n, round int) float64 {
			i := slices.Index(treeSizes[:], n)
			switch {
			case i < 0:
				t.Fatalf("timed at %d bytes, not one of %v", n, treeSizes)
			case im == implZeebo:
				return 1000
			case im != implTree:
				t.Fatalf("timed %s", im)
			case round == c.slow:
				return 10000
			}
			return 1000 * c.ratio[i]
		}))
		if got != c.want {
			t.Errorf("tree at %v of zeebo's time (slow round %d): chose the tree %v, want %v", c.ratio, c.slow, got, c.want)
		}
	}
}

// TestDispatchTreeWiring: the measurement that startDispatch starts sets
// bigByTree from what measureTree finds on the Go path, and clears it
// where the library is loaded, whatever the tree's timings (made up here).
func TestDispatchTreeWiring(t *testing.T) {
	waitPlan()
	saved, savedClock := bigByTree.Load(), treeClock
	defer func() { bigByTree.Store(saved); treeClock = savedClock }()
	for _, fast := range []bool{true, false, true} {
		treeClock = func(c impl, in []byte) float64 {
			if c == implTree == fast {
				return 1
			}
			return 100
		}
		withGoBackend(func() {
			// The made-up clock stays for the measurement of the backend
			// restored after, too: where the library is loaded it must not
			// time the tree at all, whatever the clock says (with the
			// real clock, on a machine where zeebo is the faster, a
			// measurement that timed the tree there went unseen).
			waitPlan()
			if got := bigByTree.Load(); got != fast {
				t.Errorf("Go path, the tree measured faster %v: bigByTree %v", fast, got)
			}
		})
		waitPlan() // the backend restored
		if lib != nil && bigByTree.Load() {
			t.Errorf("native path, the tree measured faster %v: bigByTree set", fast)
		}
	}
}

// TestDispatchTailLevels: tailLevelsFrom, on made-up times, allows any
// count of subtrees where the Go package's cost of one is no more than
// the library's, else as many as its saving on the rest pays for, that
// saving counting the tail's blocks after its first at each one's cost of
// a block; none where the plan picks the library, or where a time it
// needs is not timed (-1: zeebo's layout unknown, or no library).
func TestDispatchTailLevels(t *testing.T) {
	subtrees := float64(bits.OnesCount64(tailShapes[1].chunks) - bits.OnesCount64(tailShapes[0].chunks))
	blocks := float64((tailShapes[2].tail - tailShapes[0].tail) / blockLen)
	// times is a way's times at tailShapes: one after one subtree and one
	// block, each more subtree and each more block of the tail.
	times := func(one, subtree, block float64) [len(tailShapes)]float64 {
		return [3]float64{one, one + subtree*subtrees, one + block*blocks}
	}
	var p plan
	for c := range p {
		p[c] = []impl{implZeebo, implLuke, implNative}[c%3]
	}
	none := [3]float64{-1, -1, -1}
	for _, c := range []struct {
		name string
		tail [len(tailWays)][len(tailShapes)]float64
		want func(k float64) (zeebo, luke int) // k: the tail's blocks after its first
	}{
		{"Go's subtree cheaper", [3][3]float64{times(200, 80, 60), times(150, 70, 62), times(190, 80, 70)}, func(k float64) (int, int) {
			luke := 0
			if 10-10*k >= 0 { // the same cost of a subtree; 10 saved, less 10 a block
				luke = 64
			}
			return 64, luke // zeebo: 50 saved, less 2 a block
		}},
		{"Go's subtree dearer", [3][3]float64{times(240, 80, 60), times(180, 90, 58), times(200, 100, 62)}, func(k float64) (int, int) {
			// zeebo: 60 saved, and 2 a block; 10 more a subtree.
			// lukechampine: 40 saved, less 2 a block; 20 more a subtree.
			return 1 + int((60+2*k)/10), 1 + int((40-2*k)/20)
		}},
		{"Go's subtree dearer by a little", [3][3]float64{times(200, 80, 60), times(100, 80.1, 60), times(190, 80, 70)}, func(k float64) (int, int) {
			luke := 0
			if 10-10*k >= 0 {
				luke = 64
			}
			return 64, luke // zeebo: 100 saved, 0.1 lost a subtree: 1,001 subtrees, at most 64
		}},
		{"the same costs", [3][3]float64{times(200, 80, 60), times(200, 80, 60), times(200, 80, 60)}, func(float64) (int, int) {
			return 64, 64 // nothing saved, nothing lost
		}},
		{"a block dearer in Go", [3][3]float64{times(200, 80, 60), times(190, 70, 65), times(150, 70, 70)}, func(k float64) (int, int) {
			zeebo, luke := 0, 0
			if 10-5*k >= 0 {
				zeebo = 64
			}
			if 50-10*k >= 0 {
				luke = 64
			}
			return zeebo, luke
		}},
		{"zeebo not timed", [3][3]float64{times(200, 80, 60), none, times(190, 80, 70)}, func(k float64) (int, int) {
			if 10-10*k >= 0 {
				return 0, 64
			}
			return 0, 0
		}},
		{"a block not timed", [3][3]float64{{200, 1400, -1}, times(150, 70, 62), times(190, 80, 70)}, func(float64) (int, int) { return 0, 0 }},
		{"no library", [3][3]float64{none, times(150, 70, 62), times(190, 80, 70)}, func(float64) (int, int) { return 0, 0 }},
	} {
		l := tailLevelsFrom(&p, c.tail)
		if l[0] != 0 {
			t.Errorf("%s: class 0 (no tail): %d subtrees", c.name, l[0])
		}
		for cl := 1; cl < len(l); cl++ {
			zeebo, luke := c.want(float64(cl - 1))
			want := map[impl]int{implZeebo: zeebo, implLuke: luke, implNative: 0}[p[cl]]
			if int(l[cl]) != want {
				t.Errorf("%s: class %d (%v): %d subtrees, want %d", c.name, cl, p[cl], l[cl], want)
			}
		}
	}
}

// TestMeasureTail: measureTail times each way of computing a tree's root,
// more after the deeper tree and for the longer tail; not zeebo's where
// its layout is unknown, and none without the library; and the
// measurement that startDispatch starts installs its levels (tailMax)
// where the library is loaded.
func TestMeasureTail(t *testing.T) {
	none := [3]float64{-1, -1, -1}
	if got := measureTail(nil); got != [3][3]float64{none, none, none} {
		t.Errorf("no library: %v, want none timed", got)
	}
	if lib == nil {
		t.Skip("no native library: no tree to time")
	}
	waitPlan()
	if tailMax.Load() == nil {
		t.Error("the measurement installed no levels")
	}
	// 15 subtrees, or 15 blocks of the tail, more: 15 compressions more,
	// several times the time of the root after one subtree and one block
	// (two compressions and the frame); half that again is a margin no
	// machine's noise comes near, and that a timing of the wrong shape
	// does not reach.
	got := measureTail(lib)
	for w, d := range got {
		if d[0] <= 0 || d[1] <= 1.5*d[0] || d[2] <= 1.5*d[0] {
			t.Errorf("%v: %v ns at %+v, want positive times, half again as much or more after more subtrees or blocks", tailWays[w], d, tailShapes)
		}
	}
	defer ffi.ForgetZeeboLayout()()
	if got := measureTail(lib); got[1] != none || got[0][0] < 0 || got[2][0] < 0 {
		t.Errorf("zeebo's layout unknown: %v, want zeebo's untimed and the others timed", got)
	}
}

// TestTailGo: the rule for a tree's root and a part of a chunk in Go: a
// part of a chunk, neither empty nor whole, after a tree of at least one
// chunk, where the plan picks a Go package for the part's length (zeebo
// only where its layout is known) and the tree has no more subtrees than
// tailLevels allows.
func TestTailGo(t *testing.T) {
	defer pinDispatch()()
	for _, c := range []struct {
		im     impl
		levels uint8
		chunks uint64
		tail   int
		want   bool
	}{
		{implZeebo, 1, 1, 1, true},
		{implZeebo, 1, 8, 500, true},
		{implZeebo, 1, 3, 1, false}, // two subtrees
		{implZeebo, 2, 3, 1, true},
		{implZeebo, 2, 7, 1, false},
		{implZeebo, 64, 1<<54 - 1, 1023, true},
		{implZeebo, 0, 1, 1, false},
		{implZeebo, 64, 0, 1, false},
		{implZeebo, 64, 1, 0, false},
		{implZeebo, 64, 1, chunkLen, false},
		{implLuke, 1, 2, 100, true},
		{implLuke, 1, 5, 100, false},
		{implNative, 64, 1, 1, false},
	} {
		planNow.Store(planAll(c.im))
		setTailLevels(c.levels)
		if got := tailGo(c.chunks, vectorInput(c.tail)); got != c.want {
			t.Errorf("plan %v, up to %d subtrees, %d chunks and %d bytes: %v, want %v", c.im, c.levels, c.chunks, c.tail, got, c.want)
		}
	}
	setTailLevels(64)
	tree := ffi.Tree{Chunks: 1, Offset: chunkLen}
	planNow.Store(planAll(implZeebo))
	if tailInGo(&tree, []byte{1}) {
		t.Error("a subtree's tree (an offset): its root in Go")
	}
	defer ffi.ForgetZeeboLayout()()
	if tailGo(1, []byte{1}) {
		t.Error("zeebo's layout unknown: the root in Go, where the plan picks zeebo")
	}
	planNow.Store(planAll(implLuke))
	if !tailGo(1, []byte{1}) {
		t.Error("zeebo's layout unknown: not in Go, where the plan picks lukechampine")
	}
}

// TestDispatchKeepLeast: the times over snapshots are each time's least,
// not timed (-1) where no snapshot timed it.
func TestDispatchKeepLeast(t *testing.T) {
	snap := func(v float64) dispatchTimes {
		return dispatchTimes{
			plan:   [][]float64{{v, -1, 2 * v, -1}},
			blocks: [2]float64{v + 1, -1},
			tree:   [len(treeSizes)][2]float64{{v, v + 2}, {-1, 3 * v}},
			tail:   [len(tailWays)][len(tailShapes)]float64{{v, 4 * v, 2 * v}, {-1, -1, -1}, {v + 3, -1, v}},
		}
	}
	for _, vals := range [][]float64{{7}, {9, 5}, {5, 9}, {9, 5, 7}, {4, 9, 5, 7, 6}, {9, 7, 6, 5}} {
		b := snap(vals[0])
		for _, v := range vals[1:] {
			t := snap(v)
			b.keepLeast(&t)
		}
		if want := snap(slices.Min(vals)); !reflect.DeepEqual(b, want) {
			t.Errorf("snapshots at %v: %+v, want %+v", vals, b, want)
		}
	}
}

// TestDispatchRechecks: the measurement takes more snapshots after the
// first, planRechecks apart (shortened here), and installs what each
// candidate's best time over them gives: a tree timed slow in the first
// and fourth snapshots (a disturbed machine) and fast in the second and
// third is not chosen after the first and is after the fourth (neither
// the first snapshot nor the last decides). A snapshot measures nothing,
// and is the last, where the plan was replaced since the one before
// (pinDispatch, as tests do), and installs nothing, and is the last, where
// it was replaced while it measured (setBackend does not wait for it).
func TestDispatchRechecks(t *testing.T) {
	waitPlan()
	savedRechecks, savedClock := planRechecks, treeClock
	defer func() { planRechecks, treeClock = savedRechecks, savedClock }()
	perSnapshot := int64(len(treeSizes) * planRounds * 2)
	var calls, replaceAt atomic.Int64
	var replaced atomic.Pointer[plan]
	var seenAfterFirst, treeAfterFirst atomic.Bool // bigByTree when the second snapshot starts timing the tree
	fakeClock := func(c impl, in []byte) float64 {
		k := calls.Add(1)
		if k == perSnapshot+1 {
			treeAfterFirst.Store(bigByTree.Load())
			seenAfterFirst.Store(true)
		}
		if k == replaceAt.Load() { // the plan replaced during a snapshot, as startDispatch does
			p := *planNow.Load()
			replaced.Store(&p)
			planNow.Store(&p)
		}
		switch s := (k - 1) / perSnapshot; {
		case c != implTree:
			return 10
		case s == 0 || s == 3: // snapshots disturbed for the tree
			return 100
		}
		return 1
	}
	// waitCalls waits until the clock has been called n times, then for
	// settle, longer than the next wait between snapshots, and reports
	// whether it was called n times exactly.
	waitCalls := func(n int64, settle time.Duration) bool {
		for deadline := time.Now().Add(10 * time.Second); calls.Load() < n && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(settle)
		return calls.Load() == n
	}
	// onGoPath runs body on the Go path, whose measurement uses the made-up
	// clock and the given waits; the backend restored after it, the real ones.
	onGoPath := func(rechecks []time.Duration, body func()) {
		calls.Store(0)
		treeClock, planRechecks = fakeClock, rechecks
		withGoBackend(func() {
			treeClock, planRechecks = savedClock, savedRechecks
			waitPlan()
			body()
		})
	}
	onGoPath([]time.Duration{50 * time.Millisecond, 50 * time.Millisecond, 50 * time.Millisecond}, func() {
		if !waitCalls(perSnapshot*4, 300*time.Millisecond) {
			t.Errorf("the tree's clock called %d times, want 4 snapshots of %d", calls.Load(), perSnapshot)
		}
		if !seenAfterFirst.Load() || treeAfterFirst.Load() {
			t.Errorf("first snapshot, the tree slow: bigByTree set, or no second snapshot (seen %v)", seenAfterFirst.Load())
		}
		if !bigByTree.Load() {
			t.Errorf("after 4 snapshots, the tree slow in the first and the last: bigByTree not set")
		}
	})
	onGoPath([]time.Duration{500 * time.Millisecond, 50 * time.Millisecond}, func() {
		defer pinDispatch()()
		if !waitCalls(perSnapshot, time.Second) {
			t.Errorf("plan replaced after the first snapshot: the tree's clock called %d times, want 1 snapshot of %d (the second measures nothing, and is the last)", calls.Load(), perSnapshot)
		}
		if bigByTree.Load() {
			t.Errorf("plan replaced after the first snapshot: a later one set bigByTree")
		}
	})
	replaceAt.Store(perSnapshot + 1)
	defer replaceAt.Store(0)
	onGoPath([]time.Duration{50 * time.Millisecond, 50 * time.Millisecond}, func() {
		if !waitCalls(2*perSnapshot, 300*time.Millisecond) {
			t.Errorf("plan replaced during the second snapshot: the tree's clock called %d times, want 2 snapshots of %d (the second installs nothing, and is the last)", calls.Load(), perSnapshot)
		}
		if p := replaced.Load(); p == nil || planNow.Load() != p {
			t.Errorf("plan replaced during the second snapshot: the snapshot installed its own over it")
		}
		if bigByTree.Load() {
			t.Errorf("plan replaced during the second snapshot: it set bigByTree")
		}
	})
}

// TestDispatchMeasuredPlan: the measured plan only ever picks a candidate
// for its size: lukechampine up to a chunk, its tree above a chunk on the
// Go path, the library only when loaded; on either backend.
func TestDispatchMeasuredPlan(t *testing.T) {
	check := func(l *ffi.Symbols) {
		p := planFrom(defaultPlan(l != nil, "amd64", true), planCands(l), measurePlan(l))
		for c, im := range p {
			if im == implLuke && c*64 > chunkLen || im == implTree && (c*64 <= chunkLen || l != nil) || im == implNative && l == nil {
				t.Errorf("library %v, class %d (up to %d bytes): %v", l != nil, c, c*64, im)
			}
		}
		t.Logf("plan measured here, library %v: %s", l != nil, &p)
	}
	check(lib)
	if lib != nil {
		check(nil)
	}
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

// TestDispatchPlanStride: each of timePlan's rounds hashes from
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
	p := planFrom(def, cands, timePlan(cands, timeOf))
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

// planEnv turns on TestPlanSpread, a measurement.
const planEnv = "BLAKE3_MEASURE_PLAN"

// TestPlanSpread measures the plan planRuns times in a row, as each
// process does at its first use (its first snapshot), and prints, for each size measured
// from a chunk up, the spread of the ratio of zeebo's best time to the
// library's over the runs, and how many runs chose each implementation
// there. It shows how far one process's plan can be from the next one's
// (docs/dispatch.md). scripts/dispatch-check.sh runs it; it never fails on
// a timing.
func TestPlanSpread(t *testing.T) {
	measuring(t, planEnv, "the plan has no choice to make above a chunk")
	waitPlan()
	const planRuns = 30
	def := defaultPlan(lib != nil, runtime.GOARCH, zeeboAsm) // a new process's
	buf := make([]byte, planMax+4096)
	lo, hi := map[int]float64{}, map[int]float64{}
	chose := map[int]*[3]int{}
	for range planRuns {
		cands := []impl{implZeebo, implLuke, implNative}
		best := timePlan(cands, func(c impl, n, round int) float64 {
			at := planAt(round)
			return timeOneShot(lib, c, buf[at:at+n])
		})
		p := planFrom(def, cands, best)
		for i, n := range planSizes {
			if n <= chunkLen {
				continue
			}
			r := best[i][implZeebo] / best[i][implNative]
			if _, ok := lo[n]; !ok || r < lo[n] {
				lo[n] = r
			}
			hi[n] = max(hi[n], r)
			if chose[n] == nil {
				chose[n] = new([3]int)
			}
			chose[n][p[planClass(n)]]++
		}
	}
	fmt.Printf("| size | zeebo / native, best times, fewest–most over %d runs | runs choosing native | runs choosing zeebo |\n|---|---:|---:|---:|\n", planRuns)
	for _, n := range planSizes {
		if n > chunkLen {
			fmt.Printf("| %dB | %.2f–%.2f | %d | %d |\n", n, lo[n], hi[n], chose[n][implNative], chose[n][implZeebo])
		}
	}
}

// dispatchEnv turns on TestDispatchTable, a measurement.
const dispatchEnv = "BLAKE3_MEASURE_DISPATCH"

// TestDispatchTable times this package's Sum256, zeebo's, lukechampine's
// and the library through one crossing side by side, on one thread, at
// each of dispatchSizes and at 1 and 16 MiB, and prints one line per size
// with each one's median time per call, once the plan's second snapshot
// is in (waitRecheck), for scripts/dispatch-check.sh, which runs it in several processes (each measures its own plan) and
// makes the table. The four take turns in short batches (calls over about
// 100 KB of input each, 301 batches; one call, 15 batches, from 1 MiB), so
// that the ratios compare times taken close together: whole benchmarks run
// one after the other drift apart on a shared machine. Their order is
// drawn again for each batch: in a fixed rotation, the one that always
// came after lukechampine's read slower than it does elsewhere in the order
// (docs/dispatch.md, "Timed in turns"). It never fails on a timing.
func TestDispatchTable(t *testing.T) {
	measuring(t, dispatchEnv, "nothing to compare the Go packages with")
	planRechecks = shippedRechecks
	defer func() { planRechecks = nil }()
	setBackend(active) // the measurement started again, as at a program's start
	fmt.Printf("plan: %s\n", waitRecheck("first plan"))
	timeDispatch(t, "dispatch", dispatchImpls)
	fmt.Printf("last plan: %s\n", planNow.Load())
}

// TestDispatchTableGo is TestDispatchTable on the Go path, forced: this
// package's Sum256 there (its Go plan, and above 4 KiB zeebo or
// lukechampine's tree, as bigByTree says) against zeebo's and
// lukechampine's, for the table of the Go path that
// scripts/dispatch-check.sh prints after the native one. It runs with or
// without the library.
func TestDispatchTableGo(t *testing.T) {
	if os.Getenv(dispatchEnv) == "" {
		t.Skip("a measurement: scripts/dispatch-check.sh runs it (" + dispatchEnv + "=1)")
	}
	planRechecks = shippedRechecks
	defer func() { planRechecks = nil }()
	withGoBackend(func() {
		p := waitRecheck("first plan-go")
		fmt.Printf("plan-go: %s, above 4096B: %s\n", p, implFor(groupLen+1))
		defer func() { fmt.Printf("last plan-go: %s, above 4096B: %s\n", planNow.Load(), implFor(groupLen+1)) }()
		timeDispatch(t, "dispatch-go", []dispatchImpl{{"auto", Sum256}, {"zeebo", zeebo.Sum256}, {"lukechampine", luke.Sum256}})
	})
}

// waitRecheck waits for the measurement's first snapshot, prints its plan
// after label, then waits for the second snapshot's plan
// (planRechecks), which a program that runs for a second or more uses,
// and returns it.
func waitRecheck(label string) *plan {
	waitPlan()
	first := planNow.Load()
	fmt.Printf("%s: %s\n", label, first)
	for deadline := time.Now().Add(planRechecks[0] + 5*time.Second); planNow.Load() == first && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	return planNow.Load()
}

// timeDispatch times impls side by side, the first being this package's
// Sum256, and prints a line per size, which starts with label.
func timeDispatch(t *testing.T, label string, impls []dispatchImpl) {
	defer oneCore()()
	buf := vectorInput(16 << 20)
	var sink byte
	for _, n := range append(slices.Clone(dispatchSizes), 1<<20, 16<<20) {
		in := buf[:n]
		want := Sum256(in)
		for _, im := range impls[1:] {
			if got := im.sum(in); got != want {
				t.Fatalf("%d bytes: %s gives %x, Sum256 %x", n, im.name, got, want)
			}
		}
		per, batches := max(1, 100000/(n+256)), 301
		if n >= 1<<20 {
			batches = 15
		}
		times := make([][]float64, len(impls))
		for range batches {
			for _, k := range rand.Perm(len(impls)) {
				t0 := time.Now()
				for range per {
					s := impls[k].sum(in)
					sink ^= s[0]
				}
				times[k] = append(times[k], float64(time.Since(t0).Nanoseconds())/float64(per))
			}
		}
		fmt.Printf("%s: size=%s", label, sizeName(n))
		for k, im := range impls {
			fmt.Printf(" %s=%.1f", im.name, median(times[k]))
		}
		fmt.Println()
	}
	runtime.KeepAlive(sink)
}
