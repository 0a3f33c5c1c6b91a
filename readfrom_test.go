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
// whether it ends in the leaves or in the tail.
func TestReadFromShrunkFile(t *testing.T) {
	in := vectorInput(readFileMin * 2)
	for _, short := range []int{1, leafMin + 5, readFileMin} {
		f := shrunkFile{bytes.NewReader(in[:len(in)-short]), int64(len(in))}
		h := New()
		n, err := io.Copy(h, f)
		if err != nil || n != int64(len(in)-short) {
			t.Fatalf("%d bytes short: %d, %v", short, n, err)
		}
		if got, want := h.Sum(nil), zeebo.Sum256(in[:len(in)-short]); !bytes.Equal(got, want[:]) {
			t.Fatalf("%d bytes short: wrong hash", short)
		}
	}
}
