package ffi

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"

	zeebo "github.com/zeebo/blake3"
	"lukechampine.com/blake3/guts"
)

// github.com/zeebo/blake3 has no way to save a hash in progress, and the Go
// path hashes with it, so the state is read and written here through a
// copy of its hasher's layout (v0.2.4, the version go.mod requires). The
// layout is trusted only after a known-answer check (ZeeboOK): a build that
// selects another version of zeebo, with another layout, gets an error from
// the Go path's MarshalBinary instead of wrong memory.

// zeeboHasher has the layout of zeebo.Hasher (api.go and blake3.go of
// v0.2.4): the same fields, of the same types, in the same order.
type zeeboHasher struct {
	size int
	h    struct {
		len    uint64
		chunks uint64
		flags  uint32
		key    [8]uint32
		stack  struct {
			occ   uint64
			lvls  [8]uint8
			bufn  int
			buf   [2][64]uint32
			stack [64][8]uint32
		}
		buf [8192]byte
	}
}

// ZeeboState is a zeebo hash in progress in portable form: the input so far
// is Chunks whole chunks, whose subtrees' chaining values are Stack[i] for
// each bit i set in Chunks, followed by Tail (not empty after any input;
// ZeeboExport gives at most one chunk, ZeeboImport takes more, which its
// hasher's writes hash).
type ZeeboState struct {
	Key    [8]uint32
	Flags  uint32
	Chunks uint64
	Stack  [64][8]uint32
	Tail   []byte
}

func view(h *zeebo.Hasher) *zeeboHasher { return (*zeeboHasher)(unsafe.Pointer(h)) }

// mustZeebo keeps the mirror from being used on a zeebo of another layout,
// where its writes would land in the wrong fields, or past the hasher: the
// callers check ZeeboOK first and say why they cannot go on; this is the
// last line.
func mustZeebo() {
	if !zeeboOK() {
		panic("blake3: internal error: github.com/zeebo/blake3's hasher is not the layout of v0.2.4")
	}
}

// ZeeboExport returns the state of h, which it does not change. It panics
// unless ZeeboOK.
func ZeeboExport(h *zeebo.Hasher) ZeeboState {
	mustZeebo()
	return zeeboExport(h)
}

func zeeboExport(h *zeebo.Hasher) ZeeboState {
	// Digest on a copy brings its state to the form above: the chaining
	// values of whole chunks pushed, the pairs waiting to be merged merged,
	// and at most one chunk left in the buffer.
	c := *h
	c.Digest()
	v := view(&c)
	s := ZeeboState{Key: v.h.key, Flags: v.h.flags, Chunks: v.h.chunks}
	for i := range s.Stack {
		if s.Chunks&(1<<i) != 0 {
			s.Stack[i] = v.h.stack.stack[i]
		}
	}
	s.Tail = bytes.Clone(v.h.buf[:v.h.len])
	return s
}

// ZeeboImport returns a zeebo hasher in state s, whose tail must not be
// empty after chunks; a tail of more than a chunk is written to it. It
// panics unless ZeeboOK.
func ZeeboImport(s *ZeeboState) *zeebo.Hasher {
	mustZeebo()
	return zeeboImport(s)
}

func zeeboImport(s *ZeeboState) *zeebo.Hasher {
	h := zeebo.New()
	v := view(h)
	v.h.key, v.h.flags, v.h.chunks = s.Key, s.Flags, s.Chunks
	v.h.stack.occ = s.Chunks
	for i := range s.Stack {
		if s.Chunks&(1<<i) != 0 {
			v.h.stack.stack[i] = s.Stack[i]
		}
	}
	_, _ = h.Write(s.Tail)
	return h
}

// ZeeboFront hashes a and then b, after chunks whole chunks of an input
// whose subtrees' chaining values are stack[i] for each bit i of chunks
// (below 2^len(stack); any count, as zeebo's own hasher holds after a
// Digest, from which its writes go on), in key's mode (flags), with a
// zeebo hasher of its own (ZeeboNew), and returns what that hasher holds
// once finalized: the count of whole chunks before the last one, the
// chaining values of their subtrees, in stack, and the root node of the
// whole input. The last chunk, which the caller keeps, is the input after
// that count of chunks. It is what ZeeboExport would give of a hasher on
// the heap that had hashed the same, without allocating one per call.
// ok is false, with nothing hashed and stack as it was, unless both
// layouts are the ones known (ZeeboOK, ZeeboDigestOK) and the input is
// more than a chunk in all, with some of it in a or b; and false, the
// input hashed for nothing, where the finalized hasher is not in the form
// described (its count, last chunk or stack), or its count of chunks has
// a bit past stack's end.
func ZeeboFront(key *[8]uint32, flags uint32, chunks uint64, stack [][8]uint32, a, b []byte) (uint64, guts.Node, bool) {
	n := uint64(len(a) + len(b))
	if n == 0 || chunks>>len(stack) != 0 || chunks > (math.MaxUint64-n)/1024 || chunks*1024+n <= 1024 || !zeeboOK() || !zeeboDigestOK() {
		return 0, guts.Node{}, false
	}
	z := zeeboNew()
	defer ZeeboFree(z)
	v := view(z)
	v.h.key, v.h.flags = *key, flags // in key's mode
	v.h.chunks, v.h.stack.occ = chunks, chunks
	for rest := chunks; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros64(rest)
		v.h.stack.stack[i] = stack[i]
	}
	_, _ = z.Write(a)
	_, _ = z.Write(b)
	root := zeeboRoot(z.Digest())
	end := chunks*1024 + n
	chunks = v.h.chunks
	if v.h.len == 0 || v.h.len > 1024 || chunks*1024+v.h.len != end || v.h.stack.occ != chunks || v.h.stack.bufn != 0 || chunks>>len(stack) != 0 {
		return 0, root, false // not the form a finalized hasher is in, or past stack
	}
	for rest := chunks; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros64(rest)
		stack[i] = v.h.stack.stack[i]
	}
	return chunks, root, true
}

// ZeeboNew is zeebo.New's hasher, for one use, after which the caller gives
// it back with ZeeboFree; nil unless ZeeboOK. It comes from a pool, reset
// (zeebo's Reset: no input, no subtree) and set to New's size, key and
// flags, where a new one would have its 10 KiB zeroed first: on the Go
// path, a new Hasher's first write of 4 to 16 KiB, in a zeebo hasher on
// the stack, took 6 to 13% longer than in one from a pool, and a one-shot
// of 4 KiB 3 to 10% (BenchmarkNewSum, BenchmarkZeeboSum, docs/stream.md).
func ZeeboNew() *zeebo.Hasher {
	if !zeeboOK() {
		return nil
	}
	return zeeboNew()
}

func zeeboNew() *zeebo.Hasher {
	h := zeeboHashers.Get().(*zeebo.Hasher)
	h.Reset()
	v := view(h)
	v.size, v.h.key, v.h.flags = 32, guts.IV, 0
	return h
}

// ZeeboFree gives back a hasher from ZeeboNew, which its caller no longer
// uses, its key cleared: a keyed hash's key, or a context key, which
// ZeeboFront sets, is not left in the pool (the input's last batch, the
// mode's flags and the chaining values of its subtrees are, as in any
// zeebo hasher that is not zeroed).
func ZeeboFree(h *zeebo.Hasher) {
	view(h).h.key = [8]uint32{}
	zeeboHashers.Put(h)
}

var zeeboHashers = sync.Pool{New: func() any { return zeebo.New() }}

// ZeeboLen returns how many bytes h has hashed, and false when ZeeboOK
// does not hold (the layout is not known).
func ZeeboLen(h *zeebo.Hasher) (uint64, bool) {
	if !ZeeboOK() {
		return 0, false
	}
	v := view(h)
	return v.h.chunks*1024 + v.h.len, true
}

// zeeboDigest has the layout of zeebo.Digest (digest.go of v0.2.4): the
// root node it reads its output from, with the output block's counter in
// place of the node's (a root's is 0), and the last block it computed.
type zeeboDigest struct {
	counter uint64
	chain   [8]uint32
	block   [16]uint32
	blen    uint32
	flags   uint32
	buf     [16]uint32
	bufn    int
}

func digestView(d *zeebo.Digest) *zeeboDigest { return (*zeeboDigest)(unsafe.Pointer(d)) }

// ZeeboRoot returns the root node of the output of d, a Digest that
// zeebo's Hasher.Digest returned and nothing read, and false unless
// ZeeboDigestOK.
func ZeeboRoot(d *zeebo.Digest) (guts.Node, bool) {
	if !zeeboDigestOK() {
		return guts.Node{}, false
	}
	return zeeboRoot(d), true
}

func zeeboRoot(d *zeebo.Digest) guts.Node {
	v := digestView(d)
	return guts.Node{CV: v.chain, Block: v.block, Counter: v.counter, BlockLen: v.blen, Flags: v.flags}
}

// ZeeboOutput fills p with the root output of the node of key cv, block,
// blockLen and flags (a guts.Node's, read where the caller holds them) from
// block counter on, from byte off (below 64) of that block: with zeebo's
// compression of one block (SSE4.1 assembly on amd64; lukechampine's code
// is portable Go), one block at a time. It changes none of them. It
// returns false, having written nothing, unless ZeeboDigestOK.
func ZeeboOutput(cv *[8]uint32, block *[16]uint32, blockLen, flags uint32, counter uint64, off int, p []byte) bool {
	if !zeeboDigestOK() {
		return false
	}
	zeeboOutput(cv, block, blockLen, flags, counter, off, p)
	return true
}

func zeeboOutput(cv *[8]uint32, block *[16]uint32, blockLen, flags uint32, counter uint64, off int, p []byte) {
	var d zeebo.Digest
	v := digestView(&d)
	v.counter, v.chain, v.block, v.blen, v.flags = counter, *cv, *block, blockLen, flags|guts.FlagRoot
	if off > 0 {
		var skip [64]byte
		_, _ = d.Read(skip[:off])
	}
	_, _ = d.Read(p)
}

// ZeeboXOF is a root node, the block of its output at hand and a
// reader's position in that output, laid out as zeebo's Digest is
// (zeeboDigest: the node's fields where it keeps them, Out where it keeps
// the block it computed last, Pos where it counts that block's bytes left
// to read), so that zeebo's compression computes an output block where the
// node is (Output), without ZeeboOutput's copies of the node into a Digest
// of zeebo's and of the block out of it: through them, and the layers
// above, a Digest of 64 bytes read once took about 1.35 times zeebo's
// time (BenchmarkDigestNew, input=64B; docs/stream.md).
type ZeeboXOF struct {
	counter  uint64 // the counter of the block Output computes; 0 outside it
	CV       [8]uint32
	Block    [16]uint32
	BlockLen uint32
	Flags    uint32 // Output adds FlagRoot (a node from zeebo's Digest has it)
	Out      [guts.BlockSize]byte
	Pos      uint64 // the caller's: Output keeps it
}

// Output computes the root output block of x's node at counter into x.Out
// with zeebo's compression (SSE4.1 assembly on amd64), and reports whether
// it did: not where ZeeboXOF is not laid out as zeebo's Digest is
// (xofLayout, ZeeboDigestOK), and then it changes nothing. It leaves x's
// other fields as they were.
func (x *ZeeboXOF) Output(counter uint64) bool {
	if !xofLayout || !zeeboDigestLayout.ok() {
		return false
	}
	x.output(counter)
	return true
}

// output is Output without its check of the layout, for the check itself.
// On a little-endian machine a seek to the block (zeebo's setPosition)
// computes it into x.Out, whose words are then its bytes, where zeebo's
// Read, as Output first ran, computed it there and then copied it over
// itself: about 3 ns of a Digest of 64 bytes read once (82 ns;
// BenchmarkDigestNew, input=64B, docs/zeebo-api.md). Elsewhere Read's copy
// puts the words in little-endian order, and a block from 2^57 on, whose
// position does not fit a seek's int64, is read too.
func (x *ZeeboXOF) output(counter uint64) {
	pos, flags := x.Pos, x.Flags
	x.Flags = flags | guts.FlagRoot
	d := (*zeebo.Digest)(unsafe.Pointer(x))
	if littleEndian && counter < 1<<57 {
		_, _ = d.Seek(int64(counter*guts.BlockSize), io.SeekStart)
	} else {
		x.counter, x.Pos = counter, 0
		_, _ = d.Read(x.Out[:])
	}
	x.counter, x.Pos, x.Flags = 0, pos, flags
}

// xofLayout reports whether ZeeboXOF has zeeboDigest's layout field for
// field on this platform: not where int, zeebo's count of the bytes left,
// is narrower than Pos.
const xofLayout = unsafe.Sizeof(ZeeboXOF{}) == unsafe.Sizeof(zeeboDigest{}) &&
	unsafe.Offsetof(ZeeboXOF{}.CV) == unsafe.Offsetof(zeeboDigest{}.chain) &&
	unsafe.Offsetof(ZeeboXOF{}.Block) == unsafe.Offsetof(zeeboDigest{}.block) &&
	unsafe.Offsetof(ZeeboXOF{}.BlockLen) == unsafe.Offsetof(zeeboDigest{}.blen) &&
	unsafe.Offsetof(ZeeboXOF{}.Flags) == unsafe.Offsetof(zeeboDigest{}.flags) &&
	unsafe.Offsetof(ZeeboXOF{}.Out) == unsafe.Offsetof(zeeboDigest{}.buf) &&
	unsafe.Offsetof(ZeeboXOF{}.Pos) == unsafe.Offsetof(zeeboDigest{}.bufn) &&
	unsafe.Sizeof(ZeeboXOF{}.Pos) == unsafe.Sizeof(zeeboDigest{}.bufn)

// ZeeboBlockOutput fills p with the root output, from its first byte, of
// in, a block or less, as the only block of an input, with key cv and mode
// flags: zeebo's compression of one block, with the block's words written
// into zeebo's Digest where it is, as zeebo's Sum puts its last block
// (none of the copies of ZeeboOutput's node, or of Sum512's result). It
// returns false, having written nothing, unless ZeeboDigestOK.
func ZeeboBlockOutput(cv *[8]uint32, flags uint32, in, p []byte) bool {
	if !zeeboDigestOK() {
		return false
	}
	var d zeebo.Digest
	v := digestView(&d)
	BlockWords(&v.block, in)
	v.chain, v.blen, v.flags = *cv, uint32(len(in)), flags|guts.FlagChunkStart|guts.FlagChunkEnd|guts.FlagRoot
	_, _ = d.Read(p)
	return true
}

// zeeboChunk is guts.CompressChunk with zeebo's compression of one block
// (chunkInto), in a Digest of zeebo's: SetChunk where ZeeboXOF is not laid
// out as zeebo's Digest.
func zeeboChunk(chunk []byte, key *[8]uint32, counter uint64, flags uint32) guts.Node {
	var d zeebo.Digest
	chunkInto(&d, chunk, key, counter, flags)
	v := digestView(&d)
	return guts.Node{CV: v.chain, Block: v.block, Counter: counter, BlockLen: v.blen, Flags: v.flags}
}

// SetChunk sets x's node to the node of chunk, a chunk or less, chunk
// number counter of its input (0 and the whole input: its root node, which
// Output then reads), in key's mode (flags), as guts.CompressChunk makes
// it, with zeebo's compression of one block (SSE4.1 assembly on amd64,
// where lukechampine's is portable Go), where x holds its node: each
// block but the last is compressed by a seek of x as zeebo's Digest to
// the start of the output (chunkInto). zeebo's hasher, the one other way
// to its compression of a chunk, needs the input copied into it, and from
// a pool (a Digest of 256 bytes read once took 1.25 times zeebo's time
// through one; BenchmarkDigestNew, input=256B, docs/zeebo-api.md), and a
// node computed elsewhere and copied in cost about 15 ns of 330 there. It
// leaves x.Pos as it was and x.Out computed over (no block of x's
// output). It reports whether it set x: not unless ZeeboDigestOK, and for
// a counter of 2^57 or more, past a seek's reach (an input of 2^64-1 bytes
// has fewer than 2^54 chunks), and then it changes nothing.
func (x *ZeeboXOF) SetChunk(chunk []byte, key *[8]uint32, counter uint64, flags uint32) bool {
	if !zeeboDigestOK() || counter >= 1<<57 {
		return false
	}
	if !xofLayout {
		n := zeeboChunk(chunk, key, counter, flags)
		x.CV, x.Block, x.BlockLen, x.Flags = n.CV, n.Block, n.BlockLen, n.Flags
		return true
	}
	pos := x.Pos
	chunkInto((*zeebo.Digest)(unsafe.Pointer(x)), chunk, key, counter, flags)
	x.counter, x.Pos = 0, pos
	return true
}

// Parent sets x's node, that of chunk number counter of an input (as
// SetChunk sets it) or of a parent (counter 0), not a root's, to the
// parent node of left, the chaining value of the subtree before it, and
// that node's chaining value, in key's mode (flags), as guts.ParentNode
// makes it from guts.ChainingValue: the chaining value by a seek of x as
// zeebo's Digest (one compression of one block, where x holds the node;
// lukechampine's is portable Go), the parent where x holds it. Each level
// of a tree's root after its last chunk (Hasher.Sum after a part of a
// chunk) takes one. It leaves x.Pos as it was and x.Out computed over. It
// reports whether it set x: not unless ZeeboDigestOK, and for a counter of
// 2^57 or more (past a seek's reach), and then it changes nothing.
func (x *ZeeboXOF) Parent(left *[32]byte, counter uint64, key *[8]uint32, flags uint32) bool {
	if !zeeboDigestOK() || counter >= 1<<57 {
		return false
	}
	if xofLayout {
		pos := x.Pos
		d := (*zeebo.Digest)(unsafe.Pointer(x))
		_, _ = d.Seek(int64(counter*guts.BlockSize), io.SeekStart)
		copy(x.Block[8:], digestView(d).buf[:8])
		x.counter, x.Pos = 0, pos
	} else {
		var d zeebo.Digest
		v := digestView(&d)
		v.chain, v.block, v.blen, v.flags = x.CV, x.Block, x.BlockLen, x.Flags
		_, _ = d.Seek(int64(counter*guts.BlockSize), io.SeekStart)
		copy(x.Block[8:], v.buf[:8])
	}
	CVWords((*[8]uint32)(x.Block[:8]), left)
	x.CV, x.BlockLen, x.Flags = *key, guts.BlockSize, flags|guts.FlagParent
	return true
}

// chunkInto leaves in d the node of chunk that SetChunk sets but its
// counter: each block but the last compressed by a seek (zeebo's
// setPosition: the counter set, one compression into d's buffer), whose
// first half is the next chaining value. d's counter, last block computed
// and count of its bytes are what the last seek left.
func chunkInto(d *zeebo.Digest, chunk []byte, key *[8]uint32, counter uint64, flags uint32) {
	v := digestView(d)
	v.chain, v.blen, v.flags = *key, guts.BlockSize, flags|guts.FlagChunkStart
	for len(chunk) > guts.BlockSize {
		BlockWords(&v.block, chunk[:guts.BlockSize])
		_, _ = d.Seek(int64(counter*guts.BlockSize), io.SeekStart)
		v.chain = [8]uint32(v.buf[:8])
		v.flags &^= guts.FlagChunkStart
		chunk = chunk[guts.BlockSize:]
	}
	BlockWords(&v.block, chunk)
	v.blen, v.flags = uint32(len(chunk)), v.flags|guts.FlagChunkEnd
}

// ZeeboChunkOutput is ZeeboBlockOutput for chunk, the whole of an input
// of one chunk or less: its root node as SetChunk computes it, in the
// Digest of zeebo's that then computes the output.
func ZeeboChunkOutput(key *[8]uint32, flags uint32, chunk, p []byte) bool {
	if !zeeboDigestOK() {
		return false
	}
	var d zeebo.Digest
	chunkInto(&d, chunk, key, 0, flags)
	v := digestView(&d)
	v.counter, v.bufn, v.flags = 0, 0, v.flags|guts.FlagRoot
	_, _ = d.Read(p)
	return true
}

// checkInput is the known input of n bytes and the key (as bytes and as
// words) that the layout checks hash.
func checkInput(n int) (in []byte, key [32]byte, kw [8]uint32) {
	in = make([]byte, n)
	for i := range in {
		in[i] = byte(i % 251)
	}
	key[31] = 1
	for i := range kw {
		kw[i] = binary.LittleEndian.Uint32(key[4*i:])
	}
	return in, key, kw
}

var zeeboDigestLayout = layoutCheck{check: zeeboDigestCheck}

func zeeboDigestOK() bool { return zeeboDigestLayout.ok() }

// layoutCheck is the check of one of zeebo's layouts, run at its first
// use, whose result after that is one atomic load: through a
// sync.OnceValue, the check took about 4 ns of the 80 of a block of output
// (ZeeboOutput; BenchmarkDigestNew, input=64B).
type layoutCheck struct {
	state atomic.Uint32 // layoutUnchecked, layoutKnown or layoutUnknown
	once  sync.Once
	check func() bool
}

const (
	layoutUnchecked uint32 = iota
	layoutKnown
	layoutUnknown
)

// ok reports whether the layout is known, checking it first if not yet.
func (c *layoutCheck) ok() bool {
	if c.state.Load() == layoutKnown {
		return true
	}
	return c.first()
}

// first is ok but for a layout known: the check, once, which callers
// beside the first wait for, and after it its result. A check that panics
// (zeebo's code, on fields it lays out otherwise) makes the layout
// unknown. ok takes only a layout known without it, which keeps ok cheap
// enough that zeeboDigestOK, made of it, is inlined into its callers
// (ZeeboBlockOutput: a reused Hasher's Sum of a block, BenchmarkReuseSum).
func (c *layoutCheck) first() bool {
	c.once.Do(func() {
		s := layoutUnknown
		defer func() {
			_ = recover()
			c.state.Store(s)
		}()
		if c.check() {
			s = layoutKnown
		}
	})
	return c.state.Load() == layoutKnown
}

// forget makes c's layout unknown until the function it returns restores
// what c held. It checks the layout first, if not yet, so that no check
// runs meanwhile, to store its result over the forgetting, or after it,
// over the restore.
func (c *layoutCheck) forget() (restore func()) {
	c.ok()
	was := c.state.Swap(layoutUnknown)
	return func() { c.state.Store(was) }
}

// ForgetZeeboLayout makes ZeeboOK and ZeeboDigestOK false, as with another
// version of zeebo, until the function it returns restores them: for tests
// of what their callers do then. It is not safe beside other calls.
func ForgetZeeboLayout() (restore func()) {
	hasher, digest := zeeboLayout.forget(), zeeboDigestLayout.forget()
	return func() { hasher(); digest() }
}

// ForgetZeeboHasherLayout is ForgetZeeboLayout for ZeeboOK alone: zeebo's
// Digest still has the layout known, its hasher not.
func ForgetZeeboHasherLayout() (restore func()) { return zeeboLayout.forget() }

// ZeeboDigestOK reports whether zeebo's Digest has the layout this file
// expects, checked once: by size, then, for a keyed input of more than a
// chunk and a plain one of less than a block, every field read (its root
// against lukechampine's primitives, and its position and last block after
// a seek of its own) before any is written, and last its output through
// zeeboOutput, and through ZeeboXOF in place where that has its layout,
// against its own Read, and a chunk's node through seeks (zeeboChunk) against
// lukechampine's.
func ZeeboDigestOK() bool { return zeeboDigestOK() }

func zeeboDigestCheck() bool {
	if unsafe.Sizeof(zeebo.Digest{}) != unsafe.Sizeof(zeeboDigest{}) {
		return false
	}
	in, key, kw := checkInput(2*1024 + 100)
	keyed, _ := zeebo.NewKeyed(key[:])
	_, _ = keyed.Write(in)
	plain := zeebo.New()
	_, _ = plain.Write(in[:10])
	var buf [guts.MaxSIMD * guts.ChunkSize]byte
	copy(buf[:], in)
	for _, c := range []struct {
		h    *zeebo.Hasher
		want guts.Node
	}{
		{keyed, guts.CompressBuffer(&buf, len(in), &kw, 0, guts.FlagKeyedHash)},
		{plain, guts.CompressChunk(in[:10], &guts.IV, 0, 0)},
	} {
		d := c.h.Digest()
		n := zeeboRoot(d)
		if n.Flags&^guts.FlagRoot != c.want.Flags || n.CV != c.want.CV || n.Block != c.want.Block || n.Counter != 0 || n.BlockLen != c.want.BlockLen {
			return false
		}
		// The other fields, read only, before anything is written
		// through the mirror: after a seek to byte 3 of block 5, zeebo
		// has computed block 5 into buf, counts block 6 next, and has
		// 61 bytes of it left.
		s := *d
		_, _ = s.Seek(5*64+3, io.SeekStart)
		b := n
		b.Counter, b.Flags = 5, n.Flags|guts.FlagRoot
		if v := digestView(&s); v.counter != 6 || v.bufn != 61 || v.buf != guts.CompressNode(b) {
			return false
		}
		var want, got [200]byte
		_, _ = d.Read(want[:])
		zeeboOutput(&n.CV, &n.Block, n.BlockLen, n.Flags, 1, 3, got[67:]) // from byte 64+3
		if !bytes.Equal(got[67:], want[67:]) {
			return false
		}
		// And ZeeboXOF's block in place, where zeebo's seek (or Read)
		// computes it in its own buffer.
		if xofLayout {
			x := ZeeboXOF{CV: n.CV, Block: n.Block, BlockLen: n.BlockLen, Flags: n.Flags, Pos: 5}
			x.output(2)
			if !bytes.Equal(x.Out[:], want[128:192]) || x.Pos != 5 {
				return false
			}
		}
	}
	// And a chunk's node through seeks (zeeboChunk), a later chunk's, in
	// a keyed mode.
	return zeeboChunk(in[1024:2048], &kw, 1, guts.FlagKeyedHash) == guts.CompressChunk(in[1024:2048], &kw, 1, guts.FlagKeyedHash)
}

var zeeboLayout = layoutCheck{check: zeeboCheck}

func zeeboOK() bool { return zeeboLayout.ok() }

// ZeeboOK reports whether zeebo's hasher has the layout this file expects,
// checked once: by size, then on a known input against lukechampine's
// primitives, and by a round trip.
func ZeeboOK() bool { return zeeboOK() }

func zeeboCheck() bool {
	if unsafe.Sizeof(zeebo.Hasher{}) != unsafe.Sizeof(zeeboHasher{}) {
		return false
	}
	in, key, kw := checkInput(3*1024 + 100)
	h, _ := zeebo.NewKeyed(key[:])
	_, _ = h.Write(in)
	if v := view(h); v.h.chunks*1024+v.h.len != uint64(len(in)) {
		return false
	}
	s := zeeboExport(h)
	var buf [guts.MaxSIMD * guts.ChunkSize]byte
	copy(buf[:], in[:2048])
	left := guts.ChainingValue(guts.CompressBuffer(&buf, 2048, &kw, 0, guts.FlagKeyedHash))
	third := guts.ChainingValue(guts.CompressChunk(in[2048:3072], &kw, 2, guts.FlagKeyedHash))
	if s.Key != kw || s.Flags != guts.FlagKeyedHash || s.Chunks != 3 || s.Stack[1] != left || s.Stack[0] != third || !bytes.Equal(s.Tail, in[3072:]) {
		return false
	}
	r := zeeboImport(&s)
	for range 4 { // past zeebo's 8 KiB buffer
		_, _ = r.Write(in)
		_, _ = h.Write(in)
	}
	return bytes.Equal(r.Sum(nil), h.Sum(nil))
}
