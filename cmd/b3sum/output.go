package main

import (
	"encoding/hex"
	"io"
	"math"

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

// rawChunk is the most output writeRaw reads at once with t threads
// allowed: a MiB for each, the least that Digest.ReadAt computes on a
// goroutine of its own, up to 16, so that a long --raw output is computed
// on up to 16 cores, where b3sum computes it on one (BenchmarkDigestWide;
// docs/b3sum.md). With one thread it is a MiB too: a 32 KiB buffer took
// 30,000 writes and crossings for a GB of output, where the output itself
// took about five sixths of the time.
func rawChunk(t int) uint64 {
	return uint64(min(max(t, 1), 16)) << 20
}

// writeRaw writes length raw output bytes from d's position, in reads of up
// to chunk bytes: at an offset (ReadAt), and from the first read that
// would end past 2^63-1 bytes of output, where an offset does not reach,
// with Read, from d's position, which writeRaw moves there (ReadAt leaves
// it).
func writeRaw(w io.Writer, d *blake3.Digest, length, chunk uint64) error {
	buf := make([]byte, min(length, chunk))
	off, err := d.Seek(0, io.SeekCurrent)
	for length > 0 && err == nil {
		n := min(length, uint64(len(buf)))
		switch {
		case off < 0: // reading on from d's position (below)
			_, err = io.ReadFull(d, buf[:n])
		case uint64(off) > math.MaxInt64-n: // the read ends past 2^63-1
			if _, err = d.Seek(off, io.SeekStart); err == nil {
				_, err = io.ReadFull(d, buf[:n])
			}
			off = -1
		default:
			_, err = d.ReadAt(buf[:n], off)
			off += int64(n)
		}
		if err == nil {
			_, err = w.Write(buf[:n])
		}
		length -= n
	}
	return err
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
		return writeRaw(w, d, r.opts.length, rawChunk(r.threads))
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
