//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package main

// isTerminal reports false: terminal detection is not implemented here, so
// no progress is shown.
func isTerminal(fd uintptr) bool { return false }
