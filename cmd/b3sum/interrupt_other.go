//go:build !unix && !windows

package main

import "os"

// interruptSignals is empty: there is no progress line here (isTerminal
// reports false), so nothing to erase.
var interruptSignals []os.Signal

// dieOf is never called here.
func dieOf(os.Signal) { os.Exit(1) }
