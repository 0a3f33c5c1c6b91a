package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

const (
	// progressDelay is how long hashing one input must take before a
	// progress line appears.
	progressDelay = time.Second
	// progressInterval is the refresh period of the progress line.
	progressInterval = 250 * time.Millisecond
	// progressWidth is the widest progress line drawn, in characters.
	progressWidth = 79
)

// progress draws a single, self-erasing status line on stderr while a long
// input is hashed. It is only enabled when stderr is a terminal and
// --no-progress was not given; it never writes to stdout.
type progress struct {
	enabled bool
	w       io.Writer
	mu      *sync.Mutex // serialises writes to w with other stderr output
}

// meter tracks one input being hashed.
type meter struct {
	p       *progress
	name    string
	total   int64 // -1 when unknown (pipes, stdin)
	done    atomic.Int64
	start   time.Time
	stop    chan struct{}
	stopped chan struct{}
	drawn   int // width of the last line drawn; 0 if nothing is shown
}

// start begins metering an input of total bytes (-1 if unknown). It
// returns nil when progress is disabled; a nil *meter is valid and inert.
func (p *progress) start(name string, total int64) *meter {
	if p == nil || !p.enabled {
		return nil
	}
	m := &meter{
		p:       p,
		name:    name,
		total:   total,
		start:   time.Now(),
		stop:    make(chan struct{}),
		stopped: make(chan struct{}),
	}
	go m.loop()
	return m
}

// add records n more bytes hashed.
func (m *meter) add(n int) {
	if m != nil {
		m.done.Add(int64(n))
	}
}

// finish stops the meter and erases its line, if one was drawn.
func (m *meter) finish() {
	if m == nil {
		return
	}
	close(m.stop)
	<-m.stopped
	if m.drawn > 0 {
		m.p.mu.Lock()
		fmt.Fprintf(m.p.w, "\r%s\r", strings.Repeat(" ", m.drawn))
		m.p.mu.Unlock()
	}
}

func (m *meter) loop() {
	defer close(m.stopped)
	t := time.NewTicker(progressInterval)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case now := <-t.C:
			if now.Sub(m.start) < progressDelay {
				continue
			}
			m.draw(now)
		}
	}
}

func (m *meter) draw(now time.Time) {
	done := m.done.Load()
	elapsed := now.Sub(m.start).Seconds()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(done) / elapsed
	}
	var line string
	if m.total >= 0 {
		pct := 100.0
		if m.total > 0 {
			pct = 100 * float64(done) / float64(m.total)
		}
		eta := "--:--"
		if rate > 0 && done <= m.total {
			eta = formatDuration(time.Duration(float64(m.total-done) / rate * float64(time.Second)))
		}
		line = fmt.Sprintf("b3sum: %s: %s / %s (%.0f%%), %s/s, ETA %s",
			m.name, formatBytes(done), formatBytes(m.total), pct, formatBytes(int64(rate)), eta)
	} else {
		line = fmt.Sprintf("b3sum: %s: %s, %s/s", m.name, formatBytes(done), formatBytes(int64(rate)))
	}
	if over := utf8.RuneCountInString(line) - progressWidth; over > 0 {
		// Shorten the name from the left so that the line never wraps
		// (a wrapped line could not be erased with a carriage return).
		name := []rune(m.name)
		keep := max(len(name)-over-1, 8)
		if keep < len(name) {
			line = strings.Replace(line, m.name, "…"+string(name[len(name)-keep:]), 1)
		}
	}
	pad := ""
	if n := utf8.RuneCountInString(line); n < m.drawn {
		pad = strings.Repeat(" ", m.drawn-n)
	}
	m.p.mu.Lock()
	fmt.Fprintf(m.p.w, "\r%s%s", line, pad)
	m.p.mu.Unlock()
	if n := utf8.RuneCountInString(line); n > m.drawn {
		m.drawn = n
	}
}

// formatBytes renders a byte count with binary units, e.g. "1.50 GiB".
func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f := float64(n)
	for _, u := range []string{"KiB", "MiB", "GiB", "TiB", "PiB"} {
		f /= unit
		if f < unit {
			return fmt.Sprintf("%.2f %s", f, u)
		}
	}
	return fmt.Sprintf("%.2f EiB", f/unit)
}

// formatDuration renders a duration as m:ss or h:mm:ss.
func formatDuration(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
