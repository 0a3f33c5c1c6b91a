//go:build !blake3_nonative && linux && !android && (amd64 || arm64)

package ffi

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"lukechampine.com/blake3/guts"
)

// The library's side of a tree is reached with any contents: the Go side
// writes Chunks and Stack when it resumes a saved state, and a Tree is plain
// memory. These tests fill trees with hostile values (chunk counts near
// every overflow, offsets near 2^64, tails of every length, garbage chaining
// values) and check each call's result code and output against a model of
// the header's contract written here with lukechampine's primitives. A
// fault or a panic in the library would end the process (panic = abort).

// refTree is the model: what each tree call must return for a tree.
type refTree struct {
	t     Tree
	key   [8]uint32
	flags uint32
}

func newRefTree(t *Tree) *refTree {
	r := &refTree{t: *t}
	switch t.Mode {
	case ModeKeyed:
		r.key, r.flags = words(&t.Key), guts.FlagKeyedHash
	case ModeDeriveKey:
		r.key, r.flags = words(&t.Key), guts.FlagDeriveKeyMaterial
	default:
		r.key = guts.IV
	}
	return r
}

func words(b *[32]byte) (w [8]uint32) {
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w
}

func cvb(w [8]uint32) (b [32]byte) {
	for i, x := range w {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

// node is the top node of the subtree data (not empty) at chunk counter c.
func (r *refTree) node(data []byte, c uint64) guts.Node {
	if len(data) <= guts.ChunkSize {
		return guts.CompressChunk(data, &r.key, c, r.flags)
	}
	l := uint64(1024) << (bits.Len64(uint64(len(data)-1)/1024) - 1)
	left := guts.ChainingValue(r.node(data[:l], c))
	right := guts.ChainingValue(r.node(data[l:], c+l/1024))
	return guts.ParentNode(left, right, &r.key, r.flags)
}

func (r *refTree) cv(data []byte, c uint64) [32]byte {
	return cvb(guts.ChainingValue(r.node(data, c)))
}

func (r *refTree) merge(l, rt [32]byte) guts.Node {
	return guts.ParentNode(words(&l), words(&rt), &r.key, r.flags)
}

// state is the code every call returns first for a tree that tree_init did
// not write.
func (r *refTree) state() Code {
	if r.t.Magic != TreeMagic || r.t.Mode > ModeDeriveKey || r.t.Offset%1024 != 0 {
		return ErrState
	}
	return OK
}

// room is the check of n more bytes after the tree's chunks.
func (r *refTree) room(n uint64) Code {
	hi, end := bits.Mul64(r.t.Chunks, 1024)
	end, c1 := bits.Add64(end, r.t.Offset, 0)
	end, c2 := bits.Add64(end, n, 0)
	if hi|c1|c2 != 0 {
		return ErrSubtreeTooLarge
	}
	if r.t.Offset != 0 && end-r.t.Offset > r.t.Offset&-r.t.Offset {
		return ErrSubtreeTooLarge
	}
	return OK
}

func (r *refTree) update(p []byte) Code {
	if rc := r.state(); rc != OK {
		return rc
	}
	if len(p)%1024 != 0 {
		return ErrLength
	}
	if rc := r.room(uint64(len(p))); rc != OK {
		return rc
	}
	c, n := r.t.Chunks, uint64(len(p)/1024)
	first := c
	for n > 0 {
		h := bits.Len64(n) - 1
		if c != 0 {
			h = min(h, bits.TrailingZeros64(c))
		}
		from := (c - first) * 1024
		cv := r.cv(p[from:from+1024<<h], r.t.Offset/1024+c)
		i := h
		for r.t.Chunks&(1<<i) != 0 {
			cv = cvb(guts.ChainingValue(r.merge(r.t.Stack[i], cv)))
			i++
		}
		r.t.Stack[i] = cv
		r.t.Chunks += 1 << h
		c += 1 << h
		n -= 1 << h
	}
	return OK
}

// updateLast is tree_update_last: p (whole chunks, at least one) hashed
// into the tree as update hashes it, but for its last chunk, whose chaining
// value (as a chunk that is not the whole input, at its own counter) it
// returns instead. Nothing changes on an error.
func (r *refTree) updateLast(p []byte) ([32]byte, Code) {
	if rc := r.state(); rc != OK {
		return [32]byte{}, rc
	}
	if len(p) == 0 || len(p)%1024 != 0 {
		return [32]byte{}, ErrLength
	}
	if rc := r.room(uint64(len(p))); rc != OK {
		return [32]byte{}, rc
	}
	k := len(p) - 1024
	if rc := r.update(p[:k]); rc != OK {
		return [32]byte{}, rc // (not reached: room allows all of p)
	}
	return r.cv(p[k:], r.t.Offset/1024+r.t.Chunks), OK
}

func (r *refTree) tailCV(tail []byte) ([32]byte, Code) {
	if rc := r.room(uint64(len(tail))); rc != OK {
		return [32]byte{}, rc
	}
	if r.t.Chunks != 0 && uint64(len(tail)) > 1024<<bits.TrailingZeros64(r.t.Chunks) {
		return [32]byte{}, ErrSubtreeTooLarge
	}
	return r.cv(tail, r.t.Offset/1024+r.t.Chunks), OK
}

// children are the two children of the node over the tree and the tail.
func (r *refTree) children(tail []byte) (l, rt [32]byte, ok bool, rc Code) {
	rest := r.t.Chunks
	top := bits.Len64(rest) - 1
	rest &^= 1 << top
	switch {
	case len(tail) > 0:
		if rt, rc = r.tailCV(tail); rc != OK {
			return l, rt, false, rc
		}
	case rest == 0:
		return l, rt, false, OK
	default:
		low := bits.TrailingZeros64(rest)
		rest &= rest - 1
		rt = r.t.Stack[low]
	}
	for ; rest != 0; rest &= rest - 1 {
		rt = cvb(guts.ChainingValue(r.merge(r.t.Stack[bits.TrailingZeros64(rest)], rt)))
	}
	return r.t.Stack[top], rt, true, OK
}

// rootOut is the root output of n from byte seek, one block at a time; the
// block counter goes on past 2^64 bytes of output, as the crate's does.
func rootOut(n guts.Node, seek uint64, out []byte) {
	n.Flags |= guts.FlagRoot
	n.Counter = seek / 64
	for off := seek % 64; len(out) > 0; off = 0 {
		b := guts.WordsToBytes(guts.CompressNode(n))
		out = out[copy(out, b[off:]):]
		n.Counter++
	}
}

func (r *refTree) finalize(tail []byte, seek uint64, out []byte) Code {
	if rc := r.state(); rc != OK {
		return rc
	}
	if r.t.Offset != 0 {
		return ErrRootWithOffset
	}
	if r.t.Chunks == 0 {
		if len(tail) == 0 {
			rootOut(guts.CompressChunk(nil, &r.key, 0, r.flags), seek, out)
		} else {
			rootOut(r.node(tail, 0), seek, out)
		}
		return OK
	}
	l, rt, ok, rc := r.children(tail)
	if rc != OK {
		return rc
	}
	if !ok {
		return ErrLength
	}
	rootOut(r.merge(l, rt), seek, out)
	return OK
}

func (r *refTree) root(tail []byte) (l, rt [32]byte, rc Code) {
	if rc := r.state(); rc != OK {
		return l, rt, rc
	}
	if r.t.Offset != 0 {
		return l, rt, ErrRootWithOffset
	}
	if r.t.Chunks == 0 {
		if len(tail) <= 1024 {
			return l, rt, ErrLength
		}
		n := uint64(1024) << (bits.Len64(uint64(len(tail)-1)/1024) - 1)
		return r.cv(tail[:n], 0), r.cv(tail[n:], n/1024), OK
	}
	l, rt, ok, rc := r.children(tail)
	if rc == OK && !ok {
		rc = ErrLength
	}
	return l, rt, rc
}

func (r *refTree) nonRoot(tail []byte) ([32]byte, Code) {
	if rc := r.state(); rc != OK {
		return [32]byte{}, rc
	}
	if r.t.Chunks == 0 {
		if len(tail) == 0 {
			return [32]byte{}, ErrEmptySubtree
		}
		return r.tailCV(tail)
	}
	l, rt, ok, rc := r.children(tail)
	if rc != OK {
		return l, rc
	}
	if !ok {
		return r.t.Stack[bits.TrailingZeros64(r.t.Chunks)], OK
	}
	return cvb(guts.ChainingValue(r.merge(l, rt))), OK
}

// hostileTree is a tree with values picked to reach every check.
func hostileTree(rng *rand.Rand) Tree {
	var t Tree
	t.Magic = TreeMagic
	if rng.IntN(40) == 0 {
		t.Magic = rng.Uint64()
	}
	t.Mode = uint32(rng.IntN(3))
	if rng.IntN(40) == 0 {
		t.Mode = rng.Uint32()
	}
	t.Reserved = rng.Uint32()
	for i := range t.Key {
		t.Key[i] = byte(rng.Uint32())
	}
	switch rng.IntN(8) {
	case 0, 1, 2, 3:
		t.Offset = 0
	case 4:
		t.Offset = uint64(rng.IntN(64)+1) << (10 + rng.IntN(30))
	case 5:
		t.Offset = math.MaxUint64 - 1023 - uint64(rng.IntN(4))*1024
	case 6:
		t.Offset = 1 << (10 + rng.IntN(54))
	default:
		t.Offset = rng.Uint64() &^ 1023
	}
	if rng.IntN(40) == 0 {
		t.Offset |= 1 + uint64(rng.IntN(1023))
	}
	lim := uint64(1) << 54 // chunks that fit 2^64 bytes
	if t.Offset != 0 {
		lim = (t.Offset & -t.Offset) / 1024
	}
	switch rng.IntN(8) {
	case 0:
		t.Chunks = 0
	case 1:
		t.Chunks = uint64(rng.IntN(100))
	case 2:
		t.Chunks = rng.Uint64()
	case 3:
		t.Chunks = lim - uint64(rng.IntN(40))
	case 4:
		t.Chunks = lim + uint64(rng.IntN(40))
	case 5:
		t.Chunks = lim - 1<<rng.IntN(max(1, bits.Len64(lim)))
	case 6:
		t.Chunks = 1 << rng.IntN(64)
	default:
		t.Chunks = rng.Uint64N(lim + 1)
	}
	for i := range t.Stack {
		for j := range t.Stack[i] {
			t.Stack[i][j] = byte(rng.Uint32())
		}
	}
	return t
}

func hostileLen(rng *rand.Rand, max int) int {
	switch rng.IntN(6) {
	case 0:
		return 0
	case 1:
		return rng.IntN(3) * 1024
	case 2:
		return 1024 << rng.IntN(7)
	case 3:
		return (1024 << rng.IntN(7)) + rng.IntN(3) - 1
	default:
		return rng.IntN(max + 1)
	}
}

// TestCallsHostileTrees: every tree call on hostile trees (tree_update,
// tree_update_last, tree_finalize, tree_root, tree_finalize_non_root)
// returns what the model says, code, tree and output; nothing aborts.
func TestCallsHostileTrees(t *testing.T) {
	s := testLibrary(t)
	if rc := s.InitThreads(2); rc != OK {
		t.Fatal(rc)
	}
	rounds := 20000
	if testing.Short() {
		rounds = 3000
	}
	seed := rand.Uint64()
	if v := os.Getenv("BLAKE3_TEST_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("BLAKE3_TEST_SEED=%q: %v", v, err)
		}
	}
	t.Logf("seed %d (replay with BLAKE3_TEST_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	in := pattern(4<<20 + 1024)
	for round := range rounds {
		tr := hostileTree(rng)
		r := newRefTree(&tr)
		switch rng.IntN(5) {
		case 0:
			p := in[:hostileLen(rng, 64<<10)]
			if rng.IntN(100) == 0 {
				p = in[:(2<<20)+rng.IntN(3)<<20+rng.IntN(2)*1024] // pieces for the rayon pool
			}
			rc, want := s.TreeUpdate(&tr, p, rng.IntN(2) == 0), r.update(p)
			if rc != want || tr != r.t {
				t.Fatalf("round %d: tree_update of %d bytes, chunks %d, offset %d: %v, want %v (tree equal: %v)", round, len(p), r.t.Chunks, r.t.Offset, rc, want, tr == r.t)
			}
		case 1:
			tail := in[:hostileLen(rng, 8<<10)]
			seek := rng.Uint64() >> rng.IntN(64)
			out, want := make([]byte, rng.IntN(200)), make([]byte, 0)
			want = append(want, out...)
			rc, wrc := s.TreeFinalize(&tr, tail, seek, out), r.finalize(tail, seek, want)
			if rc != wrc || rc == OK && !bytes.Equal(out, want) {
				t.Fatalf("round %d: tree_finalize, tail %d, chunks %d, offset %d: %v, want %v", round, len(tail), r.t.Chunks, r.t.Offset, rc, wrc)
			}
		case 2:
			tail := in[:hostileLen(rng, 8<<10)]
			var l, rt [32]byte
			rc := s.TreeRoot(&tr, tail, &l, &rt)
			wl, wr, wrc := r.root(tail)
			if rc != wrc || rc == OK && (l != wl || rt != wr) {
				t.Fatalf("round %d: tree_root, tail %d, chunks %d, offset %d: %v, want %v", round, len(tail), r.t.Chunks, r.t.Offset, rc, wrc)
			}
		case 3:
			p := in[:hostileLen(rng, 20<<10)]
			var last [32]byte
			rc := s.TreeUpdateLast(&tr, p, &last)
			want, wrc := r.updateLast(p)
			if rc != wrc || tr != r.t || rc == OK && last != want {
				t.Fatalf("round %d: tree_update_last of %d bytes, chunks %d, offset %d: %v, want %v (tree equal: %v, last %x, want %x)", round, len(p), r.t.Chunks, r.t.Offset, rc, wrc, tr == r.t, last[:8], want[:8])
			}
		default:
			tail := in[:hostileLen(rng, 8<<10)]
			var cv [32]byte
			rc := s.TreeFinalizeNonRoot(&tr, tail, &cv)
			want, wrc := r.nonRoot(tail)
			if rc != wrc || rc == OK && cv != want {
				t.Fatalf("round %d: tree_finalize_non_root, tail %d, chunks %d, offset %d: %v, want %v", round, len(tail), r.t.Chunks, r.t.Offset, rc, wrc)
			}
		}
	}
}

// TestCallsHostileNodes: root_output of hostile nodes (any chaining value
// and block, block lengths and flags past what BLAKE3 defines, positions up
// to 2^64-1, outputs that start and end within a block or span runs of
// whole blocks) returns what the model says, code and output.
func TestCallsHostileNodes(t *testing.T) {
	s := testLibrary(t)
	rng := rand.New(rand.NewPCG(rand.Uint64(), 11))
	rounds := 5000
	if testing.Short() {
		rounds = 1000
	}
	for round := range rounds {
		var n guts.Node
		for i := range n.CV {
			n.CV[i] = rng.Uint32()
		}
		for i := range n.Block {
			n.Block[i] = rng.Uint32()
		}
		n.Counter = rng.Uint64() // not the library's: the position gives the counter
		n.BlockLen = uint32(rng.IntN(70))
		n.Flags = uint32(rng.IntN(0x84))
		seek := rng.Uint64() >> rng.IntN(65)
		out := make([]byte, rng.IntN(3*16*64+130))
		want := make([]byte, len(out))
		wrc := OK
		switch {
		case n.BlockLen > 64:
			wrc = ErrLength
		case n.Flags > 0x7f:
			wrc = ErrFlags
		default:
			rootOut(n, seek, want)
		}
		if rc := s.RootOutput(n, seek, out); rc != wrc || rc == OK && !bytes.Equal(out, want) {
			t.Fatalf("round %d: root_output of block_len %d, flags %#x, from %d, %d bytes: %v, want %v", round, n.BlockLen, n.Flags, seek, len(out), rc, wrc)
		}
	}
}
