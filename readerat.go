// Hashing an io.ReaderAt (a file, above all) on several cores at once, by
// subtrees.

package blake3

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// Sizes for hashing an io.ReaderAt: inputs up to readerAtDirect bytes, and
// any input hashed by one worker, are read and hashed in one stream through
// a buffer of at most readBufLen bytes; larger ones are cut into subtrees of
// at least leafMin bytes, and at most about maxLeaves of them, each read
// through a per-worker buffer of readBufLen bytes. readBufLen stays small
// enough for the buffer to remain in cache between the read and the hash:
// on one core and on two, this beat hashing the same file memory-mapped
// (the page faults and TLB misses of a mapping cost more than the copy;
// scripts/bench-b3sum.sh, docs/benchmarks.md).
const (
	readerAtDirect = 1 << 20
	leafMin        = 1 << 20
	maxLeaves      = 4096
	readBufLen     = 1 << 20
)

// readBufs are the workers' read buffers, reused across calls: a program
// hashing many files would otherwise allocate and clear 1 MiB per file and
// worker.
var readBufs = sync.Pool{New: func() any { return new([readBufLen]byte) }}

// SumReaderAt returns the hash (as Sum256) of the first size bytes of r,
// reading and hashing pieces of it with workers goroutines at once (when
// workers <= 0: GOMAXPROCS, capped by SetMaxThreads). It needs memory for
// one buffer of 1 MiB per worker, whatever the size, and returns the first
// error from r. Each goroutine has finished when it returns.
//
// r must allow concurrent ReadAt calls, as io.ReaderAt requires; *os.File
// does.
func SumReaderAt(r io.ReaderAt, size int64, workers int) ([32]byte, error) {
	var h Hasher
	return h.SumReaderAt(r, size, workers)
}

// SumReaderAt is the package's SumReaderAt in h's mode: plain, keyed with
// h's key, or derive-key in h's context (the key material being the first
// size bytes of r). h's own input is neither used nor changed.
func (h *Hasher) SumReaderAt(r io.ReaderAt, size int64, workers int) ([32]byte, error) {
	var out [32]byte
	d, err := h.DigestReaderAt(r, size, workers)
	if err == nil {
		_, err = d.Read(out[:])
	}
	return out, err
}

// DigestReaderAt is SumReaderAt with all of the output: a Digest to read
// and seek through, as Hasher.Digest gives (for a derive-key hasher, the
// derived key of any length).
func (h *Hasher) DigestReaderAt(r io.ReaderAt, size int64, workers int) (*Digest, error) {
	if size < 0 {
		return nil, fmt.Errorf("blake3: negative size %d", size)
	}
	if workers <= 0 {
		workers = threads()
	}
	if size <= readerAtDirect || workers == 1 {
		return h.digestSerial(r, uint64(size))
	}

	n := uint64(size)
	leaf := uint64(leafMin)
	for n/leaf >= maxLeaves {
		leaf *= 2
	}
	var leaves []Subtree // Offset and Len, then CV once hashed
	var cut func(off, n uint64)
	cut = func(off, n uint64) {
		if n <= leaf {
			leaves = append(leaves, Subtree{Offset: off, Len: n})
			return
		}
		l, _ := LeftSubtreeLen(n)
		cut(off, l)
		cut(off+l, n-l)
	}
	cut(0, n)
	if err := h.hashLeaves(r, leaves, min(workers, len(leaves))); err != nil {
		return nil, err
	}

	// Merge up the same tree.
	next := 0
	var merge func(off, n uint64) (Subtree, error)
	merge = func(off, n uint64) (Subtree, error) {
		if n <= leaf {
			next++
			return leaves[next-1], nil
		}
		l, _ := LeftSubtreeLen(n)
		a, err := merge(off, l)
		if err != nil {
			return a, err
		}
		b, err := merge(off+l, n-l)
		if err != nil {
			return b, err
		}
		return h.MergeNonRoot(a, b)
	}
	l, _ := LeftSubtreeLen(n)
	a, err := merge(0, l)
	if err != nil {
		return nil, err
	}
	b, err := merge(l, n-l)
	if err != nil {
		return nil, err
	}
	return h.MergeRootDigest(a, b)
}

// digestSerial reads and hashes the first n bytes of r in order, on the
// calling goroutine.
func (h *Hasher) digestSerial(r io.ReaderAt, n uint64) (*Digest, error) {
	s := h.fresh()
	buf := readBufs.Get().(*[readBufLen]byte)
	err := s.writeFrom(r, 0, n, buf[:min(n, readBufLen)])
	readBufs.Put(buf) // not after a panic or a runtime.Goexit of r's ReadAt, which may keep it
	if err != nil {
		return nil, err
	}
	return s.Digest(), nil
}

// hashLeaves fills in the chaining value of each leaf, reading r with the
// given number of goroutines. r's ReadAt runs on them: a panic or a
// runtime.Goexit there stops the others' work and ends the caller's
// goroutine the same way once they have all ended (readerEnd), rather than
// leave a leaf unhashed or the caller waiting for a worker.
func (h *Hasher) hashLeaves(r io.ReaderAt, leaves []Subtree, workers int) error {
	var (
		jobs   = make(chan int)
		stop   = make(chan struct{})
		failed atomic.Bool
		once   sync.Once
		halt   sync.Once
		first  error
		wg     sync.WaitGroup
		ends   = make([]readerEnd, workers)
	)
	bufLen := min(leaves[0].Len, readBufLen) // the first leaf is the largest
	fail := func(err error) {
		once.Do(func() { first = err })
		failed.Store(true)
	}
	onFault := panicOnFault()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if ends[w].failed() {
					failed.Store(true)
					halt.Do(func() { close(stop) })
				}
			}()
			ends[w].run(onFault, func() {
				s := h.fresh()
				b := readBufs.Get().(*[readBufLen]byte)
				buf := b[:bufLen]
				for i := range jobs {
					if failed.Load() {
						continue
					}
					cv, err := s.hashRange(r, leaves[i].Offset, leaves[i].Len, buf, workers > 1)
					if err != nil {
						fail(err)
						continue
					}
					leaves[i] = cv
				}
				readBufs.Put(b) // not after a panic or a runtime.Goexit of ReadAt, which may keep it
			})
		}()
	}
	for i := range leaves {
		if failed.Load() {
			break
		}
		select {
		case jobs <- i:
			continue
		case <-stop:
		}
		break
	}
	close(jobs)
	wg.Wait()
	for w := range ends {
		ends[w].raise()
	}
	return first
}

// hashRange returns the subtree [off, off+n) of r, hashed by s.
func (s *Hasher) hashRange(r io.ReaderAt, off, n uint64, buf []byte, single bool) (Subtree, error) {
	s.beginSubtree(off)
	s.sub.single = single
	if err := s.writeFrom(r, off, n, buf); err != nil {
		return Subtree{}, err
	}
	return s.FinalizeNonRoot()
}

// writeFrom writes bytes [off, off+n) of r to s, reading through buf.
func (s *Hasher) writeFrom(r io.ReaderAt, off, n uint64, buf []byte) error {
	for done := uint64(0); done < n; {
		p := buf[:min(uint64(len(buf)), n-done)]
		if err := readAt(r, p, int64(off+done)); err != nil {
			return err
		}
		if _, err := s.Write(p); err != nil {
			return err
		}
		done += uint64(len(p))
	}
	return nil
}

// readAt fills p from r at off. io.EOF with p filled is success; short of
// that it is io.ErrUnexpectedEOF, also for a short read with a nil error,
// which io.ReaderAt does not allow.
func readAt(r io.ReaderAt, p []byte, off int64) error {
	if len(p) == 0 {
		return nil
	}
	n, err := r.ReadAt(p, off)
	if n == len(p) && (err == nil || errors.Is(err, io.EOF)) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("blake3: reading %d bytes at offset %d: %w", len(p), off, err)
}

// fresh returns a new, empty hasher in h's mode, with h's key or context.
func (h *Hasher) fresh() *Hasher {
	c := &Hasher{hasherState: hasherState{mode: h.mode, key: h.key, hasCtxKey: h.hasCtxKey, context: h.context}}
	c.start()
	return c
}

// readerEnd is how a goroutine that ran a caller's reader (ReadAt on a
// worker of hashLeaves, Read on readPipelined's) ended, so that the
// caller's goroutine ends the same way once that goroutine has: as if the
// reader had run there. A panic is recovered there and raised again here;
// a runtime.Goexit (t.FailNow in a test's reader) ends the caller's
// goroutine too, rather than leave it waiting for a piece or a worker
// that never comes, or take a leaf never hashed for a hashed one; a panic
// raised during that Goexit (by one of the reader's deferred calls) is
// raised again during the caller's, but for a panic(nil) under
// GODEBUG=panicnil=1, whose recover gives nil as for none: the caller's
// goroutine then ends as by the Goexit alone. The caller's crash report
// shows the last panic alone where the reader's showed several.
type readerEnd struct {
	panicked bool
	value    any
	exited   bool
}

// run calls fn with the caller's panicOnFault setting (so that a fault in
// a memory-mapped file read there panics where it would on the caller),
// and records how it ended. Each goroutine has its own readerEnd.
//
// A Goexit is told from a panic by where the goroutine goes after the
// inner deferred call, not by recover's value: that is nil under a Goexit,
// and also for a panic(nil) under GODEBUG=panicnil=1, which the inner call
// stops, where a Goexit goes on (past a panic raised during it and
// recovered there too) to the outer one alone.
func (e *readerEnd) run(onFault bool, fn func()) {
	debug.SetPanicOnFault(onFault)
	returned := false
	defer func() {
		if !returned { // a Goexit
			e.exited = true
			e.panicked = e.value != nil // raised during it
		}
	}()
	func() {
		done := false
		defer func() {
			if !done {
				e.panicked, e.value = true, recover()
			}
		}()
		fn()
		done = true
	}()
	returned = true
}

// failed reports whether the goroutine ended other than by returning.
func (e *readerEnd) failed() bool { return e.panicked || e.exited }

// raise ends the caller's goroutine as the reader's ended, if not by
// returning; the caller calls it once that goroutine has ended.
func (e *readerEnd) raise() {
	if e.exited {
		if e.panicked {
			defer panic(e.value)
		}
		runtime.Goexit()
	}
	if e.panicked {
		panic(e.value)
	}
}

// panicOnFault is the calling goroutine's debug.SetPanicOnFault setting.
func panicOnFault() bool {
	on := debug.SetPanicOnFault(false)
	debug.SetPanicOnFault(on)
	return on
}
