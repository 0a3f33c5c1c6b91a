//go:build !blake3_nonative && !android && (amd64 || arm64)

package blake3

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"
)

// crossingEnv asks for TestCrossingCost, a measurement that
// scripts/dispatch-check.sh runs and prints.
const crossingEnv = "BLAKE3_MEASURE_CROSSING"

// TestCrossingCost measures where the time of a hash on the native path
// goes, in one process, in interleaved batches: the library looped in C
// (testdata/crossing/loop.c: the crate without Go around it), the library
// through this package's crossing once per call (lib.Hash), and Sum256 on
// one thread as users get it. Each figure is the median of the batches'
// time per call; the table gives the crossing's cost in nanoseconds and the
// speed of the two Go figures against the C loop. Before any timing it
// checks that the three give the same hash.
//
// Medians of interleaved batches, because the machines are shared: figures
// from separate processes, or means that keep every interruption, differ
// by more than the crossing itself (docs/benchmarks.md, "The crossing").
func TestCrossingCost(t *testing.T) {
	measuring(t, crossingEnv, "nothing crosses")
	loop := crossingLoop(t)
	defer oneCore()()
	buf := make([]byte, 64<<10)
	for i := range buf {
		buf[i] = byte(i % 251)
	}
	var out [32]byte
	fmt.Printf("| size | library looped in C ns | one crossing per call ns | Sum256 ns | crossing ns | crossing / C | Sum256 / C |\n")
	fmt.Printf("|---|---:|---:|---:|---:|---:|---:|\n")
	for _, n := range []int{64, 1 << 10, 4 << 10, 16 << 10, 64 << 10} {
		in := buf[:n]
		if loop(in, out[:], 1) == 0 {
			t.Fatalf("loop.c failed at %d bytes (see stderr)", n)
		}
		if want := Sum256(in); out != want {
			t.Fatalf("%d bytes: the library looped in C gives %x, Sum256 %x", n, out, want)
		}
		must(lib.Hash(in, out[:]))
		if want := Sum256(in); out != want {
			t.Fatalf("%d bytes: lib.Hash gives %x, Sum256 %x", n, out, want)
		}
		// Batches of some 50 µs, 301 of each kind.
		per := max(8, 100000/(n+256))
		var c, x, s []float64
		for range 301 {
			c = append(c, float64(loop(in, out[:], per))/float64(per))
			t0 := time.Now()
			for range per {
				_ = lib.Hash(in, out[:])
			}
			x = append(x, float64(time.Since(t0).Nanoseconds())/float64(per))
			t0 = time.Now()
			for range per {
				out = Sum256(in)
			}
			s = append(s, float64(time.Since(t0).Nanoseconds())/float64(per))
		}
		mc, mx, ms := median(c), median(x), median(s)
		fmt.Printf("| %s | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f |\n", sizeName(n), mc, mx, ms, mx-mc, mc/mx, mc/ms)
	}
}

// crossingLoop builds testdata/crossing/loop.c over a copy of the embedded
// library and returns its blake3_loop: the nanoseconds iters calls took, 0
// on failure.
func crossingLoop(t *testing.T) func(in, out []byte, iters int) uint64 {
	t.Helper()
	so := faultCompile(t, "loop.so", "-O2", "-I", filepath.Join("rust", "include"),
		`-DREAL_LIB="`+faultRealLibrary(t)+`"`, filepath.Join("testdata", "crossing", "loop.c"), "-ldl")
	h, err := purego.Dlopen(so, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		t.Fatal(err)
	}
	fn, err := purego.Dlsym(h, "blake3_loop")
	if err != nil {
		t.Fatal(err)
	}
	return func(in, out []byte, iters int) uint64 {
		r, _, _ := purego.SyscallN(fn, uintptr(unsafe.Pointer(&in[0])), uintptr(len(in)), uintptr(unsafe.Pointer(&out[0])), uintptr(iters))
		return uint64(r)
	}
}
