package blake3

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/purego-blake3/blake3/internal/ffi"
	zeebo "github.com/zeebo/blake3"
	"lukechampine.com/blake3/guts"
)

// Digest captures the state of a Hasher, allowing reading and seeking
// through the output stream. It satisfies io.Reader, io.Seeker and
// io.ReaderAt, whose ReadAt computes a long read on several cores. It is
// not safe for concurrent use, except for ReadAt calls; a copy (d2 := *d)
// is independent.
//
// A Digest that escapes to the heap (through io.Reader, say) is allocated
// at each Hasher.Digest: it holds the root node of the output, or what
// gives it, and the block of output that small reads are served from
// (BenchmarkDigestNew); a long run of small reads allocates a buffer for
// output fetched ahead, once for a Digest (and once again for a copy of it
// that reads on, or for one whose stack moved: fromRun;
// BenchmarkDigestRead).
//
// It takes 208 bytes, the size class after zeebo's (192, for its 184):
// zeebo's Digest's fields, laid out as zeebo's are, so that zeebo's
// compression computes a block of output where the Digest holds its node
// (ffi.ZeeboXOF), and 20 bytes more. A Digest used as an io.Reader,
// allocated at each use, was slower than zeebo's at 256 bytes
// (BenchmarkDigestNew, use=reader; docs/stream.md), and measured no
// slower at 208 than at 192: what its source reads besides a root node,
// and its run of output ahead, are in one interface (held); the block at
// hand is the one at the position (x.Out), with no position of its own.
type Digest struct {
	// held is what the source reads besides the root node: the error
	// (srcErr), the first byte of a copy of the input (srcShort, its length
	// in x.Block[0]) or zeebo's Digest (srcGo, never read: a copy of
	// it is); or, once a Digest reads runs of output ahead, the run
	// (*outAhead), which carries that in its own held. Copies of a Digest
	// share it: only a run is written, by the Digest it is owned by.
	held any

	// x is the root node, for srcNode and srcLib; for srcShort, only the
	// key (x.CV) and the mode's flag (x.Flags), and the input's length in
	// x.Block[0]. It holds the output position too (x.Pos), and the output
	// block at x.Pos&^63 (x.Out), where obOK: small reads are served from
	// it. Held by value, so that a copy of a Digest is independent. A read
	// that ends at the end of the block, and any other move of the
	// position to another block, leave no block at hand. refills counts
	// the blocks fetched into it and the direct reads of a block to a run,
	// up to aheadAfter, after which small reads are served from a run.
	x       xof
	mode    uint8
	src     uint8
	obOK    bool
	refills uint8
}

// xof is a root node as a Digest holds it (guts.Node but its counter,
// which each output block sets), the block of output at hand and the
// position, laid out as zeebo's Digest is (see Digest).
type xof struct{ ffi.ZeeboXOF }

// setBlock is the package's setBlock, for x's node.
func (x *xof) setBlock(cv *[8]uint32, flags uint32, in []byte) {
	ffi.BlockWords(&x.Block, in)
	x.CV, x.BlockLen, x.Flags = *cv, uint32(len(in)), guts.FlagChunkStart|guts.FlagChunkEnd|flags
}

// setParent sets x's node to the parent node of left and right, with key
// cv and mode flags, as guts.ParentNode makes it, in place: a node built
// elsewhere and copied in is read, right after it was written, by the
// Digest's first read (BenchmarkDigestNew).
func (x *xof) setParent(cv *[8]uint32, flags uint32, left, right *[32]byte) {
	ffi.CVWords((*[8]uint32)(x.Block[:8]), left)
	ffi.CVWords((*[8]uint32)(x.Block[8:]), right)
	x.CV, x.BlockLen, x.Flags = *cv, guts.BlockSize, guts.FlagParent|flags
}

// set sets x's node to n, in place: a node built elsewhere and copied in
// took the Digest of 64 KiB on the Go path about 1.07 times as long
// (BenchmarkDigestNew).
func (x *xof) set(n *guts.Node) {
	x.CV, x.Block, x.BlockLen, x.Flags = n.CV, n.Block, n.BlockLen, n.Flags
}

// setTail sets x's node to the root node of an input of chunks whole
// chunks, the chaining values of whose subtrees cv holds, and then tail, a
// chunk or less (a part of one after the library's tree; on the Go path,
// the last chunk, whole or not), in the mode of key and flags, as
// lukechampine's Hasher computes its root: tail's node, then the parent of
// each subtree's value and the node's, from the smallest subtree. With
// byZeebo (its callers: where the plan picks zeebo for tail's length, as a
// one-shot hash of it would), it computes them where x holds its node,
// with zeebo's compression of one block (ffi.ZeeboXOF.SetChunk and Parent;
// SSE4.1 assembly on amd64); else, or where zeebo's Digest's layout is not
// known, with lukechampine's code, whose compression of a node is portable
// Go. It takes a Sum or a Digest of a Hasher whose last chunk is not
// whole, after the library's tree of the chunks before it, out of the
// library (tailGo has the rule), and the Go path's root after its chunks
// out of lukechampine's code: BenchmarkSumAgain (docs/zeebo-api.md).
func (x *xof) setTail(byZeebo bool, chunks uint64, cv cvStack, key *[8]uint32, flags uint32, tail []byte) {
	if byZeebo && x.SetChunk(tail, key, chunks, flags) {
		counter := chunks
		for rest := chunks; rest != 0; rest &= rest - 1 {
			// SetChunk's check is Parent's, and counter is at most its.
			_ = x.Parent(cv.at(bits.TrailingZeros64(rest)), counter, key, flags)
			counter = 0
		}
		return
	}
	n := guts.CompressChunk(tail, key, chunks, flags)
	for rest := chunks; rest != 0; rest &= rest - 1 {
		n = guts.ParentNode(cvWords(cv.at(bits.TrailingZeros64(rest))), guts.ChainingValue(n), key, flags)
	}
	x.set(&n)
}

// ref is x's node, where it is.
func (x *xof) ref() rootRef {
	return rootRef{&x.CV, &x.Block, x.BlockLen, x.Flags}
}

// node is x's node as guts has it, its counter 0.
func (x *xof) node() guts.Node {
	return guts.Node{CV: x.CV, Block: x.Block, BlockLen: x.BlockLen, Flags: x.Flags}
}

// outAhead is output fetched ahead for a long run of small reads, on the
// heap: used only by the Digest at the address that owner holds, so that
// a copy of a Digest (elsewhere) neither reads nor writes it, and makes
// its own if it needs one (fromRun). held is what the Digest held before
// its first run (Digest.held), never written after: a copy's own run
// carries it on.
type outAhead struct {
	owner atomic.Uintptr
	pos   uint64 // b holds the output from pos
	held  any
	b     [xofRun]byte
}

// run is d's run of output ahead, or nil.
func (d *Digest) run() *outAhead {
	a, _ := d.held.(*outAhead)
	return a
}

// source is what d's source reads besides the root node (Digest.held).
func (d *Digest) source() any {
	if a := d.run(); a != nil {
		return a.held
	}
	return d.held
}

// holdInput makes in, not empty and never written after, the input of
// srcShort, held by its first byte.
func (d *Digest) holdInput(in []byte) {
	d.held, d.x.Block[0] = &in[0], uint32(len(in))
}

// input is the input of srcShort.
func (d *Digest) input() []byte {
	return ffi.Bytes(d.source().(*byte), int(d.x.Block[0]))
}

// aheadAfter is how many blocks a Digest fetches one at a time for small
// reads before it fetches xofRun bytes at once, into an outAhead: fewer
// small reads than that (one or two keys from an output) cost no
// allocation, and a longer run costs one, and then a run of blocks (one
// call; in Go, computed side by side where lukechampine has assembly) per
// xofRun bytes instead of a block (BenchmarkDigestRead, docs/stream.md).
const aheadAfter = 8

// Where a Digest's output comes from.
const (
	srcNone  uint8 = iota // the zero Digest, not from a Hasher
	srcNode               // the root node, read as libOutput says (goXOF or the library)
	srcLib                // the root node, in Go or by the library: the node of an input of a block or less, or a parent node
	srcShort              // the input (held, its length in x.Block[0]), of a block to a chunk: hashed by the library at each fetch, until fetch makes it srcNode
	srcGo                 // a copy of zeebo's Digest (held), where its layout is one ffi does not know
	srcErr                // none: the error (held)
)

// Read reads data from the hasher into p. It always fills the entire buffer
// and never errors, but for the Digest of a hasher with a non-zero input
// offset (see Hasher.SetInputOffset), which has no output to read. The
// output is defined for 2^64 bytes; what reads past that return is
// unspecified (the position itself wraps modulo 2^64). (On the Go path
// with a version of github.com/zeebo/blake3 whose Digest this package does
// not know, a read of output past 2^63 bytes, which only reading that far
// reaches, is an error: zeebo's Digest cannot seek there.)
func (d *Digest) Read(p []byte) (n int, err error) {
	if k := uint64(len(p)); (d.src == srcLib || d.src == srcNode) && !d.obOK && d.x.Pos < guts.BlockSize && 0 < k && k < guts.BlockSize-d.x.Pos {
		// The usual single read of a Digest, from a node: within its
		// first block, with no block at hand, as the small reads' loop
		// below reads it, without the tests before it, which took about
		// a tenth of a Digest of 64 bytes read once (BenchmarkDigestNew,
		// input=64B). The block stays at hand: the read ends within it.
		// The first block of a node that Go computes (first's second
		// case) is computed here, without nextBlock's and first's calls,
		// about 3% of the CPU profile of a Digest of 64 bytes read again
		// (BenchmarkSumAgain, size=64B, read=digest).
		if d.src == srcLib && (lib == nil || implFor(int(d.x.BlockLen)) != implNative) && d.blockGo(0) {
			d.refills = min(d.refills+1, aheadAfter)
			d.obOK = true
		} else {
			d.nextBlock(0)
		}
		copy(p, d.x.Out[d.x.Pos:])
		d.x.Pos += k
		return len(p), nil
	}
	if err := d.readErr(d.x.Pos, uint64(len(p))); err != nil {
		return 0, err
	}
	k := uint64(len(p))
	if off := d.x.Pos % guts.BlockSize; d.obOK && k <= guts.BlockSize-off {
		// Within the block at hand: the usual second read of one output.
		copy(p, d.x.Out[off:])
		d.x.Pos += k
		d.obOK = d.x.Pos%guts.BlockSize != 0
		return len(p), nil
	}
	if d.x.Pos+k < d.x.Pos || k >= xofRun || k >= guts.BlockSize && d.refills < aheadAfter {
		// A large read, one that wraps past 2^64, or one of a block or
		// more before the Digest has fetched aheadAfter blocks (as the
		// small reads count them: a long run of such reads gets runs of
		// output ahead too), straight from the source, as one fetch.
		if k < xofRun {
			d.refills = min(d.refills+1, aheadAfter)
		}
		d.obOK = false
		d.fetch(d.x.Pos, p)
		d.x.Pos += k
		return len(p), nil
	}
	if off := d.x.Pos % guts.BlockSize; !d.obOK && k < guts.BlockSize && off+k > guts.BlockSize && d.refills < aheadAfter {
		d.fetchTwo(p)
		return len(p), nil
	}
	// Small reads from the block at hand, each block fetched once. The
	// position moves once the read is whole: a fetch that panics (and is
	// recovered) leaves it where the read started, with no block at hand.
	pos := d.x.Pos
	for n < len(p) {
		if !d.obOK {
			d.nextBlock(pos &^ (guts.BlockSize - 1))
		}
		c := copy(p[n:], d.x.Out[pos%guts.BlockSize:])
		n += c
		pos += uint64(c)
		d.obOK = pos%guts.BlockSize != 0
	}
	d.x.Pos = pos
	return n, nil
}

// readErr is the error of a read of k bytes of output from position pos,
// or nil: from a Digest with no output to read (srcErr, srcNone), and past
// 2^63 bytes from a copy of zeebo's Digest (srcGo), which cannot seek
// there (every fetch starts before the end of the read, and so before
// 2^63).
func (d *Digest) readErr(pos, k uint64) error {
	switch d.src {
	case srcErr:
		return d.held.(error)
	case srcNone:
		return errors.New("blake3: Read on a Digest that did not come from Hasher.Digest")
	case srcGo:
		if pos > 1<<63 || k > 1<<63-pos {
			return errors.New("blake3: Read past 2^63 bytes of output, where this package does not know the layout of zeebo's Digest")
		}
	}
	return nil
}

// fetchTwo is Read's case of a read of less than a block that runs past the
// end of the block it starts in, where no block is at hand and d fetches
// blocks alone (not from a run ahead): the two blocks in one fetch, the
// second kept at hand, as the small reads' loop would keep it. Fetched
// apart, through two passes of the layers below, a Seek into the output
// and a read of 32 bytes across an edge took 1.1 to 1.2 times zeebo's
// time, and on the native path, where the first fetch of a block but the
// first hashes an input of up to a chunk again in the library
// (srcShort), about twice (BenchmarkDigestSeek, docs/stream.md).
//
//go:noinline
func (d *Digest) fetchTwo(p []byte) {
	var two [2 * guts.BlockSize]byte
	off := d.x.Pos % guts.BlockSize
	d.fetch(d.x.Pos-off, two[:])
	copy(p, two[off:])
	copy(d.x.Out[:], two[guts.BlockSize:])
	d.refills = min(d.refills+2, aheadAfter)
	d.x.Pos += uint64(len(p))
	d.obOK = true // the read, of less than a block, ends within the second
}

// nextBlock makes the block at hand the one at at: fetched alone, or,
// once d has fetched aheadAfter blocks alone, copied from a run of them
// fetched ahead (fromRun). The first block of a srcLib node, the usual
// single read, is fetched alone (first) without fromRun's and fetch's
// tests, as a run would hold the same block; a block that Go computes
// from d's node one at a time is computed where d holds it (blockGo). The
// block is at hand (obOK) only once it is written: a fetch that panics
// (the library's internal error) and is recovered leaves no block to serve
// small reads from.
func (d *Digest) nextBlock(at uint64) {
	d.obOK = false
	switch {
	case at == 0 && d.src == srcLib:
		d.first()
	case d.fromRun(at):
		d.obOK = true
		return
	case (d.src == srcNode || d.src == srcLib) && !libOutput(guts.BlockSize) && d.blockGo(at/guts.BlockSize):
	default:
		d.fetch(at, d.x.Out[:])
	}
	d.refills = min(d.refills+1, aheadAfter)
	d.obOK = true
}

// fromRun copies the block at at to d.x.Out from d's run of output fetched
// ahead, fetching the run first if it must, and reports whether it did:
// not before d has fetched aheadAfter blocks alone, nor where a run from
// at would reach 2^64 (after which the output at a position is what a
// read that starts there gives, not what one that ran on from before
// gives; and so at-a.pos wraps where at is before a run).
//
// A run is d's while its owner is d's address, and taken while it is 0:
// d takes it from its own address and gives it back to its address after
// (which a fetch that grew the stack may have moved), so that a copy of d
// elsewhere, or on another goroutine at an address d's stack left, never
// touches it at the same time, and makes its own.
func (d *Digest) fromRun(at uint64) bool {
	a := d.run()
	if a != nil && !a.owner.CompareAndSwap(ffi.Addr(d), 0) {
		a = nil // not d's: it came with a copy
	}
	if a == nil || at-a.pos >= xofRun {
		if d.refills < aheadAfter || at > math.MaxUint64-xofRun {
			if a != nil {
				a.owner.Store(ffi.Addr(d))
			}
			return false
		}
		if a == nil {
			a = &outAhead{held: d.source()} // taken
			d.held = a
		}
		d.fetch(at, a.b[:])
		a.pos = at
	}
	copy(d.x.Out[:], a.b[at-a.pos:])
	a.owner.Store(ffi.Addr(d))
	return true
}

// fetch writes the output from position pos to p.
func (d *Digest) fetch(pos uint64, p []byte) {
	switch d.src {
	case srcGo:
		z := *d.source().(*zeebo.Digest)
		_, _ = z.Seek(int64(pos), io.SeekStart) // below 2^63: Read
		_, _ = z.Read(p)
		return
	case srcLib:
		if pos == 0 && len(p) <= guts.BlockSize {
			// A read of the first block or less straight from fetch
			// (Read's of a whole block, MergeRoot's), whose callers
			// leave no block at hand (obOK): first computes it there.
			d.first()
			copy(p, d.x.Out[:])
			return
		}
	case srcShort:
		// The root node is computed once, in Go, at about twice the time
		// per block of input that the library takes to hash the input
		// again at each fetch; from the node, a block costs one
		// compression. So the library serves the first block, as a
		// one-shot hash would, and a fetch of more than a block where it
		// computes output faster than Go (not outGo) or where the fetch is
		// short next to the input; the node the rest, from then on
		// (BenchmarkDigestNew, BenchmarkDigestRead).
		if pos == 0 && len(p) <= guts.BlockSize || len(p) > guts.BlockSize && (!outGo || 2*len(p) <= 3*int(d.x.Block[0])-chunkLen) {
			d.shortFetch(pos, p)
			return
		}
		n := guts.CompressChunk(d.input(), &d.x.CV, 0, d.x.Flags)
		d.src = srcNode
		d.x.set(&n)
		if _, ok := d.held.(*byte); ok {
			d.held = nil // the input, no longer read (a run, if any, holds it on)
		}
	}
	if libOutput(len(p)) {
		d.libFetch(pos, p)
		return
	}
	goXOF(d.x.ref(), pos, p)
}

// first writes the first block of the output of srcLib to x.Out, the
// usual single read of a Digest: from its node, one compression in Go,
// unless the plan hashes an input as long as the node's block in the
// library, faster than Go does (BenchmarkDigestNew). For an input of up to
// a block, that is the input's length; for a parent node, a block, as
// libOutput decides for any read of up to a block.
func (d *Digest) first() {
	if lib != nil && implFor(int(d.x.BlockLen)) == implNative {
		d.libFetch(0, d.x.Out[:])
		return
	}
	if !d.blockGo(0) {
		goXOF(d.x.ref(), 0, d.x.Out[:])
	}
}

// blockGo is goXOF's output of one block, the one at counter, by zeebo's
// compression (zeeboBlockOut), computed where d holds its node and its
// block at hand (ffi.ZeeboXOF.Output), and reports whether it computed it.
func (d *Digest) blockGo(counter uint64) bool { return d.x.blockGo(counter) }

// blockGo is Digest.blockGo for x.
func (x *xof) blockGo(counter uint64) bool {
	return zeeboBlocks && !blocksByLuke.Load() && x.Output(counter)
}

// shortFetch is fetch from the library, from the input (srcShort). Where
// memory passed to the library escapes to the heap (not ffi.ArgsStay), the
// key goes in pooled memory (callMem), which else would be allocated at
// each fetch.
func (d *Digest) shortFetch(pos uint64, p []byte) {
	if ffi.ArgsStay {
		var key [32]byte
		must(lib.HashXOF(uint32(d.mode), d.modeKey(&key), false, d.input(), pos, p))
		return
	}
	m := callMems.Get().(*callMem)
	defer callMems.Put(m)
	must(lib.HashXOF(uint32(d.mode), d.modeKey(&m.key), false, d.input(), pos, p))
}

// libFetch is fetch from the library, from d's root node (srcNode,
// srcLib).
func (d *Digest) libFetch(pos uint64, p []byte) {
	must(lib.RootOutput(d.x.node(), pos, p))
}

// libOutput reports whether the library computes k bytes of output from a
// root node that Go has (srcNode, srcLib). Up to a block, one compression
// either way: the library where the plan has it hash one block, in a
// crossing, faster than Go does; past a block, where it computes output
// faster (outGo).
func libOutput(k int) bool {
	if k <= guts.BlockSize {
		return lib != nil && implFor(guts.BlockSize) == implNative
	}
	return lib != nil && !outGo
}

// outGo reports whether the output of a Digest on the native path is
// computed in Go, from its root node, rather than by the library (but for
// reads of up to a block: libOutput; and the first block of a short
// input: fetch). The crate computes output blocks side by
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
// mode, with key, which never crossed into the library. The node of an
// input of up to a block is the block itself (srcLib). A longer one costs
// a Digest either its root node, computed now, or a copy on the heap, and
// it gets the cheaper of the two where the first read is what it costs:
// the node (srcNode), where the plan hashes an input that long in Go (with
// zeebo's assembly, in any mode, through ZeeboXOF.SetChunk, or
// lukechampine's one-chunk code, as a one-shot hash of it would), or in
// the library while zeebo's compression is assembly on this CPU
// (zeeboAsm), and the copy where the plan hashes it in the library and
// zeebo's compression is portable Go (srcShort).
// The copy, its allocation and a crossing cost more than the library's
// faster compression of one chunk saved: a Digest of 1 KiB read once took
// 1.2 times zeebo's time through the copy and 1.05 to 1.1 times from
// zeebo's node, on a host where the library's one-shot of 1 KiB took 0.85
// of zeebo's (BenchmarkDigestOnce, BenchmarkDigestNew; docs/stream.md).
// Where zeebo's layout is not known, the plan's zeebo
// is lukechampine's code for plain hashing, and the library in the keyed
// modes, as before zeebo's node took those: that copy made a keyed
// Digest of 1 KiB read once take 1.2 times zeebo's time, and
// lukechampine's portable code takes up to twice the library's
// (BenchmarkDigestNew, BenchmarkSumSmallKeyed). A Digest that held a whole
// chunk in itself was 1 KiB larger: each Digest that escapes to the heap
// allocated that much more (BenchmarkDigestNew, docs/stream.md).
func (d *Digest) setShort(mode uint32, key *[32]byte, in []byte) {
	d.mode = uint8(mode)
	kw, flags := keyWords(mode, key), modeFlags(mode)
	if len(in) <= guts.BlockSize {
		d.src = srcLib
		d.x.setBlock(kw, flags, in)
		return
	}
	im := implFor(len(in))
	if im == implZeebo || im == implNative && zeeboAsm {
		if d.x.SetChunk(in, kw, 0, flags) {
			d.src = srcNode
			return
		}
		if im == implZeebo && mode == modeHash {
			im = implLuke
		}
	}
	switch im {
	case implLuke:
		n := guts.CompressChunk(in, kw, 0, flags)
		d.src = srcNode
		d.x.set(&n)
	default:
		d.src = srcShort
		d.x.CV, d.x.Block, d.x.BlockLen, d.x.Flags = *kw, [16]uint32{}, 0, flags
		d.holdInput(slices.Clone(in))
	}
}

// setMerge makes d the Digest of the input whose root's children are left
// and right, in mode, with key.
func (d *Digest) setMerge(mode uint32, key, left, right *[32]byte) {
	d.src, d.mode = srcLib, uint8(mode)
	d.x.setParent(keyWords(mode, key), modeFlags(mode), left, right)
}

// modeKey is the key or context key of d's mode, in k, or nil for plain
// hashing.
func (d *Digest) modeKey(k *[32]byte) *[32]byte {
	if uint32(d.mode) == modeHash {
		return nil
	}
	*k = cvBytes(d.x.CV)
	return k
}

// Seek sets the position to the provided location. Only io.SeekStart and
// io.SeekCurrent are allowed; the output has no end to seek from. A negative
// resulting position is an error.
func (d *Digest) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekEnd:
		return 0, errors.New("blake3: seek from end not supported")
	case io.SeekCurrent:
		offset += int64(d.x.Pos)
	default:
		return 0, fmt.Errorf("blake3: invalid whence: %d", whence)
	}
	if offset < 0 {
		return 0, errors.New("blake3: seek before start")
	}
	d.obOK = d.obOK && uint64(offset)&^(guts.BlockSize-1) == d.x.Pos&^(guts.BlockSize-1)
	d.x.Pos = uint64(offset)
	return offset, nil
}
