package blake3

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	zeebo "github.com/zeebo/blake3"
)

// scripted is a reader of data in reads of up to chunk bytes, none of
// which crosses byte at, where it does what event says, once:
//   - "error": the read that ends at byte at returns errTransient with its
//     bytes, then the reader goes on;
//   - "unexpected": that read returns io.ErrUnexpectedEOF with its bytes,
//     and every read after it that error alone (a body cut short);
//   - "eof-more": that read returns io.EOF with its bytes, and the reads
//     after it go on with the rest (an io.EOF that is not the last word);
//
// or, at the read after it:
//   - "negative": returns -1 and no error, then goes on;
//   - "negative-eof": returns -1 and io.EOF, then goes on;
//   - "zero": returns 0 and no error, then goes on;
//   - "panic": panics; "goexit": calls runtime.Goexit.
//
// Past the end of data it returns io.EOF. So what it gives up to byte at
// does not depend on the sizes of the reads.
type scripted struct {
	data      []byte
	pos       int
	chunk     int
	at        int
	event     string
	fired     bool
	truncated bool
}

var errTransient = errors.New("a transient error")

func (r *scripted) Read(p []byte) (int, error) {
	if r.truncated {
		return 0, io.ErrUnexpectedEOF
	}
	withBytes := r.event == "error" || r.event == "unexpected" || r.event == "eof-more"
	if !r.fired && r.pos == r.at && !withBytes {
		r.fired = true
		switch r.event {
		case "negative":
			return -1, nil
		case "negative-eof":
			return -1, io.EOF
		case "zero":
			return 0, nil
		case "panic":
			panic(fmt.Sprintf("the reader's own panic at %d", r.at))
		case "goexit":
			runtime.Goexit()
		}
		panic("unknown event " + r.event)
	}
	if r.pos == len(r.data) {
		return 0, io.EOF
	}
	n := min(len(p), r.chunk, len(r.data)-r.pos)
	if !r.fired && r.pos < r.at && r.pos+n >= r.at {
		n = r.at - r.pos
		if withBytes {
			r.fired = true
			r.pos += copy(p, r.data[r.pos:r.at])
			switch r.event {
			case "error":
				return n, errTransient
			case "unexpected":
				r.truncated = true
				return n, io.ErrUnexpectedEOF
			}
			return n, io.EOF
		}
	}
	r.pos += copy(p, r.data[r.pos:r.pos+n])
	return n, nil
}

// copyEnd is how io.Copy into a hash ended: its count and error, the hash
// of what it wrote, or its panic's value, or that it called Goexit.
type copyEnd struct {
	n      int64
	err    error
	sum    string
	panic  any
	goexit bool
}

// copyInto runs io.Copy(h, r) on a goroutine of its own and says how it
// ended, and what h holds then (after a panic or a Goexit too).
func copyInto(h io.Writer, sum func() []byte, r io.Reader) (e copyEnd) {
	e.panic, e.goexit = howEnds(func() { e.n, e.err = io.Copy(h, r) })
	e.sum = fmt.Sprintf("%x", sum())
	return e
}

// howEnds runs fn on a goroutine of its own and says how it ended: its
// panic's value, or that it called runtime.Goexit, or neither (it
// returned). It fails the process if fn has not ended after a minute.
func howEnds(fn func()) (panicked any, goexit bool) {
	done := make(chan struct{})
	go func() {
		returned := false
		defer close(done)
		defer func() {
			if !returned {
				if panicked = recover(); panicked == nil {
					goexit = true
				}
			}
		}()
		fn()
		returned = true
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		panic("still running after a minute")
	}
	return panicked, goexit
}

// TestReadFromLikeCopy: io.Copy into a Hasher, through ReadFrom, ends as
// io.Copy into zeebo's hasher does, with readers that end or fail in
// every way at every kind of place: within the first read, where it
// fills a piece read in turn (streamPiece), the last one of those
// (pipeAfter), or one read ahead on the second goroutine (pipePiece),
// and within one. After a panic or a Goexit too, the Hasher holds every
// byte the reader gave before it, as zeebo's does. The same count, the same error
// (a reader's own io.ErrUnexpectedEOF, and an error or io.EOF that comes
// with the bytes that fill a piece, are not lost), the same hash of what
// was written, and a reader's panic raised and its runtime.Goexit ending
// the caller's goroutine, on both backends.
func TestReadFromLikeCopy(t *testing.T) {
	in := vectorInput(pipeAfter + 3*pipePiece + 100)
	events := []string{"error", "unexpected", "eof-more", "negative", "negative-eof", "zero", "panic", "goexit"}
	places := []int{1000, streamPiece, pipeAfter, pipeAfter + 1000, pipeAfter + pipePiece, pipeAfter + 2*pipePiece + 5}
	forEachBackend(t, func(t *testing.T) {
		for _, ev := range events {
			for _, at := range places {
				for _, chunk := range []int{10000, pipePiece} {
					z := zeebo.New()
					want := copyInto(z, func() []byte { return z.Sum(nil) }, &scripted{data: in, chunk: chunk, at: at, event: ev})
					h := New()
					got := copyInto(h, func() []byte { return h.Sum(nil) }, &scripted{data: in, chunk: chunk, at: at, event: ev})
					if got.n != want.n || got.err != want.err || got.sum != want.sum || got.panic != want.panic || got.goexit != want.goexit {
						t.Errorf("%s at %d, reads of %d: ReadFrom ended %+v; zeebo's io.Copy %+v", ev, at, chunk, got, want)
					}
				}
			}
		}
	})
}

// TestReadFromShortReads: a stream in reads of 1 byte to 4 KiB, across
// the pieces read in turn and those read ahead, gives zeebo's hash.
func TestReadFromShortReads(t *testing.T) {
	in := vectorInput(pipeAfter + 2*pipePiece + 777)
	forEachBackend(t, func(t *testing.T) {
		for _, chunk := range []int{1, 4096} {
			data := in
			if chunk == 1 {
				data = in[:streamPiece+3000]
			}
			h := New()
			n, err := io.Copy(h, &scripted{data: data, chunk: chunk, at: len(data) + 1})
			if want := zeebo.Sum256(data); n != int64(len(data)) || err != nil || !bytes.Equal(h.Sum(nil), want[:]) {
				t.Fatalf("reads of %d: %d, %v, or a wrong hash", chunk, n, err)
			}
		}
	})
}

// failingAt is a file that ReadFrom reads in parallel, whose ReadAt of
// the byte at (of any byte, for an at below 0) panics or calls
// runtime.Goexit (event), every time.
type failingAt struct {
	resizedFile
	at    int64
	event string
}

func (f failingAt) ReadAt(p []byte, off int64) (int, error) {
	if f.at < 0 || off <= f.at && f.at < off+int64(len(p)) {
		// Late: the leaves' producer is waiting to hand a worker the
		// next leaf by then.
		time.Sleep(10 * time.Millisecond)
		if f.event == "goexit" {
			runtime.Goexit()
		}
		panic(fmt.Sprintf("ReadAt's own panic at %d", f.at))
	}
	return f.resizedFile.ReadAt(p, off)
}

// TestReaderAtWorkersEnd: a ReadAt that panics or calls runtime.Goexit on
// a worker of SumReaderAt, or of ReadFrom's parallel read of a file, ends
// the caller's goroutine the same way, once every worker has ended: no
// hash of a leaf never hashed, and no wait for a worker that is gone, with
// one worker failing or all of them.
func TestReaderAtWorkersEnd(t *testing.T) {
	parallelRead(t)
	in := vectorInput(readFileMin*2 + 12345)
	for _, event := range []string{"panic", "goexit"} {
		for _, at := range []int64{0, int64(len(in)) / 2, -1} {
			f := failingAt{resizedFile{bytes.NewReader(in), int64(len(in))}, at, event}
			for _, w := range []int{1, 3} {
				before := runtime.NumGoroutine()
				p, exit := howEnds(func() { _, _ = SumReaderAt(f, int64(len(in)), w) })
				if (event == "panic") != (p == fmt.Sprintf("ReadAt's own panic at %d", f.at)) || (event == "goexit") != exit {
					t.Errorf("SumReaderAt, %s at %d, %d workers: ended with panic %v, Goexit %v", event, at, w, p, exit)
				}
				subGoroutines(t, before)
			}
			p, exit := howEnds(func() { _, _ = New().ReadFrom(f) })
			if (event == "panic") != (p != nil) || (event == "goexit") != exit {
				t.Errorf("ReadFrom, %s at %d: ended with panic %v, Goexit %v", event, at, p, exit)
			}
		}
	}
}

// faultSeen is a reader and a file that counts the calls of its Read and
// ReadAt made without debug.SetPanicOnFault on.
type faultSeen struct {
	*bytes.Reader
	without *atomic.Int64
}

func (f faultSeen) Read(p []byte) (int, error) {
	if !panicOnFault() {
		f.without.Add(1)
	}
	return f.Reader.Read(p)
}

func (f faultSeen) ReadAt(p []byte, off int64) (int, error) {
	if !panicOnFault() {
		f.without.Add(1)
	}
	return f.Reader.ReadAt(p, off)
}

// TestReadFromPanicOnFault: a reader's Read or ReadAt run on another
// goroutine (a stream read ahead past its first pipeAfter bytes, the
// workers of SumReaderAt) runs with the caller's debug.SetPanicOnFault, as
// it would on the caller's goroutine: a fault in a memory-mapped file that
// shrank panics, where the caller asked for it, rather than kill the
// process.
func TestReadFromPanicOnFault(t *testing.T) {
	in := vectorInput(pipeAfter + 3*pipePiece)
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	var without atomic.Int64
	if _, err := io.Copy(New(), struct{ io.Reader }{faultSeen{bytes.NewReader(in), &without}}); err != nil {
		t.Fatal(err)
	}
	if _, err := SumReaderAt(faultSeen{bytes.NewReader(in), &without}, int64(len(in)), 3); err != nil {
		t.Fatal(err)
	}
	if n := without.Load(); n != 0 {
		t.Errorf("%d reads without the caller's SetPanicOnFault", n)
	}
}

// keeper is a ReaderAt whose ReadAt, the first time, keeps the address
// of the buffer it was given and panics, and which records after that
// whether it is given that buffer again.
type keeper struct {
	*bytes.Reader
	mu    sync.Mutex // ReadAt is called on several goroutines at once
	kept  *byte
	again bool
}

func (k *keeper) ReadAt(p []byte, off int64) (int, error) {
	k.mu.Lock()
	first := k.kept == nil
	if first {
		k.kept = &p[0]
	}
	k.again = k.again || !first && &p[0] == k.kept
	k.mu.Unlock()
	if first {
		panic("a ReadAt that keeps its buffer")
	}
	return k.Reader.ReadAt(p, off)
}

// TestReaderAtBufferDropped: the buffer a ReadAt was given when it
// panicked, which it may keep, does not go back to the pool: the next
// SumReaderAt, on one thread (where the pool would hand it out next), is
// not given it, with one worker (the caller's goroutine) or several.
func TestReaderAtBufferDropped(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	in := vectorInput(3 << 20)
	for _, w := range []int{1, 3} {
		k := &keeper{Reader: bytes.NewReader(in)}
		if p, _ := howEnds(func() { _, _ = SumReaderAt(k, int64(len(in)), w) }); p == nil {
			t.Fatalf("%d workers: no panic from ReadAt", w)
		}
		got, err := SumReaderAt(k, int64(len(in)), w)
		if want := zeebo.Sum256(in); err != nil || got != want {
			t.Fatalf("%d workers: %x, %v; want %x", w, got, err, want)
		}
		if k.again {
			t.Errorf("%d workers: the buffer a panicking ReadAt kept was handed out again", w)
		}
	}
}
