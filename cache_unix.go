//go:build !blake3_nonative && ((linux && !android && (amd64 || arm64)) || (darwin && !ios))

package blake3

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// openCached loads lib from a content-addressed file in the cache folder
// dir ("" = the per-user default), writing the file if it is missing or
// does not hold lib.
//
// Every folder from / down is opened one below the other (openat, never
// following a symbolic link) and checked as ssh checks the path to a key
// (checkFolder): each must belong to root or to this user and be writable
// by no one else unless sticky, and the cache folder itself must be this
// user's and private. The file is then opened, compared and written only
// inside the open cache folder, and loaded through its own descriptor
// (loadDescriptor), so that no path is looked up again between the checks
// and dlopen. Where that cannot be done (darwin; Linux without /proc) the
// file is loaded by path, which the checked ancestry keeps other users from
// changing.
func openCached(dir string, lib []byte) (*loaded, error) {
	f, path, err := openCacheFile(dir, lib)
	if err != nil {
		return nil, err
	}
	return loadDescriptor(f, path, "embedded (cached at "+path+")")
}

// openCacheFile is openCached up to the load: the file, open and holding
// lib, and its path.
func openCacheFile(dir string, lib []byte) (*os.File, string, error) {
	dir, err := cacheFolder(dir)
	if err != nil {
		return nil, "", err
	}
	real, err := resolveFolder(dir)
	if err != nil {
		return nil, "", fmt.Errorf("cache folder: %w", err)
	}
	d, err := walkFolder(real)
	if err != nil {
		return nil, "", err
	}
	defer d.Close()
	name := contentName(lib)
	path := filepath.Join(real, name)
	f, err := cacheFile(d, name, lib)
	if err != nil {
		return nil, "", fmt.Errorf("cache file %s: %w", path, err)
	}
	return f, path, nil
}

// resolveFolder is dir, absolute, with the symbolic links of the part that
// exists resolved (as ssh resolves a key's path before checking it): the
// folders then checked are the real ones, and a link changed afterwards is
// not followed (walkFolder refuses it).
func resolveFolder(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	var missing []string
	for p := dir; ; p = filepath.Dir(p) {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{real}, missing...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) || p == filepath.Dir(p) {
			return "", err
		}
		missing = append([]string{filepath.Base(p)}, missing...)
	}
}

// walkFolder opens the absolute, resolved path one folder at a time from /,
// creating what is missing (mode 0700), and checks each folder it opens
// before opening the next inside it. It returns the last one, open.
func walkFolder(path string) (*os.File, error) {
	fd, err := unix.Open("/", folderOpen|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("cache folder: open /: %w", err)
	}
	parts := strings.Split(strings.Trim(filepath.Clean(path), "/"), "/")
	if parts[0] == "" {
		parts = nil
	}
	if err := checkFolder(fd, "/", len(parts) == 0); err != nil {
		unix.Close(fd)
		return nil, err
	}
	cur := "/"
	for i, name := range parts {
		cur = filepath.Join(cur, name)
		nfd, err := openSubfolder(fd, name)
		unix.Close(fd)
		if err != nil {
			return nil, fmt.Errorf("cache folder: %s: %w", cur, err)
		}
		fd = nfd
		if err := checkFolder(fd, cur, i == len(parts)-1); err != nil {
			unix.Close(fd)
			return nil, err
		}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// openSubfolder opens the folder name inside the open folder dir, creating
// it if missing; a symbolic link there is refused, not followed.
func openSubfolder(dir int, name string) (int, error) {
	const flags = folderOpen | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := unix.Openat(dir, name, flags, 0)
	if errors.Is(err, unix.ENOENT) {
		if err = unix.Mkdirat(dir, name, 0o700); err == nil || errors.Is(err, unix.EEXIST) {
			fd, err = unix.Openat(dir, name, flags, 0)
		}
	}
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		var st unix.Stat_t
		if unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return -1, errors.New("is a symbolic link (it was not one when the path was resolved)")
		}
	}
	return fd, err
}

// checkFolder applies the rule to an open folder: an ancestor must belong
// to root or to this user and be writable by no one else unless sticky
// (others can add entries to a sticky folder, but not rename or remove
// ours); the cache folder itself (last) must be this user's and writable
// by no one else.
func checkFolder(fd int, path string, last bool) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("cache folder: %s: %w", path, err)
	}
	uid, perm := int(st.Uid), uint32(st.Mode)&0o7777
	me := os.Geteuid()
	switch {
	case last && uid != me:
		return fmt.Errorf("cache folder %s belongs to uid %d, not %d", path, uid, me)
	case last && perm&0o022 != 0:
		return fmt.Errorf("cache folder %s is writable by others (mode %04o)", path, perm)
	case !last && uid != 0 && uid != me:
		return fmt.Errorf("cache folder's ancestor %s belongs to uid %d, neither root nor %d", path, uid, me)
	case !last && perm&0o022 != 0 && perm&unix.S_ISVTX == 0:
		return fmt.Errorf("cache folder's ancestor %s is writable by others (mode %04o) and not sticky", path, perm)
	}
	return nil
}

// cacheFile returns name in the open folder d, open for reading and
// holding exactly lib, writing it first if it does not.
func cacheFile(d *os.File, name string, lib []byte) (*os.File, error) {
	dir := int(d.Fd())
	if f := openHolding(dir, name, lib); f != nil {
		return f, nil
	}
	if err := writeAtomically(dir, name, lib); err != nil {
		return nil, err
	}
	if f := openHolding(dir, name, lib); f != nil {
		return f, nil
	}
	return nil, errors.New("does not hold the embedded library after it was written")
}

// openHolding opens name in the folder dir if it is a regular file holding
// exactly want, compared through the open file; nil otherwise.
func openHolding(dir int, name string, want []byte) *os.File {
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), name)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(want)) && holds(f, want) {
		return f
	}
	f.Close()
	return nil
}

// holds reports whether the open file f holds exactly want.
func holds(f *os.File, want []byte) bool {
	got := make([]byte, len(want)+1)
	n, _ := io.ReadFull(io.NewSectionReader(f, 0, int64(len(got))), got)
	return n == len(want) && bytes.Equal(got[:n], want)
}

// writeAtomically writes lib to a new temporary file in the folder dir and
// renames it over name, so that a reader (another process extracting at
// the same time, say) never sees a torn file; the file is left read-only.
func writeAtomically(dir int, name string, lib []byte) error {
	var r [8]byte
	_, _ = rand.Read(r[:])
	tmp := name + ".tmp-" + hex.EncodeToString(r[:])
	fd, err := unix.Openat(dir, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return &os.PathError{Op: "create", Path: tmp, Err: err}
	}
	f := os.NewFile(uintptr(fd), tmp)
	_, err = f.Write(lib)
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = f.Chmod(0o500)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(dir, tmp, dir, name)
	}
	if err != nil {
		if uerr := unix.Unlinkat(dir, tmp, 0); uerr != nil && !errors.Is(uerr, unix.ENOENT) {
			err = errors.Join(err, uerr)
		}
		if f := openHolding(dir, name, lib); f != nil {
			f.Close()
			return nil // another process won the race with the same bytes
		}
	}
	return err
}
