package blake3

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	zeebo "github.com/zeebo/blake3"
)

// subGoroutines waits for the goroutine count to come back to before.
func subGoroutines(t *testing.T, before int) {
	t.Helper()
	for i := 0; runtime.NumGoroutine() > before; i++ {
		if i == 100 {
			t.Fatalf("goroutines: %d before, %d after", before, runtime.NumGoroutine())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSumReaderAtSizes(t *testing.T) {
	subBackends(t, func(t *testing.T) {
		rng := subRand(t)
		sizes := []int{0, 1, 1023, 1024, 1025, 4<<20 - 1, 4 << 20, 4<<20 + 1}
		for range 3 {
			sizes = append(sizes, 1+rng.IntN(6<<20))
		}
		data := subData(rng, 6<<20)
		before := runtime.NumGoroutine()
		for _, n := range sizes {
			want := zeebo.Sum256(data[:n])
			for _, w := range []int{1, 2, 7, 0} {
				got, err := SumReaderAt(bytes.NewReader(data[:n]), int64(n), w)
				if err != nil || got != want {
					t.Fatalf("size %d, %d workers: %x, %v; want %x", n, w, got, err, want)
				}
			}
		}
		// Keyed and derive-key, and the extended output.
		for _, m := range subModes() {
			for _, n := range []int{0, 1025, 3<<20 + 5} {
				h := m.mk()
				_, _ = h.Write([]byte("h's own input is ignored"))
				got, err := h.SumReaderAt(bytes.NewReader(data[:n]), int64(n), 3)
				if want := subRef(m, data[:n], 0, 32); err != nil || !bytes.Equal(got[:], want) {
					t.Fatalf("%s, size %d: %x, %v; want %x", m.name, n, got, err, want)
				}
				d, err := h.DigestReaderAt(bytes.NewReader(data[:n]), int64(n), 2)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = d.Seek(1000, io.SeekStart)
				out := make([]byte, 100)
				if _, err := d.Read(out); err != nil || !bytes.Equal(out, subRef(m, data[:n], 1000, 100)) {
					t.Fatalf("%s, size %d: DigestReaderAt output wrong (%v)", m.name, n, err)
				}
			}
		}
		subGoroutines(t, before)
	})
}

// subFailReader fails every read that touches [bad, bad+1).
type subFailReader struct {
	r   io.ReaderAt
	bad int64
}

var errSubRead = errors.New("test: read failed")

func (f subFailReader) ReadAt(p []byte, off int64) (int, error) {
	if off <= f.bad && f.bad < off+int64(len(p)) {
		return 0, errSubRead
	}
	return f.r.ReadAt(p, off)
}

func TestSumReaderAtErrors(t *testing.T) {
	subBackends(t, func(t *testing.T) {
		data := make([]byte, 9<<20)
		before := runtime.NumGoroutine()
		for _, bad := range []int64{0, 5 << 20, 9<<20 - 1} {
			for _, w := range []int{1, 2, 7} {
				_, err := SumReaderAt(subFailReader{bytes.NewReader(data), bad}, int64(len(data)), w)
				if !errors.Is(err, errSubRead) {
					t.Fatalf("bad byte %d, %d workers: %v", bad, w, err)
				}
			}
		}
		// Shorter than the size given: io.ErrUnexpectedEOF, large and small.
		for _, n := range []int{10, 9 << 20} {
			_, err := SumReaderAt(bytes.NewReader(data[:n-1]), int64(n), 3)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("short reader of %d: %v", n, err)
			}
		}
		// A negative size is refused before anything is read.
		if _, err := SumReaderAt(subFailReader{bytes.NewReader(data), 0}, -1, 1); err == nil || errors.Is(err, errSubRead) {
			t.Fatalf("negative size: %v, want an error before any read", err)
		}
		subGoroutines(t, before)
	})
}

// TestSumReaderAtSparseFile hashes a 1 GiB sparse file (256 MiB on the Go
// path) with two workers, in memory that does not grow with the size. (Not
// larger: the first read of a sparse file's holes costs the kernel seconds a
// GiB on some machines.)
func TestSumReaderAtSparseFile(t *testing.T) {
	if testing.Short() {
		t.Skip("large file: skipped with -short")
	}
	size := int64(1 << 30)
	if lib == nil {
		size = 256 << 20
	}
	path := filepath.Join(t.TempDir(), "sparse")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Skipf("no sparse file here: %v", err)
	}
	// The expected hash, streamed through a hasher of zeros.
	ref := New()
	zeros := make([]byte, 1<<20)
	for i := int64(0); i < size; i += int64(len(zeros)) {
		_, _ = ref.Write(zeros)
	}
	want := [32]byte(ref.Sum(nil))

	before := runtime.NumGoroutine()
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	got, err := SumReaderAt(f, size, 2)
	runtime.ReadMemStats(&m1)
	if err != nil || got != want {
		t.Fatalf("%x, %v; want %x", got, err, want)
	}
	alloc := m1.TotalAlloc - m0.TotalAlloc
	t.Logf("%d bytes hashed with %d bytes allocated, heap in use %d", size, alloc, m1.HeapInuse)
	if alloc > 32<<20 || m1.HeapInuse > m0.HeapInuse+32<<20 {
		t.Fatalf("memory grew with the input: %d bytes allocated, heap in use %d -> %d", alloc, m0.HeapInuse, m1.HeapInuse)
	}
	subGoroutines(t, before)
}

// subOrderReader records the offset and length of every ReadAt, in order,
// and the most calls in flight at once (each lasts at least a millisecond,
// so that workers running together overlap).
type subOrderReader struct {
	r        io.ReaderAt
	mu       sync.Mutex
	offs     [][2]int64
	inFlight int
	most     int
}

func (o *subOrderReader) ReadAt(p []byte, off int64) (int, error) {
	o.mu.Lock()
	o.offs = append(o.offs, [2]int64{off, int64(len(p))})
	o.inFlight++
	o.most = max(o.most, o.inFlight)
	o.mu.Unlock()
	time.Sleep(time.Millisecond)
	defer func() {
		o.mu.Lock()
		o.inFlight--
		o.mu.Unlock()
	}()
	return o.r.ReadAt(p, off)
}

// TestSumReaderAtThreadCap: workers <= 0 follows SetMaxThreads, and one
// worker reads the input once, in order, through a buffer of at most
// readBufLen bytes (what cmd/b3sum relies on for --num-threads 1); without
// a cap, the default uses more than one reader at once.
func TestSumReaderAtThreadCap(t *testing.T) {
	defer SetMaxThreads(0)
	subBackends(t, func(t *testing.T) {
		data := subData(subRand(t), 9<<20+7)
		want := zeebo.Sum256(data)
		for _, c := range []struct{ cap, workers int }{{1, 0}, {0, 1}} {
			SetMaxThreads(c.cap)
			o := &subOrderReader{r: bytes.NewReader(data)}
			got, err := SumReaderAt(o, int64(len(data)), c.workers)
			if err != nil || got != want {
				t.Fatalf("cap %d, workers %d: %x, %v; want %x", c.cap, c.workers, got, err, want)
			}
			next := int64(0)
			for _, r := range o.offs {
				if r[0] != next || r[1] > readBufLen {
					t.Fatalf("cap %d, workers %d: reads %v not one in-order pass", c.cap, c.workers, o.offs)
				}
				next += r[1]
			}
			if next != int64(len(data)) || o.most != 1 {
				t.Fatalf("cap %d, workers %d: read %d of %d bytes, up to %d reads at once",
					c.cap, c.workers, next, len(data), o.most)
			}
		}
		SetMaxThreads(0)
		o := &subOrderReader{r: bytes.NewReader(data)}
		if got, err := SumReaderAt(o, int64(len(data)), 0); err != nil || got != want {
			t.Fatalf("no cap: %x, %v; want %x", got, err, want)
		}
		if runtime.GOMAXPROCS(0) > 1 && o.most < 2 {
			t.Fatalf("no cap, GOMAXPROCS %d: never more than one read at once", runtime.GOMAXPROCS(0))
		}
	})
}
