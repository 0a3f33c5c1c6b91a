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
	// progressInterval is the refresh period of the progress line; the
	// terminal's width is asked again at each one, so the line follows a
	// resize within a quarter of a second (one ioctl, about a microsecond).
	progressInterval = 250 * time.Millisecond
	// defaultWidth is assumed when the terminal's width cannot be read.
	defaultWidth = 80
	// progressMargin is how many columns the line leaves free at the right:
	// two for the "^C" a terminal echoes when Ctrl-C is pressed, and the
	// last column, where a character would leave the cursor waiting to
	// wrap. A line that wrapped could not be erased with a carriage return.
	progressMargin = 3
	// minNameLen is how many characters of a shortened name are kept at
	// least; below that, the line drops other fields first.
	minNameLen = 8
)

// progress draws a single, self-erasing status line on stderr while a long
// input is hashed, as wide as the terminal allows. It is only enabled when
// stderr is a terminal and --no-progress was not given; it never writes to
// stdout.
type progress struct {
	enabled bool
	w       io.Writer
	mu      *sync.Mutex // serialises writes to w with other stderr output
	width   func() int  // the terminal's width in columns, 0 if unknown; nil: unknown
	drawn   int         // columns of the line on screen, 0 if none (guarded by mu)
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
}

// testThrottle, when set, is called with the size of every piece metered:
// only the binaries the tests build set it (throttle_testhook.go), to make
// a progress line last long enough to be looked at.
var testThrottle func(n int)

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
		if testThrottle != nil {
			testThrottle(n)
		}
	}
}

// finish stops the meter and erases its line, if one was drawn.
func (m *meter) finish() {
	if m == nil {
		return
	}
	close(m.stop)
	<-m.stopped
	m.p.mu.Lock()
	m.p.erase(0)
	m.p.mu.Unlock()
}

// erase blanks the line on screen, if any, and extra columns after it, and
// returns the cursor to the start of the line. The caller holds p.mu.
func (p *progress) erase(extra int) {
	if p.drawn > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.drawn+extra))
		p.drawn = 0
	}
}

// maxLine is the widest line that may be drawn now.
func (p *progress) maxLine() int {
	w := 0
	if p.width != nil {
		w = p.width()
	}
	if w <= 0 {
		w = defaultWidth
	}
	return max(w-progressMargin, 1)
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
	width := m.p.maxLine()
	line := progressLine(m.name, done, m.total, rate, width)
	n := utf8.RuneCountInString(line)
	m.p.mu.Lock()
	defer m.p.mu.Unlock()
	// Blank what is left of a longer line drawn before, but never past
	// the margin: after the terminal shrank, padding to the old width
	// would wrap.
	pad := ""
	if k := min(m.p.drawn, width) - n; k > 0 {
		pad = strings.Repeat(" ", k)
	}
	fmt.Fprintf(m.p.w, "\r%s%s", line, pad)
	m.p.drawn = max(min(m.p.drawn, width), n)
}

// progressLine is the progress text for the input name, done bytes of total
// (total < 0: unknown) at rate bytes per second, at most width characters
// wide. It is the first of these forms that fits, the name shortened from
// the left (keeping at least minNameLen characters of it) if need be:
//
//	b3sum: NAME: 1.00 GiB / 4.00 GiB (25%), 512.00 MiB/s, ETA 0:06
//	NAME: 25%, 512.00 MiB/s, ETA 0:06
//	NAME: 25%, ETA 0:06
//	25%, ETA 0:06                          (cut to width if even that is too wide)
//
// and for an input of unknown size "b3sum: NAME: 1.00 GiB, 512.00 MiB/s",
// "NAME: 1.00 GiB, 512.00 MiB/s", "NAME: 1.00 GiB", "1.00 GiB".
func progressLine(name string, done, total int64, rate float64, width int) string {
	const slot = "\x00" // where the name goes in a form
	var forms []string
	if total >= 0 {
		pct := 100.0
		if total > 0 {
			pct = 100 * float64(done) / float64(total)
		}
		eta := "--:--"
		if rate > 0 && done <= total {
			eta = formatDuration(time.Duration(float64(total-done) / rate * float64(time.Second)))
		}
		p := fmt.Sprintf("%.0f%%", pct)
		forms = []string{
			fmt.Sprintf("b3sum: %s: %s / %s (%s), %s/s, ETA %s", slot, formatBytes(done), formatBytes(total), p, formatBytes(int64(rate)), eta),
			fmt.Sprintf("%s: %s, %s/s, ETA %s", slot, p, formatBytes(int64(rate)), eta),
			fmt.Sprintf("%s: %s, ETA %s", slot, p, eta),
			fmt.Sprintf("%s, ETA %s", p, eta),
		}
	} else {
		forms = []string{
			fmt.Sprintf("b3sum: %s: %s, %s/s", slot, formatBytes(done), formatBytes(int64(rate))),
			fmt.Sprintf("%s: %s, %s/s", slot, formatBytes(done), formatBytes(int64(rate))),
			fmt.Sprintf("%s: %s", slot, formatBytes(done)),
			formatBytes(done),
		}
	}
	runes := []rune(name)
	for _, f := range forms {
		before, after, named := strings.Cut(f, slot)
		fixed := utf8.RuneCountInString(before) + utf8.RuneCountInString(after)
		switch room := width - fixed; {
		case !named && fixed <= width:
			return f
		case !named:
		case len(runes) <= room:
			return before + name + after
		case room-1 >= minNameLen:
			return before + "…" + string(runes[len(runes)-(room-1):]) + after
		}
	}
	last := []rune(forms[len(forms)-1])
	return string(last[:min(len(last), width)])
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
