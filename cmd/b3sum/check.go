package main

import (
	"bufio"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"unicode/utf8"
)

// checkLine is one parsed line of a checkfile.
type checkLine struct {
	display  string   // the name as printed in OK/FAILED lines
	path     string   // the file to hash, unescaped
	expected [32]byte // the expected hash
}

// errInvalidUTF8 is Rust's read_line error for a non-UTF-8 checkfile.
var errInvalidUTF8 = errors.New("stream did not contain valid UTF-8")

// parseCheckLine parses a line of a checkfile, either "HASH  NAME" or the
// BSD form "BLAKE3 (NAME) = HASH", optionally prefixed with a backslash
// meaning that NAME is escaped. Errors use b3sum's messages.
func parseCheckLine(line string) (checkLine, error) {
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return checkLine{}, errors.New("Empty line")
	}
	escaped := line[0] == '\\'
	rest := line
	if escaped {
		rest = line[1:]
	}
	var hashHex, file string
	if left, right, ok := strings.Cut(rest, "  "); ok {
		hashHex, file = left, right
	} else if tail, ok := strings.CutPrefix(rest, "BLAKE3 ("); ok {
		i := strings.LastIndex(tail, ") = ")
		if i < 0 {
			return checkLine{}, errors.New("Invalid check line format")
		}
		file, hashHex = tail[:i], tail[i+len(") = "):]
	} else {
		return checkLine{}, errors.New("Invalid check line format")
	}
	if len(hashHex) != 64 {
		return checkLine{}, errors.New("Invalid hash length")
	}
	for _, c := range hashHex {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return checkLine{}, errors.New("Invalid hex")
		}
	}
	var cl checkLine
	if _, err := hex.Decode(cl.expected[:], []byte(hashHex)); err != nil {
		return checkLine{}, errors.New("Invalid hex")
	}
	path := file
	if escaped {
		var err error
		if path, err = unescapeName(file); err != nil {
			return checkLine{}, err
		}
	}
	if path == "" {
		return checkLine{}, errors.New("empty file path")
	}
	switch {
	case strings.Contains(path, "\x00"):
		return checkLine{}, errors.New("Null character in path")
	case strings.Contains(path, "\uFFFD"):
		return checkLine{}, errors.New("Unicode replacement character in path")
	case runtime.GOOS == "windows" && strings.Contains(path, `\`):
		return checkLine{}, errors.New("Backslash in path")
	}
	cl.path = path
	cl.display = file
	if escaped {
		cl.display = `\` + file
	}
	return cl, nil
}

// checkOneLine verifies one checkfile line, printing OK (unless --quiet) or
// FAILED on stdout, or a parse error on stderr. It reports success.
func (r *runner) checkOneLine(line string) bool {
	cl, err := parseCheckLine(line)
	if err != nil {
		r.warn("b3sum: " + err.Error())
		return false
	}
	w := r.stdout
	d, err := r.hashPath(cl.path)
	if err != nil {
		w.WriteString(cl.display + ": FAILED (" + errText(err) + ")\n")
		return false
	}
	var found [32]byte
	if _, err := io.ReadFull(d, found[:]); err != nil {
		w.WriteString(cl.display + ": FAILED (" + errText(err) + ")\n")
		return false
	}
	if subtle.ConstantTimeCompare(found[:], cl.expected[:]) == 1 {
		if !r.opts.quiet {
			w.WriteString(cl.display + ": OK\n")
		}
		return true
	}
	w.WriteString(cl.display + ": FAILED\n")
	return false
}

// checkFile verifies every line of one checkfile ("-" is stdin), adding
// the number of failed lines to *failed. An error opening or reading the
// checkfile itself is returned and ends the program, as in b3sum.
func (r *runner) checkFile(path string, failed *uint64) error {
	var src io.Reader
	if path == "-" {
		src = r.stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		src = f
	}
	br := bufio.NewReaderSize(src, 64*1024)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			if !utf8.ValidString(line) {
				return errInvalidUTF8
			}
			if !r.checkOneLine(line) && *failed < ^uint64(0) {
				*failed++
			}
			r.stdout.Flush()
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
