package main

import (
	"errors"
	"os"
	"unicode"
	"unicode/utf8"
)

// errText formats an error the way Rust's std::io::Error displays OS
// errors, e.g. "No such file or directory (os error 2)", so that messages
// match b3sum's. Other errors are printed as they are.
func errText(err error) string {
	if text, ok := errnoText(err); ok {
		return text
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// capitalize upper-cases the first letter of s; Go's errno strings are
// lower case where glibc's strerror (used by Rust) starts with a capital.
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
