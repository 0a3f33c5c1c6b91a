package blake3

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	zeebo "github.com/zeebo/blake3"
)

// TestReadFromFile: io.Copy into a Hasher from a regular file, from any
// offset, after any earlier input (read twice, or not: the second read
// may have handed its whole chunks to the tree, absorb), in every mode, on
// one core and on several: the same hash as the bytes written, the file's
// offset left at its end, and more input after it continuing the same hash.
func TestReadFromFile(t *testing.T) {
	in := vectorInput(readFileMin*3 + 12345)
	path := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(path, in, 0o600); err != nil {
		t.Fatal(err)
	}
	rng := newTestRand(testSeed(t))
	for round := range 48 {
		m := marshalModes[round%3]
		before := []int{0, 1, bufSize, readBufLen + 7}[round/3%4]
		from := []int{0, 1000, readFileMin}[rng.IntN(3)]
		cores := []int{1, 0}[round/12%2]
		read := round >= 24
		if read {
			// A chunk and a half for the reads to absorb; or three
			// chunks, which the second read keeps in the tree ahead, and
			// the next hand-over takes from it.
			before += []int{3 * chunkLen / 2, 3 * chunkLen}[round%2]
		}
		t.Run("", func(t *testing.T) {
			SetMaxThreads(cores)
			defer SetMaxThreads(0)
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.Seek(int64(from), io.SeekStart); err != nil {
				t.Fatal(err)
			}
			h := m.new()
			if read {
				// Gathered in a buffer, whose whole chunks the second
				// read absorbs.
				writeSplit(h, in[:before], 64)
				h.Sum(nil)
				h.Digest()
			} else {
				_, _ = h.Write(in[:before])
			}
			n, err := io.Copy(h, f)
			if err != nil || n != int64(len(in)-from) {
				t.Fatalf("io.Copy: %d, %v; want %d", n, err, len(in)-from)
			}
			if off, _ := f.Seek(0, io.SeekCurrent); off != int64(len(in)) {
				t.Errorf("offset %d after io.Copy, want %d", off, len(in))
			}
			_, _ = h.Write([]byte("after"))
			z := m.ref()
			_, _ = z.Write(in[:before])
			_, _ = z.Write(in[from:])
			_, _ = z.Write([]byte("after"))
			if got, want := h.Sum(nil), z.Sum(nil); !bytes.Equal(got, want) {
				t.Fatalf("%s, %d bytes before (read twice: %v), file from %d, %d cores: %x, want %x", m.name, before, read, from, cores, got, want)
			}
		})
	}
}

// TestReadFromErrors: a reader's error comes back with the count read
// before it, and the hasher holds exactly those bytes; a file that
// shrinks while read is hashed as far as it goes.
func TestReadFromErrors(t *testing.T) {
	in := vectorInput(3*streamPiece + 100)
	boom := errors.New("boom")
	for _, at := range []int{0, 100, streamPiece, 2*streamPiece + 5} {
		h := New()
		n, err := h.ReadFrom(io.MultiReader(bytes.NewReader(in[:at]), &failingReader{boom}))
		if n != int64(at) || !errors.Is(err, boom) {
			t.Fatalf("error after %d bytes: ReadFrom returned %d, %v", at, n, err)
		}
		if got, want := h.Sum(nil), zeebo.Sum256(in[:at]); !bytes.Equal(got, want[:]) {
			t.Fatalf("error after %d bytes: the hasher does not hold exactly them", at)
		}
	}
	// A subtree hasher refuses what would not fit its offset.
	h := New()
	if err := h.SetInputOffset(1 << 20); err != nil {
		t.Fatal(err)
	}
	if _, err := h.ReadFrom(bytes.NewReader(vectorInput(1<<20 + 1))); !errors.Is(err, ErrSubtreeTooLarge) {
		t.Fatalf("subtree ReadFrom past its size: %v, want ErrSubtreeTooLarge", err)
	}
}

type failingReader struct{ err error }

func (f *failingReader) Read([]byte) (int, error) { return 0, f.err }

// resizedFile is a file whose Stat gives another size than it has, as one
// that shrinks or grows after its size was read. It hides bytes.Reader's
// WriteTo, so that io.Copy goes through ReadFrom.
type resizedFile struct {
	r    *bytes.Reader
	size int64
}

func (f resizedFile) Read(p []byte) (int, error)              { return f.r.Read(p) }
func (f resizedFile) ReadAt(p []byte, off int64) (int, error) { return f.r.ReadAt(p, off) }
func (f resizedFile) Seek(off int64, whence int) (int64, error) {
	return f.r.Seek(off, whence)
}
func (f resizedFile) Stat() (os.FileInfo, error) { return fakeInfo{f.size}, nil }

type fakeInfo struct{ size int64 }

func (i fakeInfo) Name() string       { return "resized" }
func (i fakeInfo) Size() int64        { return i.size }
func (i fakeInfo) Mode() os.FileMode  { return 0o600 }
func (i fakeInfo) ModTime() time.Time { return time.Time{} }
func (i fakeInfo) IsDir() bool        { return false }
func (i fakeInfo) Sys() any           { return nil }

// TestReadFromShrunkFile: a file shorter than its size is hashed to its end,
// whether it ends in the bytes read before the first leaf (after earlier
// input), in the leaves or in the tail. ReadFrom is called directly:
// io.Copy would take the bytes.Reader's WriteTo instead.
func TestReadFromShrunkFile(t *testing.T) {
	in := vectorInput(readFileMin * 2)
	for _, before := range []int{0, 1} {
		for _, short := range []int{1, 2, leafMin + 5, readFileMin, len(in) - 1000, len(in)} {
			f := resizedFile{bytes.NewReader(in[:len(in)-short]), int64(len(in))}
			h := New()
			_, _ = h.Write(in[:before])
			n, err := h.ReadFrom(f)
			if err != nil || n != int64(len(in)-short) {
				t.Fatalf("%d bytes before, %d bytes short: %d, %v; want %d", before, short, n, err, len(in)-short)
			}
			z := zeebo.New()
			_, _ = z.Write(in[:before])
			_, _ = z.Write(in[:len(in)-short])
			if got, want := h.Sum(nil), z.Sum(nil); !bytes.Equal(got, want) {
				t.Fatalf("%d bytes before, %d bytes short: wrong hash", before, short)
			}
		}
	}
}

// brokenFile is a file whose reads (Read and ReadAt) fail at byte failAt.
type brokenFile struct {
	*bytes.Reader
	failAt int64
	err    error
}

func (f brokenFile) Stat() (os.FileInfo, error) { return fakeInfo{f.Size()}, nil }

func (f brokenFile) Read(p []byte) (int, error) {
	off, _ := f.Seek(0, io.SeekCurrent)
	if off <= f.failAt && f.failAt < off+int64(len(p)) {
		n, _ := f.Reader.Read(p[:f.failAt-off])
		return n, f.err
	}
	return f.Reader.Read(p)
}

func (f brokenFile) ReadAt(p []byte, off int64) (int, error) {
	if off <= f.failAt && f.failAt < off+int64(len(p)) {
		n, _ := f.Reader.ReadAt(p[:f.failAt-off], off)
		return n, f.err
	}
	return f.Reader.ReadAt(p, off)
}

// TestReadFromFileErrors: a file whose read fails anywhere (before the
// first leaf, in a leaf, in the tail) gives the error, a count of exactly
// the bytes the hasher holds, and an offset after them.
func TestReadFromFileErrors(t *testing.T) {
	in := vectorInput(readFileMin*2 + 3000)
	boom := errors.New("boom")
	for _, before := range []int{0, 1, bufSize + 3} {
		for _, at := range []int64{0, 500, leafMin + 7, 2 * readFileMin, int64(len(in)) - 10} {
			f := brokenFile{bytes.NewReader(in), at, boom}
			h := New()
			_, _ = h.Write(in[:before])
			n, err := h.ReadFrom(f)
			if !errors.Is(err, boom) || n > at {
				t.Fatalf("%d bytes before, failing at %d: %d, %v", before, at, n, err)
			}
			if off, _ := f.Seek(0, io.SeekCurrent); off != n {
				t.Errorf("%d bytes before, failing at %d: offset %d, want %d", before, at, off, n)
			}
			z := zeebo.New()
			_, _ = z.Write(in[:before])
			_, _ = z.Write(in[:n])
			if got, want := h.Sum(nil), z.Sum(nil); !bytes.Equal(got, want) {
				t.Fatalf("%d bytes before, failing at %d: the hasher does not hold the %d bytes counted", before, at, n)
			}
		}
	}
}

// parallelRead makes sure ReadFrom may read files in parallel: at least
// two threads allowed, GOMAXPROCS included.
func parallelRead(t *testing.T) {
	if !nativeActive(t) {
		t.Skip("native backend not active: ReadFrom reads files in turn")
	}
	prev := runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0)))
	t.Cleanup(func() { runtime.GOMAXPROCS(prev) })
}

// TestReadFromResizedFile: a file shorter than its size is hashed to its
// end, whether it ends in the leaves or in the tail; one longer than its
// size is hashed on to its end.
func TestReadFromResizedFile(t *testing.T) {
	parallelRead(t)
	in := vectorInput(readFileMin*2 + 12345)
	for _, c := range []struct{ size, real int }{
		{len(in), len(in) - 1},
		{len(in), len(in) - leafMin - 5},
		{len(in), len(in) - readFileMin},
		{readFileMin * 2, len(in)},
	} {
		f := resizedFile{bytes.NewReader(in[:c.real]), int64(c.size)}
		h := New()
		n, err := h.ReadFrom(f)
		if err != nil || n != int64(c.real) {
			t.Fatalf("%d bytes, Stat says %d: ReadFrom returned %d, %v", c.real, c.size, n, err)
		}
		if got, want := h.Sum(nil), zeebo.Sum256(in[:c.real]); !bytes.Equal(got, want[:]) {
			t.Fatalf("%d bytes, Stat says %d: wrong hash", c.real, c.size)
		}
	}
}

// TestReadFromWholeLeaves: a file whose rest after the head is whole
// leaves keeps its last leaf as the tail, read once: the hash is right
// with nothing written after it, by Sum and by Digest.
func TestReadFromWholeLeaves(t *testing.T) {
	parallelRead(t)
	in := vectorInput(5 * leafMin)
	for _, before := range []int{0, 1} {
		// The head runs up to the next multiple of leafMin.
		head := (leafMin - before) % leafMin
		file := in[before : before+head+4*leafMin]
		h := New()
		_, _ = h.Write(in[:before])
		if n, err := h.ReadFrom(resizedFile{bytes.NewReader(file), int64(len(file))}); err != nil || n != int64(len(file)) {
			t.Fatalf("%d bytes before: ReadFrom returned %d, %v", before, n, err)
		}
		all := in[:before+len(file)]
		if got, want := h.Sum(nil), zeebo.Sum256(all); !bytes.Equal(got, want[:]) {
			t.Fatalf("%d bytes before, %d from the file: wrong Sum", before, len(file))
		}
		got, want := make([]byte, 64), make([]byte, 64)
		_, _ = h.Digest().Read(got)
		z := zeebo.New()
		_, _ = z.Write(all)
		_, _ = z.Digest().Read(want)
		if !bytes.Equal(got, want) {
			t.Fatalf("%d bytes before, %d from the file: wrong Digest", before, len(file))
		}
	}
}

// failingFile is a file whose ReadAt fails with err for any read that
// covers byte bad.
type failingFile struct {
	resizedFile
	bad int64
	err error
}

func (f failingFile) ReadAt(p []byte, off int64) (int, error) {
	if off <= f.bad && f.bad < off+int64(len(p)) {
		return 0, f.err
	}
	return f.resizedFile.ReadAt(p, off)
}

// TestReadFromReadAtError: after an error from a parallel read, in the
// leaves or in the tail, the file is read on with Read from the first
// byte not hashed, as io.Copy reads it: a file whose positional reads
// fail where Read does not (O_DIRECT's, at a length that is not aligned)
// is hashed whole; one whose Read fails at the same byte gives Read's
// error with the bytes before it, which the hasher holds exactly. The
// file's offset is left after the bytes counted.
func TestReadFromReadAtError(t *testing.T) {
	parallelRead(t)
	in := vectorInput(readFileMin * 2)
	boom := errors.New("boom")
	const before = 1
	head := leafMin - before
	file := in[:len(in)-before]
	for _, bad := range []int{head + 2*leafMin, len(file) - 1} { // in a leaf, in the tail
		for _, readFails := range []bool{false, true} {
			var f positionalFile = failingFile{resizedFile{bytes.NewReader(file), int64(len(file))}, int64(bad), boom}
			done, wantErr := len(file), error(nil)
			if readFails {
				f = brokenFile{bytes.NewReader(file), int64(bad), boom}
				done, wantErr = bad, boom
			}
			h := New()
			_, _ = h.Write(in[len(in)-before:])
			n, err := h.ReadFrom(f)
			if n != int64(done) || !errors.Is(err, wantErr) || wantErr == nil && err != nil {
				t.Fatalf("read error at %d, Read failing too %v: ReadFrom returned %d, %v; want %d, %v", bad, readFails, n, err, done, wantErr)
			}
			z := zeebo.New()
			_, _ = z.Write(in[len(in)-before:])
			_, _ = z.Write(file[:done])
			if got, want := h.Sum(nil), z.Sum(nil); !bytes.Equal(got, want) {
				t.Fatalf("read error at %d, Read failing too %v: the hasher does not hold exactly the %d bytes counted", bad, readFails, done)
			}
			if off, _ := f.Seek(0, io.SeekCurrent); off != int64(done) {
				t.Fatalf("read error at %d, Read failing too %v: offset %d, want %d", bad, readFails, off, done)
			}
		}
	}
}

// TestReadFromSubtree: subtree hashers read large files as any other
// writes: counted and at their offset, so that they merge into the hash.
func TestReadFromSubtree(t *testing.T) {
	parallelRead(t)
	in := vectorInput(2*readFileMin - 5)
	var sub [2]Subtree
	for i := range sub {
		part := in[i*readFileMin : min(len(in), (i+1)*readFileMin)]
		h := New()
		if err := h.SetInputOffset(uint64(i * readFileMin)); err != nil {
			t.Fatal(err)
		}
		if n, err := h.ReadFrom(resizedFile{bytes.NewReader(part), int64(len(part))}); err != nil || n != int64(len(part)) {
			t.Fatalf("subtree %d: ReadFrom returned %d, %v", i, n, err)
		}
		var err error
		if sub[i], err = h.FinalizeNonRoot(); err != nil {
			t.Fatalf("subtree %d: %v", i, err)
		}
	}
	if got, err := New().MergeRoot(sub[0], sub[1]); err != nil || got != zeebo.Sum256(in) {
		t.Fatalf("subtrees read by ReadFrom merge to %x, %v; want %x", got, err, zeebo.Sum256(in))
	}
}

// TestReadFromWriteAt: writeAt goes through its buffer piece by piece when
// the range is longer (ReadFrom's ranges are, from files of 4 GiB up, where
// the leaves outgrow readBufLen).
func TestReadFromWriteAt(t *testing.T) {
	in := vectorInput(5000)
	h := New()
	if n, err := h.writeAt(bytes.NewReader(in), 5, 3000, make([]byte, 1000)); err != nil || n != 3000 {
		t.Fatalf("writeAt: %d, %v; want 3000, nil", n, err)
	}
	if got, want := h.Sum(nil), zeebo.Sum256(in[5:3005]); !bytes.Equal(got, want[:]) {
		t.Fatal("writeAt through a buffer of a third of the range: wrong bytes")
	}
}

// countingFile counts the bytes its reads return.
type countingFile struct {
	resizedFile
	n *atomic.Int64
}

func (f countingFile) Read(p []byte) (int, error) {
	k, err := f.resizedFile.Read(p)
	f.n.Add(int64(k))
	return k, err
}

func (f countingFile) ReadAt(p []byte, off int64) (int, error) {
	k, err := f.resizedFile.ReadAt(p, off)
	f.n.Add(int64(k))
	return k, err
}

// TestReadFromReadsOnce: a file read in parallel is read once, each byte,
// whatever the input before it (the head that aligns the leaves), and
// hashed right.
func TestReadFromReadsOnce(t *testing.T) {
	parallelRead(t)
	in := vectorInput(readFileMin*2 + 12345)
	for _, before := range []int{0, 1, leafMin - 1, leafMin + 1} {
		file := in[before:]
		var count atomic.Int64
		h := New()
		_, _ = h.Write(in[:before])
		n, err := h.ReadFrom(countingFile{resizedFile{bytes.NewReader(file), int64(len(file))}, &count})
		if err != nil || n != int64(len(file)) {
			t.Fatalf("%d bytes before: ReadFrom returned %d, %v; want %d, nil", before, n, err, len(file))
		}
		if got := count.Load(); got != int64(len(file)) {
			t.Errorf("%d bytes before: %d bytes read from a file of %d; want each once", before, got, len(file))
		}
		if got, want := h.Sum(nil), zeebo.Sum256(in); !bytes.Equal(got, want[:]) {
			t.Fatalf("%d bytes before: wrong hash", before)
		}
	}
}

// TestReadFromSubtreeStream: a subtree hasher reads a stream in turn, up
// to what its subtree takes, so that it holds all of that and the reader
// has given one byte more, the one refused (a second goroutine would
// have read pieces ahead): a subtree shorter than a piece, and one longer
// than what ReadFrom reads in turn before it reads ahead.
func TestReadFromSubtreeStream(t *testing.T) {
	for _, offset := range []int64{1024, 2 * pipeAfter} { // and as much fits
		h := New()
		if err := h.SetInputOffset(uint64(offset)); err != nil {
			t.Fatal(err)
		}
		const total = 16 << 20
		r := bytes.NewReader(vectorInput(total))
		n, err := h.ReadFrom(r)
		if !errors.Is(err, ErrSubtreeTooLarge) || n != offset {
			t.Fatalf("subtree at offset %d given 16 MiB: ReadFrom returned %d, %v; want %d, ErrSubtreeTooLarge", offset, n, err, offset)
		}
		if read := total - int64(r.Len()); read != n+1 {
			t.Errorf("subtree at offset %d: %d bytes taken from the reader for %d counted; want one more, the byte refused", offset, read, n)
		}
		// A count past what was asked panics, as in io.Copy, though the
		// piece asked for is shorter than the buffer.
		h = New()
		if err := h.SetInputOffset(uint64(offset)); err != nil {
			t.Fatal(err)
		}
		if !howEnds(func() { _, _ = h.ReadFrom(overCount{}) }).panicked {
			t.Errorf("subtree at offset %d: no panic from a Read that counts more than it was asked", offset)
		}
	}
}

// overCount is a reader whose Read counts one byte more than it was asked.
type overCount struct{}

func (overCount) Read(p []byte) (int, error) { return len(p) + 1, nil }

// TestReadFromFileAfterAhead: a file read where the input before it ends
// a little short of a leaf, after a Sum twice after each piece (so that
// the tree ahead holds what is gathered): the hand-over before the
// file's leaves takes those chunks from the tree ahead, and the hash is
// zeebo's.
func TestReadFromFileAfterAhead(t *testing.T) {
	parallelRead(t)
	rng := newTestRand(testSeed(t))
	file := randomBytes(rng, readFileMin+3000)
	path := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, before := range []int{1<<20 - 8192, 2<<20 - 5120} {
		in := randomBytes(rng, before)
		h, z := New(), zeebo.New()
		for i := 0; i < len(in); i += 4096 {
			p := in[i:min(len(in), i+4096)]
			_, _ = h.Write(p)
			h.Sum(nil)
			h.Sum(nil)
		}
		_, _ = z.Write(in)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if n, err := h.ReadFrom(f); err != nil || n != int64(len(file)) {
			t.Fatalf("ReadFrom: %d, %v", n, err)
		}
		f.Close()
		_, _ = z.Write(file)
		if got, want := h.Sum(nil), z.Sum(nil); !bytes.Equal(got, want) {
			t.Fatalf("%d bytes before: %x, want %x", before, got, want)
		}
	}
}

// TestReadFromFileReused: a Hasher used again after Reset reads a file
// whose part after the leaves (which readFile writes once the tree is past
// them, where its buffer's group may be bufSize) is about what first holds
// or a buffer of bufSize, after a stream that went to the library from
// first (wide), one that gave it a buffer of bufSize, or one that stayed
// in first: the same hash as zeebo's, and the same after more input.
func TestReadFromFileReused(t *testing.T) {
	parallelRead(t)
	for _, rest := range []int{firstLen - 1, firstLen, firstLen + 1, 12 << 10, bufSize, bufSize + 1} {
		in := vectorInput(readFileMin + rest)
		path := filepath.Join(t.TempDir(), "in")
		if err := os.WriteFile(path, in, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			before, buf int
		}{{firstLen + 64, 0}, {halfUntil + firstLen + 64, bufSize}, {64, 0}} {
			h := New()
			writeSplit(h, in[:c.before], 64)
			if len(h.buf) != c.buf {
				t.Fatalf("a stream of %d bytes: a buffer of %d, want %d", c.before, len(h.buf), c.buf)
			}
			h.Reset()
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			n, err := h.ReadFrom(f)
			f.Close()
			if err != nil || n != int64(len(in)) {
				t.Fatalf("ReadFrom: %d, %v; want %d", n, err, len(in))
			}
			z := zeebo.New()
			_, _ = z.Write(in)
			if got, want := h.Sum(nil), z.Sum(nil); !bytes.Equal(got, want) {
				t.Fatalf("%d bytes after the leaves, reused after %d: %x, want %x", rest, c.before, got, want)
			}
			_, _ = h.Write(in[:bufSize])
			_, _ = z.Write(in[:bufSize])
			if got, want := h.Sum(nil), z.Sum(nil); !bytes.Equal(got, want) {
				t.Fatalf("%d bytes after the leaves, reused after %d, and %d more: %x, want %x", rest, c.before, bufSize, got, want)
			}
		}
	}
}
