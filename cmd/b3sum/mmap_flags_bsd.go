//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package main

import "golang.org/x/sys/unix"

// mmapFlags: a plain shared read-only mapping (MAP_POPULATE is Linux's).
const mmapFlags = unix.MAP_SHARED
