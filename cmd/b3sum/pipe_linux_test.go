package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestGrowPipe: a pipe's buffer grows to pipeSize (unless the system limit
// is lower), the pipe still carries its data, and a regular file or a
// non-file reader is left alone.
func TestGrowPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	growPipe(r)
	got, err := unix.FcntlInt(r.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	limit := pipeSize
	if b, err := os.ReadFile("/proc/sys/fs/pipe-max-size"); err == nil {
		var n int
		if _, err := fmt.Sscan(strings.TrimSpace(string(b)), &n); err == nil && n < limit {
			limit = n
		}
	}
	if got < limit {
		t.Fatalf("pipe buffer %d bytes after growPipe, want %d", got, limit)
	}
	go func() {
		_, _ = w.Write([]byte("through the pipe"))
		w.Close()
	}()
	if b, err := io.ReadAll(r); err != nil || string(b) != "through the pipe" {
		t.Fatalf("read %q, %v", b, err)
	}
	f, err := os.CreateTemp(t.TempDir(), "regular")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	growPipe(f) // F_SETPIPE_SZ on a regular file would fail; it is not tried
	growPipe(strings.NewReader("not a file"))
}
