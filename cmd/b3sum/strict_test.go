package main

// BLAKE3_STRICT=1 (CI) turns every skip for something the machine lacks (a
// reference b3sum 1.8.x, tmux) into a failure: where the whole matrix must
// run, a check that quietly did not run is a failure. Every such test in
// this package goes through strictSkip.

import (
	"fmt"
	"os"
	"testing"
)

// strictSkip skips the test with the message, or fails it with the same
// message under BLAKE3_STRICT=1.
func strictSkip(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("BLAKE3_STRICT") == "1" {
		t.Fatalf("BLAKE3_STRICT=1: %s", msg)
	}
	t.Skip("SKIP: " + msg)
}
