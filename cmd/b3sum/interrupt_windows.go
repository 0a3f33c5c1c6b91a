//go:build windows

package main

import "os"

// interruptSignals are the signals after which the progress line is erased:
// Ctrl-C and Ctrl-Break.
var interruptSignals = []os.Signal{os.Interrupt}

// statusControlCExit is STATUS_CONTROL_C_EXIT (0xC000013A) as the int32 that
// os.Exit hands to ExitProcess (an int cannot hold 0xC000013A on windows/386).
const statusControlCExit = -0x3FFFFEC6

// dieOf ends the process with STATUS_CONTROL_C_EXIT, the status of a console
// program (the Rust b3sum) ended by Ctrl-C.
func dieOf(os.Signal) { os.Exit(statusControlCExit) }
