// Loader tests that hold on every platform with a loader: the helpers of the
// fault matrix (faults_test.go holds the Linux-only cases), the environment
// read at init (in a child process, since init runs once), and the cost of
// init.

package blake3

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/purego-blake3/blake3/internal/ffi"
	"github.com/purego-blake3/blake3/libs"

	zeebo "github.com/zeebo/blake3"
)

// faultLoad is load; each library keeps its own state size, so loading
// others leaves the process's library untouched.
func faultLoad(cfg loadConfig) (*loaded, error) {
	return load(cfg)
}

// faultSelect is selectBackend, with a panic caught and returned as text.
func faultSelect(mode string, cfg loadConfig) (st backendState, panicked string) {
	defer func() {
		if r := recover(); r != nil {
			panicked = fmt.Sprint(r)
			if panicked == "" {
				panicked = "(empty panic value)"
			}
		}
	}()
	return selectBackend(mode, cfg), ""
}

// faultSizes are the inputs the hashing checks use: both sides of chunkLen,
// several chunks, and more than parallelMin (the multi-threaded path).
var faultSizes = []int{0, 1, 64, chunkLen - 1, chunkLen, chunkLen + 1, 5121, 64 << 10, parallelMin + 1000}

func faultInput(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

// faultHashProblem makes st the process's backend for a moment and compares
// its hashes with zeebo's; "" means they all agree.
func faultHashProblem(st backendState) string {
	saved := active
	setBackend(st)
	defer setBackend(saved)
	if (lib == nil) != (st.info.Name == "go") {
		return fmt.Sprintf("backend %q with lib=%v", st.info.Name, lib != nil)
	}
	for _, n := range faultSizes {
		in := faultInput(n)
		if got, want := Sum256(in), zeebo.Sum256(in); got != want {
			return fmt.Sprintf("Sum256 of %d bytes: %x, want %x", n, got, want)
		}
		if got, want := Sum512(in), zeebo.Sum512(in); got != want {
			return fmt.Sprintf("Sum512 of %d bytes: %x, want %x", n, got[:8], want[:8])
		}
		h, z := New(), zeebo.New()
		for p := in; len(p) > 0; {
			k := min(len(p), 3000)
			_, _ = h.Write(p[:k])
			p = p[k:]
		}
		_, _ = z.Write(in)
		if got, want := h.Sum(nil), z.Sum(nil); !bytes.Equal(got, want) {
			return fmt.Sprintf("streamed hash of %d bytes: %x, want %x", n, got, want)
		}
	}
	return ""
}

// faultCause is a description of a refusal's cause: a pattern its message
// must match once the paths it names are taken out (so that a cause is not
// "found" in a file name such as libs/linux_arm64/...).
type faultCause struct {
	what string
	re   *regexp.Regexp
}

func faultCauseOf(what, pattern string) faultCause {
	return faultCause{what, regexp.MustCompile("(?i)" + pattern)}
}

// faultScrub takes the paths out of msg.
func faultScrub(msg string, paths ...string) string {
	for _, p := range paths {
		if p != "" {
			msg = strings.ReplaceAll(msg, p, "<path>")
		}
	}
	return msg
}

// faultVerdict is what one fault did, in this process or in a child.
type faultVerdict struct {
	LoadErr     string // load's error ("" if it accepted the library)
	AutoName    string // selectBackend("auto") Backend().Name
	AutoReason  string
	AutoLibrary string
	HashProblem string // on the auto backend; "" = all hashes right
	NativePanic string // selectBackend("native")'s panic ("" = none)
}

// faultRun puts cfg through load and selectBackend in both modes.
func faultRun(cfg loadConfig) faultVerdict {
	var v faultVerdict
	if l, err := faultLoad(cfg); err != nil {
		v.LoadErr = err.Error()
		if v.LoadErr == "" {
			v.LoadErr = "(empty error)"
		}
	} else if l == nil {
		v.LoadErr = "(nil library and nil error)"
	}
	st, p := faultSelect("auto", cfg)
	if p != "" {
		v.AutoName = "panic: " + p
	} else {
		v.AutoName, v.AutoReason, v.AutoLibrary = st.info.Name, st.info.Reason, st.info.Library
		v.HashProblem = faultHashProblem(st)
	}
	_, v.NativePanic = faultSelect("native", cfg)
	return v
}

// faultCheckRefused asserts that v is a clean refusal for cause: load says
// why, auto falls back on Go with that reason and hashes right, native
// panics naming it.
func faultCheckRefused(t *testing.T, v faultVerdict, cause faultCause, paths ...string) {
	t.Helper()
	if v.LoadErr == "" {
		t.Fatalf("load accepted the library; want a refusal naming %s", cause.what)
	}
	t.Logf("load: %s", v.LoadErr)
	if msg := faultScrub(v.LoadErr, paths...); !cause.re.MatchString(msg) {
		t.Errorf("load's error does not name %s (want /%s/): %s", cause.what, cause.re, msg)
	}
	if v.AutoName != "go" || v.AutoReason != v.LoadErr || v.AutoLibrary != "" {
		t.Errorf("auto: Backend %q, Reason %q, Library %q; want \"go\", Reason = load's error, no Library",
			v.AutoName, v.AutoReason, v.AutoLibrary)
	}
	if v.HashProblem != "" {
		t.Errorf("auto (Go path): %s", v.HashProblem)
	}
	switch {
	case v.NativePanic == "":
		t.Errorf("BLAKE3_BACKEND=native did not panic")
	case !strings.Contains(v.NativePanic, "BLAKE3_BACKEND=native"):
		t.Errorf("native panic does not say BLAKE3_BACKEND=native: %s", v.NativePanic)
	case !cause.re.MatchString(faultScrub(v.NativePanic, paths...)):
		t.Errorf("native panic does not name %s: %s", cause.what, v.NativePanic)
	}
}

// faultExpectRefused runs the whole check for cfg in this process.
func faultExpectRefused(t *testing.T, cfg loadConfig, cause faultCause, paths ...string) {
	t.Helper()
	faultCheckRefused(t, faultRun(cfg), cause, append(paths, cfg.library)...)
}

// faultExpectNative asserts that cfg loads, as source, in every mode, and
// hashes right.
func faultExpectNative(t *testing.T, cfg loadConfig, source string) {
	t.Helper()
	l, err := faultLoad(cfg)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if l.source != source {
		t.Errorf("source %q, want %q", l.source, source)
	}
	for _, mode := range []string{"auto", "native"} {
		st, p := faultSelect(mode, cfg)
		if p != "" {
			t.Fatalf("%s: panic: %s", mode, p)
		}
		if st.info.Name != "native" || st.info.Library != source || st.info.Reason != "" ||
			st.info.Version == "" || st.info.SIMD == "" {
			t.Errorf("%s: Backend %+v; want native from %q", mode, st.info, source)
		}
		if p := faultHashProblem(st); p != "" {
			t.Errorf("%s: %s", mode, p)
		}
	}
}

// faultRepoLibrary is the committed library for goos/goarch, as an absolute
// path, or "" if there is none.
func faultRepoLibrary(goos, goarch string) string {
	name := libPrefix + libSuffix
	switch goos {
	case "linux":
		name = "libblake3_purego.so"
	case "windows":
		name = "blake3_purego.dll"
	case "darwin":
		name = "libblake3_purego.dylib"
	}
	p, err := filepath.Abs(filepath.Join("libs", goos+"_"+goarch, name))
	if err != nil {
		return ""
	}
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// --- Child processes ------------------------------------------------------

// faultChildEnv marks a child process and says what it does.
const faultChildEnv = "BLAKE3_FAULT_CHILD"

// faultChildOut prefixes the one line a child reports on stdout.
const faultChildOut = "FAULTCHILD "

// faultChild is what a child process did.
type faultChild struct {
	exitCode       int
	stdout, stderr string
	report         json.RawMessage // the child's report, nil if none
}

// faultRunChild runs this test binary's TestLoaderChild with the environment
// of this process less any BLAKE3_ variable, plus env.
func faultRunChild(t *testing.T, mode string, env ...string) faultChild {
	t.Helper()
	c, err := faultExecChild(mode, env...)
	if err != nil {
		t.Fatalf("child %s: %v", mode, err)
	}
	return c
}

// faultExecChild is faultRunChild for any goroutine: it returns the error
// of a child that could not be run.
func faultExecChild(mode string, env ...string) (faultChild, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestLoaderChild$", "-test.count=1", "-test.v")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BLAKE3_") || strings.HasPrefix(kv, "BLAKE3_STRICT=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, faultChildEnv+"="+mode)
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	c := faultChild{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		c.exitCode = exit.ExitCode()
		if c.exitCode == -1 {
			c.exitCode = 128 + faultSignal(exit) // killed by a signal
		}
	default:
		return c, err
	}
	for line := range strings.Lines(c.stdout) {
		if s, ok := strings.CutPrefix(strings.TrimSpace(line), faultChildOut); ok {
			c.report = json.RawMessage(s)
		}
	}
	return c, nil
}

// faultTail is the end of a child's output, for a failure message.
func faultTail(s string) string {
	if len(s) > 2000 {
		s = "..." + s[len(s)-2000:]
	}
	return s
}

// faultBackendReport is what a "backend" child reports.
type faultBackendReport struct {
	Info        BackendInfo
	HashProblem string
}

// TestLoaderChild is the body of the child processes; it does nothing unless
// BLAKE3_FAULT_CHILD says what to do.
func TestLoaderChild(t *testing.T) {
	loaderBuild(t)
	mode := os.Getenv(faultChildEnv)
	var report any
	switch mode {
	case "":
		t.Skip("runs only as a child process of the loader tests")
	case "backend":
		// What init chose from the environment, and whether it hashes right.
		report = faultBackendReport{Info: Backend(), HashProblem: faultHashProblem(active)}
	case "refuse":
		// One fault that might crash the process (a truncated library):
		// the parent checks the verdict, or the crash.
		report = faultRun(loadConfig{library: os.Getenv("BLAKE3_FAULT_LIBRARY"), embedded: libs.Library})
	case "cache":
		report = faultCacheChild()
	default:
		t.Fatalf("unknown %s=%q", faultChildEnv, mode)
	}
	b, err := json.Marshal(report)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("\n%s%s\n", faultChildOut, b)
}

// faultCacheReport is what a "cache" child reports.
type faultCacheReport struct {
	Loaded int
	Errors []string
}

// faultCacheChild loads the embedded library through every cache folder
// BLAKE3_FAULT_CACHE_DIRS names (separated by the list separator), starting
// at BLAKE3_FAULT_START (Unix nanoseconds), so that it races its parent.
func faultCacheChild() faultCacheReport {
	var r faultCacheReport
	if ns, err := strconv.ParseInt(os.Getenv("BLAKE3_FAULT_START"), 10, 64); err == nil {
		time.Sleep(time.Until(time.Unix(0, ns)))
	}
	for _, dir := range filepath.SplitList(os.Getenv("BLAKE3_FAULT_CACHE_DIRS")) {
		l, err := faultLoad(loadConfig{embedded: libs.Library, cacheDir: dir, noMemfd: true})
		if err != nil {
			r.Errors = append(r.Errors, err.Error())
			continue
		}
		if !strings.Contains(l.source, "cached at") {
			r.Errors = append(r.Errors, "source "+l.source)
			continue
		}
		r.Loaded++
	}
	return r
}

// faultBackendChild runs a "backend" child and decodes its report; it fails
// the test if the child did not report.
func faultBackendChild(t *testing.T, env ...string) faultBackendReport {
	t.Helper()
	c := faultRunChild(t, "backend", env...)
	var r faultBackendReport
	if c.exitCode != 0 || c.report == nil {
		t.Fatalf("child %v: exit %d, no report\nstderr: %s\nstdout: %s", env, c.exitCode, faultTail(c.stderr), faultTail(c.stdout))
	}
	if err := json.Unmarshal(c.report, &r); err != nil {
		t.Fatal(err)
	}
	if r.HashProblem != "" {
		t.Errorf("child %v: %s", env, r.HashProblem)
	}
	return r
}

// --- The environment, read at init ------------------------------------------

func TestLoaderEnvDefault(t *testing.T) {
	loaderBuild(t)
	if len(libs.Library) == 0 {
		t.Skip("no embedded library in this build")
	}
	r := faultBackendChild(t)
	if r.Info.Name != "native" || r.Info.Reason != "" || !strings.HasPrefix(r.Info.Library, "embedded") {
		t.Errorf("no BLAKE3_ variable: Backend %+v; want native from the embedded library", r.Info)
	}
	t.Logf("default: %+v", r.Info)
}

func TestLoaderEnvGo(t *testing.T) {
	loaderBuild(t)
	r := faultBackendChild(t, "BLAKE3_BACKEND=go")
	if r.Info.Name != "go" || r.Info.Reason != "BLAKE3_BACKEND=go" || r.Info.Library != "" {
		t.Errorf("BLAKE3_BACKEND=go: Backend %+v; want go, Reason \"BLAKE3_BACKEND=go\"", r.Info)
	}
}

func TestLoaderEnvBogus(t *testing.T) {
	loaderBuild(t)
	r := faultBackendChild(t, "BLAKE3_BACKEND=bogus")
	if r.Info.Name != "go" || !strings.Contains(r.Info.Reason, `"bogus"`) ||
		!strings.Contains(r.Info.Reason, "auto, native, go") {
		t.Errorf("BLAKE3_BACKEND=bogus: Backend %+v; want go, with a Reason naming the value and the choices", r.Info)
	}
}

func TestLoaderEnvNativeGood(t *testing.T) {
	loaderBuild(t)
	if len(libs.Library) == 0 {
		t.Skip("no embedded library in this build")
	}
	r := faultBackendChild(t, "BLAKE3_BACKEND=native")
	if r.Info.Name != "native" {
		t.Errorf("BLAKE3_BACKEND=native: Backend %+v", r.Info)
	}
}

// BLAKE3_LIBRARY naming the committed library, by absolute path, is loaded
// from that path at init.
func TestLoaderEnvLibraryGood(t *testing.T) {
	loaderBuild(t)
	path := faultRepoLibrary(runtime.GOOS, runtime.GOARCH)
	if path == "" {
		t.Skipf("no committed library for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	for _, mode := range []string{"auto", "native"} {
		r := faultBackendChild(t, "BLAKE3_BACKEND="+mode, "BLAKE3_LIBRARY="+path)
		if r.Info.Name != "native" || r.Info.Library != path {
			t.Errorf("BLAKE3_BACKEND=%s BLAKE3_LIBRARY=%s: Backend %+v; want native with Library = the path", mode, path, r.Info)
		}
	}
	// And in this process, through load and selectBackend.
	faultExpectNative(t, loadConfig{library: path, embedded: libs.Library}, path)
}

// A relative BLAKE3_LIBRARY is refused (never searched for), even if it
// names a good library.
func TestLoaderEnvLibraryRelative(t *testing.T) {
	loaderBuild(t)
	rel := filepath.Join("libs", runtime.GOOS+"_"+runtime.GOARCH, "libblake3_purego.so")
	r := faultBackendChild(t, "BLAKE3_LIBRARY="+rel)
	if r.Info.Name != "go" || !strings.Contains(r.Info.Reason, "absolute") {
		t.Errorf("BLAKE3_LIBRARY=%s: Backend %+v; want go with a Reason saying absolute", rel, r.Info)
	}
	faultExpectRefused(t, loadConfig{library: rel, embedded: libs.Library},
		faultCauseOf("a relative path", `not an absolute path`))
	faultExpectRefused(t, loadConfig{library: "./x.so"}, faultCauseOf("a relative path", `not an absolute path`))
}

// BLAKE3_BACKEND=native with a library that cannot be used panics at init,
// and the panic says why.
func TestLoaderEnvNativePanics(t *testing.T) {
	loaderBuild(t)
	missing := filepath.Join(t.TempDir(), "missing", "libblake3_purego.so")
	cases := []struct {
		lib   string
		cause faultCause
	}{
		{missing, faultCauseOf("a missing file", `no such file|cannot find|not exist|not found`)},
		{"relative/libblake3_purego.so", faultCauseOf("a relative path", `absolute`)},
		{t.TempDir(), faultCauseOf("a folder", `not a regular file`)},
	}
	for _, c := range cases {
		ch := faultRunChild(t, "backend", "BLAKE3_BACKEND=native", "BLAKE3_LIBRARY="+c.lib)
		if ch.exitCode == 0 || ch.report != nil {
			t.Errorf("BLAKE3_LIBRARY=%s: the child ran (exit %d); want a panic at init\n%s", c.lib, ch.exitCode, faultTail(ch.stdout))
			continue
		}
		msg := faultScrub(ch.stderr, c.lib)
		if !strings.Contains(msg, "panic: blake3: BLAKE3_BACKEND=native") || !c.cause.re.MatchString(msg) {
			t.Errorf("BLAKE3_LIBRARY=%s: stderr does not name %s:\n%s", c.lib, c.cause.what, faultTail(ch.stderr))
		}
		t.Logf("BLAKE3_LIBRARY=%s: exit %d, %s", c.lib, ch.exitCode, firstLine(ch.stderr))
	}
}

// faultSignal is the signal that ended a child, or 0 (and where the
// platform's wait status has no signals).
func faultSignal(exit *exec.ExitError) int {
	ws, ok := exit.Sys().(interface{ Signaled() bool })
	if !ok || !ws.Signaled() {
		return 0
	}
	m := reflect.ValueOf(ws).MethodByName("Signal")
	if !m.IsValid() {
		return 0
	}
	return int(m.Call(nil)[0].Int())
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// --- The cost of init -------------------------------------------------------

// BenchmarkInit is what the loader adds to process start: load() of the
// embedded library (memfd + dlopen + bind + checks + self-test; on Windows
// and macOS, the cache check instead of memfd). Every op maps one more copy
// of the library into the process (a library is never unloaded), so keep
// -benchtime modest.
func BenchmarkInit(b *testing.B) {
	loaderBuild(b)
	if len(libs.Library) == 0 {
		b.Skip("no embedded library in this build")
	}
	cfg := loadConfig{embedded: libs.Library, cacheDir: b.TempDir()}
	for b.Loop() {
		if _, err := faultLoad(cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLoaderInitTime logs what BenchmarkInit measures, and the self-test's
// share of it; it asserts nothing about time.
func TestLoaderInitTime(t *testing.T) {
	loaderBuild(t)
	if len(libs.Library) == 0 {
		t.Skip("no embedded library in this build")
	}
	cfg := loadConfig{embedded: libs.Library, cacheDir: faultLoadedDir(t)}
	var loads, checks []time.Duration
	for range 9 {
		start := time.Now()
		l, err := faultLoad(cfg)
		loads = append(loads, time.Since(start))
		if err != nil {
			t.Fatal(err)
		}
		start = time.Now()
		err = check(l.sym)
		checks = append(checks, time.Since(start))
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(loads)
	slices.Sort(checks)
	t.Logf("load(embedded) on %s/%s: median %v (min %v, max %v); of which check() (ABI, layout, self-test): median %v",
		runtime.GOOS, runtime.GOARCH, loads[len(loads)/2], loads[0], loads[len(loads)-1], checks[len(checks)/2])
}

// faultLoadedDir is a temporary folder for libraries that stay loaded: Windows
// cannot delete a loaded DLL, so there its removal is best effort.
func faultLoadedDir(t *testing.T) string {
	if runtime.GOOS != "windows" {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp("", "blake3-loaded-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// The self-test's comparison itself: a library whose output differs from the
// Go path's is refused (the fault stubs are caught earlier, by the empty
// hash).
func TestSelfTestExpect(t *testing.T) {
	loaderBuild(t)
	wrong := func(o []byte) ffi.Code { copy(o, []byte{1, 2, 4}); return ffi.OK }
	if expect("x", 3, []byte{1, 2, 3}, wrong) == nil {
		t.Fatal("expect accepted a wrong output")
	}
	right := func(o []byte) ffi.Code { copy(o, []byte{1, 2, 3}); return ffi.OK }
	if err := expect("x", 3, []byte{1, 2, 3}, right); err != nil {
		t.Fatalf("expect refused the right output: %v", err)
	}
	failing := func(o []byte) ffi.Code { return ffi.ErrNull }
	if expect("x", 3, []byte{1, 2, 3}, failing) == nil {
		t.Fatal("expect accepted a failing call")
	}
}

// loaderBuild skips a test of the loader in a build without one
// (internal/ffi/call_none.go says which).
func loaderBuild(t testing.TB) {
	t.Helper()
	if !ffi.Native {
		t.Skip("no native library in this build: " + ffi.Unavailable)
	}
}
