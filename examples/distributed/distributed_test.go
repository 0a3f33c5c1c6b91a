package main

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/purego-blake3/blake3"
)

// strictSkip skips the test with the message, or fails it with the same
// message under BLAKE3_STRICT=1 (CI), where every check must run.
func strictSkip(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("BLAKE3_STRICT") == "1" {
		t.Fatalf("BLAKE3_STRICT=1: %s", msg)
	}
	t.Skip("SKIP: " + msg)
}

// TestDistributed builds the command, plans a ~9 MiB file for 4 workers,
// runs each worker as its own process, combines their lines and compares
// the result with b3sum's.
func TestDistributed(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "distributed")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	data := make([]byte, 9<<20+12345)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	file := filepath.Join(dir, "input.bin")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(stdin []byte, args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Stdin = bytes.NewReader(stdin)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return string(out), &cmdError{args, err, stderr.String()}
		}
		return string(out), nil
	}

	planOut, err := run(nil, "plan", "-n", "4", file)
	if err != nil {
		t.Fatal(err)
	}
	ranges := strings.Split(strings.TrimSpace(planOut), "\n")
	if len(ranges) != 4 {
		t.Fatalf("plan gave %d ranges:\n%s", len(ranges), planOut)
	}
	lines := make([]string, len(ranges))
	errs := make([]error, len(ranges))
	var wg sync.WaitGroup
	for i, r := range ranges {
		f := strings.Fields(r)
		wg.Add(1)
		go func() {
			defer wg.Done()
			lines[i], errs[i] = run(nil, "worker", "-offset", f[0], "-len", f[1], file)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// Shuffled: combine does not care about the order.
	rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	all := strings.Join(lines, "")
	got, err := run([]byte(all), "combine", "-file", file)
	if err != nil {
		t.Fatal(err)
	}
	sum := blake3.Sum256(data)
	if want := hex.EncodeToString(sum[:]) + "  " + file + "\n"; got != want {
		t.Fatalf("combine: %q, want %q", got, want)
	}

	// Misuse: a missing range, or a range that is not a subtree.
	if _, err := run([]byte(strings.Join(lines[1:], "")), "combine", "-file", file); err == nil {
		t.Error("combine with a range missing: no error")
	}
	bad, err := run(nil, "worker", "-offset", "1024", "-len", "5000", file)
	if err == nil {
		t.Errorf("worker for a range too large for its offset: no error (%q)", bad)
	}

	b3sum := os.Getenv("B3SUM")
	if b3sum == "" {
		b3sum, _ = exec.LookPath("b3sum")
	}
	if b3sum == "" {
		strictSkip(t, "no b3sum binary ($B3SUM or PATH): compared with blake3.Sum256 only")
	}
	ref, err := exec.Command(b3sum, file).Output()
	if err != nil {
		t.Fatalf("%s: %v", b3sum, err)
	}
	if string(ref) != got {
		t.Fatalf("combine: %q; b3sum: %q", got, ref)
	}
}

type cmdError struct {
	args   []string
	err    error
	stderr string
}

func (e *cmdError) Error() string {
	return "distributed " + strings.Join(e.args, " ") + ": " + e.err.Error() + "\n" + e.stderr
}
