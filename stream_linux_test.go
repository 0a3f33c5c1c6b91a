//go:build !blake3_nonative && !android && (amd64 || arm64)

package blake3

import (
	"fmt"
	"io"
	"math/bits"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/purego-blake3/blake3/internal/ffi"
	zeebo "github.com/zeebo/blake3"
)

// streamEnv asks for TestStreamParts, a measurement that
// scripts/dispatch-check.sh runs and prints.
const streamEnv = "BLAKE3_MEASURE_STREAM"

// gatherer is a Writer that only does what a Hasher's Write must do with a
// small piece before any hashing: copy it into a 16 KiB buffer.
type gatherer struct {
	n   int
	buf [bufSize]byte
}

func (g *gatherer) Write(p []byte) (int, error) {
	if g.n+len(p) > len(g.buf) {
		g.n = 0
	}
	g.gather(p)
	return len(p), nil
}

// handOver is a gatherer that hands each full buffer to h's tree when more
// input comes: the stream's work without the Hasher's own code around it.
type handOver struct {
	h *Hasher
	g gatherer
}

func (x *handOver) Write(p []byte) (int, error) {
	n := len(p)
	for p = x.g.gather(p); len(p) > 0; p = x.g.gather(p) {
		x.h.update(x.g.buf[:])
		x.g.n = 0
	}
	return n, nil
}

// gather copies what of p fits into the buffer and returns the rest, which
// is not empty only when the buffer is full and more input comes: a full
// buffer is handed over only then, and the last one stays, as in a
// Hasher, for the root. The caller empties the buffer before the next
// gather.
func (g *gatherer) gather(p []byte) []byte {
	k := copy(g.buf[g.n:], p)
	g.n += k
	return p[k:]
}

// twoCores is the data path of a hand-off to a second core that keeps the
// buffer in the Hasher: it gathers the pieces, copies each full batch into
// one of two slots, has a second goroutine hash the slot into a tree of its
// own, and merges the batches' chaining values into h's tree in order
// (pushCV). Both goroutines wait by yielding (runtime.Gosched). It has none
// of what a copy by value of a Hasher would also need (docs/stream.md: a
// log of the values, a claim on the next slot). Each counter is written by
// one goroutine and read by the other, on a cache line of its own. finish
// stops the worker.
type twoCores struct {
	h      *Hasher
	merged uint64
	g      gatherer
	slots  [2]twoCoresSlot
	_      [64]byte
	posted atomic.Uint64
	_      [56]byte
	done   atomic.Uint64
	stop   atomic.Bool
	_      [52]byte
}

// batchHeight is the height of a batch's subtree: bufSize is
// 2^batchHeight chunks.
var batchHeight = bits.TrailingZeros(bufSize / chunkLen)

// twoCoresSlot is one batch handed to twoCores' worker, and the tree it is
// hashed into.
type twoCoresSlot struct {
	buf [bufSize]byte
	t   ffi.Tree
}

func newTwoCores() *twoCores {
	x := &twoCores{h: New()}
	x.h.start()
	x.h.initTree(0)
	go func() {
		for i := uint64(0); ; i++ {
			for x.posted.Load() == i {
				if x.stop.Load() {
					return
				}
				runtime.Gosched()
			}
			s := &x.slots[i%2]
			must(lib.TreeInit(&s.t, x.h.mode, x.h.modeKey(), i*bufSize))
			must(lib.TreeUpdate(&s.t, s.buf[:], false))
			x.done.Store(i + 1)
		}
	}()
	return x
}

func (x *twoCores) Write(p []byte) (int, error) {
	n := len(p)
	for p = x.g.gather(p); len(p) > 0; p = x.g.gather(p) {
		i := x.posted.Load()
		if i >= 2 {
			x.mergeTo(i - 1) // the slot is free
		}
		x.slots[i%2].buf = x.g.buf
		x.posted.Store(i + 1)
		x.g.n = 0
	}
	return n, nil
}

func (x *twoCores) mergeTo(n uint64) {
	for ; x.merged < n; x.merged++ {
		for x.done.Load() <= x.merged {
			runtime.Gosched()
		}
		x.h.pushCV(x.slots[x.merged%2].t.Stack[batchHeight], batchHeight)
	}
}

func (x *twoCores) finish() (out [32]byte) {
	x.mergeTo(x.posted.Load())
	x.stop.Store(true)
	must(lib.TreeFinalize(x.h.t, x.g.buf[:x.g.n], 0, out[:]))
	return out
}

// TestStreamParts takes a 16 MiB stream written in 64-byte pieces on one
// thread apart, in one process, in interleaved rounds: the one-shot hash of
// the same input; the stream from the 16 MiB input (BenchmarkStream's) and
// from a 32 KiB window read again and again (a buffer that stays in cache,
// such as a parser's); the same work by hand (handOver); its two parts
// alone, the copy of the pieces into a 16 KiB buffer through an io.Writer
// and the hashing of 1024 batches of 16 KiB already in cache; and zeebo's
// one-shot and stream, for the gap a pure-Go package has. Where GOMAXPROCS
// allows two threads, it also times the stream handed off to a second
// goroutine (twoCores), and the one-shot on two threads, which shows
// whether the second core was there to be had. Each figure is the median
// of the rounds. Before any timing it checks that the Hasher streams, the
// work by hand and the hand-off give the one-shot's hash.
func TestStreamParts(t *testing.T) {
	measuring(t, streamEnv, "no batches to measure")
	waitPlan()
	defer oneCore()()
	const total, piece, window = 16 << 20, 64, 32 << 10
	big, windowed := vectorInput(total), make([]byte, total)
	for i := range windowed {
		windowed[i] = big[i%window]
	}
	write := func(w io.Writer, src []byte) {
		for off := 0; off < total; off += piece {
			o := off % len(src)
			_, _ = w.Write(src[o : o+piece])
		}
	}
	stream := func(src []byte) [32]byte {
		h := New()
		write(h, src)
		return [32]byte(h.Sum(nil))
	}
	byHand := func() (out [32]byte) {
		h := New()
		h.start()
		x := &handOver{h: h}
		write(x, big)
		must(lib.TreeFinalize(h.t, x.g.buf[:x.g.n], 0, out[:]))
		return out
	}
	batches := func() {
		h := New()
		h.start()
		for range total/bufSize - 1 {
			h.update(big[:bufSize])
		}
		_, _ = h.Write(big[:bufSize]) // the last batch, whose root Sum computes
		h.Sum(nil)
	}
	want := Sum256(big)
	if got := stream(big); got != want {
		t.Fatalf("the stream from the input gives %x, Sum256 %x", got, want)
	}
	if got := byHand(); got != want {
		t.Fatalf("the work by hand gives %x, Sum256 %x", got, want)
	}
	if got, want := stream(big[:window]), Sum256(windowed); got != want {
		t.Fatalf("the stream from a window gives %x, Sum256 %x", got, want)
	}
	handedOff := func() [32]byte {
		x := newTwoCores()
		write(x, big)
		return x.finish()
	}
	if got := handedOff(); got != want {
		t.Fatalf("the stream handed off to a second goroutine gives %x, Sum256 %x", got, want)
	}
	type part struct {
		key, name string
		run       func()
	}
	parts := []part{
		{"one-shot", "one-shot Sum256", func() { Sum256(big) }},
		{"", "stream, pieces from the 16 MiB input", func() { stream(big) }},
		{"", "stream, pieces from a 32 KiB window", func() { stream(big[:window]) }},
		{"", "by hand: gather, hand each full 16 KiB over, from the input", func() { byHand() }},
		{"copy-input", "the copy alone, from the input", func() { write(new(gatherer), big) }},
		{"copy-window", "the copy alone, from the window", func() { write(new(gatherer), big[:window]) }},
		{"hashing", "the hashing alone: 1024 batches of 16 KiB in cache", batches},
		{"zeebo", "zeebo one-shot", func() { zeebo.Sum256(big) }},
		{"zeebo", "zeebo stream, pieces from the input", func() {
			h := zeebo.New()
			write(h, big)
			h.Sum(nil)
		}},
	}
	if runtime.GOMAXPROCS(0) >= 2 {
		onTwo := func() {
			defer capThreads(2)()
			Sum256(big)
		}
		parts = append(parts,
			part{"", "two threads: one-shot Sum256 on the rayon pool", onTwo},
			part{"", "two threads: each full batch copied to a second goroutine, from the input", func() { handedOff() }},
		)
	}
	times := make([][]float64, len(parts))
	for range 15 {
		for i, p := range parts {
			t0 := time.Now()
			p.run()
			times[i] = append(times[i], float64(time.Since(t0).Microseconds())/1000)
		}
	}
	// Each row against its own one-shot: the first of its key, or this
	// package's.
	ms, first := make([]float64, len(parts)), map[string]float64{}
	for i, p := range parts {
		ms[i] = median(times[i])
		if _, ok := first[p.key]; !ok {
			first[p.key] = ms[i]
		}
	}
	fmt.Printf("| 16 MiB, 64-byte pieces, one thread unless said | ms | one-shot / this |\n|---|---:|---:|\n")
	for i, p := range parts {
		ref := first["one-shot"]
		if p.key == "zeebo" {
			ref = first["zeebo"]
		}
		fmt.Printf("| %s | %.2f | %.2f |\n", p.name, ms[i], ref/ms[i])
	}
	for _, from := range []string{"input", "window"} {
		floor := first["hashing"] + first["copy-"+from]
		fmt.Printf("| floor of this design: hashing + copy from the %s | %.2f | %.2f |\n", from, floor, first["one-shot"]/floor)
	}
}
