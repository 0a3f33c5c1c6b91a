package main

import (
	"os"
	"os/signal"
)

// watchInterrupts makes an interrupt (Ctrl-C: SIGINT) or a SIGTERM erase the
// progress line before the process ends, so that no stale "… ETA 0:03^C" is
// left on the terminal; the process then ends as the Rust b3sum, which does
// not catch them, would (dieOf: killed by the same signal on Unix, exit
// status 130 in a shell after Ctrl-C). It does nothing unless progress is
// enabled, so that output to files and pipes keeps Go's default handling,
// which ends the process the same way. The returned func stops watching.
func (p *progress) watchInterrupts() (stop func()) {
	if p == nil || !p.enabled || len(interruptSignals) == 0 {
		return func() {}
	}
	c := make(chan os.Signal, 1)
	signal.Notify(c, interruptSignals...)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-c:
			// Held to the end: no redraw after the erase.
			p.mu.Lock()
			p.erase(2) // and the "^C" the terminal echoed after the line
			dieOf(sig)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(c)
		close(done)
	}
}
