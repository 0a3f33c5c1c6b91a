//go:build !blake3_nonative && linux && !android && (amd64 || arm64)

// The cache folder's ancestry rule (cachedir_unix.go), one case at a time,
// and the load of what was checked when the path changes after the check.

package blake3

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
