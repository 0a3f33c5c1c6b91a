//go:build linux && !android

// Static builds: with -tags blake3_nonative a CGO_ENABLED=0 binary is fully
// static and hashes right with nothing around it (an empty chroot); without
// the tag, on the platforms with a native library, it needs the dynamic
// loader and libc (README.md, "Static binaries"), and nothing more: in a
// chroot holding only Debian 11's glibc it loads the library and hashes
// right (README.md, "Platforms").

package blake3

import (
	"bytes"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	zeebo "github.com/zeebo/blake3"
)

// staticGo finds the go command: on PATH, else under $GOROOT.
func staticGo(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	if root := os.Getenv("GOROOT"); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	strictSkip(t, "no go command to build testdata/staticprog with")
	return ""
}

// staticBuild builds testdata/staticprog with CGO_ENABLED=0 for this
// GOOS/GOARCH and the given tags.
func staticBuild(t *testing.T, goCmd, tags, out string) {
	t.Helper()
	cmd := exec.Command(goCmd, "build", "-buildvcs=false", "-tags="+tags, "-o", out, "./testdata/staticprog")
	// The -tags flag overrides any in GOFLAGS.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, b)
	}
}

// staticLinkage reads a binary's program interpreter (PT_INTERP) and its
// DT_NEEDED libraries.
func staticLinkage(t *testing.T, path string) (interp string, needed []string, typ elf.Type) {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			b := make([]byte, p.Filesz)
			if _, err := p.ReadAt(b, 0); err != nil {
				t.Fatalf("%s: PT_INTERP: %v", path, err)
			}
			interp = string(bytes.TrimRight(b, "\x00"))
			if interp == "" {
				interp = "(empty)"
			}
		}
	}
	needed, err = f.ImportedLibraries()
	if err != nil {
		t.Fatalf("%s: DT_NEEDED: %v", path, err)
	}
	return interp, needed, f.Type
}

// staticOutput is what staticprog prints.
type staticOutput struct {
	sum     string
	backend BackendInfo
}

func staticParse(t *testing.T, what string, out []byte) staticOutput {
	t.Helper()
	var o staticOutput
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, _ := strings.Cut(line, " ")
		switch k {
		case "sum256":
			o.sum = v
		case "backend":
			if err := json.Unmarshal([]byte(v), &o.backend); err != nil {
				t.Fatalf("%s: backend line %q: %v", what, v, err)
			}
		}
	}
	if o.sum == "" || o.backend.Name == "" {
		t.Fatalf("%s printed no hash or no backend:\n%s", what, out)
	}
	return o
}

// staticInputLen is the input staticprog hashes: over the Go path's and the
// multi-core thresholds.
const staticInputLen = 1<<20 + 12345

func staticWant() string {
	data := make([]byte, staticInputLen)
	for i := range data {
		data[i] = byte(i % 251)
	}
	sum := Sum256(data)
	return hex.EncodeToString(sum[:])
}

// staticChrootCmd runs /prog (args...) inside the folder root, as its root
// directory: directly as root, else in a new user namespace.
func staticChrootCmd(root string, args ...string) *exec.Cmd {
	// Not exec.Command: it would look for /prog outside the chroot.
	cmd := &exec.Cmd{
		Path:        "/prog",
		Args:        append([]string{"/prog"}, args...),
		Dir:         "/",
		Env:         []string{},
		SysProcAttr: &syscall.SysProcAttr{Chroot: root},
	}
	if os.Geteuid() != 0 {
		cmd.SysProcAttr.Cloneflags = syscall.CLONE_NEWUSER
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Geteuid(), Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getegid(), Size: 1}}
	}
	return cmd
}

// staticChrootRun runs /prog (args...) in the chroot root with the
// environment env and parses what it prints; a machine where no chroot can
// be made skips (fails under BLAKE3_STRICT=1).
func staticChrootRun(t *testing.T, root, what string, env []string, args ...string) staticOutput {
	t.Helper()
	cmd := staticChrootCmd(root, args...)
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if errors.Is(err, syscall.EPERM) {
		strictSkip(t, "cannot chroot here (not root, and no unprivileged user namespaces): %v", err)
	}
	if err != nil {
		t.Fatalf("%s: %v\n%s%s", what, err, out, stderr.Bytes())
	}
	return staticParse(t, what, out)
}

// staticJail is an empty folder holding only a copy of the binary, as /prog.
func staticJail(t *testing.T, bin string) string {
	t.Helper()
	root := t.TempDir()
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "prog"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestStaticBuild(t *testing.T) {
	goCmd := staticGo(t)
	dir := t.TempDir()
	want := staticWant()
	n := fmt.Sprint(staticInputLen)

	// With blake3_nonative: static.
	static := filepath.Join(dir, "static")
	staticBuild(t, goCmd, "blake3_nonative", static)
	interp, needed, typ := staticLinkage(t, static)
	if interp != "" || len(needed) != 0 {
		t.Errorf("-tags blake3_nonative: PT_INTERP %q, DT_NEEDED %q; want a static binary (neither)", interp, needed)
	} else {
		t.Logf("-tags blake3_nonative: static (%v, no PT_INTERP, no DT_NEEDED)", typ)
	}

	// It hashes right alone in an empty root: no libc, no loader, no /proc.
	got := staticChrootRun(t, staticJail(t, static), "static binary in an empty chroot", nil, "-n", n, "-backend")
	if got.sum != want {
		t.Errorf("static binary in chroot: Sum256 = %s, want %s", got.sum, want)
	}
	if got.backend.Name != "go" || got.backend.Reason != "built with the blake3_nonative tag" {
		t.Errorf("static binary: Backend %+v; want go, for the blake3_nonative tag", got.backend)
	}
	t.Logf("static binary in an empty chroot: %s, Backend %+v", got.sum, got.backend)

	// Without the tag, where a native library is embedded: PT_INTERP and
	// libc, and it cannot start in the empty root.
	dynamic := filepath.Join(dir, "dynamic")
	staticBuild(t, goCmd, "", dynamic)
	interp, needed, typ = staticLinkage(t, dynamic)
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		// No loader on this platform: static with or without the tag.
		if interp != "" || len(needed) != 0 {
			t.Errorf("linux/%s without tags: PT_INTERP %q, DT_NEEDED %q; want static (no loader here)", runtime.GOARCH, interp, needed)
		}
		return
	}
	hasLibc := false
	for _, l := range needed {
		hasLibc = hasLibc || strings.HasPrefix(l, "libc.so")
	}
	if interp == "" || !hasLibc {
		t.Errorf("without tags: PT_INTERP %q, DT_NEEDED %q; want the dynamic loader and libc (purego)", interp, needed)
	} else {
		t.Logf("without tags: %v, PT_INTERP %s, DT_NEEDED %q", typ, interp, needed)
	}
	if err := staticChrootCmd(staticJail(t, dynamic), "-n", "1").Run(); err == nil {
		t.Errorf("the dynamically linked binary ran in an empty chroot; want a failure for the missing %s", interp)
	} else {
		t.Logf("without tags, in an empty chroot: %v (no %s)", err, interp)
	}
	// And where the loader is, it runs and hashes right.
	cmd := exec.Command(dynamic, "-n", n, "-backend")
	cmd.Env = []string{}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("dynamic binary: %v\n%s", err, out)
	}
	got = staticParse(t, "dynamic binary", out)
	if got.sum != want {
		t.Errorf("dynamic binary: Sum256 = %s, want %s", got.sum, want)
	}
	t.Logf("dynamic binary: Backend %+v", got.backend)
}

// chrootInputLen is what the program hashes in the Debian 11 chroot: over
// parallelMin, so that the library's thread pool is built there too.
const chrootInputLen = 4<<20 + 12345

// TestStaticDebian11Chroot runs a CGO_ENABLED=0 program that uses the
// package in a chroot that holds nothing but Debian 11's libc6 (glibc 2.31:
// no libgcc_s, no /proc, no /dev): the embedded library must load there and
// hash right. Without /proc the loader cannot name its memory file
// (/proc/self/fd/N) and loads through the per-user cache folder instead, so
// the chroot has a home folder of the running user's, mode 0700, under
// root-owned 0755 folders. rust/build.sh fetch extracts the libc6 package
// (pinned in rust/debian11.list) into rust/debian11/ARCH/libc6.
func TestStaticDebian11Chroot(t *testing.T) {
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		t.Skipf("no native library for linux/%s", runtime.GOARCH)
	}
	libc6 := filepath.Join("rust", "debian11", runtime.GOARCH, "libc6")
	if _, err := os.Stat(filepath.Join(libc6, "lib", map[string]string{"amd64": "x86_64-linux-gnu", "arm64": "aarch64-linux-gnu"}[runtime.GOARCH], "libc.so.6")); err != nil {
		strictSkip(t, "no Debian 11 libc6 for the chroot (%v): run rust/build.sh fetch", err)
	}
	goCmd := staticGo(t)
	bin := filepath.Join(t.TempDir(), "prog")
	staticBuild(t, goCmd, "", bin)

	root := staticJail(t, bin)
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(root, os.DirFS(libc6)); err != nil {
		t.Fatalf("copying %s into the chroot: %v", libc6, err)
	}
	home := filepath.Join(root, "home", "user")
	// The modes said, whatever the umask.
	if err := os.Mkdir(filepath.Dir(home), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(os.Chmod(filepath.Dir(home), 0o755), os.Chmod(home, 0o700)); err != nil {
		t.Fatal(err)
	}
	// Nothing but glibc: no libgcc_s, no /proc.
	var files int
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), "libgcc_s") {
			t.Errorf("the chroot holds %s", path)
		}
		if !d.IsDir() {
			files++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"proc", "dev"} {
		if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
			t.Errorf("the chroot holds /%s", p)
		}
	}

	// GOMAXPROCS 2, so that the pool is built on a machine of one core too.
	env := []string{"HOME=/home/user", "XDG_CACHE_HOME=/home/user/.cache", "GOMAXPROCS=2"}
	got := staticChrootRun(t, root, "program in the Debian 11 chroot", env, "-n", fmt.Sprint(chrootInputLen), "-backend")
	data := make([]byte, chrootInputLen)
	for i := range data {
		data[i] = byte(i % 251)
	}
	want := zeebo.Sum256(data)
	if got.sum != hex.EncodeToString(want[:]) {
		t.Errorf("in the Debian 11 chroot: Sum256 = %s, want %x (zeebo)", got.sum, want)
	}
	if got.backend.Name != "native" {
		t.Errorf("in the Debian 11 chroot: Backend %+v; want native", got.backend)
	}
	t.Logf("chroot of %d files from Debian 11's libc6 (no libgcc_s, no /proc): %d bytes hashed to %s, Backend %+v",
		files, chrootInputLen, got.sum, got.backend)
}
