//go:build !blake3_nonative && !android && (amd64 || arm64)

// The cache folder's ancestry rule (cache_unix.go), one case at a time,
// and the load of what was checked when the path changes after the check.

package blake3

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/purego-blake3/blake3/libs"
	"golang.org/x/sys/unix"
)

// ancestryLoad makes base/a (mode, owner uid unless -1) holding the cache
// folder base/a/cache, and loads through it.
func ancestryLoad(t *testing.T, mode os.FileMode, uid int) (string, error) {
	t.Helper()
	base := t.TempDir()
	a := filepath.Join(base, "a")
	cache := filepath.Join(a, "cache")
	if err := os.MkdirAll(cache, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(a, mode); err != nil {
		t.Fatal(err)
	}
	if uid >= 0 {
		if err := os.Chown(a, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	l, err := faultLoad(faultCacheConfig(cache))
	if err != nil {
		return "", err
	}
	return l.source, nil
}

// An ancestor is accepted when it belongs to root or this user and no one
// else can write to it, or it is sticky; refused otherwise, naming it.
func TestCacheAncestorRule(t *testing.T) {
	faultNeedEmbedded(t)
	for _, c := range []struct {
		name string
		mode os.FileMode
		want string // "" accepted, else part of the refusal
	}{
		{"private", 0o700, ""},
		{"readable", 0o755, ""},
		{"group-writable", 0o775, "is writable by others (mode 0775) and not sticky"},
		{"other-writable", 0o757, "is writable by others (mode 0757) and not sticky"},
		{"all-writable", 0o777, "is writable by others (mode 0777) and not sticky"},
		{"sticky", 0o777 | os.ModeSticky, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, err := ancestryLoad(t, c.mode, -1)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.want != "" && err == nil:
				t.Errorf("accepted (%s); want a refusal saying %q", src, c.want)
			case c.want != "" && (!strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "/a ")):
				t.Errorf("refusal %q does not name the ancestor .../a and say %q", err, c.want)
			}
		})
	}
}

// An ancestor that belongs to another user is refused (root only: it takes
// chown); one that belongs to root is accepted (the case above, as root).
func TestCacheAncestorOtherOwner(t *testing.T) {
	faultNeedEmbedded(t)
	if os.Geteuid() != 0 {
		strictSkip(t, "needs root to give a folder away")
	}
	_, err := ancestryLoad(t, 0o755, 4242)
	if err == nil || !strings.Contains(err.Error(), "belongs to uid 4242, neither root nor 0") {
		t.Errorf("ancestor owned by uid 4242: %v; want a refusal naming the owner", err)
	}
}

// A symbolic link in the path is resolved before the checks, as ssh does:
// the folders checked and loaded from are the real ones, so a link to a
// private folder is accepted (the source names the real path) and a link
// into a folder others can write to is refused. A link that appears after
// the path was resolved is not followed.
func TestCacheAncestorSymlink(t *testing.T) {
	faultNeedEmbedded(t)
	base := t.TempDir()
	for _, d := range []string{"real/cache", "open/cache"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(base, "open"), 0o777); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"good": "real", "bad": "open"} {
		if err := os.Symlink(filepath.Join(base, target), filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	l, err := faultLoad(faultCacheConfig(filepath.Join(base, "good", "cache")))
	if err != nil {
		t.Errorf("link to a private folder: %v", err)
	} else if want := faultCachePath(filepath.Join(base, "real", "cache")); !strings.Contains(l.source, want) {
		t.Errorf("link to a private folder: loaded %s, want it named by its real path %s", l.source, want)
	}
	_, err = faultLoad(faultCacheConfig(filepath.Join(base, "bad", "cache")))
	if err == nil || !strings.Contains(err.Error(), filepath.Join(base, "open")+" is writable by others") {
		t.Errorf("link into a folder others can write to: %v; want it refused, naming the real folder", err)
	}
	_, err = walkFolder(filepath.Join(base, "good", "cache"))
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("walk through a link: %v; want a refusal naming the symbolic link", err)
	}
}

// The path changes after the cache file was checked (its folder exchanged
// with a planted one): what is loaded is still the file checked, through
// its descriptor, and the planted constructor never runs; without /proc the
// load by path sees the change and refuses.
func TestCacheSwapAfterCheck(t *testing.T) {
	faultNeedEmbedded(t)
	marker := filepath.Join(t.TempDir(), "marker")
	planted, err := os.ReadFile(faultBuildConstructor(t, marker))
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	good, bad := filepath.Join(base, "good"), filepath.Join(base, "planted")
	if err := os.MkdirAll(bad, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(faultCachePath(bad), planted, 0o500); err != nil {
		t.Fatal(err)
	}
	for _, byPath := range []bool{false, true} {
		f, path, err := openCacheFile(good, libs.Library)
		if err != nil {
			t.Fatal(err)
		}
		if err := unix.Renameat2(unix.AT_FDCWD, good, unix.AT_FDCWD, bad, unix.RENAME_EXCHANGE); err != nil {
			f.Close()
			strictSkip(t, "renameat2(RENAME_EXCHANGE): %v", err)
		}
		if byPath {
			_, err = loadByPath(f, path, "test")
			if err == nil || !strings.Contains(err.Error(), "changed after it was checked") {
				t.Errorf("by path, after the exchange: %v; want a refusal saying the file changed", err)
			}
		} else if l, err := loadDescriptor(f, path, "test"); err != nil || l.sym == nil {
			t.Errorf("through the descriptor, after the exchange: %v; want the checked library", err)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("by path %v: the planted library's constructor ran", byPath)
		}
		if err := unix.Renameat2(unix.AT_FDCWD, good, unix.AT_FDCWD, bad, unix.RENAME_EXCHANGE); err != nil {
			t.Fatal(err)
		}
	}
}

// An ancestor that may be searched but not listed (root's, mode 0711) is
// walked as path lookup would walk it: the user's cache folder under it is
// used (root only: a user other than root is needed, whom mode bits stop).
func TestCacheAncestorSearchOnly(t *testing.T) {
	faultNeedEmbedded(t)
	if os.Geteuid() != 0 {
		strictSkip(t, "needs root to run the loads as another user")
	}
	bin := faultPublicCopy(t)
	user := swapVictim()
	x := filepath.Join(filepath.Dir(bin), "x")
	home := filepath.Join(x, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, user, user); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(x, 0o711); err != nil {
		t.Fatal(err)
	}
	outs := swapChildren(t, bin, "cache:"+filepath.Join(home, "cache"), user)
	counts := swapOutcomes(t, outs, swapCacheLoads, x)
	if counts["native"] != 4*swapCacheLoads {
		t.Errorf("cache folder under a 0711 ancestor: %v; want every load native", counts)
	}
}

// faultCachePath is where cachedLibrary puts the embedded library in dir.
func faultCachePath(dir string) string {
	return filepath.Join(dir, contentName(libs.Library))
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
