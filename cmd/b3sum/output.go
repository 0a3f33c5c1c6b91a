package main

import (
	"encoding/hex"
	"io"

	"github.com/purego-blake3/blake3"
)

// writeHex writes length bytes of output as lower-case hex, in bounded
// memory however large length is.
func writeHex(w io.Writer, d *blake3.Digest, length uint64) error {
	var raw [2048]byte
	var enc [2 * len(raw)]byte
	for length > 0 {
		n := uint64(len(raw))
		if length < n {
			n = length
		}
		if _, err := io.ReadFull(d, raw[:n]); err != nil {
			return err
		}
		hex.Encode(enc[:], raw[:n])
		if _, err := w.Write(enc[:2*n]); err != nil {
			return err
		}
		length -= n
	}
	return nil
}

// writeRaw writes length raw output bytes.
func writeRaw(w io.Writer, d *blake3.Digest, length uint64) error {
	var buf [32 * 1024]byte
	for length > 0 {
		n := uint64(len(buf))
		if length < n {
			n = length
		}
		if _, err := io.ReadFull(d, buf[:n]); err != nil {
			return err
		}
		if _, err := w.Write(buf[:n]); err != nil {
			return err
		}
		length -= n
	}
	return nil
}

// hashOne hashes one input and prints its line: raw bytes, bare hex
// (--no-names), the BSD form (--tag) or "hex  name". Names that need
// escaping get a leading backslash, as in b3sum.
func (r *runner) hashOne(path string) error {
	d, err := r.hashPath(path)
	if err != nil {
		return err
	}
	w := r.stdout
	switch {
	case r.opts.raw:
		return writeRaw(w, d, r.opts.length)
	case r.opts.noNames:
		if err := writeHex(w, d, r.opts.length); err != nil {
			return err
		}
		return w.WriteByte('\n')
	}
	name, escaped := escapeName(path)
	if escaped {
		w.WriteByte('\\')
	}
	if r.opts.tag {
		w.WriteString("BLAKE3 (")
		w.WriteString(name)
		w.WriteString(") = ")
		if err := writeHex(w, d, r.opts.length); err != nil {
			return err
		}
		return w.WriteByte('\n')
	}
	if err := writeHex(w, d, r.opts.length); err != nil {
		return err
	}
	w.WriteString("  ")
	w.WriteString(name)
	return w.WriteByte('\n')
}
