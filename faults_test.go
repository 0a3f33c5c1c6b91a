//go:build !blake3_nonative && linux && !android && (amd64 || arm64)

// The fault matrix of the loader on Linux (issues 3 and 8): every way the
// native library can be unusable must end in a load error that names the
// cause, a Go backend with that reason that still hashes right, and a panic
// naming it under BLAKE3_BACKEND=native. Plus the cache folder, memfd, and
// file descriptors.

package blake3

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/purego-blake3/blake3/libs"
)

// --- Libraries to break --------------------------------------------------

// faultWrite writes b to a new file name in a temp folder, returning its
// absolute path.
func faultWrite(t *testing.T, name string, b []byte, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func faultNeedEmbedded(t *testing.T) {
	t.Helper()
	if len(libs.Library) == 0 {
		t.Skip("no embedded library in this build (blake3_noembed)")
	}
}

// faultRealLibrary is a copy of the embedded library in a file, for stubs to
// forward to.
func faultRealLibrary(t *testing.T) string {
	t.Helper()
	faultNeedEmbedded(t)
	return faultWrite(t, "libblake3_purego.so", libs.Library, 0o500)
}

// faultBuildStub compiles testdata/faults/forward.c, with the given fault
// defines, into a shared object forwarding to the real library.
func faultBuildStub(t *testing.T, defines ...string) string {
	t.Helper()
	cc := faultCC(t)
	real := faultRealLibrary(t)
	out := filepath.Join(t.TempDir(), "libfault.so")
	args := []string{"-shared", "-fPIC", "-O1", "-Wall", "-Werror",
		"-I", filepath.Join("rust", "include"),
		`-DREAL_LIB="` + real + `"`}
	args = append(args, defines...)
	args = append(args, "-o", out, filepath.Join("testdata", "faults", "forward.c"), "-ldl")
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", cc, strings.Join(args, " "), err, b)
	}
	return out
}

// faultCC is the C compiler that builds the fault libraries.
func faultCC(t *testing.T) string {
	t.Helper()
	cc, err := exec.LookPath("gcc")
	if err != nil {
		if cc, err = exec.LookPath("cc"); err != nil {
			strictSkip(t, "no gcc or cc to build the fault libraries")
		}
	}
	return cc
}

// faultBuildConstructor compiles testdata/faults/constructor.c: a library
// whose constructor appends a line to marker whenever it is loaded.
func faultBuildConstructor(t *testing.T, marker string) string {
	t.Helper()
	cc := faultCC(t)
	out := filepath.Join(t.TempDir(), "planted.so")
	args := []string{"-shared", "-fPIC", "-O1", "-Wall", "-Werror", `-DMARKER="` + marker + `"`,
		"-o", out, filepath.Join("testdata", "faults", "constructor.c")}
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", cc, strings.Join(args, " "), err, b)
	}
	return out
}

// faultPlantedLibrary is the planted-bug build of rust/build.sh (outputs
// with one bit flipped): BLAKE3_TEST_BAD_LIBRARY, or built here when cargo
// and rust/vendor are.
func faultPlantedLibrary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("BLAKE3_TEST_BAD_LIBRARY"); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(abs); err != nil {
			t.Fatalf("BLAKE3_TEST_BAD_LIBRARY: %v", err)
		}
		return abs
	}
	if runtime.GOARCH != "amd64" {
		strictSkip(t, "rust/build.sh planted-bug builds linux/amd64 only; set BLAKE3_TEST_BAD_LIBRARY")
	}
	cargo, err := exec.LookPath("cargo")
	if err != nil {
		home, _ := os.UserHomeDir()
		cargo = filepath.Join(home, ".cargo", "bin", "cargo")
		if _, err := os.Stat(cargo); err != nil {
			strictSkip(t, "no BLAKE3_TEST_BAD_LIBRARY and no cargo: cannot build the planted-bug library (rust/build.sh planted-bug OUT)")
		}
	}
	if _, err := os.Stat(filepath.Join("rust", "vendor")); err != nil {
		strictSkip(t, "no BLAKE3_TEST_BAD_LIBRARY and no rust/vendor (rust/build.sh fetch): cannot build the planted-bug library")
	}
	if testing.Short() {
		strictSkip(t, "-short: not building the planted-bug library (about 40 s); set BLAKE3_TEST_BAD_LIBRARY")
	}
	out := filepath.Join(t.TempDir(), "libblake3_purego.so")
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join("rust", "build.sh"), "planted-bug", out)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(cargo)+string(os.PathListSeparator)+os.Getenv("PATH"))
	start := time.Now()
	b, err := cmd.CombinedOutput()
	if err != nil {
		strictSkip(t, "rust/build.sh planted-bug failed (%v); set BLAKE3_TEST_BAD_LIBRARY:\n%s", err, faultTail(string(b)))
	}
	t.Logf("built the planted-bug library in %v", time.Since(start).Round(time.Second))
	return out
}

// --- The matrix -------------------------------------------------------------

// Every cause of refusal, and the positive controls beside them.
func TestFaultMatrix(t *testing.T) {
	faultNeedEmbedded(t)
	lib := func(path string) loadConfig { return loadConfig{library: path, embedded: libs.Library} }

	t.Run("GoodLibraryByPath", func(t *testing.T) {
		path := faultRepoLibrary("linux", runtime.GOARCH)
		if path == "" {
			t.Skip("libs/ has no library for this platform")
		}
		faultExpectNative(t, lib(path), path)
	})
	t.Run("EmbeddedMemfd", func(t *testing.T) {
		faultExpectNative(t, loadConfig{embedded: libs.Library}, "embedded (memfd)")
	})
	t.Run("MissingFile", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "nothing-here.so")
		faultExpectRefused(t, lib(p), faultCauseOf("the missing file", `no such file`))
	})
	t.Run("Folder", func(t *testing.T) {
		faultExpectRefused(t, lib(t.TempDir()), faultCauseOf("a folder", `not a regular file`))
	})
	t.Run("EmptyFile", func(t *testing.T) {
		p := faultWrite(t, "empty.so", nil, 0o644)
		faultExpectRefused(t, lib(p), faultCauseOf("an empty file", `too short|empty`))
	})
	t.Run("TextFile", func(t *testing.T) {
		p := faultWrite(t, "text.so", []byte(strings.Repeat("this is a text file, not a shared library\n", 10)), 0o644)
		faultExpectRefused(t, lib(p), faultCauseOf("a file that is not a library", `invalid ELF header|not an? (ELF|shared object|library)`))
	})
	t.Run("RandomBytes", func(t *testing.T) {
		b := make([]byte, 64<<10)
		_, _ = rand.Read(b)
		b[0] = 0 // never, by chance, the ELF magic
		p := faultWrite(t, "random.so", b, 0o755)
		faultExpectRefused(t, lib(p), faultCauseOf("a file that is not a library", `invalid ELF header|not an? (ELF|shared object|library)`))
	})
	t.Run("WindowsDLL", func(t *testing.T) {
		p := faultRepoLibrary("windows", "amd64")
		if p == "" {
			t.Skip("no libs/windows_amd64")
		}
		faultExpectRefused(t, lib(p), faultCauseOf("a file that is not an ELF library", `invalid ELF header|not an? (ELF|shared object|library)`))
	})
	t.Run("RelativePath", func(t *testing.T) {
		faultExpectRefused(t, lib("libs/linux_"+runtime.GOARCH+"/libblake3_purego.so"),
			faultCauseOf("a relative path", `not an absolute path`))
	})
	t.Run("OtherArchitecture", func(t *testing.T) {
		other := map[string]string{"amd64": "arm64", "arm64": "amd64"}[runtime.GOARCH]
		p := faultRepoLibrary("linux", other)
		if p == "" {
			t.Skipf("no libs/linux_%s", other)
		}
		// glibc's own message for this is "cannot open shared object
		// file: No such file or directory", for a file that is there; the
		// path is scrubbed so that "linux_arm64" in it does not count.
		faultExpectRefused(t, lib(p), faultCauseOf("the architecture",
			`architecture|machine|ELF class|aarch64|arm64|x86[-_]64|amd64`))
	})
	t.Run("Truncated", func(t *testing.T) {
		// dlopen of a truncated ELF faults (SIGBUS) on the pages past the
		// end of the file, so these run in a child process: a crash fails
		// the test instead of ending the test binary. Each cut is inside
		// the loadable segments (the half is the case a review found).
		for _, keep := range []int{len(libs.Library) / 100, len(libs.Library) / 2, len(libs.Library) * 99 / 100} {
			p := faultWrite(t, "truncated.so", libs.Library[:keep], 0o755)
			c := faultRunChild(t, "refuse", "BLAKE3_FAULT_LIBRARY="+p)
			if c.report == nil {
				t.Errorf("first %d of %d bytes: loading this BLAKE3_LIBRARY killed the process (exit %d); the loader must refuse it, not crash:\n%s",
					keep, len(libs.Library), c.exitCode, faultHead(c.stderr, 3))
				continue
			}
			var v faultVerdict
			if err := json.Unmarshal(c.report, &v); err != nil {
				t.Fatal(err)
			}
			faultCheckRefused(t, v, faultCauseOf("a truncated file", `truncat|too short|end of file|past the end|beyond|shorter`), p)
		}
	})

	// Stubs built from testdata/faults/forward.c: each forwards to the real
	// library but for one fault.
	t.Run("StubControl", func(t *testing.T) {
		// The negative control: the stub without a fault is accepted, so
		// each refusal below is its fault's doing.
		p := faultBuildStub(t)
		faultExpectNative(t, lib(p), p)
	})
	t.Run("MissingSymbol", func(t *testing.T) {
		p := faultBuildStub(t, "-DFAULT_OMIT_UPDATE")
		faultExpectRefused(t, lib(p), faultCauseOf("the missing symbol", `missing symbols? \[?blake3_purego_tree_update\]`))
		faultExpectUnloaded(t, p)
	})
	t.Run("UnknownABIVersion", func(t *testing.T) {
		p := faultBuildStub(t, "-DFAULT_ABI=999")
		faultExpectRefused(t, lib(p), faultCauseOf("the ABI version", `ABI version 999, want 2`))
		faultExpectUnloaded(t, p)
	})
	t.Run("WrongTreeSize", func(t *testing.T) {
		p := faultBuildStub(t, "-DFAULT_TREE_SIZE=8")
		faultExpectRefused(t, lib(p), faultCauseOf("the tree size", `tree layout of 8 bytes`))
		faultExpectUnloaded(t, p)
	})
	t.Run("TreeAlignment", func(t *testing.T) {
		p := faultBuildStub(t, "-DFAULT_TREE_ALIGN=16")
		faultExpectRefused(t, lib(p), faultCauseOf("the tree alignment", `aligned to 16`))
		faultExpectUnloaded(t, p)
	})
	t.Run("WrongHashStub", func(t *testing.T) {
		p := faultBuildStub(t, "-DFAULT_BAD_HASH")
		faultExpectRefused(t, lib(p), faultCauseOf("the self-test", `self-test failed`))
		faultExpectUnloaded(t, p)
	})
	t.Run("PlantedBug", func(t *testing.T) {
		p := faultPlantedLibrary(t)
		faultExpectRefused(t, lib(p), faultCauseOf("the self-test", `self-test failed`))
	})
}

// faultHead is the first n lines of s.
func faultHead(s string, n int) string {
	lines := strings.SplitAfterN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "")
}

// faultExpectUnloaded asserts that a refused library was closed again: it
// is no longer mapped into the process.
func faultExpectUnloaded(t *testing.T, path string) {
	t.Helper()
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skipf("no /proc/self/maps: %v", err)
	}
	if bytes.Contains(maps, []byte(path)) {
		t.Errorf("the refused library %s is still mapped: the loader did not close it", path)
	}
}

// TestLoaderDlerrorText: a refusal by dlopen carries dlerror's text. dlerror
// is per thread, so dlopen and dlerror must run on one OS thread; busy
// goroutines make the scheduler move the caller between the two if the
// loader lets it.
func TestLoaderDlerrorText(t *testing.T) {
	p := faultWrite(t, "empty.so", nil, 0o644)
	stop := make(chan struct{})
	defer close(stop)
	for range 4 {
		go func() {
			for {
				select {
				case <-stop:
					return
				default:
					runtime.Gosched()
				}
			}
		}()
	}
	const n = 20000
	bad := 0
	var example string
	for range n {
		// openLibrary itself: the loader's ELF check refuses an empty file
		// before dlopen would see it.
		h, err := openLibrary(p)
		if err == nil {
			closeLibrary(h)
		}
		if err == nil || !strings.Contains(err.Error(), "too short") {
			bad++
			example = fmt.Sprint(err)
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d refusals of an empty file lost dlopen's reason (dlerror read on another thread?), e.g. %q", bad, n, example)
	}
}

// --- The cache folder -----------------------------------------------------

// faultCachePath is where cachedLibrary puts the embedded library in dir.
func faultCachePath(dir string) string {
	sum := sha256.Sum256(libs.Library)
	return filepath.Join(dir, contentName(sum[:]))
}

func faultCacheConfig(dir string) loadConfig {
	return loadConfig{embedded: libs.Library, cacheDir: dir, noMemfd: true}
}

// faultCheckCacheDir asserts that dir holds exactly the embedded library,
// under its content name, read-only, and no temp file.
func faultCheckCacheDir(t *testing.T, dir string) {
	t.Helper()
	want := faultCachePath(dir)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if p := filepath.Join(dir, e.Name()); p != want {
			t.Errorf("%s: unexpected entry %s", dir, e.Name())
		}
	}
	if got, err := os.ReadFile(want); err != nil || !bytes.Equal(got, libs.Library) {
		t.Errorf("%s does not hold the embedded library", want)
	}
	fi, err := os.Lstat(want)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o277 != 0 || fi.Mode().Perm()&0o400 == 0 {
		t.Errorf("%s: mode %v, want a regular file, 0500 (read-only, owner only)", want, fi.Mode())
	}
	di, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("%s: mode %v, want 0700", dir, di.Mode().Perm())
	}
}

// With memfd unavailable (noMemfd) the embedded library is loaded from the
// cache folder, and a second load reuses the file.
func TestCacheLoad(t *testing.T) {
	faultNeedEmbedded(t)
	dir := filepath.Join(t.TempDir(), "x")
	path := faultCachePath(dir)
	faultExpectNative(t, faultCacheConfig(dir), "embedded (cached at "+path+")")
	faultCheckCacheDir(t, dir)
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // a rewrite would show in the mtime
	st, p := faultSelect("auto", faultCacheConfig(dir))
	if p != "" || st.info.Name != "native" || !strings.Contains(st.info.Library, "cached at "+path) {
		t.Errorf("second load: %+v %s", st.info, p)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) || !before.ModTime().Equal(after.ModTime()) {
		t.Errorf("the second load rewrote %s instead of reusing it", path)
	}
	faultCheckCacheDir(t, dir)
}

// A damaged file under the library's name is replaced, and the load works.
func TestCacheDamaged(t *testing.T) {
	faultNeedEmbedded(t)
	flipped := bytes.Clone(libs.Library)
	flipped[len(flipped)/2] ^= 0x10
	garbage := make([]byte, 4096)
	_, _ = rand.Read(garbage)
	for name, content := range map[string][]byte{
		"garbage":   garbage,
		"empty":     nil,
		"truncated": libs.Library[:len(libs.Library)/2],
		"bitflip":   flipped, // same size: the bytes are compared, not the length
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "x")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := faultCachePath(dir)
			if err := os.WriteFile(path, content, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, 0o500); err != nil { // as the loader leaves it
				t.Fatal(err)
			}
			faultExpectNative(t, faultCacheConfig(dir), "embedded (cached at "+path+")")
			faultCheckCacheDir(t, dir)
		})
	}
}

// A cache folder that cannot be written is a refusal naming the cache, and
// falls back on Go; with memfd, it does not matter.
func TestCacheUnwritable(t *testing.T) {
	faultNeedEmbedded(t)
	var dir string
	var cause faultCause
	if os.Geteuid() == 0 {
		// Root ignores permission bits, so a folder with mode 0500 is still
		// writable for root: make the folder impossible to create instead,
		// under a regular file (ENOTDIR).
		file := faultWrite(t, "file", []byte("a file, not a folder"), 0o600)
		dir = filepath.Join(file, "x")
		cause = faultCauseOf("the cache folder", `cache folder.*not a directory`)
	} else {
		dir = filepath.Join(t.TempDir(), "x")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
		cause = faultCauseOf("the cache", `cache (file|folder).*permission denied`)
	}
	faultExpectRefused(t, faultCacheConfig(dir), cause, dir)
	cfg := faultCacheConfig(dir)
	cfg.noMemfd = false
	faultExpectNative(t, cfg, "embedded (memfd)")
}

// A cache folder others can write to is refused before anything is written
// into it or loaded from it.
func TestCacheOthersWritable(t *testing.T) {
	faultNeedEmbedded(t)
	for _, mode := range []os.FileMode{0o720, 0o702, 0o777} {
		t.Run(fmt.Sprintf("%04o", mode), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "x")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, mode); err != nil {
				t.Fatal(err)
			}
			faultExpectRefused(t, faultCacheConfig(dir), faultCauseOf("the folder's mode", `writable by others`), dir)
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("the loader wrote into the refused folder: %v", ents)
			}
		})
	}
}

// A cache folder owned by someone else is refused (root only: it takes
// chown).
func TestCacheOtherOwner(t *testing.T) {
	faultNeedEmbedded(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a folder away")
	}
	dir := filepath.Join(t.TempDir(), "x")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 4242, 4242); err != nil {
		t.Skipf("chown: %v", err)
	}
	faultExpectRefused(t, faultCacheConfig(dir), faultCauseOf("the owner", `belongs to uid 4242`), dir)
}

// Extractions racing each other (8 goroutines here, 2 child processes
// loading) never give a torn file: every caller gets the whole library, the
// children's loads pass every check, and nothing is left behind.
func TestCacheConcurrent(t *testing.T) {
	faultNeedEmbedded(t)
	const rounds = 12
	root := t.TempDir()
	dirs := make([]string, rounds)
	for i := range dirs {
		dirs[i] = filepath.Join(root, strconv.Itoa(i), "cache")
	}
	start := time.Now().Add(1500 * time.Millisecond)
	env := []string{
		"BLAKE3_FAULT_CACHE_DIRS=" + strings.Join(dirs, string(os.PathListSeparator)),
		"BLAKE3_FAULT_START=" + strconv.FormatInt(start.UnixNano(), 10),
	}
	type childResult struct {
		c   faultChild
		err error
	}
	children := make(chan childResult, 2)
	for range 2 {
		go func() {
			c, err := faultExecChild("cache", env...)
			children <- childResult{c, err}
		}()
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*rounds)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Until(start))
			for _, dir := range dirs {
				f, path, err := openCacheFile(dir, libs.Library)
				if err != nil {
					errs <- fmt.Sprintf("goroutine %d: %v", g, err)
					continue
				}
				f.Close()
				if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, libs.Library) {
					errs <- fmt.Sprintf("goroutine %d: %s: %d bytes (%v), want the %d of the library", g, path, len(got), err, len(libs.Library))
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	for range 2 {
		r := <-children
		if r.err != nil {
			t.Fatal(r.err)
		}
		var rep faultCacheReport
		if r.c.report == nil || json.Unmarshal(r.c.report, &rep) != nil {
			t.Fatalf("child: exit %d, no report\n%s", r.c.exitCode, faultTail(r.c.stderr+r.c.stdout))
		}
		if rep.Loaded != rounds || len(rep.Errors) > 0 {
			t.Errorf("child loaded %d of %d: %v", rep.Loaded, rounds, rep.Errors)
		}
	}
	if time.Now().Before(start) {
		t.Log("note: everything finished before the agreed start; the race did not happen")
	}
	for _, dir := range dirs {
		faultCheckCacheDir(t, dir)
	}
	faultExpectNative(t, faultCacheConfig(dirs[0]), "embedded (cached at "+faultCachePath(dirs[0])+")")
}

// --- File descriptors -----------------------------------------------------

func faultFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// Loading leaves no descriptor open on a refusal. A library loaded through
// a descriptor keeps exactly that one open, by design (its name
// /proc/self/fd/N must stay its own while it is mapped): one per memfd, and
// one per cache file, whose later loads go through the name held (the
// warm-up load holds it here).
func TestLoaderNoFDLeak(t *testing.T) {
	faultNeedEmbedded(t)
	notLib := faultWrite(t, "text.so", []byte(strings.Repeat("not a library\n", 100)), 0o644)
	cases := []struct {
		name string
		cfg  loadConfig
		ok   bool
		keep int // descriptors each load keeps
	}{
		{"memfd", loadConfig{embedded: libs.Library}, true, 1},
		{"cache", faultCacheConfig(filepath.Join(t.TempDir(), "x")), true, 0},
		{"refused", loadConfig{library: notLib, embedded: libs.Library}, false, 0},
		{"refused-cache", faultCacheConfig(filepath.Join(notLib, "x")), false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _ = faultLoad(c.cfg) // warm up whatever opens once
			before := faultFDs(t)
			for i := range 20 {
				if _, err := faultLoad(c.cfg); (err == nil) != c.ok {
					t.Fatalf("load %d: %v", i, err)
				}
			}
			if after := faultFDs(t); after != before+20*c.keep {
				t.Errorf("%d descriptors before 20 loads, %d after; want %d", before, after, before+20*c.keep)
			}
		})
	}
}

// The process's own library, loaded at init, is the embedded one from memory
// unless the environment says otherwise.
func TestLoaderMemfdAtInit(t *testing.T) {
	if os.Getenv("BLAKE3_BACKEND") != "" || os.Getenv("BLAKE3_LIBRARY") != "" {
		t.Skip("BLAKE3_BACKEND or BLAKE3_LIBRARY is set")
	}
	faultNeedEmbedded(t)
	if b := Backend(); b.Name != "native" || b.Library != "embedded (memfd)" {
		t.Errorf("Backend() = %+v; want native from embedded (memfd)", b)
	}
}
