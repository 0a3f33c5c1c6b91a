package ffi

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// goCodes are this package's codes by the header's names.
var goCodes = map[string]Code{
	"OK": OK, "ERR_NULL": ErrNull, "ERR_STATE": ErrState, "ERR_OFFSET_UNALIGNED": ErrOffsetUnaligned,
	"ERR_SUBTREE_TOO_LARGE": ErrSubtreeTooLarge, "ERR_ROOT_WITH_OFFSET": ErrRootWithOffset,
	"ERR_EMPTY_SUBTREE": ErrEmptySubtree, "ERR_CONTEXT_UTF8": ErrContextUTF8, "ERR_LENGTH": ErrLength,
	"ERR_THREADS": ErrThreads, "ERR_FLAGS": ErrFlags,
}

// TestCodesMatchHeader: the error codes, modes and ABI version here, in the
// header (the contract) and in the Rust library are the same lists, and
// each code has a text of its own.
func TestCodesMatchHeader(t *testing.T) {
	header := constants(t, "../../rust/include/blake3_purego.h", `#define BLAKE3_PUREGO_(\w+) \(?(-?\d+)\)?`)
	rust := constants(t, "../../rust/src/lib.rs", `const (\w+): [iu]32 = (-?\d+);`)
	if rust["OK"] != 0 {
		t.Errorf("lib.rs: OK = %d", rust["OK"])
	}
	for name, c := range goCodes {
		if h, ok := header[name]; !ok || Code(h) != c {
			t.Errorf("%s: Go %d, header %d (%v)", name, c, h, ok)
		}
		if r, ok := rust[name]; !ok || Code(r) != c {
			t.Errorf("%s: Go %d, lib.rs %d (%v)", name, c, r, ok)
		}
		if c != OK && strings.HasPrefix(c.String(), "error ") {
			t.Errorf("%s has no text", name)
		}
	}
	for name, h := range header {
		if strings.HasPrefix(name, "ERR_") {
			if _, ok := goCodes[name]; !ok {
				t.Errorf("the header's %s (%d) is not a Code here", name, h)
			}
		}
	}
	for name, want := range map[string]int64{"ABI_VERSION": ABIVersion, "MODE_HASH": int64(ModeHash), "MODE_KEYED": int64(ModeKeyed), "MODE_DERIVE_KEY": int64(ModeDeriveKey), "FLAG_PARALLEL": flagParallel} {
		if header[name] != want {
			t.Errorf("header %s = %d, want %d", name, header[name], want)
		}
	}
	for name, want := range map[string]int64{"ABI_VERSION": ABIVersion, "MODE_HASH": int64(ModeHash), "MODE_KEYED": int64(ModeKeyed), "MODE_DERIVE_KEY": int64(ModeDeriveKey)} {
		if rust[name] != want {
			t.Errorf("lib.rs %s = %d, want %d", name, rust[name], want)
		}
	}
	if got := Code(-99).String(); got != "error -99" {
		t.Errorf("an unknown code reads %q", got)
	}
}

// constants reads NAME = value pairs from a file with a pattern of two
// groups; the header's hexadecimal flag is read too.
func constants(t *testing.T, path, pattern string) map[string]int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, m := range regexp.MustCompile(pattern).FindAllStringSubmatch(string(b), -1) {
		v, _ := strconv.ParseInt(m[2], 10, 64)
		out[m[1]] = v
	}
	for _, m := range regexp.MustCompile(`#define BLAKE3_PUREGO_(\w+) 0x([0-9a-fA-F]+)`).FindAllStringSubmatch(string(b), -1) {
		v, _ := strconv.ParseInt(m[2], 16, 64)
		out[m[1]] = v
	}
	return out
}
