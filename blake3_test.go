// The official test vectors, and the reference b3sum binary as an oracle:
// what every hash path of the package is checked against.
//
// The oracle is the b3sum binary (the Rust blake3 crate's CLI),
// found through $B3SUM or PATH. Without it, or with one too old for a check
// (Debian 12 ships b3sum 1.2.0, without --seek), the check skips and says
// which version it found and which it needs, unless BLAKE3_STRICT=1 (CI),
// where it fails: an old oracle must never fail the README's go test ./....

package blake3

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func TestVectorsFile(t *testing.T) {
	v := loadVectors(t)
	if v.Key != vectorKey || v.Context != vectorContext {
		t.Fatalf("key/context = %q/%q, want %q/%q", v.Key, v.Context, vectorKey, vectorContext)
	}
	// The lengths scripts/gen-vectors.sh writes: every one must be there.
	want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 63, 64, 65, 127, 128, 129, 1023, 1024, 1025,
		2048, 2049, 3072, 3073, 4096, 4097, 5120, 5121, 6144, 6145, 7168, 7169,
		8192, 8193, 16384, 31744, 102400}
	if len(v.Cases) != len(want) {
		t.Fatalf("%d cases, want %d", len(v.Cases), len(want))
	}
	for i, c := range v.Cases {
		if c.InputLen != want[i] {
			t.Errorf("case %d: input_len %d, want %d", i, c.InputLen, want[i])
		}
	}
	if got := v.Cases[0].Hash[:32]; !bytes.Equal(got, mustHexBytes(t, emptyHash)) {
		t.Errorf("hash of the empty input is %x, want %s", got, emptyHash)
	}
}

func TestVectors(t *testing.T) {
	v := loadVectors(t)
	forEachBackend(t, func(t *testing.T) {
		for _, c := range v.Cases {
			t.Run(strconv.Itoa(c.InputLen), func(t *testing.T) {
				checkVectorCase(t, c)
			})
		}
	})
}

// checkVectorCase checks one case through every entry point.
func checkVectorCase(t *testing.T, c vectorCase) {
	in := vectorInput(c.InputLen)
	key := []byte(vectorKey)

	// One-shot functions.
	if got := Sum256(in); !bytes.Equal(got[:], c.Hash[:32]) {
		t.Errorf("Sum256 = %x, want %x", got, c.Hash[:32])
	}
	if got := Sum512(in); !bytes.Equal(got[:], c.Hash[:64]) {
		t.Errorf("Sum512 = %x, want %x", got, c.Hash[:64])
	}
	for _, n := range []int{32, 131, 1, 64, 65} {
		out := make([]byte, n)
		DeriveKey(vectorContext, in, out)
		if !bytes.Equal(out, c.DeriveKey[:n]) {
			t.Errorf("DeriveKey(out %d) = %s, want %s", n, shortHex(out), shortHex(c.DeriveKey[:n]))
		}
	}

	for _, m := range allHashModes {
		want := c.want(m)
		newH := func() *Hasher { return newModeHasher(t, m, key, vectorContext) }
		checkHasher := func(what string, h *Hasher) {
			t.Helper()
			if got := h.Sum(nil); !bytes.Equal(got, want[:32]) {
				t.Errorf("%s %s: Sum = %x, want %x", m, what, got, want[:32])
			}
			out := make([]byte, 131)
			if _, err := h.Digest().Read(out); err != nil || !bytes.Equal(out, want) {
				t.Errorf("%s %s: Digest = %s (err %v), want %s", m, what, shortHex(out), err, shortHex(want))
			}
		}

		// One write.
		h := newH()
		if n, err := h.Write(in); n != len(in) || err != nil {
			t.Fatalf("%s: Write = %d, %v", m, n, err)
		}
		checkHasher("one write", h)
		// Sum and Digest do not change the state: ask again.
		checkHasher("one write, again", h)

		// Split writes.
		for _, sizes := range [][]int{{1}, {63}, {64}, {1000}, {1, 63, 64, 1000}, {bufSize - 1, 7}, {chunkLen - 1, chunkLen + 1}} {
			h := newH()
			writeSplit(h, in, sizes...)
			checkHasher("writes of "+intsName(sizes), h)
		}

		// WriteString, in one and in two pieces.
		h = newH()
		if n, err := h.WriteString(string(in)); n != len(in) || err != nil {
			t.Fatalf("%s: WriteString = %d, %v", m, n, err)
		}
		checkHasher("WriteString", h)
		h = newH()
		_, _ = h.WriteString(string(in[:len(in)/3]))
		_, _ = h.WriteString(string(in[len(in)/3:]))
		checkHasher("WriteString split", h)

		// Sum appends to a non-empty slice, without touching its prefix.
		h = newH()
		_, _ = h.Write(in)
		prefix := []byte("prefix:")
		buf := append(make([]byte, 0, 8), prefix...)
		got := h.Sum(buf)
		if !bytes.Equal(got[:len(prefix)], prefix) || !bytes.Equal(got[len(prefix):], want[:32]) {
			t.Errorf("%s: Sum(prefix) = %q…, want prefix then %x", m, got, want[:32])
		}
		big := make([]byte, 3, 100)
		if got := h.Sum(big); len(got) != 35 || !bytes.Equal(got[3:], want[:32]) || &got[0] != &big[0] {
			t.Errorf("%s: Sum into spare capacity = %x (len %d)", m, got, len(got))
		}

		// Digest: in pieces, and after seeks.
		d := h.Digest()
		var pieces []byte
		for _, n := range []int{1, 7, 0, 31, 64, 28} {
			p := make([]byte, n)
			_, _ = d.Read(p)
			pieces = append(pieces, p...)
		}
		if !bytes.Equal(pieces, want) {
			t.Errorf("%s: Digest in pieces = %s, want %s", m, shortHex(pieces), shortHex(want))
		}
		for _, off := range []int{0, 1, 31, 32, 63, 64, 65, 100, 130, int(c.InputLen*7+3) % 131} {
			d := h.Digest()
			pos, err := d.Seek(int64(off), io.SeekStart)
			if err != nil || pos != int64(off) {
				t.Fatalf("%s: Seek(%d, SeekStart) = %d, %v", m, off, pos, err)
			}
			p := make([]byte, 131-off)
			_, _ = d.Read(p)
			if !bytes.Equal(p, want[off:]) {
				t.Errorf("%s: Digest from %d = %s, want %s", m, off, shortHex(p), shortHex(want[off:]))
			}
		}
		for _, st := range []struct{ start, rel int64 }{{40, -40}, {40, 10}, {0, 100}, {131, -3}, {64, -1}, {1, 63}} {
			d := h.Digest()
			p := make([]byte, st.start)
			_, _ = d.Read(p) // SeekCurrent counts what was read
			pos, err := d.Seek(st.rel, io.SeekCurrent)
			if err != nil || pos != st.start+st.rel {
				t.Fatalf("%s: Seek(%d, SeekCurrent) after reading %d = %d, %v", m, st.rel, st.start, pos, err)
			}
			q := make([]byte, 131-int(pos))
			_, _ = d.Read(q)
			if !bytes.Equal(q, want[pos:]) {
				t.Errorf("%s: Digest from %d (SeekCurrent) = %s, want %s", m, pos, shortHex(q), shortHex(want[pos:]))
			}
		}

		// Clone mid-stream: both go on independently.
		for _, cut := range []int{0, len(in) / 2, len(in)} {
			h := newH()
			_, _ = h.Write(in[:cut])
			c := h.Clone()
			_, _ = h.Write(in[cut:])
			checkHasher("original after Clone at "+strconv.Itoa(cut), h)
			_, _ = c.Write(in[cut:])
			checkHasher("clone at "+strconv.Itoa(cut), c)
			_, _ = c.Write([]byte("more"))
			checkHasher("original after the clone diverged", h)

			// Both orders of writes after a Clone, with the prefix written in
			// two pieces so that the buffer has spare capacity: neither may
			// see the other's input.
			for _, cloneFirst := range []bool{false, true} {
				h := newH()
				_, _ = h.Write(in[:cut/2])
				_, _ = h.Write(in[cut/2 : cut])
				c := h.Clone()
				junk := []byte{'x'}
				if cloneFirst {
					_, _ = c.Write(junk)
					_, _ = h.Write(in[cut:])
				} else {
					_, _ = h.Write(in[cut:])
					_, _ = c.Write(junk)
				}
				checkHasher("original beside a diverging clone at "+strconv.Itoa(cut), h)
				wantC := refOutput(t, m, key, vectorContext, append(in[:cut:cut], junk...), 0, 131)
				outC := make([]byte, 131)
				_, _ = c.Digest().Read(outC)
				if !bytes.Equal(outC, wantC) {
					t.Errorf("%s: clone at %d (clone wrote first: %v): %s, want %s", m, cut, cloneFirst, shortHex(outC), shortHex(wantC))
				}
			}
		}

		// Reset and reuse, from several states.
		for _, junk := range [][]byte{nil, in[:min(len(in), 5)], vectorInput(chunkLen + 5), vectorInput(bufSize + 5)} {
			h := newH()
			_, _ = h.Write(junk)
			_ = h.Sum(nil)
			h.Reset()
			_, _ = h.Write(in)
			checkHasher("after Reset", h)
		}
	}

	// The zero Hasher behaves as New().
	var z Hasher
	_, _ = z.Write(in)
	if got := z.Sum(nil); !bytes.Equal(got, c.Hash[:32]) {
		t.Errorf("Hasher{}: Sum = %x, want %x", got, c.Hash[:32])
	}
	out := make([]byte, 131)
	var z2 Hasher
	_, _ = z2.WriteString(string(in))
	_, _ = z2.Digest().Read(out)
	if !bytes.Equal(out, c.Hash) {
		t.Errorf("Hasher{}: Digest = %s, want %s", shortHex(out), shortHex(c.Hash))
	}
	var z3 Hasher
	if got := z3.Sum(nil); !bytes.Equal(got, mustHexBytes(t, emptyHash)) {
		t.Errorf("Hasher{} with no input: Sum = %x, want %s", got, emptyHash)
	}
	var z4 Hasher
	z4.Reset()
	_, _ = z4.Write(in)
	if got := z4.Clone().Sum(nil); !bytes.Equal(got, c.Hash[:32]) {
		t.Errorf("Hasher{} Reset, Write, Clone: Sum = %x, want %x", got, c.Hash[:32])
	}
}

func intsName(v []int) string {
	s := ""
	for i, n := range v {
		if i > 0 {
			s += ","
		}
		s += strconv.Itoa(n)
	}
	return s
}

// vectorKey and vectorContext (selftest.go) are the official vectors' key
// and context; vectorInput is their input pattern.
func vectorInput(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

// vectorCase is one case of testdata/test_vectors.json, hex-decoded.
type vectorCase struct {
	InputLen  int
	Hash      []byte
	KeyedHash []byte
	DeriveKey []byte
}

// vectorFile is testdata/test_vectors.json (the official format).
// want is the case's expected output in mode m.
func (c vectorCase) want(m hashMode) []byte {
	switch m {
	case hashModeKeyed:
		return c.KeyedHash
	case hashModeDerive:
		return c.DeriveKey
	}
	return c.Hash
}

type vectorFile struct {
	Key     string
	Context string
	Cases   []vectorCase
}

const vectorsPath = "testdata/test_vectors.json"

// loadVectors reads testdata/test_vectors.json once.
func loadVectors(t testing.TB) vectorFile {
	t.Helper()
	vectorsOnce.Do(func() {
		raw, err := os.ReadFile(vectorsPath)
		if err != nil {
			vectorsErr = err
			return
		}
		var doc struct {
			Key     string `json:"key"`
			Context string `json:"context_string"`
			Cases   []struct {
				InputLen  int    `json:"input_len"`
				Hash      string `json:"hash"`
				KeyedHash string `json:"keyed_hash"`
				DeriveKey string `json:"derive_key"`
			} `json:"cases"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			vectorsErr = err
			return
		}
		vectorsData = vectorFile{Key: doc.Key, Context: doc.Context}
		for _, c := range doc.Cases {
			vc := vectorCase{InputLen: c.InputLen}
			for _, p := range []struct {
				dst *[]byte
				src string
			}{{&vc.Hash, c.Hash}, {&vc.KeyedHash, c.KeyedHash}, {&vc.DeriveKey, c.DeriveKey}} {
				b, err := hex.DecodeString(p.src)
				if err != nil || len(b) != 131 {
					vectorsErr = &vectorError{c.InputLen, p.src}
					return
				}
				*p.dst = b
			}
			vectorsData.Cases = append(vectorsData.Cases, vc)
		}
	})
	if vectorsErr != nil {
		t.Fatalf("%s: %v", vectorsPath, vectorsErr)
	}
	return vectorsData
}

type vectorError struct {
	n   int
	hex string
}

func (e *vectorError) Error() string {
	return "case " + strconv.Itoa(e.n) + ": not 131 bytes of hex: " + e.hex
}

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

// TestDifferentialB3sum compares both backends with the reference b3sum on
// about twenty lengths, every mode, at output offset 0 and (in the subtest
// "far", which needs b3sum --seek) near 2^63.
func TestDifferentialB3sum(t *testing.T) {
	b3sumBinary(t)
	seed := testSeed(t)
	rng := newTestRand(seed)
	key := randomBytes(rng, 32)
	datas := make([][]byte, len(diffOracleLengths))
	for i, n := range diffOracleLengths {
		datas[i] = randomBytes(rng, n)
	}
	start := map[hashMode][][]byte{}
	for _, m := range allHashModes {
		start[m] = b3sumOutputs(t, m, key, diffContext, 0, 131, datas...)
	}
	forEachBackend(t, func(t *testing.T) {
		diffAgainstB3sum(t, rng, key, datas, 0, start, func(name string, i int, data []byte) {
			if s := Sum512(data); !bytes.Equal(s[:], start[hashModePlain][i][:64]) {
				t.Errorf("%s: Sum512 = %s, want %s (b3sum)", name, shortHex(s[:]), shortHex(start[hashModePlain][i]))
			}
			dk := make([]byte, 131)
			DeriveKey(diffContext, data, dk)
			if !bytes.Equal(dk, start[hashModeDerive][i]) {
				t.Errorf("%s: DeriveKey = %s, want %s (b3sum)", name, shortHex(dk), shortHex(start[hashModeDerive][i]))
			}
		})
	})
	t.Run("far", func(t *testing.T) {
		b3sumNeed(t, "--seek")
		farSeek := uint64(math.MaxInt64 - 70) // reads cross 2^63
		far := map[hashMode][][]byte{}
		for _, m := range allHashModes {
			far[m] = b3sumOutputs(t, m, key, diffContext, farSeek, 131, datas...)
		}
		forEachBackend(t, func(t *testing.T) {
			diffAgainstB3sum(t, rng, key, datas, farSeek, far, nil)
		})
	})
}

// diffAgainstB3sum checks the streamed output of every input in every mode
// at output offset seek against refs (b3sum's), with one thread and with
// the default; extra, if not nil, checks more for each input.
func diffAgainstB3sum(t *testing.T, rng *rand.Rand, key []byte, datas [][]byte, seek uint64, refs map[hashMode][][]byte, extra func(name string, i int, data []byte)) {
	t.Helper()
	for _, threads := range []int{1, 0} {
		withMaxThreads(threads, func() {
			for i, data := range datas {
				name := "threads=" + strconv.Itoa(threads) + " len=" + strconv.Itoa(len(data))
				if extra != nil {
					extra(name, i, data)
				}
				for _, m := range allHashModes {
					_, got := streamOutput(t, rng, m, key, diffContext, data, int64(seek), 131)
					if !bytes.Equal(got, refs[m][i]) {
						t.Errorf("%s %s at %d: %s, want %s (b3sum)", name, m, seek, shortHex(got), shortHex(refs[m][i]))
					}
				}
			}
		})
	}
}

// TestDifferentialNativeWrap checks the native digest at output offsets near
// 2^64, which only the native Digest's uint64 position can reach, against
// b3sum --seek (one read; the Rust crate's output blocks do not wrap).
func TestDifferentialNativeWrap(t *testing.T) {
	if !nativeActive(t) {
		t.Skip("native backend not active")
	}
	b3sumNeed(t, "--seek")
	data := vectorInput(2*bufSize + 3)
	h := New()
	_, _ = h.Write(data)
	for _, seek := range []uint64{math.MaxUint64 - 130, math.MaxUint64 - 63, math.MaxUint64 - 200} {
		want := b3sumOutput(t, hashModePlain, nil, "", data, seek, 131)
		d := h.Digest()
		setPos(d, seek)
		got := make([]byte, 131)
		_, _ = d.Read(got)
		if !bytes.Equal(got, want) {
			t.Errorf("native output at %d: %s, want %s (b3sum)", seek, shortHex(got), shortHex(want))
		}
	}
}

var (
	b3sumOnce    sync.Once
	b3sumPath    string
	b3sumVersion string
	b3sumErr     string
)
