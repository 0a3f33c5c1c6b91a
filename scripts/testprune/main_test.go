package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const fixture = "testdata/fixture"

// pruned runs prune on the fixture and returns the overlay's path and the
// pruned text of each file it replaces, by base name.
func pruned(t *testing.T, run string) (string, map[string]string) {
	t.Helper()
	path, err := prune(fixture, run, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ov struct{ Replace map[string]string }
	if err := json.Unmarshal(b, &ov); err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	for from, to := range ov.Replace {
		b, err := os.ReadFile(to)
		if err != nil {
			t.Fatal(err)
		}
		texts[filepath.Base(from)] = string(b)
	}
	return path, texts
}

// goTest runs go test in the fixture with the overlay and returns its
// output.
func goTest(t *testing.T, overlay string, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		if os.Getenv("BLAKE3_STRICT") == "1" {
			t.Fatal("no go command on PATH")
		}
		t.Skip("SKIP: no go command on PATH")
	}
	cmd := exec.Command("go", append([]string{"test", "-count=1", "-overlay", overlay}, args...)...)
	cmd.Dir = fixture
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// listed returns the test names go test -list prints.
func listed(out string) []string {
	var names []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "Test") || strings.HasPrefix(line, "Example") {
			names = append(names, line)
		}
	}
	slices.Sort(names)
	return names
}

func TestPrune(t *testing.T) {
	overlay, texts := pruned(t, "^TestA$")
	a := texts["a_test.go"]
	for _, want := range []string{"func TestA(", "func helperA(", "func TestChild(", "func TestWord(", "func BenchmarkNamed(", "func initValue(", "func usedByInit(", "func usedByMethod(", "func (c *counter) add(", `_ "strings"`, `"os"`} {
		if !strings.Contains(a, want) {
			t.Errorf("a_test.go lost %q:\n%s", want, a)
		}
	}
	for _, gone := range []string{"TestB", "helperB", "BenchmarkB", "is pruned under"} {
		if strings.Contains(a, gone) {
			t.Errorf("a_test.go kept %q:\n%s", gone, a)
		}
	}
	// A cut leaves its lines: every kept line is where it was.
	whole, err := os.ReadFile(filepath.Join(fixture, "a_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	wl, al := strings.Split(string(whole), "\n"), strings.Split(a, "\n")
	if len(wl) != len(al) {
		t.Errorf("a_test.go: %d lines pruned, %d whole", len(al), len(wl))
	}
	for i := range min(len(wl), len(al)) {
		if al[i] != "" && al[i] != wl[i] && al[i] != strings.Replace(wl[i], `"strings"`, `_ "strings"`, 1) {
			t.Errorf("a_test.go line %d: %q, whole %q", i+1, al[i], wl[i])
		}
	}
	b := texts["b_test.go"]
	for _, want := range []string{`_ "fmt"`, `_ "github.com/`} {
		if !strings.Contains(b, want) {
			t.Errorf("b_test.go: no %q:\n%s", want, b)
		}
	}
	if strings.Contains(b, "ExampleDouble") {
		t.Errorf("b_test.go kept ExampleDouble:\n%s", b)
	}
	if c := texts["c_never_test.go"]; !strings.HasPrefix(c, "//go:build fixture_never\n") || strings.Contains(c, "TestNever") {
		t.Errorf("c_never_test.go:\n%s", c)
	}
	// The pruned package compiles, lists what it kept, and its tests pass.
	if got, want := listed(goTest(t, overlay, "-list", ".")), []string{"TestA", "TestChild", "TestWord"}; !slices.Equal(got, want) {
		t.Errorf("pruned -list: %q, want %q", got, want)
	}
	goTest(t, overlay, "-run", "^TestA$")
}

func TestPruneEverything(t *testing.T) {
	for _, run := range []string{"", "Test A", "."} {
		overlay, texts := pruned(t, run)
		if a := texts["a_test.go"]; !strings.Contains(a, "func helperB(") || strings.Contains(a, "BenchmarkB") {
			t.Errorf("run %q: a_test.go:\n%s", run, a)
		}
		if _, ok := texts["b_test.go"]; ok {
			t.Errorf("run %q: b_test.go pruned, yet it holds only an example", run)
		}
		if got, want := listed(goTest(t, overlay, "-list", ".")), []string{"ExampleDouble", "TestA", "TestB", "TestChild", "TestWord"}; !slices.Equal(got, want) {
			t.Errorf("run %q: -list: %q, want %q", run, got, want)
		}
	}
}

// TestTopLevel checks topLevel against the top-level tests go test runs
// for each pattern: the same split into alternatives and levels as the
// testing package's.
func TestTopLevel(t *testing.T) {
	names := []string{"TestA", "TestAB", "TestB", "TestC"}
	for _, c := range []struct {
		run  string
		want []string
	}{
		{"", names},
		{"^TestA$", []string{"TestA"}},
		{"TestA", []string{"TestA", "TestAB"}},
		{"TestA/sub", []string{"TestA", "TestAB"}},
		{"TestB/x|^TestA$/y|TestC", []string{"TestA", "TestB", "TestC"}},
		{"^TestC$|TestB$/TestA", []string{"TestB", "TestC"}},
		{`\QTestA|TestC`, []string{"TestA", "TestAB", "TestC"}}, // testing splits inside \Q
		{"^(TestA|TestC)$", []string{"TestA", "TestC"}},
		{"^Test[A|C]$", []string{"TestA", "TestC"}},
		{`^Test\|`, nil},
		{"Test X", names}, // rewritten by go test: everything kept
	} {
		match, err := topLevel(c.run)
		if err != nil {
			t.Fatalf("%q: %v", c.run, err)
		}
		var got []string
		for _, n := range names {
			if match(n) {
				got = append(got, n)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: %q, want %q", c.run, got, c.want)
		}
	}
	if _, err := topLevel("Test(|"); err == nil {
		t.Error("a pattern that does not compile: no error")
	}
}
