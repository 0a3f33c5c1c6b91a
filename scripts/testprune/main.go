// Command testprune writes a go build overlay that leaves out of a
// package's test files every function the tests of one -test.run pattern
// cannot reach, so that a test binary built for those tests compiles only
// what they run. scripts/mutate.sh builds each mutant's test binary so:
// the compile of the root package's thirteen thousand lines of tests was
// most of a mutant's cost.
//
// What it keeps, in every _test.go file of the folder (both the package's
// and the external test package's, whatever their build constraints):
//
//   - every declaration that is not a function: types, variables,
//     constants (a variable's initializer may call anything);
//   - every method, init and TestMain;
//   - the tests, fuzz targets and examples whose names the pattern
//     matches (as go test matches a top-level name; a pattern with a
//     slash is not pruned at all);
//   - every function named by an identifier in what it keeps, or inside a
//     string literal there (a test that runs its own binary with
//     "-test.run=^TestChild$" keeps TestChild), and so on to a fixed point.
//
// Benchmarks nobody names go, as -test.bench is not set. Names are
// matched without scopes, across both packages: a local variable named as
// a function keeps the function, which costs compile time, never a test.
// An import that no kept code uses becomes a blank import, so the file
// still compiles. The overlay maps each pruned file to its pruned copy;
// files it leaves whole are not in it.
//
// Usage: testprune -run PATTERN -out DIR FOLDER. It writes DIR/overlay.json
// and the pruned copies in DIR, and prints the overlay's path. A build
// that fails with the overlay is a fault of this program: mutate.sh then
// builds without it.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

func main() {
	run := flag.String("run", "", "the -test.run pattern (empty: every test)")
	out := flag.String("out", "", "folder for the overlay and the pruned files")
	flag.Parse()
	if flag.NArg() != 1 || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: testprune -run PATTERN -out DIR FOLDER")
		os.Exit(2)
	}
	path, err := prune(flag.Arg(0), *run, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testprune:", err)
		os.Exit(1)
	}
	fmt.Println(path)
}

// source is one test file: its text and syntax.
type source struct {
	path string
	text []byte
	file *ast.File
}

func prune(dir, run, out string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	var match *regexp.Regexp
	if run != "" && !strings.Contains(run, "/") {
		if match, err = regexp.Compile(run); err != nil {
			return "", err
		}
	}
	names, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return "", err
	}
	fset := token.NewFileSet()
	var files []*source
	funcs := map[string][]*ast.FuncDecl{} // top-level functions by name
	for _, name := range names {
		text, err := os.ReadFile(name)
		if err != nil {
			return "", err
		}
		f, err := parser.ParseFile(fset, name, text, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return "", err
		}
		files = append(files, &source{name, text, f})
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				funcs[fd.Name.Name] = append(funcs[fd.Name.Name], fd)
			}
		}
	}

	// Roots, then what they name, to a fixed point.
	kept := map[*ast.FuncDecl]bool{}
	var queue []ast.Node
	keep := func(name string) {
		for _, fd := range funcs[name] {
			if !kept[fd] {
				kept[fd] = true
				queue = append(queue, fd)
			}
		}
	}
	for _, s := range files {
		for _, d := range s.file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			switch {
			case !ok:
				queue = append(queue, d)
			case fd.Recv != nil:
				queue = append(queue, fd)
			case root(fd.Name.Name, match):
				keep(fd.Name.Name)
			}
		}
	}
	word := regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	for len(queue) > 0 {
		n := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Ident:
				keep(n.Name)
			case *ast.BasicLit:
				if n.Kind == token.STRING {
					for _, w := range word.FindAllString(n.Value, -1) {
						keep(w)
					}
				}
			}
			return true
		})
	}

	overlay := map[string]string{}
	var pkgNames map[string]string
	for i, s := range files {
		var cuts [][2]int // byte ranges to remove, and import specs to blank
		var blanks []*ast.ImportSpec
		for _, d := range s.file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || kept[fd] {
				continue
			}
			start := fd.Pos()
			if fd.Doc != nil {
				start = fd.Doc.Pos()
			}
			cuts = append(cuts, [2]int{fset.Position(start).Offset, fset.Position(fd.End()).Offset})
		}
		if len(cuts) == 0 {
			continue
		}
		if pkgNames == nil {
			if pkgNames, err = importNames(dir, files); err != nil {
				return "", err
			}
		}
		used := map[string]bool{}
		for _, d := range s.file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && !kept[fd] {
				continue
			}
			ast.Inspect(d, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok {
						used[x.Name] = true
					}
				}
				return true
			})
		}
		for _, imp := range s.file.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			local := pkgNames[p]
			if imp.Name != nil {
				local = imp.Name.Name
			}
			if local != "_" && local != "." && !used[local] {
				blanks = append(blanks, imp)
			}
		}
		text := edit(fset, s.text, cuts, blanks)
		pruned := filepath.Join(out, fmt.Sprintf("%d_%s", i, filepath.Base(s.path)))
		if err := os.WriteFile(pruned, text, 0o644); err != nil {
			return "", err
		}
		overlay[s.path] = pruned
	}
	j, err := json.Marshal(map[string]any{"Replace": overlay})
	if err != nil {
		return "", err
	}
	path := filepath.Join(out, "overlay.json")
	return path, os.WriteFile(path, j, 0o644)
}

// root reports whether go test runs the function of this name under the
// pattern (nil: every one): a test, fuzz target or example it matches, or
// TestMain or init, which always run.
func root(name string, match *regexp.Regexp) bool {
	if name == "TestMain" || name == "init" {
		return true
	}
	for _, prefix := range []string{"Test", "Fuzz", "Example"} {
		if rest, ok := strings.CutPrefix(name, prefix); ok && (rest == "" || !isLower(rest[0]) || prefix == "Example") {
			return match == nil || match.MatchString(name)
		}
	}
	return false
}

func isLower(c byte) bool { return 'a' <= c && c <= 'z' }

// importNames asks the go command for the package name of every path the
// files import.
func importNames(dir string, files []*source) (map[string]string, error) {
	var paths []string
	for _, s := range files {
		for _, imp := range s.file.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p != "C" && !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
		}
	}
	sort.Strings(paths)
	cmd := exec.Command("go", append([]string{"list", "-e", "-f", "{{.ImportPath}} {{.Name}}"}, paths...)...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v", err)
	}
	names := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if p, n, ok := strings.Cut(line, " "); ok && n != "" {
			names[p] = n
		}
	}
	return names, nil
}

// edit removes the byte ranges cuts from text and makes the imports blanks
// blank, working from the end so that offsets stay valid.
func edit(fset *token.FileSet, text []byte, cuts [][2]int, blanks []*ast.ImportSpec) []byte {
	type change struct {
		from, to int
		with     string
	}
	var changes []change
	for _, c := range cuts {
		changes = append(changes, change{c[0], c[1], ""})
	}
	for _, imp := range blanks {
		if imp.Name != nil {
			changes = append(changes, change{fset.Position(imp.Name.Pos()).Offset, fset.Position(imp.Name.End()).Offset, "_"})
		} else {
			at := fset.Position(imp.Path.Pos()).Offset
			changes = append(changes, change{at, at, "_ "})
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].from > changes[j].from })
	out := slices.Clone(text)
	for _, c := range changes {
		out = slices.Concat(out[:c.from], []byte(c.with), out[c.to:])
	}
	return out
}
