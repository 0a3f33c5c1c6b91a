package blake3

import (
	"errors"
	"fmt"
	"io"

	zeebo "github.com/zeebo/blake3"
)

// Digest captures the state of a Hasher, allowing reading and seeking
// through the output stream. It satisfies io.Reader and io.Seeker. It is
// not safe for concurrent use; a copy (d2 := *d) is independent.
type Digest struct {
	g   zeebo.Digest // the Go path, when gon is set
	gon bool
	st  []uint64   // the native state, never changed after creation
	pos uint64     // the native path's output position
	sub *subOutput // a merged subtree root, or an error (subtree.go)

	// Output fetched ahead for small reads after the first one: ob[:obLen]
	// is the output from obPos on. Held by value, so that a copy of a
	// Digest is independent.
	ahead bool
	ob    [outBufLen]byte
	obPos uint64
	obLen uint64
}

// outBufLen is how much output a small native Read fetches at once: a call
// that produces 1 KiB (16 blocks, computed side by side) costs little more
// than one that produces 1 byte. BenchmarkDigestRead, when reads crossed each
// time (~200 ns a call): 1-byte reads went to 4.3 ns each (zeebo 6.3),
// 32-byte reads to 11 ns (zeebo 59). With the 33 ns crossing, on another
// day's machine: a 1 KiB read ~165 ns, 1-byte reads 4.4 ns (zeebo 6.6),
// 32-byte 24 ns (zeebo 60).
const outBufLen = 1024

// Read reads data from the hasher into p. It always fills the entire buffer
// and never errors, but for the Digest of a hasher with a non-zero input
// offset (see Hasher.SetInputOffset), which has no output to read. The
// output is defined for 2^64 bytes; what reads past that return is
// unspecified (the position itself wraps modulo 2^64).
func (d *Digest) Read(p []byte) (n int, err error) {
	if d.sub != nil {
		return d.subRead(p)
	}
	if d.gon {
		return d.g.Read(p)
	}
	if d.st == nil {
		return 0, errors.New("blake3: Read on a Digest that did not come from Hasher.Digest")
	}
	k := uint64(len(p))
	switch {
	case k == 0:
	case k >= outBufLen || !d.ahead:
		// Large reads, and the first small one: a single short read (the
		// usual use of a Digest) computes no more output than it asks for.
		must(stFinalize(d.st, d.pos, p))
		d.ahead = d.ahead || k < outBufLen
	default:
		// Serve from ob when all of p is there, at positions not wrapped
		// past 2^64 since it was fetched (so that the bytes are exactly
		// what a direct read at d.pos gives); else fetch from d.pos.
		if d.obLen < k || d.pos < d.obPos || d.pos-d.obPos > d.obLen-k {
			must(stFinalize(d.st, d.pos, d.ob[:]))
			d.obPos, d.obLen = d.pos, outBufLen
		}
		copy(p, d.ob[d.pos-d.obPos:])
	}
	d.pos += k
	return len(p), nil
}

// Seek sets the position to the provided location. Only io.SeekStart and
// io.SeekCurrent are allowed; the output has no end to seek from. A negative
// resulting position is an error.
func (d *Digest) Seek(offset int64, whence int) (int64, error) {
	if d.gon {
		return d.g.Seek(offset, whence)
	}
	switch whence {
	case io.SeekStart:
	case io.SeekEnd:
		return 0, errors.New("blake3: seek from end not supported")
	case io.SeekCurrent:
		offset += int64(d.pos)
	default:
		return 0, fmt.Errorf("blake3: invalid whence: %d", whence)
	}
	if offset < 0 {
		return 0, errors.New("blake3: seek before start")
	}
	d.pos = uint64(offset)
	return offset, nil
}
