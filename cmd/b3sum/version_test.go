package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestVersionStdout: --version prints exactly what b3sum 1.8.1 prints, on
// any machine (the golden test compares with the real binary when there is
// one); the backend goes to stderr, and only when it is a terminal, or to
// stdout with --backend.
func TestVersionStdout(t *testing.T) {
	for _, tty := range []bool{false, true} {
		var out, errb bytes.Buffer
		if code := run([]string{"--version"}, nil, &out, &errb, tty, nil); code != 0 || out.String() != "b3sum 1.8.1\n" {
			t.Errorf("--version (stderr a terminal: %v): status %d, stdout %q; want 0, %q", tty, code, out.String(), "b3sum 1.8.1\n")
		}
		if got := errb.String(); tty != strings.HasPrefix(got, "backend: ") || (!tty && got != "") {
			t.Errorf("--version (stderr a terminal: %v): stderr %q", tty, got)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"--backend"}, nil, &out, &errb, false, nil); code != 0 ||
		!strings.HasPrefix(out.String(), "backend: ") || strings.Count(out.String(), "\n") != 1 || errb.Len() != 0 {
		t.Errorf("--backend: status %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}
