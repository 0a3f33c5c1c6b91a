package blake3

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	zeebo "github.com/zeebo/blake3"
)

// TestReadFromFile: io.Copy into a Hasher from a regular file, from any
// offset, after any earlier input, in every mode, on one core and on
// several: the same hash as the bytes written, the file's offset left at
// its end, and more input after it continuing the same hash.
func TestReadFromFile(t *testing.T) {
	in := vectorInput(readFileMin*3 + 12345)
	path := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(path, in, 0o600); err != nil {
		t.Fatal(err)
	}
	rng := newTestRand(testSeed(t))
	for round := range 24 {
		m := marshalModes[round%3]
		before := []int{0, 1, bufSize, readBufLen + 7}[round/3%4]
		from := []int{0, 1000, readFileMin}[rng.IntN(3)]
		cores := []int{1, 0}[round/12]
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
			_, _ = h.Write(in[:before])
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
				t.Fatalf("%s, %d bytes before, file from %d, %d cores: %x, want %x", m.name, before, from, cores, got, want)
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

// shrunkFile is a file that says it is longer than it is, as one that
// shrinks after its size was read.
type shrunkFile struct {
	*bytes.Reader
	size int64
}

func (f shrunkFile) Stat() (os.FileInfo, error) { return fakeInfo{f.size}, nil }

type fakeInfo struct{ size int64 }

func (i fakeInfo) Name() string       { return "shrunk" }
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
			f := shrunkFile{bytes.NewReader(in[:len(in)-short]), int64(len(in))}
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

// failingFile is a file whose reads fail at byte failAt.
type failingFile struct {
	*bytes.Reader
	failAt int64
	err    error
}

func (f failingFile) Stat() (os.FileInfo, error) { return fakeInfo{f.Size()}, nil }

func (f failingFile) Read(p []byte) (int, error) {
	off, _ := f.Seek(0, io.SeekCurrent)
	if off <= f.failAt && f.failAt < off+int64(len(p)) {
		n, _ := f.Reader.Read(p[:f.failAt-off])
		return n, f.err
	}
	return f.Reader.Read(p)
}

func (f failingFile) ReadAt(p []byte, off int64) (int, error) {
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
			f := failingFile{bytes.NewReader(in), at, boom}
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
