package blake3

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
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
//   - "panic", "goexit", "panic-goexit", "panic-nil": fails so (failAs).
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
		}
		failAs(r.event, fmt.Sprintf("the reader's own panic at %d", r.at))
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

// failAs ends a reader's call as event says: "panic" panics with msg;
// "panic-error" with an error that says msg and wraps errTransient;
// "goexit" calls runtime.Goexit; "panic-goexit" calls it, and one of its
// deferred calls panics with msg during it; "panic-nil" panics with nil
// (whose recover gives nil under GODEBUG=panicnil=1, as for a Goexit).
func failAs(event, msg string) {
	switch event {
	case "panic":
		panic(msg)
	case "panic-error":
		panic(fmt.Errorf("%s: %w", msg, errTransient))
	case "goexit":
		runtime.Goexit()
	case "panic-goexit":
		defer panic(msg)
		runtime.Goexit()
	case "panic-nil":
		panic(nil)
	}
	panic("unknown event " + event)
}

// failEvents are failAs's events.
var failEvents = []string{"panic", "panic-error", "goexit", "panic-goexit", "panic-nil"}

// ending is how a call ended on a goroutine of its own (howEnds): by a
// panic, with the value recover gave (its type and what %v prints: a
// PanicNilError is a new one at each panic(nil)), by a runtime.Goexit, by
// both (a panic raised during a Goexit), or by neither (it returned).
type ending struct {
	panicked bool
	value    string
	goexit   bool
}

// endingOf is how a reader's call that fails as failAs(event, msg)
// ends, in this process.
func endingOf(event, msg string) ending {
	return howEnds(func() { failAs(event, msg) })
}

// copyEnd is how io.Copy into a hash ended: its count and error, the hash
// of what it wrote, and how its goroutine ended.
type copyEnd struct {
	n   int64
	err error
	sum string
	end ending
}

// copyInto runs io.Copy(h, r) on a goroutine of its own and says how it
// ended, and what h holds then (after a panic or a Goexit too).
func copyInto(h io.Writer, sum func() []byte, r io.Reader) (e copyEnd) {
	e.end = howEnds(func() { e.n, e.err = io.Copy(h, r) })
	e.sum = fmt.Sprintf("%x", sum())
	return e
}

// howEnds runs fn on a goroutine of its own and says how it ended. As
// readerEnd.run does, it tells a Goexit by the outer deferred call reached
// without the inner one returning, not by recover's value. It fails the
// process if fn has not ended after a minute.
func howEnds(fn func()) (e ending) {
	done := make(chan struct{})
	go func() {
		returned := false
		defer close(done)
		defer func() {
			if !returned {
				e.goexit = true
				if e.panicked = e.value != "<nil>: <nil>"; !e.panicked {
					e.value = ""
				}
			}
		}()
		func() {
			ended := false
			defer func() {
				if !ended {
					v := recover()
					e.panicked, e.value = true, fmt.Sprintf("%T: %v", v, v)
				}
			}()
			fn()
			ended = true
		}()
		returned = true
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		panic("still running after a minute")
	}
	return e
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
	t.Logf("recover after panic(nil): %v", endingOf("panic-nil", "").value)
	in := vectorInput(pipeAfter + 3*pipePiece + 100)
	events := append([]string{"error", "unexpected", "eof-more", "negative", "negative-eof", "zero"}, failEvents...)
	places := []int{1000, streamPiece, pipeAfter, pipeAfter + 1000, pipeAfter + pipePiece, pipeAfter + 2*pipePiece + 5}
	forEachBackend(t, func(t *testing.T) {
		for _, ev := range events {
			for _, at := range places {
				for _, chunk := range []int{10000, pipePiece} {
					z := zeebo.New()
					want := copyInto(z, func() []byte { return z.Sum(nil) }, &scripted{data: in, chunk: chunk, at: at, event: ev})
					h := New()
					got := copyInto(h, func() []byte { return h.Sum(nil) }, &scripted{data: in, chunk: chunk, at: at, event: ev})
					if got.n != want.n || got.err != want.err || got.sum != want.sum || got.end != want.end {
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
// the byte at (of any byte, for an at below 0) fails as failAs(event)
// does, every time.
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
		failAs(f.event, fmt.Sprintf("ReadAt's own panic at %d", f.at))
	}
	return f.resizedFile.ReadAt(p, off)
}

// TestReaderAtWorkersEnd: a ReadAt that fails in each way failAs does
// on a worker of SumReaderAt (on either path), or of ReadFrom's parallel
// read of a file (on the native path), ends the caller's goroutine the
// same way, once every worker has ended: no hash of a leaf never hashed,
// and no wait for a worker that is gone, with one worker failing or all
// of them. One worker reads on the caller's goroutine (digestSerial), two
// or more on workers of their own (hashLeaves).
func TestReaderAtWorkersEnd(t *testing.T) {
	prev := runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0)))
	defer runtime.GOMAXPROCS(prev)
	in := vectorInput(readFileMin*2 + 12345)
	for _, event := range failEvents {
		for _, at := range []int64{0, int64(len(in)) / 2, -1} {
			f := failingAt{resizedFile{bytes.NewReader(in), int64(len(in))}, at, event}
			want := endingOf(event, fmt.Sprintf("ReadAt's own panic at %d", f.at))
			for _, w := range []int{1, 2, 3} {
				before := runtime.NumGoroutine()
				if got := howEnds(func() { _, _ = SumReaderAt(f, int64(len(in)), w) }); got != want {
					t.Errorf("SumReaderAt, %s at %d, %d workers: ended %+v, want %+v", event, at, w, got, want)
				}
				subGoroutines(t, before)
			}
			if lib == nil {
				continue // ReadFrom reads a file in turn on the Go path
			}
			if got := howEnds(func() { _, _ = New().ReadFrom(f) }); got != want {
				t.Errorf("ReadFrom, %s at %d: ended %+v, want %+v", event, at, got, want)
			}
		}
	}
}

// TestReaderEndsPanicNil runs TestReadFromLikeCopy and
// TestReaderAtWorkersEnd again in a child process with
// GODEBUG=panicnil=1, where recover gives nil for a reader's panic(nil),
// as it does under a Goexit: that panic still comes back as a panic, as
// it does from zeebo's io.Copy in that process.
func TestReaderEndsPanicNil(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^(TestReadFromLikeCopy|TestReaderAtWorkersEnd)$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "GODEBUG="+strings.TrimPrefix(os.Getenv("GODEBUG")+",panicnil=1", ","))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the child with panicnil=1: %v\n%s", err, out)
	}
	for _, want := range []string{"recover after panic(nil): <nil>: <nil>", "--- PASS: TestReadFromLikeCopy", "--- PASS: TestReaderAtWorkersEnd"} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("the child with panicnil=1 did not print %q:\n%s", want, out)
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
// of the buffer it was given and fails as failAs(event) does, and which
// records after that whether it is given that buffer again.
type keeper struct {
	*bytes.Reader
	event string
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
		failAs(k.event, "a ReadAt that keeps its buffer")
	}
	return k.Reader.ReadAt(p, off)
}

// TestReaderAtBufferDropped: the buffer a ReadAt was given when it
// failed (in each way failAs does), which it may keep, does not go back to
// the pool: the next SumReaderAt, on one thread (where the pool would hand
// it out next), is not given it, with one worker (the caller's goroutine)
// or several.
func TestReaderAtBufferDropped(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	in := vectorInput(3 << 20)
	for _, event := range failEvents {
		for _, w := range []int{1, 2, 3} {
			k := &keeper{Reader: bytes.NewReader(in), event: event}
			if e := howEnds(func() { _, _ = SumReaderAt(k, int64(len(in)), w) }); !e.panicked && !e.goexit {
				t.Fatalf("%s, %d workers: SumReaderAt returned", event, w)
			}
			got, err := SumReaderAt(k, int64(len(in)), w)
			if want := zeebo.Sum256(in); err != nil || got != want {
				t.Fatalf("%s, %d workers: %x, %v; want %x", event, w, got, err, want)
			}
			if k.again {
				t.Errorf("%s, %d workers: the buffer a failing ReadAt kept was handed out again", event, w)
			}
		}
	}
}

// pieceKeeper reads data, up to 10,000 bytes a read, and none past 10
// bytes after byte at; at the read after (none where at is below 0), it
// keeps the piece it was given, by its last byte, and fails as
// failAs(event) does. It records whether a read is given a piece that ends
// where kept does (again), a piece it or a reader before it kept.
type pieceKeeper struct {
	data  []byte
	pos   int
	at    int
	event string
	kept  *byte
	again bool
}

func (r *pieceKeeper) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if &p[len(p)-1] == r.kept {
		r.again = true
	}
	if r.at >= 0 && r.pos >= r.at {
		r.kept, r.at = &p[len(p)-1], -1
		failAs(r.event, "a Read that keeps its piece")
	}
	if r.pos == len(r.data) {
		return 0, io.EOF
	}
	k := min(len(p), 10000)
	if r.at >= 0 {
		k = min(k, r.at+10-r.pos)
	}
	n := copy(p[:k], r.data[r.pos:])
	r.pos += n
	return n, nil
}

// TestReadFromBufferDropped: the piece a Read on ReadFrom's second
// goroutine was given when it failed (in each way failAs does), within the
// piece, which it may keep, does not go back to the pool: the next
// ReadFrom, on one thread (where the pool would hand it out next), is not
// given it, and hashes its input. (The piece, with the bytes read into it
// before, is hashed, and the Hasher holds them, as TestReadFromLikeCopy
// checks.)
func TestReadFromBufferDropped(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	in := vectorInput(pipeAfter + 3*pipePiece + 100)
	want := zeebo.Sum256(in)
	for _, event := range failEvents {
		for _, at := range []int{pipeAfter + 20000, pipeAfter + pipePiece + 20000, pipeAfter + 2*pipePiece + 5} {
			r := &pieceKeeper{data: in, at: at, event: event}
			if e := howEnds(func() { _, _ = New().ReadFrom(r) }); !e.panicked && !e.goexit {
				t.Fatalf("%s at %d: ReadFrom returned", event, at)
			}
			next := &pieceKeeper{data: in, at: -1, kept: r.kept}
			h := New()
			if n, err := h.ReadFrom(next); n != int64(len(in)) || err != nil || !bytes.Equal(h.Sum(nil), want[:]) {
				t.Fatalf("%s at %d: the next ReadFrom: %d, %v, or a wrong hash", event, at, n, err)
			}
			if next.again {
				t.Errorf("%s at %d: the piece a failing Read kept was handed out again", event, at)
			}
		}
	}
}
