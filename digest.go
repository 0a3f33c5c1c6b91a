package blake3

import (
	"errors"
	"fmt"
	"io"

	zeebo "github.com/zeebo/blake3"
)

// Digest captures the state of a Hasher, allowing reading and seeking
// through the output stream. It satisfies io.Reader and io.Seeker.
type Digest struct {
	g   zeebo.Digest // the Go path, when gon is set
	gon bool
	st  []uint64   // the native state, never changed after creation
	pos uint64     // the native path's output position
	sub *subOutput // a merged subtree root, or an error (subtree.go)
}

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
	must(stFinalize(d.st, d.pos, p))
	d.pos += uint64(len(p))
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
