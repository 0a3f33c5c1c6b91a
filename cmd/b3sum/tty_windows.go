//go:build windows

package main

import "golang.org/x/sys/windows"

// isTerminal reports whether the handle is a console.
func isTerminal(fd uintptr) bool {
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(fd), &mode) == nil
}

// termWidth is the width of the console's window in columns, 0 if unknown.
func termWidth(fd uintptr) int {
	var info windows.ConsoleScreenBufferInfo
	if windows.GetConsoleScreenBufferInfo(windows.Handle(fd), &info) != nil {
		return 0
	}
	return int(info.Window.Right-info.Window.Left) + 1
}
