package main

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The golden tests run the Go b3sum built in TestMain and the reference Rust
// b3sum 1.8.x ($B3SUM, else "b3sum" on PATH) side by side and compare
// stdout byte for byte, exit statuses exactly and stderr as each case says.
// Without a suitable reference they are skipped, or fail when
// BLAKE3_STRICT=1.

var (
	goBin     string // the Go b3sum under test
	refBin    string // the reference b3sum, "" if unusable
	refReason string // why refBin is unusable
)

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "b3sum-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	goBin = filepath.Join(dir, "b3sum-go")
	if runtime.GOOS == "windows" {
		goBin += ".exe"
	}
	build := exec.Command("go", "build", "-o", goBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building cmd/b3sum:", err)
		return 1
	}
	refBin, refReason = findReference()
	return m.Run()
}

// findReference locates a b3sum 1.8.x binary.
func findReference() (string, string) {
	bin := os.Getenv("B3SUM")
	if bin == "" {
		p, err := exec.LookPath("b3sum")
		if err != nil {
			return "", "no reference b3sum: set $B3SUM or put b3sum 1.8.x on PATH (scripts/install-b3sum.sh installs it)"
		}
		bin = p
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return "", fmt.Sprintf("reference %s --version failed: %v", bin, err)
	}
	v := strings.TrimSpace(string(out))
	if !strings.HasPrefix(v, "b3sum 1.8.") {
		return "", fmt.Sprintf("reference %s is %q; the CLI comparisons need b3sum 1.8.x (older versions lack --seek, since 1.4.0, and --tag, since 1.7.0, and print other help and errors; scripts/install-b3sum.sh installs 1.8.1)", bin, v)
	}
	return bin, ""
}

// needRef skips the test (or fails it under BLAKE3_STRICT=1) when there is
// no usable reference b3sum.
func needRef(t *testing.T) {
	t.Helper()
	if refBin == "" {
		strictSkip(t, "golden b3sum comparison: %s", refReason)
	}
}

// result is the outcome of one command.
type result struct {
	stdout, stderr []byte
	code           int
}

func runBin(t *testing.T, bin, dir string, stdin []byte, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RUST_BACKTRACE=0", "RUST_LIB_BACKTRACE=0")
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running %s %q: %v", bin, args, err)
		}
		code = ee.ExitCode()
	}
	return result{so.Bytes(), se.Bytes(), code}
}

// stderr comparison modes.
const (
	errExact     = iota // stderr identical
	errFirstLine        // first lines identical (clap usage lines may differ)
	errPresence         // both empty or both non-empty
)

// compare runs both binaries and compares their results.
func compare(t *testing.T, dir string, stdin []byte, mode int, args ...string) result {
	t.Helper()
	want := runBin(t, refBin, dir, stdin, args...)
	got := runBin(t, goBin, dir, stdin, args...)
	if !bytes.Equal(got.stdout, want.stdout) {
		t.Errorf("b3sum %q: stdout differs\n got: %q\nwant: %q", args, trunc(got.stdout), trunc(want.stdout))
	}
	if got.code != want.code {
		t.Errorf("b3sum %q: exit status %d, want %d (stderr got %q, want %q)", args, got.code, want.code, got.stderr, want.stderr)
	}
	if (len(got.stderr) == 0) != (len(want.stderr) == 0) {
		t.Errorf("b3sum %q: stderr presence differs\n got: %q\nwant: %q", args, got.stderr, want.stderr)
	}
	switch mode {
	case errExact:
		if !bytes.Equal(got.stderr, want.stderr) {
			t.Errorf("b3sum %q: stderr differs\n got: %q\nwant: %q", args, got.stderr, want.stderr)
		}
	case errFirstLine:
		g, _, _ := bytes.Cut(got.stderr, []byte("\n"))
		w, _, _ := bytes.Cut(want.stderr, []byte("\n"))
		if !bytes.Equal(g, w) {
			t.Errorf("b3sum %q: stderr first line differs\n got: %q\nwant: %q", args, g, w)
		}
	}
	return want
}

func trunc(b []byte) []byte {
	if len(b) > 600 {
		return append(b[:600:600], "..."...)
	}
	return b
}

// fixture creates the test files and returns the directory and the names.
func fixture(t *testing.T) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(1))
	sizes := []int{0, 1, 63, 64, 65, 1023, 1024, 1025, 2048, 16383, 16384, 16385, 100000,
		4<<20 - 1, 4 << 20, 4<<20 + 1}
	var names []string
	for _, n := range sizes {
		b := make([]byte, n)
		rng.Read(b)
		name := fmt.Sprintf("f%d", n)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	odd := []string{"sp ace", "two  spaces", "tab\there", "ünïcödé", "BLAKE3 (x) = y"}
	if runtime.GOOS != "windows" {
		odd = append(odd, "new\nline", `back\slash`, "cr\rname", "bad\xffutf8", "trunc\xe2\x82seq",
			"\xf0\x90bad", `\leading`, "trailing\\")
	}
	for i, name := range odd {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Repeat("x", i*1000)), 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	return dir, names
}

func TestGoldenHash(t *testing.T) {
	needRef(t)
	dir, names := fixture(t)
	flagSets := [][]string{
		nil,
		{"--no-mmap"},
		{"--tag"},
		{"--no-names"},
		{"--tag", "--no-names"},
		{"--length", "0"},
		{"-l", "1"},
		{"-l64"},
		{"--length=65"},
		{"-l", "131", "--seek", "3"},
		{"--seek", "64"},
		{"--seek=1000", "-l=7"},
		{"--seek", "9223372036854775807", "-l", "1"},
		{"--derive-key", "my context"},
		{"--derive-key", ""},
		{"--derive-key=-dash"},
		{"--num-threads", "1"},
		{"--num-threads", "0"},
		{"--num-threads=3", "--no-mmap", "--tag"},
		{"-l", "+5"},
		{"--", "-"},
	}
	for _, fl := range flagSets {
		t.Run(strings.Join(fl, " "), func(t *testing.T) {
			args := append(append([]string{}, fl...), names...)
			if len(fl) > 0 && fl[0] == "--" {
				args = fl
			}
			compare(t, dir, []byte("stdin data"), errExact, args...)
		})
	}
}

func TestGoldenStdin(t *testing.T) {
	needRef(t)
	dir, _ := fixture(t)
	big := bytes.Repeat([]byte("0123456789abcdef"), 300000) // ~4.6 MiB
	for _, in := range [][]byte{{}, []byte("a"), big} {
		compare(t, dir, in, errExact)
		compare(t, dir, in, errExact, "-")
		compare(t, dir, in, errExact, "-", "-", "f1")
		compare(t, dir, in, errExact, "--no-mmap", "-")
		compare(t, dir, in, errExact, "--tag")
		compare(t, dir, in, errExact, "--raw")
		compare(t, dir, in, errExact, "--raw", "-l", "1000", "--seek", "17")
		compare(t, dir, in, errExact, "--derive-key", "ctx", "--no-names")
	}
}

func TestGoldenRaw(t *testing.T) {
	needRef(t)
	dir, _ := fixture(t)
	compare(t, dir, nil, errExact, "--raw", "f1025")
	compare(t, dir, nil, errExact, "--raw", "-l", "0", "f0")
	compare(t, dir, nil, errExact, "--raw", "--length", "100000", "--seek", "5", "f16384")
	// Output past rawChunk, read at offsets in parts on several cores
	// (Digest.ReadAt), on one thread and on all; reads that end past
	// 2^63-1, where writeRaw reads on with Read, from its first read and
	// after reads at offsets (20 MiB before 2^63-1).
	compare(t, dir, nil, errExact, "--raw", "--length", "40000001", "--seek", "17", "f1")
	compare(t, dir, nil, errExact, "--raw", "--length", "5000001", "--seek", "17", "--num-threads", "1", "f1")
	compare(t, dir, nil, errExact, "--raw", "--length", "16777300", "--seek", "9223372036854775000", "f1025")
	compare(t, dir, nil, errExact, "--raw", "--length", "41943045", "--seek", "9223372036833804287", "f1")
	compare(t, dir, nil, errExact, "--raw", "--length", "3", "--seek", "9223372036854775807", "f1")
	compare(t, dir, nil, errExact, "--raw", "--no-names", "--tag", "f1")
	compare(t, dir, nil, errExact, "--raw", "f1", "f0")
	compare(t, dir, nil, errExact, "--raw", "missing")
	compare(t, dir, nil, errExact, "-l", "100000", "f1")
}

func TestGoldenKeyed(t *testing.T) {
	needRef(t)
	dir, names := fixture(t)
	key := []byte("0123456789abcdef0123456789ABCDEF")
	compare(t, dir, key, errExact, append([]string{"--keyed"}, names...)...)
	compare(t, dir, key, errExact, "--keyed", "--tag", "-l", "40", "f1024")
	compare(t, dir, key, errExact, "--keyed", "f1", "-", "f0")
	compare(t, dir, key, errExact, "--keyed", "-")
	compare(t, dir, key[:31], errExact, "--keyed", "f1")
	compare(t, dir, append(key, 'x'), errExact, "--keyed", "f1")
	compare(t, dir, nil, errExact, "--keyed", "f1")
	compare(t, dir, key, errFirstLine, "--keyed")
	compare(t, dir, key, errFirstLine, "--keyed", "--derive-key", "x", "f1")
}

func TestGoldenErrors(t *testing.T) {
	needRef(t)
	dir, _ := fixture(t)
	if err := os.Mkdir(filepath.Join(dir, "subdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if err := os.Symlink("nowhere", filepath.Join(dir, "dangling")); err != nil {
			t.Fatal(err)
		}
	}
	// Unreadable inputs among readable ones: reported on stderr, the
	// others still hashed, exit status 1.
	runtimeCases := [][]string{
		{"f1", "missing", "f0"},
		{"subdir", "f1"},
		{"--no-mmap", "subdir", "f16384"},
		{"missing\xff\xfe", "f1"},
		{"missing\xe2\x82\xf0\x90\x80 x\xc0\xaf"},
		{"f1", "--", "-y", "--raw", "-"},
	}
	if runtime.GOOS != "windows" {
		runtimeCases = append(runtimeCases, []string{"dangling", "f1"})
	}
	if os.Geteuid() != 0 && runtime.GOOS != "windows" {
		p := filepath.Join(dir, "noperm")
		if err := os.WriteFile(p, []byte("secret"), 0o000); err != nil {
			t.Fatal(err)
		}
		runtimeCases = append(runtimeCases, []string{"f1", "noperm", "f0"})
	}
	for _, args := range runtimeCases {
		compare(t, dir, nil, errExact, args...)
	}
	// Command-line errors: exit status 2 from clap; the first line of the
	// message must match.
	usage := [][]string{
		{"--bogus"},
		{"-x"},
		{"-cx"},
		{"--lengt", "3"},
		{"--length"},
		{"-l"},
		{"--length", "abc", "f1"},
		{"--length", "", "f1"},
		{"--length", "-5", "f1"},
		{"--length", "-c", "f1"},
		{"--length", "99999999999999999999", "f1"},
		{"--seek", "18446744073709551616", "f1"},
		{"--num-threads", "x", "f1"},
		{"--num-threads", "-1", "f1"},
		{"--derive-key", "--raw", "f1"},
		{"--derive-key", "-foo", "f1"},
		{"--derive-key", "a\xffb", "f1"},
		{"--length", "5", "--length", "6", "f1"},
		{"--raw", "--raw", "f1"},
		{"-c", "-c", "f1"},
		{"--raw=1", "f1"},
		{"--tag=x", "f1"},
		{"--quiet", "f1"},
		{"--quiet"},
		{"-c", "--length", "5", "f1"},
		{"--length", "5", "-c", "f1"},
		{"-cl5", "f1"},
		{"-l5c", "f1"},
		{"-c", "--raw", "f1"},
		{"-c", "--tag", "f1"},
		{"--tag", "-c", "f1"},
		{"-c", "--no-names", "f1"},
		{"-c", "--derive-key", "x", "f1"},
		{"-c", "--keyed", "f1"},
		{"--derive-key", "x", "--keyed", "f1"},
		{"--quiet", "--keyed", "--derive-key", "x"},
		{"--help=x"},
		{"--version=x"},
		{"--bogus", "-h"},
	}
	for _, args := range usage {
		r := compare(t, dir, nil, errFirstLine, args...)
		if r.code != 2 && r.code != 1 {
			t.Errorf("reference exit status %d for %q", r.code, args)
		}
	}
}

func TestGoldenCheck(t *testing.T) {
	needRef(t)
	dir, names := fixture(t)
	// Checkfiles made by the reference, in both formats.
	sums := runBin(t, refBin, dir, nil, names...)
	tagged := runBin(t, refBin, dir, nil, append([]string{"--tag"}, names...)...)
	// Names with invalid UTF-8 stay in: b3sum cannot check them ("Unicode
	// replacement character in path") and that behaviour is compared too.
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sums.b3", sums.stdout)
	write("tagged.b3", tagged.stdout)
	write("crlf.b3", bytes.ReplaceAll(sums.stdout, []byte("\n"), []byte("\r\n")))
	// Checkfiles made by the Go binary must match too.
	mine := runBin(t, goBin, dir, nil, names...)
	if !bytes.Equal(mine.stdout, sums.stdout) {
		t.Errorf("Go b3sum output differs from reference for the fixture")
	}

	h1 := runBin(t, refBin, dir, nil, "--no-names", "f1").stdout[:64]
	h0 := runBin(t, refBin, dir, nil, "--no-names", "f0").stdout[:64]
	malformed := strings.Join([]string{
		string(h1) + "  f1",
		"garbage",
		"",
		string(h1[:62]) + "  f1",
		strings.ToUpper(string(h1)) + "  f1",
		string(h1) + " f1",
		string(h1) + "  ",
		string(h1) + "  missing",
		string(h1) + "  subdir-missing/x",
		`\` + string(h0) + `  f\0`,
		`\` + string(h0) + `  f\q`,
		`\` + string(h0) + `  f0\`,
		string(h0) + "  f0\x00",
		string(h0) + "  f0\uFFFD",
		"BLAKE3 (f1) = " + string(h1),
		"BLAKE3 (f1) = " + string(h0),
		"BLAKE3 (f1) " + string(h1),
		"BLAKE3 (f1)  = " + string(h1),
		`\BLAKE3 (f\\0) = ` + string(h0),
		"\\" + string(h1) + "  f1",
		string(h1) + "  f1  extra",
		"é" + string(h1[1:]) + "  f1",
		string(h0) + "  f0",
	}, "\n") + "\n"
	write("malformed.b3", []byte(malformed))
	write("ok.b3", []byte(string(h1)+"  f1\n"+string(h0)+"  f0"))
	write("badutf8.b3", []byte(string(h1)+"  f1\n"+string(h0)+"  f0\xff\n"+string(h0)+"  f0\n"))
	write("empty.b3", nil)

	compare(t, dir, nil, errExact, "-c", "sums.b3")
	compare(t, dir, nil, errExact, "--check", "tagged.b3")
	compare(t, dir, nil, errExact, "-c", "crlf.b3")
	compare(t, dir, nil, errExact, "-c", "--quiet", "sums.b3")
	compare(t, dir, nil, errExact, "-c", "--no-mmap", "--num-threads", "2", "sums.b3", "tagged.b3")
	compare(t, dir, nil, errExact, "-c", "malformed.b3")
	compare(t, dir, nil, errExact, "-c", "--quiet", "malformed.b3")
	compare(t, dir, nil, errExact, "-c", "ok.b3", "ok.b3")
	compare(t, dir, nil, errExact, "-c", "empty.b3")
	compare(t, dir, nil, errExact, "-c", "badutf8.b3")
	compare(t, dir, nil, errExact, "-c", "ok.b3", "missing.b3", "ok.b3")
	compare(t, dir, nil, errExact, "-c", "--seek", "1", "ok.b3")
	compare(t, dir, []byte(string(h1)+"  f1\n"), errExact, "-c")
	compare(t, dir, []byte(string(h1)+"  f1\n"), errExact, "-c", "-")
	compare(t, dir, sums.stdout, errExact, "--check", "-", "ok.b3")

	// Corrupt one file: its line fails, the others pass.
	write("f1025", []byte("corrupted"))
	compare(t, dir, nil, errExact, "-c", "sums.b3")
	compare(t, dir, nil, errExact, "-c", "--quiet", "sums.b3", "tagged.b3")
	os.Remove(filepath.Join(dir, "f1024"))
	compare(t, dir, nil, errExact, "-c", "sums.b3")
}

func TestGoldenHelpVersion(t *testing.T) {
	needRef(t)
	dir := t.TempDir()
	strip := func(b []byte) []byte {
		// Remove this implementation's --no-progress and --backend entries.
		lines := strings.SplitAfter(string(b), "\n")
		var out []string
		for i := 0; i < len(lines); i++ {
			if opt, ok := extraOption(lines[i]); ok {
				if strings.HasSuffix(lines[i], opt+"\n") { // long help block
					for i+1 < len(lines) && lines[i+1] != "\n" {
						i++
					}
					i++ // the blank separator line
				}
				continue
			}
			out = append(out, lines[i])
		}
		return []byte(strings.Join(out, ""))
	}
	for _, args := range [][]string{{"-h"}, {"--help"}, {"-hV"}, {"-h", "--bogus"}, {"-c", "--raw", "--help"}, {"--", "-h"}} {
		want := runBin(t, refBin, dir, nil, args...)
		got := runBin(t, goBin, dir, nil, args...)
		if g := strip(got.stdout); !bytes.Equal(g, want.stdout) || got.code != want.code {
			t.Errorf("b3sum %q: status %d want %d; stdout differs:\n got: %s\nwant: %s", args, got.code, want.code, g, want.stdout)
		}
	}
	// --version: stdout and stderr exactly the Rust b3sum's (stderr is not
	// a terminal here), so that scripts comparing them keep working.
	for _, args := range [][]string{{"-V"}, {"--version"}, {"-Vh"}, {"-c", "--raw", "-V"}} {
		compare(t, dir, nil, errExact, args...)
	}
	if r := runBin(t, goBin, dir, nil, "--backend"); r.code != 0 || !strings.HasPrefix(string(r.stdout), "backend: ") ||
		strings.Count(string(r.stdout), "\n") != 1 || len(r.stderr) != 0 {
		t.Errorf("b3sum --backend: status %d, stdout %q, stderr %q; want one line \"backend: ...\"", r.code, r.stdout, r.stderr)
	}
}

// extraOption reports whether a help line starts the entry of an option the
// Rust b3sum does not have, and which.
func extraOption(line string) (string, bool) {
	for _, opt := range []string{"--no-progress", "--backend"} {
		if strings.HasPrefix(line, "      "+opt+" ") || line == "      "+opt+"\n" {
			return opt, true
		}
	}
	return "", false
}

// TestGoldenArgCombos compares random (but fixed) combinations of options,
// values and file names: exit status, stdout and the first line of stderr
// must match, which pins down clap's order of checks.
func TestGoldenArgCombos(t *testing.T) {
	needRef(t)
	dir := t.TempDir()
	for _, f := range []string{"a", "b"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("data "+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	toks := []string{"a", "b", "-", "--", "-c", "--check", "--quiet", "--raw", "--tag", "--no-names",
		"--no-mmap", "--keyed", "--derive-key", "ctx", "-l", "3", "--length", "--length=2", "-l=4", "-l5",
		"--seek", "7", "--seek=1", "--num-threads", "2", "-x", "--bogus", "--bogus=1", "-cl", "-lc", "-c5",
		"-5", "--raw=1", "=", "-V5", "-=", "missing", "-é"}
	rng := rand.New(rand.NewSource(42))
	key := bytes.Repeat([]byte{'k'}, 32)
	n := 300
	if testing.Short() {
		n = 50
	}
	for i := 0; i < n; i++ {
		args := make([]string, rng.Intn(7))
		for j := range args {
			args[j] = toks[rng.Intn(len(toks))]
		}
		want := runBin(t, refBin, dir, key, args...)
		got := runBin(t, goBin, dir, key, args...)
		gotOut := got.stdout
		g, _, _ := bytes.Cut(got.stderr, []byte("\n"))
		w, _, _ := bytes.Cut(want.stderr, []byte("\n"))
		if got.code != want.code || !bytes.Equal(gotOut, want.stdout) || !bytes.Equal(g, w) {
			t.Errorf("b3sum %q:\n got status %d stdout %q stderr %q\nwant status %d stdout %q stderr %q",
				args, got.code, gotOut, g, want.code, want.stdout, w)
		}
	}
}
