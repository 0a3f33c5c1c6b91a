package blake3

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/purego-blake3/blake3/internal/ffi"
	zeebo "github.com/zeebo/blake3"
	"lukechampine.com/blake3/guts"
)

// Digest captures the state of a Hasher, allowing reading and seeking
// through the output stream. It satisfies io.Reader and io.Seeker. It is
// not safe for concurrent use; a copy (d2 := *d) is independent.
//
// A Digest that escapes to the heap (through io.Reader, say) is allocated
// at each Hasher.Digest, and it holds what its output needs, up to a block
// of input, and 256 bytes of output read ahead (BenchmarkDigestNew).
type Digest struct {
	src uint8
	pos uint64 // the output position, but for srcGo (zeebo keeps its own)
	err error  // srcErr: why there is no output

	g zeebo.Digest // srcGo

	mode        uint32
	key         [32]byte  // srcShort, srcMerge: the key or context key
	left, right [32]byte  // srcMerge: the root's children
	node        guts.Node // srcNode: the root, in Go
	n           int       // srcShort: the input's length
	short       [64]byte  // srcShort: the input, short[:n], if no longer
	heap        []byte    // srcShort: the input, if longer (setShort)

	// Output fetched ahead for small reads: ob[:obLen] is the output from
	// obPos on (obLen is 0 until the first small read). Held by value, so
	// that a copy of a Digest is independent.
	ob    [outBufLen]byte
	obPos uint64
	obLen uint64
}

// Where a Digest's output comes from.
const (
	srcNone  uint8 = iota // the zero Digest, not from a Hasher
	srcGo                 // a zeebo Digest
	srcShort              // the input (one chunk or less, input()): hashed again at each fetch, until fetch makes it srcNode
	srcMerge              // the library, merging left and right at each fetch, until fetch makes it srcNode
	srcNode               // lukechampine's primitives, from node (goXOF)
	srcErr                // none: err
)

// outBufLen is how much output a small read fetches at once, but for the
// first one (a block): a call that produces 256 bytes (4 blocks) costs
// little more than one that produces 1 byte where the blocks are computed
// side by side, and it is held in the Digest, which costs each Digest
// that escapes to the heap its size (BenchmarkDigestRead,
// BenchmarkDigestNew).
const outBufLen = 256

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
	case k >= outBufLen:
		d.fetch(d.pos, p)
	case d.obLen == 0 && k <= 64:
		// The first small read, the usual use of a Digest: it fetches 64
		// bytes (one block from position 0, which costs no more than
		// fewer bytes; two from elsewhere), so that a second read within
		// them (two keys from one output) is a copy.
		d.fetch(d.pos, d.ob[:64])
		d.obPos, d.obLen = d.pos, 64
		copy(p, d.ob[:])
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
			must(lib.HashXOF(d.mode, d.modeKey(), false, d.input(), pos, p))
			return
		}
		d.src, d.node = srcNode, guts.CompressChunk(d.input(), keyWords(d.mode, &d.key), 0, modeFlags(d.mode))
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
// input: fetch). A Digest that setShort gave a root node (srcNode) reads
// it in Go whatever outGo says. The crate computes output blocks side by
// side only with AVX-512 on unix (its Platform::xof_many); elsewhere it
// compresses one block per call, as zeebo does, while lukechampine's code
// compresses 8 blocks side by side in AVX2 assembly (16 with AVX-512): on
// an AVX2 host, about three times the library's output speed
// (BenchmarkGoXOF, docs/dispatch.md). It is set with the backend
// (outputInGo).
var outGo bool

// outputInGo is outGo's rule: Go on amd64 with AVX2 (goXOF's runs), but
// where the library has AVX-512 on unix, whose runs are as wide; the
// library elsewhere, as on arm64, where neither Go package has assembly.
func outputInGo(haveLib bool, goos, goarch string, avx2 bool, simd string) bool {
	return haveLib && goarch == "amd64" && avx2 && (simd != "avx512" || goos == "windows")
}

// setShort makes d the Digest of in, an input of one chunk or less in
// d.mode (with d.key), which never crossed into the library. Up to a block
// it keeps in itself (srcShort). A longer one costs a Digest either its
// root node, computed now, or a copy on the heap, and it gets the cheaper
// of the two where the first read is what it costs: the node (srcNode),
// where the plan hashes an input that long in Go (with zeebo's assembly or
// lukechampine's one-chunk code, as a one-shot hash of it would), the copy
// where it hashes it in the library (srcShort). A Digest that held a whole
// chunk in itself was 1 KiB larger: each Digest that escapes to the heap
// allocated that much more (BenchmarkDigestNew, docs/stream.md).
func (d *Digest) setShort(in []byte) {
	d.n = len(in)
	if d.n <= len(d.short) {
		d.src, d.heap = srcShort, nil
		copy(d.short[:], in)
		return
	}
	switch im := implFor(d.n); {
	case im == implZeebo && d.mode == modeHash:
		if node, ok := zeeboChunkRoot(in); ok {
			d.src, d.node = srcNode, node
			return
		}
		fallthrough
	case im == implLuke:
		d.src, d.node = srcNode, guts.CompressChunk(in, keyWords(d.mode, &d.key), 0, modeFlags(d.mode))
	default:
		d.src, d.heap = srcShort, slices.Clone(in)
	}
}

// zeeboChunkRoot is the root node of in, one chunk or less, in plain
// hashing, from zeebo's hasher (its assembly), and false where zeebo's
// Digest is not laid out as internal/ffi expects. zeebo's hasher is on
// this function's stack (10 KiB), not on its callers'.
//
//go:noinline
func zeeboChunkRoot(in []byte) (guts.Node, bool) {
	z := zeebo.New()
	_, _ = z.Write(in)
	return ffi.ZeeboRoot(z.Digest())
}

// input is the input of a srcShort Digest.
func (d *Digest) input() []byte {
	if d.heap != nil {
		return d.heap
	}
	return d.short[:d.n]
}

// first writes the first len(p) <= 64 bytes of the output of a short
// input (srcShort), the usual single read of a Digest, as a one-shot hash
// computes them: through the size dispatch, which gives an input that
// short to zeebo where a crossing costs more than the hash
// (BenchmarkDigestNew).
func (d *Digest) first(p []byte) {
	in := d.input()
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
