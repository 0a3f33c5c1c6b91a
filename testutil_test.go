package blake3

// Shared helpers for the package's tests: backend switching, the official
// test vectors, and reference outputs from github.com/zeebo/blake3.

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/purego-blake3/blake3/internal/ffi"

	zeebo "github.com/zeebo/blake3"
)

// nativeActive reports whether the process loaded the native library. Under
// BLAKE3_STRICT=1, unless BLAKE3_BACKEND=go or the build has no loader, its
// absence is fatal: the native library must load in CI.
func nativeActive(t testing.TB) bool {
	t.Helper()
	if active.info.Name == "native" && lib != nil {
		return true
	}
	// A build without the loader (blake3_nonative, or a platform with no
	// library) can never have it; strictness is about builds that can.
	if strictTests() && ffi.Native && os.Getenv("BLAKE3_BACKEND") != "go" {
		t.Fatalf("BLAKE3_STRICT=1 and the native backend is not active: %s", active.info.Reason)
	}
	return false
}

// measuring skips t, a measurement that scripts/dispatch-check.sh runs,
// unless env is set, and where the native library is not loaded, which
// leaves it nothing to measure (why).
func measuring(t *testing.T, env, why string) {
	t.Helper()
	if os.Getenv(env) == "" {
		t.Skip("a measurement: scripts/dispatch-check.sh runs it (" + env + "=1)")
	}
	if !nativeActive(t) {
		t.Skip("no native library: " + why)
	}
}

// median is the median of the measurements in v, which it sorts.
func median(v []float64) float64 {
	slices.Sort(v)
	return v[len(v)/2]
}

// forEachBackend runs fn as a subtest on the native backend (when the
// process has it) and on the Go path, and restores the backend after. Tests
// that use it must not call t.Parallel: the backend is process-wide.
func forEachBackend(t *testing.T, fn func(t *testing.T)) {
	t.Helper()
	prev := active
	defer setBackend(prev)
	if nativeActive(t) {
		t.Run("native", fn)
	} else {
		t.Logf("native backend not active (%s): Go path only", prev.info.Reason)
	}
	setBackend(goBackend("test: forced"))
	t.Run("go", fn)
}

// outputs are the ways a native Digest's output can be computed: by the
// library, and in Go (outGo) one block at a time or in runs (xofRuns; runs
// are correct without lukechampine's assembly too, only slower).
var outputs = []struct {
	name       string
	inGo, runs bool
}{{"output=library", false, false}, {"output=go", true, false}, {"output=go-runs", true, true}}

// setOutput makes Digests compute their output the i-th way of outputs
// (modulo their number) until the backend is set again or restore is
// called.
func setOutput(i int) (restore func()) {
	savedGo, savedRuns := outGo, xofRuns
	o := outputs[i%len(outputs)]
	outGo, xofRuns = o.inGo, o.runs
	return func() { outGo, xofRuns = savedGo, savedRuns }
}

// forEachOutput runs fn once for each way of outputs.
func forEachOutput(t *testing.T, fn func(t *testing.T)) {
	t.Helper()
	for i, o := range outputs {
		restore := setOutput(i)
		t.Run(o.name, fn)
		restore()
	}
}

// withGoBackend runs fn with the Go path forced, then restores the backend.
func withGoBackend(fn func()) {
	prev := active
	defer setBackend(prev)
	setBackend(goBackend("test: forced"))
	fn()
}

// withMaxThreads runs fn with SetMaxThreads(n), then restores the default.
func withMaxThreads(n int, fn func()) {
	SetMaxThreads(n)
	defer SetMaxThreads(0)
	fn()
}

var (
	vectorsOnce sync.Once
	vectorsData vectorFile
	vectorsErr  error
)

// hashMode names a hashing mode for table-driven tests.
type hashMode int

const (
	hashModePlain hashMode = iota
	hashModeKeyed
	hashModeDerive
)

var allHashModes = []hashMode{hashModePlain, hashModeKeyed, hashModeDerive}

func (m hashMode) String() string {
	switch m {
	case hashModeKeyed:
		return "keyed"
	case hashModeDerive:
		return "derive"
	}
	return "hash"
}

// newModeHasher is a package Hasher in mode m (key: 32 bytes for keyed;
// ctx: the derive-key context).
func newModeHasher(t testing.TB, m hashMode, key []byte, ctx string) *Hasher {
	t.Helper()
	switch m {
	case hashModeKeyed:
		h, err := NewKeyed(key)
		if err != nil {
			t.Fatalf("NewKeyed: %v", err)
		}
		return h
	case hashModeDerive:
		return NewDeriveKey(ctx)
	}
	return New()
}

// newRefHasher is the zeebo Hasher in mode m: the reference.
func newRefHasher(t testing.TB, m hashMode, key []byte, ctx string) *zeebo.Hasher {
	t.Helper()
	switch m {
	case hashModeKeyed:
		h, err := zeebo.NewKeyed(key)
		if err != nil {
			t.Fatalf("zeebo.NewKeyed: %v", err)
		}
		return h
	case hashModeDerive:
		return zeebo.NewDeriveKey(ctx)
	}
	return zeebo.New()
}

// refOutput is zeebo's extended output for data in mode m: n bytes from
// output offset seek (seek must fit an int64).
func refOutput(t testing.TB, m hashMode, key []byte, ctx string, data []byte, seek int64, n int) []byte {
	t.Helper()
	h := newRefHasher(t, m, key, ctx)
	_, _ = h.Write(data)
	d := h.Digest()
	if _, err := d.Seek(seek, io.SeekStart); err != nil {
		t.Fatalf("zeebo Seek(%d): %v", seek, err)
	}
	out := make([]byte, n)
	_, _ = d.Read(out)
	return out
}

// panicsWith runs f and fails the test, naming what, unless f panics with a
// message that contains want.
func panicsWith(t *testing.T, what, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if s, _ := r.(string); !strings.Contains(s, want) {
			t.Errorf("%s: panic %v, want one that says %q", what, r, want)
		}
	}()
	f()
}

// writeSplit writes data to w in pieces of the given sizes, cycling through
// them; sizes must be positive.
func writeSplit(w io.Writer, data []byte, sizes ...int) {
	for i := 0; len(data) > 0; i++ {
		n := min(sizes[i%len(sizes)], len(data))
		_, _ = w.Write(data[:n])
		data = data[n:]
	}
}

// writeRandomSplit writes data in random pieces, some empty, some tiny,
// some crossing the package's buffer size.
func writeRandomSplit(rng *rand.Rand, w io.Writer, data []byte) {
	for len(data) > 0 {
		var n int
		switch rng.IntN(6) {
		case 0:
			n = 0
		case 1:
			n = 1 + rng.IntN(64)
		case 2:
			n = 1 + rng.IntN(2*chunkLen)
		case 3:
			n = bufSize - 1 + rng.IntN(3)
		case 4:
			n = 1 + rng.IntN(2*bufSize)
		default:
			n = len(data)
		}
		n = min(n, len(data))
		_, _ = w.Write(data[:n])
		data = data[n:]
	}
}

// randomBytes is n bytes from rng.
func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := 0; i < n; i += 8 {
		v := rng.Uint64()
		for j := 0; j < 8 && i+j < n; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return b
}

// testSeed is a seed for randomized tests, logged so a failure can be
// replayed with BLAKE3_TEST_SEED.
func testSeed(t testing.TB) uint64 {
	t.Helper()
	seed := rand.Uint64()
	if s := os.Getenv("BLAKE3_TEST_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("BLAKE3_TEST_SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Logf("seed %d (replay with BLAKE3_TEST_SEED=%d)", seed, seed)
	return seed
}

func newTestRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// shortHex is the first bytes of b in hex, for failure messages.
func shortHex(b []byte) string {
	if len(b) > 16 {
		return hex.EncodeToString(b[:16]) + "…"
	}
	return hex.EncodeToString(b)
}

// mustHexBytes decodes a hex constant.
func mustHexBytes(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMain loads the backend before any test: the package loads it on first
// use, and tests read lib and active directly and switch them. It turns
// the plan's later snapshots off (planRechecks): each would change the
// plan and its choices, allocate and take a core for milliseconds, at
// some moment of whatever test runs then. The tests that want them set
// them (TestDispatchRechecks; TestDispatchTable, shippedRechecks). A
// backend loaded at init (BLAKE3_BACKEND=native) is set again, so that
// its measurement starts over without them.
func TestMain(m *testing.M) {
	planRechecks = nil
	Backend()
	waitPlan()
	setBackend(active)
	os.Exit(m.Run())
}

// shippedRechecks are planRechecks as the package ships them.
var shippedRechecks = planRechecks

// strictTests reports BLAKE3_STRICT=1: skips that would hide a missing
// native library or reference binary become failures (CI sets it).
func strictTests() bool { return os.Getenv("BLAKE3_STRICT") == "1" }

// strictSkip skips the test with the message, or fails it with the same
// message under BLAKE3_STRICT=1.
func strictSkip(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if strictTests() {
		t.Fatalf("BLAKE3_STRICT=1: %s", msg)
	}
	t.Skip("SKIP: " + msg)
}

// refMismatch reads h's Sum and n bytes of its Digest and compares them
// with zeebo's for in, in mode m with key (and vectorContext): it says
// what differs, or returns "".
func refMismatch(t testing.TB, m hashMode, key []byte, h *Hasher, in []byte, n int) string {
	t.Helper()
	z := newRefHasher(t, m, key, vectorContext)
	_, _ = z.Write(in)
	if got, want := h.Sum(nil), z.Sum(nil); !bytes.Equal(got, want) {
		return fmt.Sprintf("Sum %x, want %x", got, want)
	}
	got, want := make([]byte, n), make([]byte, n)
	_, _ = h.Digest().Read(got)
	_, _ = z.Digest().Read(want)
	if !bytes.Equal(got, want) {
		return fmt.Sprintf("Digest %s, want %s", shortHex(got), shortHex(want))
	}
	return ""
}
