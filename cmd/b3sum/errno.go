//go:build !plan9

package main

import (
	"errors"
	"fmt"
	"syscall"
)

// errnoText formats an OS error number as Rust's std::io::Error does.
func errnoText(err error) (string, bool) {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return fmt.Sprintf("%s (os error %d)", capitalize(errno.Error()), uint(errno)), true
	}
	return "", false
}
