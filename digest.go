package blake3

import (
	"errors"
	"fmt"
	"io"

	zeebo "github.com/zeebo/blake3"
	"lukechampine.com/blake3/guts"
)

// Digest captures the state of a Hasher, allowing reading and seeking
// through the output stream. It satisfies io.Reader and io.Seeker. It is
// not safe for concurrent use; a copy (d2 := *d) is independent.
type Digest struct {
	src uint8
	pos uint64 // the output position, but for srcGo (zeebo keeps its own)
	err error  // srcErr: why there is no output

	g zeebo.Digest // srcGo

	mode        uint32
	key         [32]byte  // srcShort, srcMerge: the key or context key
	left, right [32]byte  // srcMerge: the root's children
	node        guts.Node // srcNode: the root, in Go
	n           int       // srcShort: the input, in[:n]
	in          [chunkLen]byte

	// Output fetched ahead for small reads after the first one: ob[:obLen]
	// is the output from obPos on. Held by value, so that a copy of a
	// Digest is independent.
	ahead bool
	ob    [outBufLen]byte
	obPos uint64
	obLen uint64
}

// Where a Digest's output comes from.
const (
	srcNone  uint8 = iota // the zero Digest, not from a Hasher
	srcGo                 // a zeebo Digest
	srcShort              // the input, in[:n] (one chunk or less): the library hashes it at each fetch, until fetch makes it srcNode
	srcMerge              // the library, merging left and right at each fetch, until fetch makes it srcNode
	srcNode               // lukechampine's primitives, from node (goXOF)
	srcErr                // none: err
)

// outBufLen is how much output a small read fetches at once: a call that
// produces 1 KiB (16 blocks, computed side by side) costs little more than
// one that produces 1 byte (BenchmarkDigestRead).
const outBufLen = 1024

// Read reads data from the hasher into p. It always fills the entire buffer
// and never errors, but for the Digest of a hasher with a non-zero input
// offset (see Hasher.SetInputOffset), which has no output to read. The
// output is defined for 2^64 bytes; what reads past that return is
// unspecified (the position itself wraps modulo 2^64).
func (d *Digest) Read(p []byte) (n int, err error) {
	switch d.src {
	case srcGo:
		return d.g.Read(p)
	case srcErr:
		return 0, d.err
	case srcNone:
		return 0, errors.New("blake3: Read on a Digest that did not come from Hasher.Digest")
	}
	k := uint64(len(p))
	switch {
	case k == 0:
	case k >= outBufLen || !d.ahead:
		// Large reads, and the first small one: a single short read (the
		// usual use of a Digest) computes no more output than it asks for.
		d.fetch(d.pos, p)
		d.ahead = d.ahead || k < outBufLen
	default:
		// Serve from ob when all of p is there, at positions not wrapped
		// past 2^64 since it was fetched (so that the bytes are exactly
		// what a direct read at d.pos gives); else fetch from d.pos.
		if d.obLen < k || d.pos < d.obPos || d.pos-d.obPos > d.obLen-k {
			d.fetch(d.pos, d.ob[:])
			d.obPos, d.obLen = d.pos, outBufLen
		}
		copy(p, d.ob[d.pos-d.obPos:])
	}
	d.pos += k
	return len(p), nil
}

// fetch writes the output from position pos to p.
func (d *Digest) fetch(pos uint64, p []byte) {
	switch d.src {
	case srcShort:
		if pos == 0 && len(p) <= 64 {
			d.first(p)
			return
		}
		// The root node is computed once, by lukechampine's portable code,
		// at about twice the time per block of input that the library
		// takes to hash the input again at each fetch; from the node, the
		// output comes at about a third of the library's time per block
		// (BenchmarkGoXOF). So the library serves a fetch that is short
		// next to the input (BenchmarkDigestNew), and the node the rest,
		// from then on.
		if !outGo || 2*len(p) <= 3*d.n-chunkLen {
			must(lib.HashXOF(d.mode, d.modeKey(), false, d.in[:d.n], pos, p))
			return
		}
		d.src, d.node = srcNode, guts.CompressChunk(d.in[:d.n], keyWords(d.mode, &d.key), 0, modeFlags(d.mode))
	case srcMerge:
		if !outGo {
			must(lib.MergeRoot(&d.left, &d.right, d.mode, d.modeKey(), pos, p))
			return
		}
		d.src, d.node = srcNode, parentNode(&d.left, &d.right, keyWords(d.mode, &d.key), modeFlags(d.mode))
	}
	goXOF(d.node, pos, p)
}

// outGo reports whether the output of a Digest on the native path is
// computed in Go, from its root node, rather than by the library (but for
// a short input's first read, and its fetches that are short next to the
// input: fetch). The crate computes output blocks side by side only
// with AVX-512 on unix (its Platform::xof_many); elsewhere it compresses
// one block per call, as zeebo does, while lukechampine's code compresses 8
// blocks side by side in AVX2 assembly (16 with AVX-512): on an AVX2 host,
// about three times the library's output speed (BenchmarkGoXOF,
// docs/dispatch.md). It is set with the backend (outputInGo).
var outGo bool

// outputInGo is outGo's rule: Go on amd64 with AVX2 (goXOF's runs), but
// where the library has AVX-512 on unix, whose runs are as wide; the
// library elsewhere, as on arm64, where neither Go package has assembly.
func outputInGo(haveLib bool, goos, goarch string, avx2 bool, simd string) bool {
	return haveLib && goarch == "amd64" && avx2 && (simd != "avx512" || goos == "windows")
}

// first writes the first len(p) <= 64 bytes of the output of a short
// input (srcShort), the usual single read of a Digest, as a one-shot hash
// computes them: through the size dispatch, which gives an input that
// short to zeebo where a crossing costs more than the hash
// (BenchmarkDigestNew).
func (d *Digest) first(p []byte) {
	in := d.in[:d.n]
	if d.mode == modeHash {
		s := Sum512(in)
		copy(p, s[:])
		return
	}
	sumSmall(d.mode, d.modeKey(), in, p)
}

func (d *Digest) modeKey() *[32]byte {
	if d.mode == modeHash {
		return nil
	}
	return &d.key
}

// Seek sets the position to the provided location. Only io.SeekStart and
// io.SeekCurrent are allowed; the output has no end to seek from. A negative
// resulting position is an error.
func (d *Digest) Seek(offset int64, whence int) (int64, error) {
	if d.src == srcGo {
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
