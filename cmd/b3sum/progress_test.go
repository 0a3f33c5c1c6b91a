package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
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

// TestProgressLineFits: at every terminal width the line fits (leaving the
// margin for an echoed ^C), uses the width it has (a long name is not cut
// at a fixed 79 columns on a wide terminal), keeps the end of the name while
// there is room for minNameLen characters of it, and drops fields only when
// the name cannot shrink further.
func TestProgressLineFits(t *testing.T) {
	long := strings.Repeat("directory/", 12) + "file.bin" // 128 characters
	for _, name := range []string{"f", "ünïcödé.bin", long} {
		for _, total := range []int64{-1, 0, 3 << 30} {
			for width := 1; width <= 200; width++ {
				line := progressLine(name, 1<<30, total, 512<<20, width)
				n := utf8.RuneCountInString(line)
				if n > width {
					t.Fatalf("name %q total %d width %d: %d characters: %q", name, total, width, n, line)
				}
				tail := string([]rune(name)[max(0, utf8.RuneCountInString(name)-minNameLen):])
				if width >= 60 && !strings.Contains(line, tail) {
					t.Errorf("name %q total %d width %d: the end of the name is lost: %q", name, total, width, line)
				}
				if full := progressLine(name, 1<<30, total, 512<<20, 1000); width >= utf8.RuneCountInString(full) && line != full {
					t.Errorf("name %q total %d width %d: %q, want the full line %q", name, total, width, line, full)
				}
			}
		}
	}
	if got := progressLine(long, 1<<30, 3<<30, 512<<20, 117); utf8.RuneCountInString(got) != 117 ||
		!strings.HasPrefix(got, "b3sum: …") || !strings.HasSuffix(got, "file.bin: 1.00 GiB / 3.00 GiB (33%), 512.00 MiB/s, ETA 0:04") {
		t.Errorf("120 columns: %q, want the whole width, the name shortened from the left", got)
	}
	// At 40 columns the rate goes before the name falls under minNameLen.
	if got, want := progressLine(long, 1<<30, 3<<30, 512<<20, 37), "…ry/directory/file.bin: 33%, ETA 0:04"; got != want {
		t.Errorf("40 columns: %q, want %q", got, want)
	}
}

// TestProgressShrink: after the terminal narrows, a redraw never pads past
// the new width (padding to the old line's width would wrap).
func TestProgressShrink(t *testing.T) {
	var out bytes.Buffer
	cols := 120
	p := &progress{enabled: true, w: &out, mu: &sync.Mutex{}, width: func() int { return cols }}
	m := &meter{p: p, name: strings.Repeat("n", 200), total: 1 << 30, start: time.Now()}
	m.done.Store(1 << 20)
	m.draw(m.start.Add(2 * time.Second))
	if n := utf8.RuneCountInString(out.String()) - 1; n != 117 {
		t.Fatalf("at 120 columns: %d characters drawn, want 117: %q", n, out.String())
	}
	out.Reset()
	cols = 40
	m.draw(m.start.Add(3 * time.Second))
	if n := utf8.RuneCountInString(out.String()) - 1; n > 37 || p.drawn > 37 {
		t.Fatalf("at 40 columns after 120: %d characters written (drawn %d): %q", n, p.drawn, out.String())
	}
}
