package main

import (
	"runtime"
	"testing"

	"github.com/purego-blake3/blake3"
)

func TestLossyUTF8(t *testing.T) {
	// Expected values follow Rust's String::from_utf8_lossy.
	cases := map[string]string{
		"plain":              "plain",
		"a\xffb":             "a\uFFFDb",
		"\xff\xfe":           "\uFFFD\uFFFD",
		"\xe2\x82":           "\uFFFD",
		"\xe2\x82x":          "\uFFFDx",
		"\xf0\x90\x80":       "\uFFFD",
		"\xf0\x90\x80\xf0":   "\uFFFD\uFFFD",
		"\xc0\xaf":           "\uFFFD\uFFFD",
		"\xed\xa0\x80":       "\uFFFD\uFFFD\uFFFD",
		"\xe0\x80\x80":       "\uFFFD\uFFFD\uFFFD",
		"\xf4\x90\x80\x80":   "\uFFFD\uFFFD\uFFFD\uFFFD",
		"ok\u00e9\xf1\x80ok": "ok\u00e9\uFFFDok",
	}
	for in, want := range cases {
		if got := lossyUTF8(in); got != want {
			t.Errorf("lossyUTF8(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEscapeRoundTrip(t *testing.T) {
	for _, name := range []string{"a", "a b", "new\nline", `back\slash`, "cr\rx", `\`, "\n\\\r"} {
		esc, escaped := escapeName(name)
		if !escaped {
			if esc != name {
				t.Errorf("escapeName(%q) = %q unescaped", name, esc)
			}
			continue
		}
		back, err := unescapeName(esc)
		if err != nil || back != name {
			t.Errorf("unescapeName(escapeName(%q)) = %q, %v", name, back, err)
		}
	}
	for _, bad := range []string{`x\`, `\q`, `a\tb`} {
		if _, err := unescapeName(bad); err == nil {
			t.Errorf("unescapeName(%q) succeeded", bad)
		}
	}
}

func TestParseRustUint(t *testing.T) {
	ok := map[string]uint64{"0": 0, "+5": 5, "007": 7, "18446744073709551615": 1<<64 - 1}
	for in, want := range ok {
		if got, err := parseRustUint(in); err != nil || got != want {
			t.Errorf("parseRustUint(%q) = %d, %v", in, got, err)
		}
	}
	bad := map[string]string{
		"":                      "cannot parse integer from empty string",
		"+":                     "invalid digit found in string",
		"-1":                    "invalid digit found in string",
		"1x":                    "invalid digit found in string",
		"18446744073709551616":  "number too large to fit in target type",
		"99999999999999999999x": "number too large to fit in target type",
	}
	for in, want := range bad {
		if _, err := parseRustUint(in); err == nil || err.Error() != want {
			t.Errorf("parseRustUint(%q) error %v, want %q", in, err, want)
		}
	}
}

func TestParseArgs(t *testing.T) {
	o, act, err := parseArgs([]string{"-cl5"})
	if err == nil {
		t.Errorf("-cl5: want conflict error, got %+v %v", o, act)
	}
	o, act, err = parseArgs([]string{"-l=7", "--seek", "3", "--derive-key=-x", "--", "-c", "a"})
	if err != nil || act != actionRun || o.length != 7 || o.seek != 3 || o.context != "-x" || !o.deriveKey ||
		len(o.files) != 2 || o.files[0] != "-c" {
		t.Errorf("got %+v %v %v", o, act, err)
	}
	if _, act, _ := parseArgs([]string{"-hV"}); act != actionShortHelp {
		t.Errorf("-hV: action %v", act)
	}
	if _, act, _ := parseArgs([]string{"-c", "--raw", "--version"}); act != actionVersion {
		t.Errorf("--version: action %v", act)
	}
	if _, _, err := parseArgs([]string{"--length", "-c", "f"}); err == nil ||
		err.Error() != "a value is required for '--length <LEN>' but none was supplied" {
		t.Errorf("--length -c: %v", err)
	}
}

func TestParseCheckLine(t *testing.T) {
	h := "0b8b60248fad7ac6dfac221b7e01a8b91c772421a15b387dd1fb2d6a94aee438"
	cases := []struct{ line, path, display, err string }{
		{h + "  a\n", "a", "a", ""},
		{h + "  a b\r\n", "a b", "a b", ""},
		{`\` + h + `  n\nl`, "n\nl", `\n\nl`, ""},
		{"BLAKE3 (x) = y) = " + h, "x) = y", "x) = y", ""},
		{"", "", "", "Empty line"},
		{"\r\n", "", "", "Empty line"},
		{"junk", "", "", "Invalid check line format"},
		{h[1:] + "  a", "", "", "Invalid hash length"},
		{"g" + h[1:] + "  a", "", "", "Invalid hex"},
		{h + "  ", "", "", "empty file path"},
		{h + "   ", " ", " ", ""},
		{`\` + h + `  a\`, "", "", "Invalid backslash escape"},
		{h + "  a\x00", "", "", "Null character in path"},
		{h + "  a\uFFFD", "", "", "Unicode replacement character in path"},
	}
	for _, c := range cases {
		cl, err := parseCheckLine(c.line)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("parseCheckLine(%q): error %v, want %q", c.line, err, c.err)
			}
			continue
		}
		if err != nil || cl.path != c.path || cl.display != c.display {
			t.Errorf("parseCheckLine(%q) = %+v, %v", c.line, cl, err)
		}
	}
}

// TestSetThreads: the threads setThreads lets a hash or an output read use,
// from --num-threads, RAYON_NUM_THREADS where the flag is absent or 0, and
// GOMAXPROCS, which caps both (as SetMaxThreads does); and rawChunk, the
// output writeRaw reads at once: a MiB a thread, one at least, 16 at most.
func TestSetThreads(t *testing.T) {
	defer blake3.SetMaxThreads(0)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, c := range []struct {
		args  []string
		rayon string
		want  int
	}{
		{nil, "", 4},
		{[]string{"--num-threads", "1"}, "", 1},
		{[]string{"--num-threads", "3"}, "", 3},
		{[]string{"--num-threads", "99"}, "", 4},
		{[]string{"--num-threads", "0"}, "", 4},
		{nil, "1", 1},
		{[]string{"--num-threads", "0"}, "2", 2},
		{[]string{"--num-threads", "3"}, "1", 3},
	} {
		t.Setenv("RAYON_NUM_THREADS", c.rayon)
		opts, _, err := parseArgs(append(c.args, "f"))
		if err != nil {
			t.Fatal(err)
		}
		if got := setThreads(opts); got != c.want {
			t.Errorf("%q, RAYON_NUM_THREADS=%q, GOMAXPROCS 4: %d threads, want %d", c.args, c.rayon, got, c.want)
		}
	}
	for _, c := range []struct {
		t    int
		want uint64
	}{{0, 1 << 20}, {1, 1 << 20}, {2, 2 << 20}, {16, 16 << 20}, {99, 16 << 20}} {
		if got := rawChunk(c.t); got != c.want {
			t.Errorf("rawChunk(%d) = %d, want %d", c.t, got, c.want)
		}
	}
}
