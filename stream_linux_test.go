//go:build !blake3_nonative && !android && (amd64 || arm64)

package blake3

import (
	"fmt"
	"io"
	"os"
	"testing"
	"time"

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
	g.n += copy(g.buf[g.n:], p)
	return len(p), nil
}

// handOver is a gatherer that hands each full buffer to h's tree: the
// stream's work without the Hasher's own code around it.
type handOver struct {
	h *Hasher
	g gatherer
}

func (x *handOver) Write(p []byte) (int, error) {
	if x.g.n+len(p) > len(x.g.buf) {
		x.h.update(x.g.buf[:])
		x.g.n = 0
	}
	x.g.n += copy(x.g.buf[x.g.n:], p)
	return len(p), nil
}

// TestStreamParts takes a 16 MiB stream written in 64-byte pieces on one
// thread apart, in one process, in interleaved rounds: the one-shot hash of
// the same input; the stream from the 16 MiB input (BenchmarkStream's) and
// from a 32 KiB window read again and again (as from io.Copy's or a
// bufio.Reader's buffer); the same work by hand (handOver); its two parts
// alone, the copy of the pieces into a 16 KiB buffer through an io.Writer
// and the hashing of 1024 batches of 16 KiB already in cache; and zeebo's
// one-shot and stream, for the gap a
// pure-Go peer has. Each figure is the median of the rounds. Before any
// timing it checks that every stream gives the one-shot's hash.
func TestStreamParts(t *testing.T) {
	if os.Getenv(streamEnv) == "" {
		t.Skip("a measurement: scripts/dispatch-check.sh runs it (" + streamEnv + "=1)")
	}
	if !nativeActive(t) {
		t.Skip("no native library: no batches to measure")
	}
	defer oneCore()()
	const total, piece, window = 16 << 20, 64, 32 << 10
	big, windowed := make([]byte, total), make([]byte, total)
	for i := range big {
		big[i] = byte(i % 251)
	}
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
	batches := func() {
		h := New()
		h.start()
		for range total/bufSize - 1 {
			h.update(big[:bufSize])
		}
		_, _ = h.Write(big[:bufSize]) // the last batch, whose root Sum computes
		h.Sum(nil)
	}
	if got, want := stream(big), Sum256(big); got != want {
		t.Fatalf("the stream from the input gives %x, Sum256 %x", got, want)
	}
	if got, want := stream(big[:window]), Sum256(windowed); got != want {
		t.Fatalf("the stream from a window gives %x, Sum256 %x", got, want)
	}
	parts := []struct {
		name string
		run  func()
	}{
		{"one-shot Sum256", func() { Sum256(big) }},
		{"stream, pieces from the 16 MiB input", func() { stream(big) }},
		{"stream, pieces from a 32 KiB window", func() { stream(big[:window]) }},
		{"by hand: gather, hand each full 16 KiB over, from the input", func() {
			h := New()
			h.start()
			write(&handOver{h: h}, big)
		}},
		{"the copy alone, from the input", func() { write(new(gatherer), big) }},
		{"the copy alone, from the window", func() { write(new(gatherer), big[:window]) }},
		{"the hashing alone: 1024 batches of 16 KiB in cache", batches},
		{"zeebo one-shot", func() { zeebo.Sum256(big) }},
		{"zeebo stream, pieces from the input", func() {
			h := zeebo.New()
			write(h, big)
			h.Sum(nil)
		}},
	}
	times := make([][]float64, len(parts))
	for range 15 {
		for i, p := range parts {
			t0 := time.Now()
			p.run()
			times[i] = append(times[i], float64(time.Since(t0).Microseconds())/1000)
		}
	}
	ms := make([]float64, len(parts))
	for i := range parts {
		ms[i] = crossingMedian(times[i])
	}
	fmt.Printf("| 16 MiB, 64-byte pieces, one thread | ms | one-shot / this |\n|---|---:|---:|\n")
	for i, p := range parts {
		ref := ms[0]
		if i >= 7 {
			ref = ms[7] // zeebo's rows against zeebo's one-shot
		}
		fmt.Printf("| %s | %.2f | %.2f |\n", p.name, ms[i], ref/ms[i])
	}
	fmt.Printf("| floor of this design: hashing + copy from the input | %.2f | %.2f |\n", ms[6]+ms[4], ms[0]/(ms[6]+ms[4]))
	fmt.Printf("| floor of this design: hashing + copy from the window | %.2f | %.2f |\n", ms[6]+ms[5], ms[0]/(ms[6]+ms[5]))
}
