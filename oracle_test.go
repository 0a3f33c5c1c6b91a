package blake3

// The reference oracle: the b3sum binary (the Rust blake3 crate's CLI),
// found through $B3SUM or PATH. Without it, or with one too old for a check
// (Debian 12 ships b3sum 1.2.0, without --seek), the check skips and says
// which version it found and which it needs, unless BLAKE3_STRICT=1 (CI),
// where it fails: an old oracle must never fail the README's go test ./....

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
		strictSkip(t, "reference oracle unavailable: %s", b3sumErr)
	}
	return b3sumPath
}

// b3sumSince is the first Rust b3sum release with each flag the oracle
// tests pass beyond those of b3sum 1.0 (--length, --keyed, --derive-key,
// --no-names), from the BLAKE3 repository's history.
var b3sumSince = map[string]string{"--seek": "1.4.0"}

// b3sumNeed returns the oracle's path if it has flag, and otherwise skips
// the test (fails it under BLAKE3_STRICT=1), naming the version found and
// the one needed. A version it cannot read is given the benefit of the
// doubt: the check runs, and fails if the flag is missing.
func b3sumNeed(t testing.TB, flag string) string {
	t.Helper()
	bin := b3sumBinary(t)
	since, ok := b3sumSince[flag]
	if !ok {
		t.Fatalf("b3sumNeed: no release recorded for %s", flag)
	}
	if have, ok := parseVersion(strings.TrimPrefix(b3sumVersion, "b3sum ")); ok && versionLess(have, mustVersion(since)) {
		strictSkip(t, "reference oracle %s is %q, which lacks %s; this check needs b3sum %s or later (scripts/install-b3sum.sh installs 1.8.1)",
			bin, b3sumVersion, flag, since)
	}
	return bin
}

// parseVersion reads "X.Y.Z" (anything after Z, such as "-beta", ignored).
func parseVersion(s string) ([3]int, bool) {
	var v [3]int
	parts := strings.SplitN(s, ".", 3)
	if len(parts) != 3 {
		return v, false
	}
	if i := strings.IndexFunc(parts[2], func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		parts[2] = parts[2][:i]
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

func mustVersion(s string) [3]int {
	v, ok := parseVersion(s)
	if !ok {
		panic("bad version " + s)
	}
	return v
}

// versionLess reports a < b.
func versionLess(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// b3sumOutputs runs b3sum once over every input in datas (written to
// temporary files) and returns n output bytes from offset seek for each, in
// mode m: `b3sum --length N [--seek S] --no-names [--keyed|--derive-key C] FILE...`.
// The keyed mode reads the key from stdin, which is why inputs are files.
// --seek is passed only for a seek other than 0, so that checks at offset 0
// run on oracles older than --seek, and a check that needs it skips there.
func b3sumOutputs(t testing.TB, m hashMode, key []byte, ctx string, seek uint64, n int, datas ...[]byte) [][]byte {
	t.Helper()
	bin := b3sumBinary(t)
	dir := t.TempDir()
	args := []string{"--length", strconv.Itoa(n), "--no-names"}
	if seek != 0 {
		b3sumNeed(t, "--seek")
		args = append(args, "--seek", strconv.FormatUint(seek, 10))
	}
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

// TestOracleVersionGate checks the version reading behind b3sumNeed: the
// b3sum of Debian 12 (1.2.0) must be found too old for --seek, the
// reference (1.8.1) new enough.
func TestOracleVersionGate(t *testing.T) {
	since := mustVersion(b3sumSince["--seek"])
	for _, c := range []struct {
		v       string
		ok, old bool
	}{
		{"1.2.0", true, true}, {"1.3.3", true, true}, {"1.4.0", true, false}, {"1.8.1", true, false},
		{"1.10.0", true, false}, {"2.0.0-beta1", true, false}, {"0.3.8", true, true},
		{"1.8", false, false}, {"x.y.z", false, false}, {"", false, false},
	} {
		v, ok := parseVersion(c.v)
		if ok != c.ok || (ok && versionLess(v, since) != c.old) {
			t.Errorf("%q: parsed %v (%v), older than %v: %v; want parsed %v, older %v", c.v, v, ok, since, versionLess(v, since), c.ok, c.old)
		}
	}
}
