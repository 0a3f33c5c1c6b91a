//go:build linux

package main

import "golang.org/x/sys/unix"

// isTerminal reports whether the file descriptor is a terminal.
func isTerminal(fd uintptr) bool {
	_, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
	return err == nil
}
