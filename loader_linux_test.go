//go:build !blake3_nonative && !android && (amd64 || arm64)

package blake3

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/purego-blake3/blake3/internal/ffi"
	"github.com/purego-blake3/blake3/libs"
	"golang.org/x/sys/unix"
)

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
	args := append([]string{"-O1", "-I", filepath.Join("rust", "include"),
		`-DREAL_LIB="` + faultRealLibrary(t) + `"`}, defines...)
	args = append(args, filepath.Join("testdata", "faults", "forward.c"), "-ldl")
	return faultCompile(t, "libfault.so", args...)
}

// faultCompile builds the shared object name, in a temporary folder, from
// the compiler arguments args (sources and flags past -shared -fPIC -Wall
// -Werror), and returns its path.
func faultCompile(t *testing.T, name string, args ...string) string {
	t.Helper()
	cc := faultCC(t)
	out := filepath.Join(t.TempDir(), name)
	args = append([]string{"-shared", "-fPIC", "-Wall", "-Werror", "-o", out}, args...)
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
	return faultCompile(t, "planted.so", "-O1", `-DMARKER="`+marker+`"`,
		filepath.Join("testdata", "faults", "constructor.c"))
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
		faultExpectRefused(t, lib(p), faultCauseOf("the ABI version", `ABI version 999, want 4`))
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

// A setuid program run by another user must not let that user's
// environment choose the code it loads: BLAKE3_LIBRARY and BLAKE3_BACKEND
// are ignored, and the library comes from memory.
func TestLoaderPrivilegedIgnoresEnvironment(t *testing.T) {
	if os.Geteuid() != 0 {
		strictSkip(t, "needs root to make a setuid-root copy of the test binary")
	}
	faultNeedEmbedded(t)
	bin := faultPublicCopy(t)
	dir := filepath.Dir(bin)
	if err := os.Chmod(bin, 0o755|os.ModeSetuid); err != nil {
		t.Fatal(err)
	}
	evil := filepath.Join(dir, "evil.so")
	if err := os.WriteFile(evil, []byte("not the library"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestLoaderChild$", "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = []string{faultChildEnv + "=backend", "BLAKE3_LIBRARY=" + evil, "BLAKE3_BACKEND=go", "PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		if strings.Contains(out.String(), "nosuid") || strings.Contains(err.Error(), "permission denied") {
			strictSkip(t, "cannot run a setuid binary here: %v", err)
		}
		t.Fatalf("setuid child: %v\n%s", err, faultTail(out.String()))
	}
	var r faultBackendReport
	for line := range strings.Lines(out.String()) {
		if s, ok := strings.CutPrefix(strings.TrimSpace(line), faultChildOut); ok {
			if err := json.Unmarshal([]byte(s), &r); err != nil {
				t.Fatal(err)
			}
		}
	}
	if r.Info.Name != "native" || r.Info.Library != "embedded (memfd)" {
		t.Errorf("setuid child run by uid 65534 with BLAKE3_LIBRARY and BLAKE3_BACKEND=go: Backend %+v; want native from memory\n%s",
			r.Info, faultTail(out.String()))
	}
}

// faultPublicCopy copies the test binary into a new folder that every user
// can reach (its ancestors made 0755), for children run as another user.
func faultPublicCopy(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "public.test")
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}

// Another object already loaded under the name /proc/self/fd/N (a closed
// memfd of other code) must not be taken for this library: the loader moves
// its memfd to a free name.
func TestLoaderMemfdNameTaken(t *testing.T) {
	faultNeedEmbedded(t)
	fd, err := unix.MemfdCreate("other", unix.MFD_CLOEXEC)
	if err != nil {
		t.Skip("no memfd_create: ", err)
	}
	f := os.NewFile(uintptr(fd), "other")
	if _, err := f.Write(libs.Library); err != nil {
		t.Fatal(err)
	}
	name := "/proc/self/fd/" + strconv.Itoa(fd)
	h, err := openLibrary(name)
	if err != nil {
		t.Fatal(err)
	}
	defer closeLibrary(h)
	f.Close() // fd is free again; its name is still a loaded object's
	n := len(heldFiles)
	l, err := openFromMemory(libs.Library)
	if err != nil {
		t.Fatal(err)
	}
	if len(heldFiles) != n+1 {
		t.Fatalf("heldFiles: %d, want %d", len(heldFiles), n+1)
	}
	if got := int(heldFiles[n].f.Fd()); got == fd {
		t.Errorf("the library was loaded under the taken name /proc/self/fd/%d", fd)
	}
	if l.sym == nil || l.sym.ABI() != ffi.ABIVersion {
		t.Errorf("the library loaded under a new name does not answer")
	}
}
