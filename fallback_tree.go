// The Go path of the subtree API, over lukechampine.com/blake3/guts: used
// when there is no native library.

package blake3

import (
	"math/bits"
	"os"
	"runtime"

	"github.com/klauspost/cpuid/v2"
	"github.com/purego-blake3/blake3/internal/ffi"
	"golang.org/x/sys/cpu"
	"lukechampine.com/blake3/guts"
)

// goTree hashes a subtree, the Go path's equivalent of the library's tree
// (ffi.Tree): the chaining values of the complete subtrees of the input so
// far, on a stack indexed by height (bit i of chunks set: stack[i] holds a
// subtree of 2^i chunks), and the input after them in buf. Input is hashed
// in aligned groups of guts.MaxSIMD chunks, each compressed at once; the
// last group stays in buf until more input comes, so that the tree's last
// node can still be finalized as the root.
type goTree struct {
	key    [8]uint32
	flags  uint32
	base   uint64 // the chunk counter of the subtree's first chunk
	chunks uint64 // chunks on the stack
	stack  [64][8]uint32
	n      int // bytes in buf
	buf    [groupLen]byte
}

const groupLen = guts.MaxSIMD * guts.ChunkSize

func (t *goTree) init(key [8]uint32, flags uint32, base uint64) {
	t.key, t.flags, t.base, t.chunks, t.n = key, flags, base, 0, 0
}

// room is how much buf gathers before it is hashed: an aligned group, as
// Hasher.room.
func (t *goTree) room() int {
	return alignedRoom((t.base+t.chunks)*chunkLen, groupLen)
}

// push adds the chaining value of the next 2^height chunks, merging it with
// the subtrees it completes.
func (t *goTree) push(cv [8]uint32, height int) {
	i := height
	for t.chunks&(1<<i) != 0 {
		cv = guts.ChainingValue(guts.ParentNode(t.stack[i], cv, &t.key, t.flags))
		i++
	}
	t.stack[i] = cv
	t.chunks += 1 << height
}

// hash hashes p, whole chunks that end at a group's end, onto the stack:
// as aligned pieces of at most a group each.
func (t *goTree) hash(p []byte) {
	for len(p) > 0 {
		c := t.base + t.chunks
		h := bits.Len64(uint64(len(p)/chunkLen)) - 1
		if c != 0 {
			h = min(h, bits.TrailingZeros64(c))
		}
		h = min(h, 4) // a group: guts.MaxSIMD chunks
		size := chunkLen << h
		var n guts.Node
		if size == groupLen {
			n = guts.CompressBuffer((*[groupLen]byte)(p), groupLen, &t.key, c, t.flags)
		} else {
			n = compressPart(p[:size], &t.key, c, t.flags)
		}
		t.push(guts.ChainingValue(n), h)
		p = p[size:]
	}
}

// compressPart is guts.CompressBuffer of p, less than a group, copied into
// a group's buffer: on its own stack (16 KiB), not on hash's, which
// treeSum512 calls for whole groups only (go build -gcflags=-S: hash's
// frame went from 16.9 KiB to 544 bytes, and so treeSum512's stack from
// about 38 KiB to about 20, less than zeebo's Sum512 frame, 21.9 KiB).
//
//go:noinline
func compressPart(p []byte, key *[8]uint32, counter uint64, flags uint32) guts.Node {
	var g [groupLen]byte
	copy(g[:], p)
	return guts.CompressBuffer(&g, len(p), key, counter, flags)
}

func (t *goTree) write(p []byte) {
	for {
		room := t.room()
		if t.n+len(p) <= room {
			t.n += copy(t.buf[t.n:], p)
			return
		}
		k := copy(t.buf[t.n:room], p)
		t.hash(t.buf[:room])
		t.n = 0
		p = p[k:]
		if room == groupLen {
			break
		}
	}
	whole := (len(p) - 1) / groupLen * groupLen
	t.hash(p[:whole])
	t.n = copy(t.buf[:], p[whole:])
}

// node returns the top node of the tree of the input so far, not yet
// compressed: its chaining value is the subtree's, and with the root flag it
// gives the root output. t is not changed. It needs input: a non-empty
// buf, or two subtrees on the stack.
func (t *goTree) node() guts.Node {
	rest := t.chunks
	var n guts.Node
	if t.n > 0 || rest == 0 {
		n = guts.CompressBuffer(&t.buf, t.n, &t.key, t.base+t.chunks, t.flags)
	} else {
		low := bits.TrailingZeros64(rest)
		rest &= rest - 1
		n = guts.ParentNode(t.stack[bits.TrailingZeros64(rest)], t.stack[low], &t.key, t.flags)
		rest &= rest - 1
	}
	for ; rest != 0; rest &= rest - 1 {
		n = guts.ParentNode(t.stack[bits.TrailingZeros64(rest)], guts.ChainingValue(n), &t.key, t.flags)
	}
	return n
}

// treeSum512 is the unkeyed hash of b, longer than a group, in a goTree on
// the stack: lukechampine's compression of guts.MaxSIMD chunks side by
// side, which it has in AVX-512, without its Sum512's allocation of its
// hasher (bigByTree). Each group but the last is copied into the tree's
// buffer and hashed there, where its 16 chunks are read from the cache:
// read straight from an input that was not in the cache, 16 chunks a
// kilobyte apart at once, 16 MiB took 1.5 times as long (BenchmarkTreeSum,
// docs/dispatch.md). The last group stays in the buffer for the root.
func treeSum512(b []byte) (out [64]byte) {
	var t goTree
	t.init(guts.IV, 0, 0)
	for len(b) > groupLen {
		copy(t.buf[:], b[:groupLen])
		t.hash(t.buf[:])
		b = b[groupLen:]
	}
	t.write(b)
	n := t.node()
	outputBlock(refOf(&n), 0, &out)
	return out
}

// treeSum256 is treeSum512's first 32 bytes.
func treeSum256(b []byte) [32]byte {
	s := treeSum512(b)
	return [32]byte(s[:32])
}

func chainingValue(n guts.Node) [8]uint32 { return guts.ChainingValue(n) }

// rootRef is a root node where it is held, read there: a guts.Node
// (refOf) or a Digest's node (xof.ref). Output read from a copy
// of a node made just before (a Digest's node as a guts.Node) took a
// Digest's first read about a tenth longer (BenchmarkDigestNew): the copy
// reads what was written just before.
type rootRef struct {
	cv              *[8]uint32
	block           *[16]uint32
	blockLen, flags uint32
}

// refOf is n, where it is.
func refOf(n *guts.Node) rootRef {
	return rootRef{&n.CV, &n.Block, n.BlockLen, n.Flags}
}

// goXOF fills p with the root output of node n from byte position pos.
// Where lukechampine has assembly that compresses a run of guts.MaxSIMD
// blocks side by side (xofRuns), it computes whole runs: into p where one
// fits there from a block boundary, else into a buffer; one block at a time
// it computes the rest, and the up to four blocks that a short read spans,
// which take less than a run (BenchmarkGoXOF). A whole block goes straight
// into p. n is not changed.
func goXOF(n rootRef, pos uint64, p []byte) {
	// The block counter goes on past the end of the 2^64 bytes that the
	// position covers, as the crate's and zeebo's do.
	counter := pos / guts.BlockSize
	off := int(pos % guts.BlockSize)
	for len(p) > 0 {
		var k int
		switch {
		case !xofRuns || off+len(p) <= 4*guts.BlockSize:
			// The rest, one block at a time: zeeboBlockOut's, else
			// lukechampine's compression, here as outputBlock.
			if zeeboBlockOut(n, counter, off, p) {
				return
			}
			if off == 0 && len(p) >= guts.BlockSize {
				outputBlock(n, counter, (*[guts.BlockSize]byte)(p))
				k = guts.BlockSize
				break
			}
			var block [guts.BlockSize]byte
			outputBlock(n, counter, &block)
			k = copy(p, block[off:])
		case off == 0 && len(p) >= xofRun:
			guts.CompressBlocks((*[xofRun]byte)(p), runNode(n, counter))
			k = xofRun
		default:
			k = xofRunFrom(runNode(n, counter), off, p)
		}
		p = p[k:]
		counter += uint64(off+k) / guts.BlockSize
		off = (off + k) % guts.BlockSize
	}
}

// zeeboBlockOut is goXOF's output one block at a time by zeebo's
// compression (assembly on amd64), where its layout is known and
// lukechampine's was not measured faster on this machine (blocksByLuke):
// it writes the output of n from block counter, byte off, to p, and
// reports whether it did. A Digest computes its block at hand where it
// holds its node instead (Digest.blockGo), without this copy of the node
// into a Digest of zeebo's and of the block out of it.
func zeeboBlockOut(n rootRef, counter uint64, off int, p []byte) bool {
	return zeeboBlocks && !blocksByLuke.Load() && ffi.ZeeboOutput(n.cv, n.block, n.blockLen, n.flags, counter, off, p)
}

// runNode is n as guts.CompressBlocks takes it for the run of root output
// blocks from block counter.
func runNode(n rootRef, counter uint64) guts.Node {
	return guts.Node{CV: *n.cv, Block: *n.block, Counter: counter, BlockLen: n.blockLen, Flags: n.flags | guts.FlagRoot}
}

// xofRun is the output of one guts.CompressBlocks call.
const xofRun = guts.MaxSIMD * guts.BlockSize

// xofRuns reports whether guts.CompressBlocks has assembly on this CPU (as
// lukechampine decides it: AVX2, or AVX-512, on amd64), without which it
// compresses its blocks one at a time.
var xofRuns = runtime.GOARCH == "amd64" && cpu.X86.HasAVX2

// zeeboAsm reports whether zeebo's one-block compression is assembly here,
// by zeebo's own test (its internal/consts): SSE4.1 on amd64 as
// klauspost/cpuid reports it (no feature under its noasm tag; GODEBUG's
// cpu options are x/sys/cpu's, which zeebo does not read), but neither
// with BLAKE3_DISABLE_SSE41 or BLAKE3_PUREGO set nor in a build with the
// purego tag. defaultPlan and setShort read it.
var zeeboAsm = runtime.GOARCH == "amd64" && cpuid.CPU.Has(cpuid.SSE4) && !zeeboPurego &&
	os.Getenv("BLAKE3_DISABLE_SSE41") == "" && os.Getenv("BLAKE3_PUREGO") == ""

// zeeboBlocks reports whether goXOF, and a Digest for its block at hand
// (Digest.blockGo), may compute single blocks with zeebo's compression
// (ffi.ZeeboOutput, or ffi.ZeeboXOF.Output in place, where the layout of
// zeebo's Digest is the one known), rather than with lukechampine's
// portable code (outputBlock); tests turn it off to reach the latter.
var zeeboBlocks = true

// xofRunFrom copies to p the output of the run of blocks that starts at n
// (n.Counter), from byte off of it. It is apart from goXOF so that only a
// read that needs its buffer zeroes it, and only such a read's frame holds
// it.
//
//go:noinline
func xofRunFrom(n guts.Node, off int, p []byte) int {
	var run [xofRun]byte
	guts.CompressBlocks(&run, n)
	return copy(p, run[off:])
}

func parentNode(left, right *[32]byte, key *[8]uint32, flags uint32) guts.Node {
	return guts.ParentNode(cvWords(left), cvWords(right), key, flags)
}

func cvWords(b *[32]byte) (w [8]uint32) {
	ffi.CVWords(&w, b)
	return w
}

func cvBytes(w [8]uint32) (b [32]byte) {
	ffi.CVBytes(&b, &w)
	return b
}

// goModeKey returns the key words and flags of h's mode for guts.
func (h *Hasher) goModeKey() ([8]uint32, uint32) {
	switch h.mode {
	case modeKeyed:
		return cvWords(&h.key), guts.FlagKeyedHash
	case modeDeriveKey:
		if h.hasCtxKey {
			return cvWords(&h.key), guts.FlagDeriveKeyMaterial
		}
		return goContextKey(h.context), guts.FlagDeriveKeyMaterial
	}
	return guts.IV, 0
}

// goContextKey is the context key of a derive-key context: the hash of the
// context in derive-key-context mode, which the key material is then hashed
// under.
func goContextKey(context string) [8]uint32 {
	if len(context) <= guts.ChunkSize {
		var key [32]byte
		goChunkSum(&guts.IV, guts.FlagDeriveKeyContext, ffi.StringBytes(context), key[:])
		return cvWords(&key)
	}
	t := new(goTree)
	t.init(guts.IV, guts.FlagDeriveKeyContext, 0)
	t.write([]byte(context))
	n := t.node()
	n.Flags |= guts.FlagRoot
	out := guts.CompressNode(n)
	return [8]uint32(out[:8])
}
