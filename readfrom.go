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
// leave it. Anything else is read as io.Copy reads it, on the caller's
// goroutine, in pieces of 128 KiB, each hashed once read, for its first
// 2 MiB; then a second goroutine reads ahead while the caller hashes. So
// from there r's Read runs on that goroutine, with the caller's
// debug.SetPanicOnFault, and before the last pieces read are hashed: a
// reader that uses h itself, or needs the caller's goroutine or its
// locked OS thread, must not be read through ReadFrom (write its pieces
// with Write). Its panic, its runtime.Goexit, or a panic raised during
// that Goexit (but for a panic(nil) under GODEBUG=panicnil=1) comes back
// to the caller's goroutine once that goroutine has ended, the bytes it
// gave before written. ReadFrom returns only once no Read of r is in
// flight, also after an error of h's own (a Write refused past 2^64-1
// bytes), so r is never used after it.
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
	// The buffer goes back to the pool when the reads are done, not after
	// a panic or a runtime.Goexit of f's ReadAt, which may keep it.
	buf := readBufs.Get().(*[readBufLen]byte)
	n, err, done = func() (int64, error, bool) {
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
	}()
	readBufs.Put(buf)
	return n, err, done
}

// readFailed ends readFile after a positional read's error, h holding the
// first done bytes from start: the file's offset goes after them, and the
// file is read on from there as io.Copy would read it (readStream), which
// gives an error of Read's own if Read fails too. So a file that shrank
// (io.ErrUnexpectedEOF) is read to its new end, and one whose positional
// reads fail where Read does not (O_DIRECT refuses a length or an offset
// that is not aligned) is read whole, as zeebo's io.Copy reads it.
func (h *Hasher) readFailed(f positionalFile, start, done int64, err error) (int64, error, bool) {
	if _, serr := f.Seek(start+done, io.SeekStart); serr != nil {
		return done, errors.Join(err, serr), true
	}
	more, err := h.readStream(f, 0)
	return done + more, err, true
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

// A stream is read as io.Copy reads, each Read of up to streamPiece bytes
// hashed before the next, on the caller's goroutine, for its first
// pipeAfter bytes; from there a second goroutine reads pieces of
// pipePiece bytes ahead, up to three, while the caller hashes the last
// one read. A second goroutine from the first piece cost short streams
// more than it gave (its start, a wake-up at each piece, the pool's
// refills), reading everything in turn cost long ones the overlap, and
// pieces of 128 KiB read ahead woke a thread too often; read in turn, 128
// KiB stay in the caches from the read to the hash, and smaller pieces
// read a file slower (BenchmarkReadFromStream; the figures are in
// docs/zeebo-api.md).
const (
	streamPiece = 128 << 10
	pipePiece   = 512 << 10
	pipeAfter   = 2 << 20
)

// streamBufs and pipeBufs are the pieces, reused across calls, as
// net/http reuses the buffers it copies bodies through: io.Reader forbids
// a reader to keep p after Read returns, which is what makes it safe.
var (
	streamBufs = sync.Pool{New: func() any { return new([streamPiece]byte) }}
	pipeBufs   = sync.Pool{New: func() any { return new([pipePiece]byte) }}
)

// readStream writes r to h until io.EOF, counting from n: the first
// pipeAfter bytes in turn, as io.Copy would through a buffer of
// streamPiece bytes, the rest through readPipelined.
// A subtree hasher, whose Write may refuse input, reads in turn all along,
// and no more than a byte past what its subtree takes. The piece goes back
// to the pool unless r's Read panicked or called runtime.Goexit, and may
// keep it.
func (h *Hasher) readStream(r io.Reader, n int64) (int64, error) {
	buf := streamBufs.Get().(*[streamPiece]byte)
	n, err, more := h.readPieces(r, n, buf)
	streamBufs.Put(buf)
	if more {
		return h.readPipelined(r, n)
	}
	return n, err
}

// readPieces is readStream's reads in turn, through buf: io.Copy's loop,
// each Read's bytes written before the next Read (from a pipe, what its
// writer has put there is hashed while it writes more). more reports that
// r has more, for readPipelined.
func (h *Hasher) readPieces(r io.Reader, n int64, buf *[streamPiece]byte) (int64, error, bool) {
	for read := 0; ; {
		p := buf[:]
		if h.sub.on && h.sub.max-h.sub.n < uint64(len(p)) {
			// What fits, then a byte, which is refused if there is
			// one: h holds all the subtree takes. (The capacity too, so
			// that a count past it panics below.)
			m := max(h.sub.max-h.sub.n, 1)
			p = p[:m:m]
		}
		k, err := r.Read(p)
		if k > 0 {
			// One past p's end panics, as in io.Copy; a count below 0
			// adds nothing, as there.
			if _, werr := h.Write(p[:k]); werr != nil {
				return n, werr, false
			}
			n += int64(k)
			read += k
		}
		switch {
		case err == io.EOF:
			return n, nil, false
		case err != nil:
			return n, err, false
		case read >= pipeAfter && !h.sub.on:
			return n, nil, true
		}
	}
}

// fill reads r into p until p is full or r returns an error, which it
// returns as r did, with the bytes read counted in *k: r's own
// io.ErrUnexpectedEOF (a body cut short) stays an error, and an error or
// io.EOF that comes with the bytes that fill p is not lost to the next
// read (io.ReadFull keeps neither). *k counts each Read's bytes as it
// returns, so that they are hashed even when a later Read panics, as
// io.Copy writes each Read's bytes before the next. As io.Copy does, a
// count of 0 or less adds nothing, and one past the room left panics.
func fill(r io.Reader, p []byte, k *int) error {
	for *k < len(p) {
		m, err := r.Read(p[*k:])
		if m > 0 {
			*k += len(p[*k : *k+m])
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readPipelined is readStream past its first pipeAfter bytes: a second
// goroutine reads the next pieces into three in turn, while this one
// hashes the one read before, and they go back to the pool when it is
// done. r's Read runs on that goroutine, with this goroutine's
// debug.SetPanicOnFault, as it would run here under io.Copy; how it ends
// is passed back (readerEnd): its panic is raised again here, and its
// runtime.Goexit ends this goroutine too, once it has ended (and the
// pieces are dropped: the one Read held may be kept by it).
func (h *Hasher) readPipelined(r io.Reader, n int64) (int64, error) {
	type piece struct {
		buf *[pipePiece]byte
		n   int
		err error
	}
	const pieces = 3
	free := make(chan *[pipePiece]byte, pieces)
	for range pieces {
		free <- pipeBufs.Get().(*[pipePiece]byte)
	}
	filled := make(chan piece, pieces)
	quit := make(chan struct{})
	var end readerEnd
	onFault := panicOnFault()
	go func() {
		var buf *[pipePiece]byte
		k := 0
		defer close(filled)
		defer func() {
			if end.failed() && k > 0 {
				// The bytes the reader gave before its panic or
				// Goexit, which io.Copy would have written.
				filled <- piece{buf, k, nil}
			}
		}()
		end.run(onFault, func() {
			for {
				select {
				case buf = <-free:
				case <-quit:
					return
				}
				k = 0
				err := fill(r, buf[:], &k)
				read := k
				k = 0                           // sent below: nothing left for the deferred send
				filled <- piece{buf, read, err} // never blocks: a place for each piece
				if err != nil {
					return
				}
			}
		})
	}()
	var last *[pipePiece]byte // the piece that ended the stream, once hashed
	defer func() {
		close(quit)
		held := []*[pipePiece]byte{last}
		for p := range filled { // until the reader no longer touches r or the pieces
			held = append(held, p.buf)
		}
		for len(free) > 0 {
			held = append(held, <-free)
		}
		if !end.failed() {
			for _, b := range held {
				if b != nil {
					pipeBufs.Put(b)
				}
			}
		}
		end.raise()
	}()
	for p := range filled {
		_, err := h.Write(p.buf[:p.n])
		if err != nil || p.err != nil {
			last = p.buf
		}
		switch {
		case err != nil:
			return n, err // past 2^64-1 bytes: nothing written
		case p.err == io.EOF:
			return n + int64(p.n), nil
		case p.err != nil:
			return n + int64(p.n), p.err
		}
		n += int64(p.n)
		free <- p.buf
	}
	return n, nil // the reader ended without a piece: end.raise says how
}
