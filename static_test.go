//go:build linux && !android

// Static builds: with -tags blake3_nonative a CGO_ENABLED=0 binary is fully
// static and hashes right with nothing around it (an empty chroot); without
// the tag, on the platforms with a native library, it needs the dynamic
// loader and libc (README.md, "Static binaries").

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
	root := staticJail(t, static)
	cmd := staticChrootCmd(root, "-n", n, "-backend")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if errors.Is(err, syscall.EPERM) {
		strictSkip(t, "cannot chroot here (not root, and no unprivileged user namespaces): %v", err)
	}
	if err != nil {
		t.Fatalf("static binary in an empty chroot: %v\n%s%s", err, out, stderr.Bytes())
	}
	got := staticParse(t, "static binary in chroot", out)
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
	cmd = exec.Command(dynamic, "-n", n, "-backend")
	cmd.Env = []string{}
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("dynamic binary: %v\n%s", err, out)
	}
	got = staticParse(t, "dynamic binary", out)
	if got.sum != want {
		t.Errorf("dynamic binary: Sum256 = %s, want %s", got.sum, want)
	}
	t.Logf("dynamic binary: Backend %+v", got.backend)
}
