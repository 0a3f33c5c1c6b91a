package main

import (
	"errors"
	"io"
	"math"
	"os"

	"github.com/purego-blake3/blake3"
)

const (
	// mmapMinSize is the smallest file that is memory-mapped, as in b3sum:
	// mapping small files is not worth it.
	mmapMinSize = 16 * 1024
	// streamBufSize is the size of each read when streaming (stdin, pipes,
	// --no-mmap, platforms without mmap). Writes this large still take the
	// package's multi-threaded path on the native backend.
	streamBufSize = 2 << 20
	// streamBufCount bounds memory when streaming: one buffer being hashed,
	// the others being filled by the reader goroutine.
	streamBufCount = 3
	// progressChunk is the piece size used to feed a memory-mapped file to
	// the hasher when a progress line may be shown.
	progressChunk = 64 << 20
)

// errNoMmap means a file was not (or could not be) memory-mapped; it is
// then streamed instead.
var errNoMmap = errors.New("mmap not supported")

// errKeyedStdin is b3sum's error for `-` in keyed mode, where stdin has
// already been consumed for the key.
var errKeyedStdin = errors.New("Cannot open `-` in keyed mode")

// hashPath hashes one input ("-" is stdin) with a clone of the base hasher
// and returns its extendable output positioned at --seek.
func (r *runner) hashPath(path string) (*blake3.Digest, error) {
	h := r.base.Clone()
	name, _ := escapeName(path)
	if path == "-" {
		if r.opts.keyed {
			return nil, errKeyedStdin
		}
		if err := streamInto(h, r.stdin, r.prog.start(name, -1)); err != nil {
			return nil, err
		}
	} else if err := r.hashFile(h, path, name); err != nil {
		return nil, err
	}
	d := h.Digest()
	if err := seekDigest(d, r.opts.seek); err != nil {
		return nil, err
	}
	return d, nil
}

// hashFile hashes a named file: regular files of at least mmapMinSize bytes
// are memory-mapped and written to the hasher in one call (so the native
// backend can use all cores); everything else is streamed.
func (r *runner) hashFile(h *blake3.Hasher, path, name string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	if !r.opts.noMmap && mmapSupported && size >= mmapMinSize {
		data, unmap, err := mmapFile(f, size)
		if err == nil {
			defer unmap()
			m := r.prog.start(name, size)
			if m == nil {
				_, _ = h.Write(data)
			} else {
				for len(data) > 0 {
					n := min(len(data), progressChunk)
					_, _ = h.Write(data[:n])
					m.add(n)
					data = data[n:]
				}
				m.finish()
			}
			return nil
		}
		// Fall back to streaming if the mapping failed.
	}
	return streamInto(h, f, r.prog.start(name, size))
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
