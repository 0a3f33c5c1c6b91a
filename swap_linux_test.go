//go:build !blake3_nonative && !android && (amd64 || arm64)

// Files swapped under the loader: the cache folder's ancestry exchanged
// with a planted one, and BLAKE3_LIBRARY exchanged with a FIFO, while it
// loads. What is loaded must be what was checked, and no load may hang.

package blake3

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/purego-blake3/blake3/libs"
	"golang.org/x/sys/unix"
)

// swapLoop exchanges a and b (renameat2 RENAME_EXCHANGE) as fast as it can
// until the returned stop is called, which reports how many exchanges
// were made.
func swapLoop(t *testing.T, a, b string) (stop func() int) {
	t.Helper()
	if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
		strictSkip(t, "renameat2(RENAME_EXCHANGE): %v", err)
	}
	var n atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			if unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE) == nil {
				n.Add(1)
			}
		}
	}()
	return func() int {
		close(done)
		wg.Wait()
		return int(n.Load())
	}
}

// swapMarker reports how often the planted constructor ran.
func swapMarker(t *testing.T, marker string) int {
	t.Helper()
	b, err := os.ReadFile(marker)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// swapVictim is the user the cache children run as: not root (whom no mode
// bit stops), and not the owner of the planted folder.
func swapVictim() int { return 30000 + os.Getpid()%10000 }

// The attack: a folder in the cache folder's ancestry that others can write
// to (an XDG_CACHE_HOME another user owns, say), in which the attacker
// exchanges the folder holding the victim's cache with one of its own
// holding a planted library, over and over, while the victim loads. Run as
// an unprivileged victim (children as swapVictim) with the ancestor
// writable by all (0777: the loader must refuse the ancestry outright) and
// sticky (01777, as /tmp: there only root can make the exchange, which
// this test does, so it shows that what is loaded is what was checked
// through the open folder and file). In neither may the planted
// constructor run.
func TestCacheSwapAncestor(t *testing.T) {
	faultNeedEmbedded(t)
	if os.Geteuid() != 0 {
		strictSkip(t, "needs root to run the victim as another user and plant a folder it does not own")
	}
	bin := faultPublicCopy(t)
	pub := filepath.Dir(bin)
	marker := filepath.Join(pub, "marker")
	if err := os.WriteFile(marker, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(marker, 0o666); err != nil {
		t.Fatal(err)
	}
	planted := faultBuildConstructor(t, marker)
	victim := swapVictim()
	for _, mode := range []os.FileMode{0o777, 0o777 | os.ModeSticky} {
		t.Run(fmt.Sprintf("%04o", unixMode(mode)), func(t *testing.T) {
			shared := filepath.Join(pub, fmt.Sprintf("shared%04o", unixMode(mode)))
			for _, d := range []string{"good/cache", "planted/cache"} {
				if err := os.MkdirAll(filepath.Join(shared, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			good := filepath.Join(shared, "good", "cache")
			lib, err := os.ReadFile(planted)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(faultCachePath(filepath.Join(shared, "planted", "cache")), lib, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(faultCachePath(good), libs.Library, 0o500); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{filepath.Dir(good), good, faultCachePath(good)} {
				if err := os.Chown(p, victim, victim); err != nil {
					t.Fatal(err)
				}
			}
			for p, m := range map[string]os.FileMode{filepath.Dir(good): 0o700, good: 0o700, shared: mode} {
				if err := os.Chmod(p, m); err != nil {
					t.Fatal(err)
				}
			}
			before := swapMarker(t, marker)
			stop := swapLoop(t, filepath.Join(shared, "good"), filepath.Join(shared, "planted"))
			outs := swapChildren(t, bin, "cache:"+good, victim)
			t.Logf("%d exchanges", stop())
			counts := swapOutcomes(t, outs, swapCacheLoads, shared)
			t.Logf("outcomes: %v", counts)
			if ran := swapMarker(t, marker) - before; ran > 0 {
				t.Errorf("the planted library's constructor ran %d times in %d loads", ran, 4*swapCacheLoads)
			}
			for o := range counts {
				switch {
				case mode&os.ModeSticky == 0 && !strings.Contains(o, "<path> is writable by others"):
					t.Errorf("refusal does not name the folder others can write to: %q", o)
				case strings.HasPrefix(o, "wrong source"):
					t.Errorf("%s", o)
				}
			}
		})
	}
}

// swapCacheLoads is how many loads each cache child makes: the loader before
// these checks let the planted library in about once or twice per 100.
const swapCacheLoads = 100

// unixMode is a FileMode's permission and sticky bits as chmod writes them.
func unixMode(m os.FileMode) uint32 {
	u := uint32(m.Perm())
	if m&os.ModeSticky != 0 {
		u |= unix.S_ISVTX
	}
	return u
}

// A FIFO named by BLAKE3_LIBRARY is refused at once: opening it must not
// wait for a writer.
func TestLoaderLibraryFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "lib.so")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo: ", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := faultLoad(loadConfig{library: fifo, embedded: libs.Library})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("BLAKE3_LIBRARY naming a FIFO: %v; want a refusal saying it is not a regular file", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("BLAKE3_LIBRARY naming a FIFO: the load still waits after 10 s")
	}
}

// swapChildEnv makes TestSwapChild load: "library:PATH" through
// BLAKE3_LIBRARY, "cache:DIR" the embedded library through a cache folder.
const swapChildEnv = "BLAKE3_SWAP_CHILD"

// TestSwapChild is the body of the swap tests' children: it loads the
// library swapChildEnv says swapCacheLoads times (the library 30),
// printing one line per load.
func TestSwapChild(t *testing.T) {
	kind, arg, _ := strings.Cut(os.Getenv(swapChildEnv), ":")
	var cfg loadConfig
	loads := swapCacheLoads
	switch kind {
	case "library":
		cfg, loads = loadConfig{library: arg, embedded: libs.Library}, 30
	case "cache":
		cfg = faultCacheConfig(arg)
	default:
		t.Skip("runs only as a child process of the swap tests")
	}
	for range loads {
		l, err := faultLoad(cfg)
		switch {
		case err != nil:
			os.Stdout.WriteString("swap-load refused: " + err.Error() + "\n")
		case kind == "library" && l.source != arg, kind == "cache" && !strings.Contains(l.source, arg):
			os.Stdout.WriteString("swap-load wrong source: " + l.source + "\n")
		default:
			os.Stdout.WriteString("swap-load native\n")
		}
	}
}

// swapChildren runs 4 TestSwapChild children at once with swapChildEnv set
// to what (as user uid unless it is -1), each killed after 60 s, and
// returns their outputs.
func swapChildren(t *testing.T, bin, what string, uid int) []string {
	t.Helper()
	var wg sync.WaitGroup
	outs := make([]string, 4)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "-test.run=^TestSwapChild$", "-test.count=1")
			cmd.Dir = "/"
			cmd.Env = []string{swapChildEnv + "=" + what, "PATH=/usr/bin:/bin", "HOME=/"}
			if uid >= 0 {
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
			}
			b, _ := cmd.CombinedOutput()
			if ctx.Err() != nil {
				b = append(b, "\nkilled after 60 s\n"...)
			}
			outs[i] = string(b)
		}()
	}
	wg.Wait()
	return outs
}

// swapOutcomes counts the children's outcomes (paths under root taken
// out), failing the test for a child that did not finish its loads.
func swapOutcomes(t *testing.T, outs []string, loads int, paths ...string) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for i, out := range outs {
		n := 0
		for line := range strings.Lines(out) {
			if s, ok := strings.CutPrefix(strings.TrimSpace(line), "swap-load "); ok {
				n++
				counts[faultScrub(s, paths...)]++
			}
		}
		if n != loads {
			t.Errorf("child %d finished %d of %d loads:\n%s", i, n, loads, faultTail(out))
		}
	}
	return counts
}

// BLAKE3_LIBRARY exchanged with a FIFO while it loads: each load either
// takes the library (which passed every check) or refuses, and none hangs.
func TestLoaderLibrarySwapFIFO(t *testing.T) {
	faultNeedEmbedded(t)
	dir := t.TempDir()
	lib := faultWrite(t, "lib.so", libs.Library, 0o500)
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo: ", err)
	}
	stop := swapLoop(t, lib, fifo)
	outs := swapChildren(t, os.Args[0], "library:"+lib, -1)
	t.Logf("%d exchanges", stop())
	counts := swapOutcomes(t, outs, 30, lib, fifo)
	t.Logf("outcomes: %v", counts)
	for o := range counts {
		if strings.HasPrefix(o, "wrong source") {
			t.Errorf("%s", o)
		}
	}
}
