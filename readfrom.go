package blake3

import (
	"errors"
	"io"
	"io/fs"
	"math"
	"sync"
)

// ReadFrom implements io.ReaderFrom, so that io.Copy(h, r) hashes r through
// it: it writes everything r yields until io.EOF to h, as Write would, and
// returns the number of bytes written and the first error other than
// io.EOF. h goes on being a hash.Hash: further writes continue the same
// input, and after an error h holds exactly the bytes counted.
//
// On the native path, a regular file (an *os.File, or anything with its
// ReadAt, Seek and Stat) of several MiB from its current offset is read with
// positional reads on every core allowed (GOMAXPROCS, capped by
// SetMaxThreads), in aligned subtrees hashed side by side, as SumReaderAt
// does; its offset is left at the end of what was read, as reads would
// leave it. Anything else is read in large pieces, the next one read while
// the last one is hashed.
func (h *Hasher) ReadFrom(r io.Reader) (int64, error) {
	if f, ok := r.(positionalFile); ok {
		if n, err, done := h.readFile(f); done {
			return n, err
		}
	}
	return h.readStream(r, 0)
}

// positionalFile is what ReadFrom reads in parallel: an *os.File, or a
// wrapper that keeps its methods.
type positionalFile interface {
	io.Reader
	io.ReaderAt
	io.Seeker
	Stat() (fs.FileInfo, error)
}

// readFileMin is the least input from a file that is read in parallel: the
// read of one leaf takes longer than starting the workers.
const readFileMin = 4 * leafMin

// readFile hashes a regular file from its offset to its size in parallel,
// when h is on the native path and may use several cores; done is false
// when it did not, and nothing was read.
func (h *Hasher) readFile(f positionalFile) (n int64, err error, done bool) {
	h.start()
	workers := threads()
	if h.path != pathNative || h.sub.on || workers < 2 {
		return 0, nil, false
	}
	h.lift()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return 0, nil, false
	}
	start, err := f.Seek(0, io.SeekCurrent)
	if err != nil || fi.Size()-start < readFileMin {
		return 0, nil, false
	}
	size := fi.Size() - start

	// Leaves of at least leafMin bytes, at most about maxLeaves of them,
	// start at input offsets aligned to their size: first the bytes up to
	// such an offset, then the leaves, keeping at least one byte for the
	// tail (the Hasher's last group stays on the Go side).
	leaf := uint64(leafMin)
	for uint64(size)/leaf >= maxLeaves {
		leaf *= 2
	}
	at := h.inputLen()
	head := int64((leaf - at%leaf) % leaf)
	if head+int64(leaf) >= size || at > math.MaxUint64-uint64(size) {
		// Too little for leaves, or too much for the input (a resumed
		// state near 2^64 bytes: Write refuses what does not fit).
		return 0, nil, false
	}
	buf := readBufs.Get().(*[readBufLen]byte)
	defer readBufs.Put(buf)
	if k, err := h.writeAt(f, start, head, buf[:]); err != nil {
		return h.readFailed(f, start, k, err)
	}
	mid := (size - head - 1) / int64(leaf) * int64(leaf)
	at += uint64(head)
	var leaves []Subtree
	for off := uint64(0); off < uint64(mid); off += leaf {
		leaves = append(leaves, Subtree{Offset: at + off, Len: leaf})
	}
	// The leaves read the file at their input offset, shifted.
	shift := shiftedReaderAt{f, start + head - int64(at)}
	if err := h.hashLeaves(shift, leaves, min(workers, len(leaves))); err != nil {
		return h.readFailed(f, start, head, err)
	}
	if h.nbuf > 0 {
		h.update(h.pending()) // whole chunks: the input so far is aligned
	} else if !h.live {
		h.initTree(0)
	}
	height := 0
	for leaf>>(height+1) >= chunkLen {
		height++
	}
	last := len(leaves) - 1
	for _, l := range leaves[:last] {
		h.pushCV(l.CV, height)
	}
	h.setLim()
	// The rest (1 byte to a leaf) is what stays on the Go side: the tree
	// alone may be one subtree, whose root it no longer holds. So its first
	// piece is read before the last leaf goes in; if that read fails, the
	// last leaf goes in as input instead (read again), the last group of it
	// kept as for any Write.
	rest := size - head - mid
	first := buf[:min(rest, int64(len(buf)))]
	if err := readAt(f, first, start+head+mid); err != nil {
		if k, err := h.writeAt(f, start+head+mid-int64(leaf), int64(leaf), buf[:]); err != nil {
			return h.readFailed(f, start, head+mid-int64(leaf)+k, err)
		}
		return h.readFailed(f, start, head+mid, err)
	}
	h.pushCV(leaves[last].CV, height)
	h.setLim()
	_, _ = h.Write(first)
	got := int64(len(first))
	if k, err := h.writeAt(f, start+head+mid+got, rest-got, buf[:]); err != nil {
		return h.readFailed(f, start, head+mid+got+k, err)
	}
	if _, err := f.Seek(start+size, io.SeekStart); err != nil {
		return size, err, true
	}
	// The file may have grown since its size was read: on to its end.
	more, err := h.readStream(f, 0)
	return size + more, err, true
}

// readFailed ends readFile after an error, h holding the first done bytes
// from start: the file's offset goes after them, and a file that shrank
// (io.ErrUnexpectedEOF) is read on to its new end.
func (h *Hasher) readFailed(f positionalFile, start, done int64, err error) (int64, error, bool) {
	if _, serr := f.Seek(start+done, io.SeekStart); serr != nil {
		return done, errors.Join(err, serr), true
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		more, err := h.readStream(f, 0)
		return done + more, err, true
	}
	return done, err, true
}

// writeAt writes n bytes of f from offset off to h, through buf, and
// returns how many it wrote: all n, or those before an error, which
// readFailed must be told (a read that fails writes none of its piece).
func (h *Hasher) writeAt(f io.ReaderAt, off, n int64, buf []byte) (int64, error) {
	var done int64
	for done < n {
		p := buf[:min(int64(len(buf)), n-done)]
		if err := readAt(f, p, off+done); err != nil {
			return done, err
		}
		_, _ = h.Write(p)
		done += int64(len(p))
	}
	return done, nil
}

// inputLen is how many bytes a native, non-subtree h has been given.
func (h *Hasher) inputLen() uint64 {
	n := uint64(h.nbuf)
	if h.live {
		n += h.tchunks * chunkLen
	}
	return n
}

// pushCV adds to h's tree (live, with no input buffered) the chaining value
// of the next 2^height chunks, which start aligned to their size, merging
// it with the subtrees it completes.
func (h *Hasher) pushCV(cv [32]byte, height int) {
	h.touch()
	i := height
	for h.t.Chunks&(1<<i) != 0 {
		left := h.t.Stack[i]
		must(lib.MergeNonRoot(&left, &cv, h.mode, h.modeKey(), &cv))
		i++
	}
	h.t.Stack[i] = cv
	h.t.Chunks += 1 << height
	h.tchunks = h.t.Chunks
}

// shiftedReaderAt reads r at an offset shift bytes further.
type shiftedReaderAt struct {
	r     io.ReaderAt
	shift int64
}

func (s shiftedReaderAt) ReadAt(p []byte, off int64) (int, error) {
	return s.r.ReadAt(p, off+s.shift)
}

// streamPiece is the size of each read of a stream: small enough to stay in
// cache from the read to the hash, while the next one is read on another
// core (b3sum's measurements, docs/benchmarks.md).
const streamPiece = 512 << 10

// readStream writes r to h until io.EOF, counting from n. The first read
// decides: a stream that fills a piece is read on in a second goroutine,
// the next pieces while the last one is hashed; a short one is done. A
// subtree hasher, whose Write may refuse input, reads in turn.
func (h *Hasher) readStream(r io.Reader, n int64) (int64, error) {
	buf := streamBufs.Get().(*[streamPiece]byte)
	defer streamBufs.Put(buf)
	for {
		k, err := io.ReadFull(r, buf[:])
		if _, werr := h.Write(buf[:k]); werr != nil {
			return n, werr
		}
		n += int64(k)
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return n, nil
		case err != nil:
			return n, err
		case !h.sub.on:
			return h.readPipelined(r, n)
		}
	}
}

// readPipelined is readStream's second goroutine: three pieces in turn, one
// hashed while the others are read.
func (h *Hasher) readPipelined(r io.Reader, n int64) (int64, error) {
	type piece struct {
		buf *[streamPiece]byte
		n   int
		err error
	}
	const pieces = 3
	free := make(chan *[streamPiece]byte, pieces)
	for range pieces {
		free <- streamBufs.Get().(*[streamPiece]byte)
	}
	filled := make(chan piece, pieces)
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			var buf *[streamPiece]byte
			select {
			case buf = <-free:
			case <-quit:
				return
			}
			k, err := io.ReadFull(r, buf[:])
			if err == io.ErrUnexpectedEOF {
				err = io.EOF
			}
			select {
			case filled <- piece{buf, k, err}:
			case <-quit:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	defer func() {
		close(quit)
		<-done // the reader no longer touches r or the buffers
		for {
			select {
			case b := <-free:
				streamBufs.Put(b)
			case p := <-filled:
				streamBufs.Put(p.buf)
			default:
				return
			}
		}
	}()
	for p := range filled {
		if _, err := h.Write(p.buf[:p.n]); err != nil {
			free <- p.buf
			return n, err // past 2^64-1 bytes: nothing written
		}
		n += int64(p.n)
		if p.err != nil {
			if p.err == io.EOF {
				return n, nil
			}
			free <- p.buf
			return n, p.err
		}
		free <- p.buf
	}
	return n, nil
}

// streamBufs are readStream's pieces, reused across calls.
var streamBufs = sync.Pool{New: func() any { return new([streamPiece]byte) }}
