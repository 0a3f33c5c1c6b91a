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
	// streamBufSize is the size of each read when streaming (stdin, pipes,
	// --no-mmap): small enough to stay in cache from the read to the hash,
	// while the reader goroutine fills the next one on another core. A
	// 1 GiB file with --no-mmap took 0.21-0.22 s in 512 KiB pieces,
	// 0.24-0.29 s in 1 MiB and 0.26-0.30 s in 2 MiB ones (which also start
	// the library's threads and overcommit two cores); b3sum 0.24 s.
	streamBufSize = 512 << 10
	// streamBufCount bounds memory when streaming: one buffer being hashed,
	// the others being filled by the reader goroutine.
	streamBufCount = 3
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
// enough to stay in cache. b3sum memory-maps such files instead; on the
// machine this was measured on, a 1 GiB file in the page cache hashed at
// 4.6 GB/s on one core this way against 2.8 GB/s mapped with MAP_POPULATE,
// and at 6.7 against 4.5 GB/s on two (the page faults and TLB misses of a
// mapping cost more than the copy; scripts/bench-b3sum.sh compares with
// b3sum). With --no-mmap, and for anything else, the file is streamed.
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
// the base hasher, metering it on the progress line as name.
func (r *runner) stream(src io.Reader, name string, size int64) (*blake3.Digest, error) {
	h := r.base.Clone()
	if size < 0 {
		growPipe(src) // stdin, or a named file that is not a regular file
	}
	if err := streamInto(h, src, r.prog.start(name, size)); err != nil {
		return nil, err
	}
	return h.Digest(), nil
}

// streamInto copies src into h in large pieces, reading the next piece in a
// separate goroutine while the current one is hashed. Memory use is bounded
// by streamBufCount*streamBufSize. m may be nil; it is finished on return.
func streamInto(h *blake3.Hasher, src io.Reader, m *meter) error {
	defer m.finish()
	type piece struct {
		buf []byte
		n   int
		err error
	}
	free := make(chan []byte, streamBufCount)
	for i := 0; i < streamBufCount; i++ {
		free <- make([]byte, streamBufSize)
	}
	filled := make(chan piece, streamBufCount)
	quit := make(chan struct{})
	defer close(quit)
	go func() {
		for {
			var buf []byte
			select {
			case buf = <-free:
			case <-quit:
				return
			}
			n, err := io.ReadFull(src, buf)
			if err == io.ErrUnexpectedEOF {
				err = io.EOF
			}
			select {
			case filled <- piece{buf, n, err}:
			case <-quit:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	for p := range filled {
		if p.n > 0 {
			_, _ = h.Write(p.buf[:p.n])
			m.add(p.n)
		}
		if p.err == io.EOF {
			return nil
		}
		if p.err != nil {
			return p.err
		}
		free <- p.buf
	}
	return nil
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
