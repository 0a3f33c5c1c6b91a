package blake3

// The reference oracle: the b3sum binary (the Rust blake3 crate's CLI),
// found through $B3SUM or PATH. Without it, oracle tests skip, unless
// BLAKE3_STRICT=1 (CI), where they fail.

import (
	"bytes"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var (
	b3sumOnce    sync.Once
	b3sumPath    string
	b3sumVersion string
	b3sumErr     string
)

// b3sumBinary returns the path of the reference b3sum, or skips the test
// (fails it under BLAKE3_STRICT=1) when there is none.
func b3sumBinary(t testing.TB) string {
	t.Helper()
	b3sumOnce.Do(func() {
		p := os.Getenv("B3SUM")
		if p == "" {
			var err error
			if p, err = exec.LookPath("b3sum"); err != nil {
				b3sumErr = "b3sum not found on PATH and $B3SUM not set (scripts/install-b3sum.sh installs it)"
				return
			}
		}
		out, err := exec.Command(p, "--version").Output()
		if err != nil {
			b3sumErr = "b3sum at " + p + " does not run: " + err.Error()
			return
		}
		b3sumPath, b3sumVersion = p, strings.TrimSpace(string(out))
	})
	if b3sumPath == "" {
		if strictTests() {
			t.Fatalf("BLAKE3_STRICT=1: %s", b3sumErr)
		}
		t.Skipf("reference oracle unavailable: %s", b3sumErr)
	}
	return b3sumPath
}

// b3sumOutputs runs b3sum once over every input in datas (written to
// temporary files) and returns n output bytes from offset seek for each, in
// mode m: `b3sum --length N --seek S --no-names [--keyed|--derive-key C] FILE...`.
// The keyed mode reads the key from stdin, which is why inputs are files.
func b3sumOutputs(t testing.TB, m hashMode, key []byte, ctx string, seek uint64, n int, datas ...[]byte) [][]byte {
	t.Helper()
	bin := b3sumBinary(t)
	dir := t.TempDir()
	args := []string{"--length", strconv.Itoa(n), "--seek", strconv.FormatUint(seek, 10), "--no-names"}
	switch m {
	case hashModeKeyed:
		args = append(args, "--keyed")
	case hashModeDerive:
		args = append(args, "--derive-key", ctx)
	}
	for i, d := range datas {
		f := filepath.Join(dir, "in"+strconv.Itoa(i))
		if err := os.WriteFile(f, d, 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, f)
	}
	cmd := exec.Command(bin, args...)
	if m == hashModeKeyed {
		cmd.Stdin = bytes.NewReader(key)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("b3sum %s: %v: %s", strings.Join(args[:len(args)-len(datas)], " "), err, stderr.Bytes())
	}
	lines := strings.Fields(string(out))
	if len(lines) != len(datas) {
		t.Fatalf("b3sum printed %d lines for %d inputs: %q", len(lines), len(datas), out)
	}
	res := make([][]byte, len(lines))
	for i, l := range lines {
		b, err := hex.DecodeString(l)
		if err != nil || len(b) != n {
			t.Fatalf("b3sum output %q is not %d bytes of hex", l, n)
		}
		res[i] = b
	}
	return res
}

// b3sumOutput is b3sumOutputs for one input.
func b3sumOutput(t testing.TB, m hashMode, key []byte, ctx string, data []byte, seek uint64, n int) []byte {
	t.Helper()
	return b3sumOutputs(t, m, key, ctx, seek, n, data)[0]
}

// TestOracleVectors checks the oracle itself against the committed vectors
// (which it generated): a wrong or stale b3sum shows here first.
func TestOracleVectors(t *testing.T) {
	b3sumBinary(t)
	t.Logf("oracle: %s (%s)", b3sumVersion, b3sumPath)
	v := loadVectors(t)
	var datas [][]byte
	for _, c := range v.Cases {
		datas = append(datas, vectorInput(c.InputLen))
	}
	for _, m := range allHashModes {
		got := b3sumOutputs(t, m, []byte(vectorKey), vectorContext, 0, 131, datas...)
		for i, c := range v.Cases {
			want := c.want(m)
			if !bytes.Equal(got[i], want) {
				t.Errorf("%s of %d bytes: b3sum %s, vectors file %s", m, c.InputLen, shortHex(got[i]), shortHex(want))
			}
		}
	}
}
