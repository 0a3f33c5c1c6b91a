//go:build !blake3_nonative && linux && !android && (amd64 || arm64)

package ffi

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestCallEscapes: what the compiler's escape analysis says of the
// wrappers' pointer parameters (go build -gcflags=-m). On Linux they do
// not escape: the caller's buffers may stay on its stack (call_linux.go).
// Through purego.SyscallN (darwin, windows), which takes integers, each of
// them must leak to the heap, where nothing moves: call_purego.go forces
// it, and without that a stack buffer's address could go stale before the
// call.
func TestCallEscapes(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("SKIP: no go command on PATH")
	}
	params := wrapperPointerParams(t)
	if len(params) < 20 {
		t.Fatalf("found %d pointer parameters in ffi.go's wrappers; the parser is wrong", len(params))
	}
	for _, target := range []struct{ goos, goarch, want string }{
		{"linux", "amd64", "does not escape"},
		{"darwin", "arm64", "leaking param"},
		{"windows", "amd64", "leaking param"},
	} {
		cmd := exec.Command(goTool, "build", "-gcflags=-m", "-o", os.DevNull, ".")
		cmd.Env = append(os.Environ(), "GOOS="+target.goos, "GOARCH="+target.goarch, "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s/%s: go build -gcflags=-m: %v\n%s", target.goos, target.goarch, err, out)
		}
		said := map[string]string{} // "line:name" -> what -m says
		re := regexp.MustCompile(`ffi\.go:(\d+):\d+: (?:leaking param: (\w+)$|(\w+) does not escape$)`)
		for _, line := range strings.Split(string(out), "\n") {
			if m := re.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
				if m[2] != "" {
					said[m[1]+":"+m[2]] = "leaking param"
				} else {
					said[m[1]+":"+m[3]] = "does not escape"
				}
			}
		}
		for _, p := range params {
			if got := said[p]; got != target.want {
				t.Errorf("%s/%s: ffi.go parameter %s: %q, want %q", target.goos, target.goarch, p, got, target.want)
			}
		}
	}
}

// wrapperPointerParams lists "line:name" for each parameter of a Symbols
// method in ffi.go that is a slice, a pointer or a string.
func wrapperPointerParams(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile("ffi.go")
	if err != nil {
		t.Fatal(err)
	}
	sig := regexp.MustCompile(`^func \(s \*Symbols\) \w+\((.*?)\)`)
	var params []string
	sc := bufio.NewScanner(bytes.NewReader(src))
	for line := 1; sc.Scan(); line++ {
		m := sig.FindStringSubmatch(sc.Text())
		if m == nil || m[1] == "" {
			continue
		}
		// Go groups names that share a type: "in, out []byte".
		var names []string
		for _, f := range strings.Split(m[1], ", ") {
			name, typ, ok := strings.Cut(f, " ")
			names = append(names, name)
			if !ok {
				continue
			}
			if strings.HasPrefix(typ, "[]") || strings.HasPrefix(typ, "*") || typ == "string" {
				for _, n := range names {
					params = append(params, strconv.Itoa(line)+":"+n)
				}
			}
			names = nil
		}
	}
	return params
}
