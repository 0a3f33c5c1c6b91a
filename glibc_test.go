// What the committed Linux libraries need from the system, read from their
// ELF headers with debug/elf: nothing but glibc, and no symbol version newer
// than glibcFloor (README.md, "Platforms"; rust/README.md, "glibc, and
// nothing else"). Pure Go, so it runs on every machine, whatever its tools.

package blake3_test

import (
	"debug/elf"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// glibcFloor is the newest glibc symbol version a Linux library may need:
// glibc 2.17, the oldest that Rust's std supports (and aarch64's first).
// rust/build.sh links against stand-ins that hold nothing newer.
const glibcFloor = "2.17"

// glibcSonames are glibc's own shared libraries, which every glibc system
// has (since 2.34 libpthread, libdl, librt and libutil are empty stubs kept
// for the programs linked before, which is what the libraries are: pthread
// functions resolve in libpthread.so.0 on older glibc).
var glibcSonames = map[string][]string{
	"amd64": {"libc.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libm.so.6", "libutil.so.1", "ld-linux-x86-64.so.2"},
	"arm64": {"libc.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libm.so.6", "libutil.so.1", "ld-linux-aarch64.so.1"},
}

var glibcVersion = regexp.MustCompile(`^GLIBC_([0-9]+(\.[0-9]+)*)$`)

// versionLess compares dotted version numbers ("2.3.4" < "2.14").
func versionLess(a, b string) bool {
	x, y := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(x) || i < len(y); i++ {
		var m, n int
		if i < len(x) {
			m, _ = strconv.Atoi(x[i])
		}
		if i < len(y) {
			n, _ = strconv.Atoi(y[i])
		}
		if m != n {
			return m < n
		}
	}
	return false
}

// glibcNeeds is what one library needs from the system.
type glibcNeeds struct {
	needed   []string
	newest   string   // the newest GLIBC_ version of any symbol or verneed entry
	newestBy []string // the symbols bound to it
	weak     []string // weak references left unversioned: null where absent
	problems []string
}

// readGlibcNeeds reads a library's DT_NEEDED, its version needs and its
// undefined dynamic symbols, and says what breaks the rules.
func readGlibcNeeds(path, arch string) (glibcNeeds, error) {
	var r glibcNeeds
	f, err := elf.Open(path)
	if err != nil {
		return r, err
	}
	defer f.Close()
	allowed := glibcSonames[arch]
	if r.needed, err = f.ImportedLibraries(); err != nil {
		return r, err
	}
	for _, lib := range r.needed {
		if !slices.Contains(allowed, lib) {
			r.problems = append(r.problems, fmt.Sprintf("DT_NEEDED %s is not part of glibc", lib))
		}
	}
	note := func(ver, what string) {
		m := glibcVersion.FindStringSubmatch(ver)
		switch {
		case m == nil:
			r.problems = append(r.problems, fmt.Sprintf("%s: version %s is not glibc's", what, ver))
		case versionLess(glibcFloor, m[1]):
			r.problems = append(r.problems, fmt.Sprintf("%s: %s is newer than GLIBC_%s", what, ver, glibcFloor))
		}
		if m != nil && (r.newest == "" || versionLess(r.newest, m[1])) {
			r.newest, r.newestBy = m[1], nil
		}
		if m != nil && m[1] == r.newest && !strings.HasPrefix(what, "verneed") {
			r.newestBy = append(r.newestBy, what)
		}
	}
	needs, err := f.DynamicVersionNeeds()
	if err != nil {
		return r, err
	}
	for _, n := range needs {
		if !slices.Contains(allowed, n.Name) {
			r.problems = append(r.problems, fmt.Sprintf("a version needed from %s, not part of glibc", n.Name))
		}
		for _, d := range n.Needs {
			note(d.Dep, "verneed "+n.Name)
		}
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		return r, err
	}
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF || s.Name == "" {
			continue
		}
		weak := elf.ST_BIND(s.Info) == elf.STB_WEAK
		switch {
		case s.Version != "":
			note(s.Version, s.Name)
		case weak:
			r.weak = append(r.weak, s.Name)
		default:
			// An unversioned strong reference was found in no library at
			// link time: the dynamic loader refuses the library (-z now).
			r.problems = append(r.problems, fmt.Sprintf("%s: a strong reference with no version", s.Name))
		}
	}
	return r, nil
}

func TestLinuxLibrariesNeedOnlyGlibc(t *testing.T) {
	for _, arch := range []string{"amd64", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			path := filepath.Join("libs", "linux_"+arch, "libblake3_purego.so")
			r, err := readGlibcNeeds(path, arch)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range r.problems {
				t.Errorf("%s: %s", path, p)
			}
			if r.newest == "" {
				t.Errorf("%s: no GLIBC_ version at all; want the library to be read right", path)
			}
			slices.Sort(r.weak)
			slices.Sort(r.newestBy)
			by := strings.Join(r.newestBy, " ")
			if len(r.newestBy) > 4 {
				by = fmt.Sprintf("%s and %d more", strings.Join(r.newestBy[:4], " "), len(r.newestBy)-4)
			}
			t.Logf("%s: DT_NEEDED %v; newest GLIBC_%s (%s); weak and unversioned (null where glibc lacks them): %v",
				path, r.needed, r.newest, by, r.weak)
		})
	}
}
