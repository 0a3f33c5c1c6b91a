package blake3

// BLAKE3_STRICT=1 (CI) turns every skip for something the machine lacks (the
// reference b3sum or a version of it new enough, gcc, cargo, the go command,
// a chroot) into a failure: where the whole matrix must run, a check that
// quietly did not run is a failure. Every such test in this package goes
// through strictSkip, and reads the setting through strictTests.

import (
	"fmt"
	"os"
	"testing"
)

// strictTests reports BLAKE3_STRICT=1: skips that would hide a missing
// native library or reference binary become failures (CI sets it).
func strictTests() bool { return os.Getenv("BLAKE3_STRICT") == "1" }

// strictSkip skips the test with the message, or fails it with the same
// message under BLAKE3_STRICT=1.
func strictSkip(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if strictTests() {
		t.Fatalf("BLAKE3_STRICT=1: %s", msg)
	}
	t.Skip("SKIP: " + msg)
}
