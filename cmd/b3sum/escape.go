package main

import (
	"errors"
	"runtime"
	"strings"
	"unicode/utf8"
)

// lossyUTF8 converts raw bytes (as found in file names on Unix) to valid
// UTF-8 exactly like Rust's String::from_utf8_lossy / Path::to_string_lossy:
// each maximal ill-formed subsequence is replaced by a single U+FFFD. This
// differs from strings.ToValidUTF8, which collapses whole runs of invalid
// bytes, and from ranging over the string, which replaces every byte.
func lossyUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	i := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			b.WriteByte(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || size > 1 {
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		// Invalid sequence starting at i: skip the maximal subpart, which
		// is the lead byte plus any continuation bytes that were valid for
		// that lead byte (Unicode "substitution of maximal subparts").
		i += maximalSubpart(s[i:])
		b.WriteString("\uFFFD")
	}
	return b.String()
}

// maximalSubpart returns the length (>= 1) of the maximal prefix of s that
// is a valid beginning of a UTF-8 sequence, given that s does not start with
// a complete valid sequence. It mirrors Rust's core::str::Utf8Chunks.
func maximalSubpart(s string) int {
	at := func(k int) byte {
		if k < len(s) {
			return s[k]
		}
		return 0
	}
	cont := func(c byte) bool { return c&0xC0 == 0x80 }
	c0 := s[0]
	switch {
	case c0 >= 0xC2 && c0 <= 0xDF:
		// A valid 2-byte sequence would have decoded; the lead alone.
		return 1
	case c0 >= 0xE0 && c0 <= 0xEF:
		c1 := at(1)
		ok := (c0 == 0xE0 && c1 >= 0xA0 && c1 <= 0xBF) ||
			(c0 >= 0xE1 && c0 <= 0xEC && cont(c1)) ||
			(c0 == 0xED && c1 >= 0x80 && c1 <= 0x9F) ||
			(c0 >= 0xEE && c0 <= 0xEF && cont(c1))
		if !ok {
			return 1
		}
		return 2 // the third byte must be what failed
	case c0 >= 0xF0 && c0 <= 0xF4:
		c1 := at(1)
		ok := (c0 == 0xF0 && c1 >= 0x90 && c1 <= 0xBF) ||
			(c0 >= 0xF1 && c0 <= 0xF3 && cont(c1)) ||
			(c0 == 0xF4 && c1 >= 0x80 && c1 <= 0x8F)
		if !ok {
			return 1
		}
		if !cont(at(2)) {
			return 2
		}
		return 3
	default:
		return 1
	}
}

// escapeName renders a file name for output the way b3sum does. Invalid
// UTF-8 is replaced lossily; on Windows backslashes become forward slashes;
// then, if the name contains a backslash, newline or carriage return, those
// are escaped (\\, \n, \r) and escaped reports true, meaning the output line
// must be prefixed with a backslash.
func escapeName(name string) (out string, escaped bool) {
	out = lossyUTF8(name)
	if runtime.GOOS == "windows" {
		out = strings.ReplaceAll(out, `\`, "/")
	}
	if strings.ContainsAny(out, "\\\n\r") {
		out = strings.ReplaceAll(out, `\`, `\\`)
		out = strings.ReplaceAll(out, "\n", `\n`)
		out = strings.ReplaceAll(out, "\r", `\r`)
		escaped = true
	}
	return out, escaped
}

// errInvalidEscape is returned by unescapeName for a malformed escape.
var errInvalidEscape = errors.New("Invalid backslash escape")

// unescapeName reverses escapeName for a check-file path that was marked
// as escaped. Only \n, \r and \\ are recognised; anything else is an error.
func unescapeName(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	for {
		i := strings.IndexByte(s, '\\')
		if i < 0 {
			break
		}
		if i == len(s)-1 {
			return "", errInvalidEscape
		}
		b.WriteString(s[:i])
		switch s[i+1] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case '\\':
			b.WriteByte('\\')
		default:
			return "", errInvalidEscape
		}
		s = s[i+2:]
	}
	b.WriteString(s)
	return b.String(), nil
}
