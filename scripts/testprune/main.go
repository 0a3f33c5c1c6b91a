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
//     matches, as go test matches a top-level name (the first element of
//     each of the pattern's alternatives);
//   - every function named by an identifier in what it keeps, and every
//     test, fuzz target, example and benchmark whose name is inside a
//     string literal there (a test that runs its own binary with
//     "-test.run=^TestChild$" keeps TestChild), and so on to a fixed
//     point. A name computed at run time ("^" + t.Name() + "Child$") is
//     not followed: a test that runs a child so would find it cut.
//
// Benchmarks nobody names go, as -test.bench is not set. Names are
// matched without scopes, across both packages: a local variable named as
// a function keeps the function, which costs compile time, never a test.
// A pattern that go test would rewrite (one with a space or a character
// that does not print) keeps every test. An import that no kept code uses
// becomes a blank import, which still runs the package's init, so the file
// still compiles and starts as before. A function cut leaves its lines
// empty, so that the lines a failure reports are the file's own. The
// overlay maps each pruned file to its pruned copy; files it leaves whole
// are not in it.
//
// Usage: testprune -run PATTERN -out DIR FOLDER. It writes DIR/overlay.json
// and the pruned copies in DIR, and prints the overlay's path.
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

// prune writes to out the overlay for the tests of dir that run matches,
// and the pruned files it names, and returns the overlay's path.
func prune(dir, run, out string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	match, err := topLevel(run)
	if err != nil {
		return "", err
	}
	fset := token.NewFileSet()
	files, err := parse(fset, dir)
	if err != nil {
		return "", err
	}
	kept := reach(files, match)
	overlay := map[string]string{}
	var names map[string]string // package names by import path, once needed
	for i, s := range files {
		var cuts []*ast.FuncDecl
		for _, d := range s.file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && !kept[fd] {
				cuts = append(cuts, fd)
			}
		}
		if len(cuts) == 0 {
			continue
		}
		if names == nil {
			if names, err = importNames(dir, files); err != nil {
				return "", err
			}
		}
		pruned := filepath.Join(out, fmt.Sprintf("%d_%s", i, filepath.Base(s.path)))
		if err := os.WriteFile(pruned, edit(fset, s, cuts, unused(s, kept, names)), 0o644); err != nil {
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

// topLevel returns whether go test -test.run=run runs a top-level test of
// a name: run split as the testing package splits it (splitRegexp), into
// alternatives at each top-level "|" and levels at each top-level "/";
// the name matches when the first level of an alternative matches it.
// Where testing would rewrite the pattern (a space, a rune that does not
// print), everything matches.
func topLevel(run string) (func(string) bool, error) {
	if run == "" || strings.ContainsFunc(run, func(r rune) bool { return r == ' ' || !strconv.IsPrint(r) }) {
		return func(string) bool { return true }, nil
	}
	var firsts []*regexp.Regexp
	add := func(first string) error {
		re, err := regexp.Compile(first)
		firsts = append(firsts, re)
		return err
	}
	brackets, parens, level := 0, 0, 0 // level: the "/"s seen in this alternative
	start := 0
	for i := 0; i < len(run); i++ {
		switch run[i] {
		case '[':
			brackets++
		case ']':
			brackets = max(brackets-1, 0) // an unmatched ']' is legal
		case '(':
			if brackets == 0 {
				parens++
			}
		case ')':
			if brackets == 0 {
				parens--
			}
		case '\\':
			i++
		case '/', '|':
			if brackets != 0 || parens != 0 {
				continue
			}
			if level == 0 {
				if err := add(run[start:i]); err != nil {
					return nil, err
				}
			}
			level++
			if run[i] == '|' {
				level = 0
			}
			start = i + 1
		}
	}
	if level == 0 {
		if err := add(run[start:]); err != nil {
			return nil, err
		}
	}
	return func(name string) bool {
		return slices.ContainsFunc(firsts, func(re *regexp.Regexp) bool { return re.MatchString(name) })
	}, nil
}

// parse reads the _test.go files of dir.
func parse(fset *token.FileSet, dir string) ([]*source, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	var files []*source
	for _, name := range names {
		text, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, name, text, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, &source{name, text, f})
	}
	return files, nil
}

// reach returns the top-level functions (not methods) of files that the
// tests match selects can reach, by the rules in the package doc.
func reach(files []*source, match func(string) bool) map[*ast.FuncDecl]bool {
	funcs := map[string][]*ast.FuncDecl{}
	var tests []string // the names of tests, fuzz targets, examples and benchmarks
	for _, s := range files {
		for _, d := range s.file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				name := fd.Name.Name
				if len(funcs[name]) == 0 && (isTest(name) || strings.HasPrefix(name, "Benchmark")) {
					tests = append(tests, name)
				}
				funcs[name] = append(funcs[name], fd)
			}
		}
	}
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
			case !ok || fd.Recv != nil:
				queue = append(queue, d)
			case fd.Name.Name == "TestMain" || fd.Name.Name == "init" || isTest(fd.Name.Name) && match(fd.Name.Name):
				keep(fd.Name.Name)
			}
		}
	}
	for len(queue) > 0 {
		n := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Ident:
				keep(n.Name)
			case *ast.BasicLit:
				if n.Kind != token.STRING {
					break
				}
				text, err := strconv.Unquote(n.Value)
				if err != nil {
					text = n.Value
				}
				for _, t := range tests {
					if strings.Contains(text, t) {
						keep(t)
					}
				}
			}
			return true
		})
	}
	return kept
}

// isTest reports whether go test may run a function of this name, given
// a test's signature, as a test, fuzz target or example. It says yes for
// more names than go test runs, which keeps more, never less: its test of
// the letter after "Test" or "Fuzz" is ASCII only (a name that goes on
// with another lower-case letter passes), and it takes every name that
// starts with "Example" (go test runs only those with an output comment,
// and go vet warns of a lower-case suffix).
func isTest(name string) bool {
	if strings.HasPrefix(name, "Example") {
		return true
	}
	for _, prefix := range []string{"Test", "Fuzz"} {
		if rest, ok := strings.CutPrefix(name, prefix); ok && (rest == "" || rest[0] < 'a' || rest[0] > 'z') {
			return true
		}
	}
	return false
}

// unused returns the imports of s that nothing s keeps uses, by the
// package names that names maps their paths to (or the name the import
// gives).
func unused(s *source, kept map[*ast.FuncDecl]bool, names map[string]string) []*ast.ImportSpec {
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
	var specs []*ast.ImportSpec
	for _, imp := range s.file.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		local := names[p]
		if imp.Name != nil {
			local = imp.Name.Name
		}
		if local != "_" && local != "." && !used[local] {
			specs = append(specs, imp)
		}
	}
	return specs
}

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
	slices.Sort(paths)
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

// edit returns s's text with the functions cuts cut (each with its doc
// comment, its lines left empty) and the imports blanks made blank.
func edit(fset *token.FileSet, s *source, cuts []*ast.FuncDecl, blanks []*ast.ImportSpec) []byte {
	type change struct {
		from, to int
		with     string
	}
	var changes []change
	offset := func(p token.Pos) int { return fset.Position(p).Offset }
	for _, fd := range cuts {
		from := fd.Pos()
		if fd.Doc != nil {
			from = fd.Doc.Pos()
		}
		c := change{offset(from), offset(fd.End()), ""}
		c.with = strings.Repeat("\n", strings.Count(string(s.text[c.from:c.to]), "\n"))
		changes = append(changes, c)
	}
	for _, imp := range blanks {
		if imp.Name != nil {
			changes = append(changes, change{offset(imp.Name.Pos()), offset(imp.Name.End()), "_"})
		} else {
			at := offset(imp.Path.Pos())
			changes = append(changes, change{at, at, "_ "})
		}
	}
	// From the end, so that the offsets before each change stay valid.
	slices.SortFunc(changes, func(a, b change) int { return b.from - a.from })
	out := slices.Clone(s.text)
	for _, c := range changes {
		out = slices.Concat(out[:c.from], []byte(c.with), out[c.to:])
	}
	return out
}
