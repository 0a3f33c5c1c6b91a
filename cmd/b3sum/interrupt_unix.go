//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// interruptSignals are the signals after which the progress line is erased.
var interruptSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM}

// dieOf ends the process by sig, with the signal's default action, as if it
// had not been caught: a shell then reports 128+N (130 for SIGINT), and a
// shell loop running b3sum stops on Ctrl-C as it does for the Rust b3sum.
func dieOf(sig os.Signal) {
	signal.Reset(sig)
	s := sig.(syscall.Signal)
	_ = syscall.Kill(syscall.Getpid(), s)
	time.Sleep(time.Second) // the signal is on its way
	os.Exit(128 + int(s))
}
