//go:build !blake3_nonative && linux && !android && (amd64 || arm64)

package blake3

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/purego-blake3/blake3/internal/ffi"
	"github.com/purego-blake3/blake3/libs"

	"golang.org/x/sys/unix"
)

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
