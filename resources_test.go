package blake3

// Resources: memory that does not grow with the input or with the
// number of hashers, on the Go heap and (on Linux) in the process's resident
// memory, where a leak on the native side would show; and no goroutine left
// behind. Also the > 4 GiB input, streamed and through SumReaderAt, against
// zeebo/blake3, which is where 32-bit length arithmetic would break.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	zeebo "github.com/zeebo/blake3"
)

// resPattern is a deterministic input of any length, made of 1 MiB blocks:
// a fixed pseudo-random block whose first 8 bytes are replaced by the block
// number, so that no two blocks are the same. It is an io.ReaderAt.
type resPattern struct{ base []byte }

const resBlock = 1 << 20

func newResPattern() resPattern {
	return resPattern{base: randomBytes(newTestRand(8), resBlock)}
}

// fill writes the pattern's bytes [off, off+len(p)) to p.
func (r resPattern) fill(p []byte, off int64) {
	for len(p) > 0 {
		in := off & (resBlock - 1)
		n := copy(p, r.base[in:])
		if in < 8 {
			var hdr [8]byte
			binary.LittleEndian.PutUint64(hdr[:], uint64(off/resBlock))
			copy(p[:n], hdr[in:])
		}
		p, off = p[n:], off+int64(n)
	}
}

func (r resPattern) ReadAt(p []byte, off int64) (int, error) {
	r.fill(p, off)
	return len(p), nil
}

// stream writes the pattern's first size bytes to each writer: 7 bytes,
// then 1 MiB at a time through one reused buffer (so that every write but
// the first tops up a partly filled buffer), then the rest. each, when not
// nil, runs every 64 writes.
func (r resPattern) stream(size int64, each func(), ws ...io.Writer) {
	buf := make([]byte, resBlock)
	for off, i := int64(0), 0; off < size; i++ {
		n := min(int64(len(buf)), size-off)
		if off == 0 {
			n = min(7, size)
		}
		p := buf[:n]
		r.fill(p, off)
		for _, w := range ws {
			_, _ = w.Write(p)
		}
		off += n
		if each != nil && i%64 == 0 {
			each()
		}
	}
}

// resHeap is the heap in use after a collection.
func resHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// resRSS is the resident memory in bytes after the Go heap's free memory is
// returned to the system (0 where /proc is not available).
func resRSS(t testing.TB) uint64 {
	t.Helper()
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmRSS:" && f[2] == "kB" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// resThreads is the process's number of OS threads (0 without /proc).
func resThreads() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Threads:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

const mib = 1 << 20

// TestResourcesStreamOver4GiB streams 4 GiB and a bit through a Hasher in
// 1 MiB writes of one reused buffer, on each backend, and checks the hash
// against zeebo/blake3 streaming the same, and the Go heap stays flat while
// it runs. SumReaderAt of the same input must agree too (the native path's
// subtrees, the Go path's goTree). About 15 s; skipped with -short.
func TestResourcesStreamOver4GiB(t *testing.T) {
	if testing.Short() {
		t.Skip("4 GiB of input: skipped with -short")
	}
	const size = 4<<30 + 345679 // past 2^32, not a multiple of anything
	pat := newResPattern()
	start := time.Now()
	z := zeebo.New()
	pat.stream(size, nil, z)
	want := z.Sum(nil)
	zd := z.Digest()
	_, _ = zd.Seek(1<<33+5, io.SeekStart)
	wantOut := make([]byte, 200)
	_, _ = zd.Read(wantOut)
	t.Logf("zeebo/blake3: %d bytes in %v", int64(size), time.Since(start).Round(time.Millisecond))

	forEachBackend(t, func(t *testing.T) {
		h := New()
		base := resHeap()
		rss := resRSS(t)
		var peak uint64
		var m runtime.MemStats
		start := time.Now()
		pat.stream(size, func() {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
		}, h)
		elapsed := time.Since(start)
		rssAfter := resRSS(t)
		if got := h.Sum(nil); !bytes.Equal(got, want) {
			t.Fatalf("4 GiB stream: %x, want %x (zeebo)", got, want)
		}
		d := h.Digest()
		_, _ = d.Seek(1<<33+5, io.SeekStart)
		out := make([]byte, 200)
		_, _ = d.Read(out)
		if !bytes.Equal(out, wantOut) {
			t.Fatalf("4 GiB stream: output at 2^33+5 %s, want %s", shortHex(out), shortHex(wantOut))
		}
		t.Logf("streamed in %v; heap in use %d KiB at the start, at most %d KiB while streaming; RSS %d -> %d KiB",
			elapsed.Round(time.Millisecond), base>>10, peak>>10, rss>>10, rssAfter>>10)
		if peak > base+4*mib {
			t.Errorf("the heap grew while streaming: %d KiB in use at the start, %d KiB at the peak", base>>10, peak>>10)
		}
		if rss != 0 && rssAfter > rss+64*mib {
			t.Errorf("resident memory grew while streaming: %d -> %d KiB", rss>>10, rssAfter>>10)
		}

		start = time.Now()
		sum, err := SumReaderAt(pat, size, 0)
		if err != nil || !bytes.Equal(sum[:], want) {
			t.Fatalf("SumReaderAt of 4 GiB: %x, %v; want %x", sum, err, want)
		}
		t.Logf("SumReaderAt in %v", time.Since(start).Round(time.Millisecond))
	})
}

// TestResourcesManyHashers creates a million hashers (100,000 with -short),
// each written to and summed, and drops them: the heap after a collection
// is back where it was. Then a few hundred thousand calls that cross into
// the library, whose memory the Go heap does not see: resident memory must
// not grow with them.
func TestResourcesManyHashers(t *testing.T) {
	count := 1_000_000
	if testing.Short() {
		count = 100_000
	}
	key := []byte(vectorKey)
	forEachBackend(t, func(t *testing.T) {
		big := vectorInput(bufSize + 1)
		round := func(count int) {
			var sum [64]byte
			var msg [16]byte
			for i := range count {
				binary.LittleEndian.PutUint64(msg[:], uint64(i))
				h := New()
				_, _ = h.Write(msg[:])
				s := h.Sum(sum[:0])
				if i%100_000 == 0 {
					if want := zeebo.Sum256(msg[:]); !bytes.Equal(s, want[:]) {
						t.Fatalf("hasher %d: %x, want %x", i, s, want)
					}
				}
				if i%4096 == 0 { // now and then, one with a native state
					k, _ := NewKeyed(key)
					_, _ = k.Write(big)
					c := k.Clone()
					_, _ = c.Write(msg[:])
					_, _ = c.Digest().Read(sum[:])
					_ = k.Sum(sum[:0])
				}
			}
		}
		round(count / 100) // warm-up: pools, caches
		before := resHeap()
		start := time.Now()
		round(count)
		elapsed := time.Since(start)
		after := resHeap()
		t.Logf("%d hashers in %v; heap in use %d -> %d KiB", count, elapsed.Round(time.Millisecond), before>>10, after>>10)
		if after > before+mib {
			t.Errorf("heap in use grew from %d to %d KiB after %d hashers", before>>10, after>>10, count)
		}

		// One-shots and small streams that cross into the library.
		if lib == nil {
			return
		}
		calls := count / 4
		cross := func(n int) {
			in := vectorInput(chunkLen)
			out := make([]byte, 64)
			for i := range n {
				in[0] = byte(i)
				_ = Sum256(in)
				DeriveKey(vectorContext, in, out[:1+i%64])
				k, _ := NewKeyed(key)
				_, _ = k.Write(in)
				_ = k.Sum(out[:0])
			}
		}
		cross(calls / 10)
		rss := resRSS(t)
		heap := resHeap()
		start = time.Now()
		cross(calls)
		elapsed = time.Since(start)
		rssAfter, heapAfter := resRSS(t), resHeap()
		t.Logf("%d crossings x3 in %v; heap %d -> %d KiB, RSS %d -> %d KiB", calls, elapsed.Round(time.Millisecond),
			heap>>10, heapAfter>>10, rss>>10, rssAfter>>10)
		if heapAfter > heap+mib {
			t.Errorf("heap in use grew from %d to %d KiB after %d crossings", heap>>10, heapAfter>>10, calls)
		}
		if rss != 0 && rssAfter > rss+16*mib {
			t.Errorf("resident memory grew from %d to %d KiB after %d crossings: a leak on the native side?", rss>>10, rssAfter>>10, calls)
		}
	})
}

// resWaitGoroutines waits up to 2 s for the goroutine count to fall back to
// before.
func resWaitGoroutines(t *testing.T, before int, what string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%s: %d goroutines before, %d after:\n%s", what, before, runtime.NumGoroutine(), buf)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// resFailAt fails every read that reaches byte bad or beyond.
type resFailAt struct {
	r   io.ReaderAt
	bad int64
}

var errResRead = errors.New("test: planted read error")

func (f resFailAt) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.bad {
		return 0, errResRead
	}
	return f.r.ReadAt(p, off)
}

// TestResourcesGoroutines: no goroutine outlives SumReaderAt,
// DigestReaderAt, multi-core hashing or their failures; and, once the
// library's thread pool has started, repeating the work does not add OS
// threads.
func TestResourcesGoroutines(t *testing.T) {
	pat := newResPattern()
	size := int64(9<<20 + 3)
	if testing.Short() {
		size = 5<<20 + 3
	}
	data := make([]byte, size)
	pat.fill(data, 0)
	want := zeebo.Sum256(data)
	forEachBackend(t, func(t *testing.T) {
		work := func() {
			for _, w := range []int{-1, 0, 1, 2, 3, 16, 5000} {
				got, err := SumReaderAt(pat, size, w)
				if err != nil || got != want {
					t.Fatalf("SumReaderAt, %d workers: %x, %v; want %x", w, got, err, want)
				}
			}
			k, _ := NewKeyed([]byte(vectorKey))
			if _, err := k.DigestReaderAt(bytes.NewReader(data), size, 4); err != nil {
				t.Fatal(err)
			}
			for _, bad := range []int64{0, 1, 3 << 20, size - 1} {
				for _, w := range []int{1, 4, 64} {
					if _, err := SumReaderAt(resFailAt{pat, bad}, size, w); !errors.Is(err, errResRead) {
						t.Fatalf("read error at %d, %d workers: %v", bad, w, err)
					}
				}
			}
			if _, err := SumReaderAt(bytes.NewReader(data[:size-1]), size, 3); !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("short reader: %v", err)
			}
			// Multi-core hashing inside the library: threads, not goroutines.
			withMaxThreads(0, func() {
				if got := Sum256(data); got != want {
					t.Fatalf("Sum256: %x", got)
				}
				h := New()
				_, _ = h.Write(data)
				_ = h.Sum(nil)
			})
		}
		before := runtime.NumGoroutine()
		work() // the first run starts the library's thread pool
		resWaitGoroutines(t, before, "SumReaderAt and multi-core hashing, first run")
		threads := resThreads()
		for range 3 {
			work()
		}
		resWaitGoroutines(t, before, "SumReaderAt and multi-core hashing")
		after := resThreads()
		t.Logf("goroutines %d; OS threads %d -> %d", before, threads, after)
		// The Go runtime may start a few threads of its own (for calls that
		// block); a pool started per call would add dozens.
		if threads != 0 && after > threads+runtime.GOMAXPROCS(0)+4 {
			t.Errorf("OS threads grew from %d to %d over repeated runs", threads, after)
		}
	})
}
