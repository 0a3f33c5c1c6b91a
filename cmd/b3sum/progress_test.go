package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestProgressLine: bytes read through meteredReaderAt (as hashFile reads a
// large file, from several goroutines) reach the progress line, which names
// the file, its size and the share done, and is erased when the file is done.
// (A terminal cannot be faked here; the line's writer is a buffer.)
func TestProgressLine(t *testing.T) {
	var out bytes.Buffer
	p := &progress{enabled: true, w: &out, mu: &sync.Mutex{}}
	const total = 4 << 20
	m := p.start("big file", total)
	r := meteredReaderAt{strings.NewReader(strings.Repeat("x", total)), m}
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 1<<20)
			if n, err := r.ReadAt(buf[:512<<10], int64(i)<<20); n != 512<<10 || err != nil {
				t.Errorf("ReadAt: %d, %v", n, err)
			}
		}()
	}
	wg.Wait()
	m.draw(m.start.Add(2 * time.Second))
	line := out.String()
	if want := "\rb3sum: big file: 2.00 MiB / 4.00 MiB (50%), 1.00 MiB/s, ETA 0:02"; line != want {
		t.Fatalf("progress line %q, want %q", line, want)
	}
	m.finish()
	if got, want := out.String(), line+"\r"+strings.Repeat(" ", len(line)-1)+"\r"; got != want {
		t.Fatalf("after finish: %q, want %q", got, want)
	}
	(*meter)(nil).add(1) // a disabled meter is inert
	if (&progress{}).start("x", 1) != nil {
		t.Fatal("a disabled progress started a meter")
	}
}
