package main

import (
	"errors"
	"io"
	"math"
	"os"

	"github.com/purego-blake3/blake3"
)

const (
	// readAtMinSize is the smallest regular file read with positional reads
	// on every core; smaller ones are streamed, as b3sum streams the files
	// it does not map (and as files in /proc, whose size reads 0, need).
	readAtMinSize = 16 * 1024
)

// errKeyedStdin is b3sum's error for `-` in keyed mode, where stdin has
// already been consumed for the key.
var errKeyedStdin = errors.New("Cannot open `-` in keyed mode")

// hashPath hashes one input ("-" is stdin) in the base hasher's mode and
// returns its extendable output positioned at --seek.
func (r *runner) hashPath(path string) (*blake3.Digest, error) {
	var d *blake3.Digest
	var err error
	if path == "-" {
		if r.opts.keyed {
			return nil, errKeyedStdin
		}
		d, err = r.stream(r.stdin, "-", -1)
	} else {
		d, err = r.hashFile(path)
	}
	if err != nil {
		return nil, err
	}
	if err := seekDigest(d, r.opts.seek); err != nil {
		return nil, err
	}
	return d, nil
}

// hashFile hashes a named file. A regular file of at least readAtMinSize
// bytes is read with positional reads on every core (Hasher.DigestReaderAt,
// as many goroutines as --num-threads allows), each through a buffer small
// enough to stay in cache. b3sum memory-maps such files instead; reading
// hashed a page-cached file faster than a mapping (MAP_POPULATE included)
// on one core and on all, because the page faults and TLB misses of a
// mapping cost more than the copy (scripts/bench-b3sum.sh compares with
// b3sum; figures in docs/b3sum.md). With --no-mmap, and for anything else,
// the file is streamed.
func (r *runner) hashFile(path string) (*blake3.Digest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	name, _ := escapeName(path)
	if r.opts.noMmap || size < readAtMinSize {
		return r.stream(f, name, size)
	}
	m := r.prog.start(name, size)
	defer m.finish()
	return r.base.DigestReaderAt(meteredReaderAt{f, m}, size, 0)
}

// meteredReaderAt counts the bytes read through it on a progress meter
// (which may be nil).
type meteredReaderAt struct {
	r io.ReaderAt
	m *meter
}

func (mr meteredReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := mr.r.ReadAt(p, off)
	mr.m.add(n)
	return n, err
}

// stream hashes src from its current position to its end with a clone of
// the base hasher, metering it on the progress line as name: through
// Hasher.ReadFrom, which reads as io.Copy does for the first 2 MiB, then
// reads the next piece in a second goroutine while the last one is
// hashed, in bounded memory (readfrom.go says how it was measured).
func (r *runner) stream(src io.Reader, name string, size int64) (*blake3.Digest, error) {
	h := r.base.Clone()
	if size < 0 {
		growPipe(src) // stdin, or a named file that is not a regular file
	}
	m := r.prog.start(name, size)
	defer m.finish()
	if _, err := h.ReadFrom(meteredReader{src, m}); err != nil {
		return nil, err
	}
	return h.Digest(), nil
}

// meteredReader counts the bytes read through it on a progress meter (which
// may be nil). It is a plain io.Reader: a streamed file is read in turn,
// as --no-mmap asks, never in parallel.
type meteredReader struct {
	r io.Reader
	m *meter
}

func (mr meteredReader) Read(p []byte) (int, error) {
	n, err := mr.r.Read(p)
	mr.m.add(n)
	return n, err
}

// seekDigest positions the output reader at off. Offsets beyond the range
// of int64 cannot be expressed through Digest.Seek.
func seekDigest(d *blake3.Digest, off uint64) error {
	if off == 0 {
		return nil
	}
	if off > math.MaxInt64 {
		return errors.New("--seek offset larger than 2^63-1 is not supported")
	}
	_, err := d.Seek(int64(off), io.SeekStart)
	return err
}
