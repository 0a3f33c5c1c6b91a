// Command targetcheck checks that this module builds wherever a program
// using github.com/zeebo/blake3 builds with CGO_ENABLED=0: for every target
// `go tool dist list` prints (or those named as arguments), it
//
//   - asks the go command whether it builds testdata/zeeboprobe (a program
//     that imports zeebo/blake3 only) there at all: `go build -n` refuses at
//     once where the target needs external (cgo) linking (android/386,
//     android/amd64, android/arm, ios/*); such a target is out of the list;
//   - lists every package of the module with its tests, and the probe, with
//     `go list -e -deps -test`, which selects files by build constraints and
//     resolves embed patterns as the go command does (any error it reports
//     fails the target);
//   - type-checks all of them with go/types, in dependency order: the
//     module's packages, tests and dependencies in full, the standard
//     library at the level of declarations (it builds on every target Go
//     lists); if the probe itself does not type-check, the target is out of
//     the list, otherwise any error fails it;
//   - outside the platforms with a native library (-native), checks that
//     github.com/ebitengine/purego is not among the dependencies.
//
// Type-checking instead of compiling is what keeps this cheap: a cold
// compile of the standard library costs about a minute of CPU per target,
// type-checking the same packages a few seconds. scripts/cross-test.sh
// still compiles and vets a few targets for real, for what only the
// compiler sees (assembly, function bodies of the standard library).
//
// Usage: go run ./scripts/targetcheck [-j N] [-tags T] [-native LIST] [TARGET...]
// It prints one line per target (PASS, FAIL or OUT, with the reason) and
// exits 1 if any target failed.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

const (
	module = "github.com/purego-blake3/blake3"
	probe  = "./testdata/zeeboprobe"
	purego = "github.com/ebitengine/purego"
)

// pkg is what targetcheck reads of `go list -json`.
type pkg struct {
	ImportPath string
	Dir        string
	Name       string
	Standard   bool
	GoFiles    []string
	ImportMap  map[string]string
	Module     *struct{ Path, GoVersion string }
	Error      *struct{ Err string }
	DepsErrors []*struct{ Err string }
}

// outcome is the verdict on one target.
type outcome struct {
	target string
	status string // PASS, FAIL or OUT
	detail string
	took   time.Duration
}

func main() {
	jobs := flag.Int("j", runtime.NumCPU(), "targets checked at once")
	tags := flag.String("tags", "", "build tags, as for go build")
	native := flag.String("native", "linux/amd64 linux/arm64 windows/amd64 darwin/amd64 darwin/arm64",
		"targets with a native library, where purego may be a dependency")
	flag.Parse()
	targets := flag.Args()
	if len(targets) == 0 {
		out, err := exec.Command("go", "tool", "dist", "list").Output()
		if err != nil {
			fmt.Fprintln(os.Stderr, "targetcheck: go tool dist list:", err)
			os.Exit(2)
		}
		targets = strings.Fields(string(out))
	}
	nativeSet := map[string]bool{}
	for _, t := range strings.Fields(*native) {
		nativeSet[t] = true
	}
	if *tags != "" {
		nativeSet = map[string]bool{} // a tag such as blake3_nonative: no exception
	}

	start := time.Now()
	results := make([]outcome, len(targets))
	sem := make(chan struct{}, max(*jobs, 1))
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			t0 := time.Now()
			results[i] = check(t, *tags, nativeSet[t])
			results[i].took = time.Since(t0)
			fmt.Fprintf(os.Stderr, "  %s %s (%.1fs)\n", results[i].status, t, results[i].took.Seconds())
		}()
	}
	wg.Wait()

	count := map[string]int{}
	var failed bool
	for _, r := range results {
		count[r.status]++
		line := r.status + " " + r.target
		if r.detail != "" {
			line += ": " + r.detail
		}
		fmt.Println(line)
		failed = failed || r.status == "FAIL"
	}
	fmt.Printf("targetcheck: %d targets where a zeebo/blake3 program builds: %d PASS, %d FAIL; %d OUT (no such program builds there); %.0fs\n",
		count["PASS"]+count["FAIL"], count["PASS"], count["FAIL"], count["OUT"], time.Since(start).Seconds())
	if failed {
		os.Exit(1)
	}
}

// check runs the checks for one target.
func check(target, tags string, native bool) outcome {
	goos, goarch, ok := strings.Cut(target, "/")
	if !ok {
		return outcome{target: target, status: "FAIL", detail: "not GOOS/GOARCH"}
	}
	env := append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0", "GOFLAGS=-mod=readonly")
	tagArg := "-tags=" + tags

	// Would the go command build a zeebo program here at all?
	cmd := exec.Command("go", "build", "-n", tagArg, "-o", os.DevNull, probe)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		return outcome{target: target, status: "OUT", detail: "go build refuses a zeebo/blake3 program: " + firstLine(out, err)}
	}

	cmd = exec.Command("go", "list", "-e", "-deps", "-test", "-json", tagArg, "./...", probe)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return outcome{target: target, status: "FAIL", detail: "go list: " + firstLine(stderr.Bytes(), err)}
	}
	var pkgs []*pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		p := new(pkg)
		if err := dec.Decode(p); err == io.EOF {
			break
		} else if err != nil {
			return outcome{target: target, status: "FAIL", detail: "go list output: " + err.Error()}
		}
		pkgs = append(pkgs, p)
	}

	var problems []string
	for _, p := range pkgs {
		if p.Error != nil {
			problems = append(problems, p.ImportPath+": "+p.Error.Err)
		}
		if !native && (p.ImportPath == purego || strings.HasPrefix(p.ImportPath, purego+"/")) {
			problems = append(problems, "imports "+p.ImportPath+" outside the native platforms")
		}
	}
	if len(problems) > 0 {
		return outcome{target: target, status: "FAIL", detail: strings.Join(problems, "; ")}
	}

	errs := typeCheck(pkgs, goarch)
	probePath := module + "/testdata/zeeboprobe"
	if e, bad := errs[probePath]; bad {
		return outcome{target: target, status: "OUT", detail: "the zeebo/blake3 program does not type-check: " + e}
	}
	for path, e := range errs {
		problems = append(problems, path+": "+e)
	}
	sort.Strings(problems)
	if len(problems) > 0 {
		return outcome{target: target, status: "FAIL", detail: strings.Join(problems, "; ")}
	}
	return outcome{target: target, status: "PASS"}
}

// typeCheck type-checks pkgs (in the dependency order go list -deps gives)
// and returns the first error of each package that has one, or whose
// imports do. Generated test mains (ImportPath ending in ".test") are left
// out: the go command writes them, and their imports are checked anyway.
func typeCheck(pkgs []*pkg, goarch string) map[string]string {
	fset := token.NewFileSet()
	done := map[string]*types.Package{"unsafe": types.Unsafe}
	errs := map[string]string{}
	sizes := types.SizesFor("gc", goarch)
	for _, p := range pkgs {
		if p.ImportPath == "unsafe" || strings.HasSuffix(p.ImportPath, ".test") {
			continue
		}
		var files []*ast.File
		var perr error
		for _, f := range p.GoFiles {
			af, err := parser.ParseFile(fset, filepath.Join(p.Dir, f), nil, parser.SkipObjectResolution)
			if err != nil {
				perr = err
				break
			}
			files = append(files, af)
		}
		if perr != nil {
			errs[p.ImportPath] = perr.Error()
			continue
		}
		var first error
		conf := types.Config{
			Importer: importerFunc(func(path string) (*types.Package, error) {
				if m, ok := p.ImportMap[path]; ok {
					path = m
				}
				if tp, ok := done[path]; ok && tp != nil {
					return tp, nil
				}
				if e, ok := errs[path]; ok {
					return nil, errors.New("import " + path + ": " + e)
				}
				return nil, errors.New("import " + path + ": not listed")
			}),
			Sizes: sizes,
			// The standard library builds wherever Go lists a target:
			// its declarations are enough to check its users.
			IgnoreFuncBodies: p.Standard,
			Error: func(err error) {
				if first == nil {
					first = err
				}
			},
		}
		if p.Module != nil && p.Module.GoVersion != "" {
			conf.GoVersion = "go" + p.Module.GoVersion
		}
		tp, _ := conf.Check(p.ImportPath, fset, files, nil)
		if first != nil {
			errs[p.ImportPath] = first.Error()
			continue
		}
		done[p.ImportPath] = tp
	}
	return errs
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// firstLine is the first line of out, or err's text.
func firstLine(out []byte, err error) string {
	if l, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n"); l != "" {
		return l
	}
	return err.Error()
}
