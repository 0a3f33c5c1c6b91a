//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package main

// isTerminal reports false: terminal detection is not implemented here, so
// no progress is shown.
func isTerminal(fd uintptr) bool { return false }

// termWidth reports 0 (unknown); with no progress line it is never asked.
func termWidth(fd uintptr) int { return 0 }
