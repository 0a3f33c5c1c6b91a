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
	for _, want := range []string{"func TestA(", "func helperA(", "func TestChild(", "func initValue(", "func usedByInit(", "func usedByMethod(", "func (c *counter) add(", `_ "strings"`, `"os"`} {
		if !strings.Contains(a, want) {
			t.Errorf("a_test.go lost %q:\n%s", want, a)
		}
	}
	for _, gone := range []string{"TestB", "helperB", "BenchmarkB", "is pruned under"} {
		if strings.Contains(a, gone) {
			t.Errorf("a_test.go kept %q:\n%s", gone, a)
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
	// The pruned package compiles, lists what it kept, and its tests pass.
	if got, want := listed(goTest(t, overlay, "-list", ".")), []string{"TestA", "TestChild"}; !slices.Equal(got, want) {
		t.Errorf("pruned -list: %q, want %q", got, want)
	}
	goTest(t, overlay, "-run", "^TestA$")
}

func TestPruneEverything(t *testing.T) {
	for _, run := range []string{"", "TestA/sub"} {
		overlay, texts := pruned(t, run)
		if a := texts["a_test.go"]; !strings.Contains(a, "func helperB(") || strings.Contains(a, "BenchmarkB") {
			t.Errorf("run %q: a_test.go:\n%s", run, a)
		}
		if _, ok := texts["b_test.go"]; ok {
			t.Errorf("run %q: b_test.go pruned, yet it holds only an example", run)
		}
		if got, want := listed(goTest(t, overlay, "-list", ".")), []string{"ExampleDouble", "TestA", "TestB", "TestChild"}; !slices.Equal(got, want) {
			t.Errorf("run %q: -list: %q, want %q", run, got, want)
		}
	}
}
