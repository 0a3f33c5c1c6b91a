// Subtrees: hashing pieces of an input anywhere (another goroutine, another
// machine) and combining them into the real BLAKE3 hash. These are Go names
// for the Rust crate's blake3::hazmat module.

package blake3

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/purego-blake3/blake3/internal/ffi"
)

// Errors of the subtree API. Each is returned wrapped with details; test for
// them with errors.Is.
var (
	// ErrRootWithOffset: a hasher with a non-zero input offset hashes part
	// of an input, which has no root hash. Its Digest reads fail with it,
	// its Sum appends nothing, and Err returns it.
	ErrRootWithOffset = errors.New("blake3: no root hash for a subtree with a non-zero input offset (use FinalizeNonRoot)")
	// ErrSubtreeTooLarge: more input than MaxSubtreeLen allows at the
	// hasher's input offset, or than the 2^64-1 bytes an input may have.
	ErrSubtreeTooLarge = errors.New("blake3: subtree too large for its input offset")
	// ErrInvalidSubtree: a merge or finalization that would not give a
	// chaining value of the BLAKE3 tree.
	ErrInvalidSubtree = errors.New("blake3: invalid subtree")
)

// Subtree is the non-root chaining value of the input bytes
// [Offset, Offset+Len): a node of the BLAKE3 tree, as FinalizeNonRoot and
// MergeNonRoot return it.
//
// This is a sharp tool (the crate calls it "hazmat"). A chaining value is not
// a hash: it must never be published or compared as one, and only MergeRoot
// turns two of them into the real hash. The merge functions check what they
// can (lengths, offsets, and the hashing mode of subtrees made in this
// process) but not the key: subtrees hashed with different keys, or of
// different inputs, merge into garbage.
//
// A Subtree built by hand (say, parsed from a worker's output) has an unknown
// mode, and merges in the mode of the Hasher that merges it.
type Subtree struct {
	CV     [32]byte
	Offset uint64
	Len    uint64

	// mode is 0 when unknown, else the hashing mode plus one.
	mode uint32
}

// MaxSubtreeLen returns the largest number of bytes a subtree may have when
// it starts at input byte offset, a multiple of 1024: the largest power of
// two that divides offset. For offset 0 it returns 0, meaning no limit.
func MaxSubtreeLen(offset uint64) (uint64, error) {
	if offset%chunkLen != 0 {
		return 0, fmt.Errorf("%w: input offset %d is not a multiple of 1024", ErrInvalidSubtree, offset)
	}
	return offset & -offset, nil
}

// LeftSubtreeLen returns how many of inputLen bytes (more than 1024) go to
// the left subtree of their parent in the BLAKE3 tree: the largest power of
// two number of chunks that leaves at least one byte to the right subtree.
// Splitting an input this way, recursively, gives pieces that are all valid
// subtrees.
func LeftSubtreeLen(inputLen uint64) (uint64, error) {
	if inputLen <= chunkLen {
		return 0, fmt.Errorf("%w: an input of %d bytes is one chunk and has no subtrees", ErrInvalidSubtree, inputLen)
	}
	full := (inputLen - 1) / chunkLen
	return (1 << (bits.Len64(full) - 1)) * chunkLen, nil
}

// subState is a Hasher's state as a subtree hasher (after SetInputOffset).
type subState struct {
	on     bool // the hasher is a subtree hasher; the rest is valid
	offset uint64
	n      uint64 // bytes accepted
	max    uint64 // the most input at offset (subtreeLimit)
	err    error  // a rejected Write, sticky until Reset
	single bool   // native: hash on the calling thread only (parallel.go)
	t      *goTree
}

// clone is s with its own copy of the Go-path tree, if any.
func (s subState) clone() subState {
	if s.t != nil {
		t := *s.t
		s.t = &t
	}
	return s
}

// subtreeLimit is the most input a subtree hasher at offset takes: what
// its offset allows (MaxSubtreeLen; no limit at offset 0), and no more
// than takes the input to 2^64-1 bytes, the most an input has (a subtree
// that ends there is shorter than MaxSubtreeLen; the library and
// UnmarshalBinary refuse one past it).
func subtreeLimit(offset uint64) uint64 {
	limit := uint64(math.MaxUint64) - offset
	if max, _ := MaxSubtreeLen(offset); max != 0 {
		limit = min(limit, max)
	}
	return limit
}

// accept counts n more bytes of input, or rejects them (for good) when they
// would take the subtree past its limit.
func (s *subState) accept(n int) error {
	if s.err != nil {
		return s.err
	}
	if uint64(n) > s.max-s.n {
		err := fmt.Errorf("%w: %d bytes after %d at input offset %d, where at most %d fit", ErrSubtreeTooLarge, n, s.n, s.offset, s.max)
		if s.offset != 0 {
			// At offset 0 the input is a whole one, which refuses what
			// would take it past 2^64-1 bytes and goes on (fits), as
			// without an offset: Err stays nil, Sum gives the root.
			s.err = err
		}
		return err
	}
	s.n += uint64(n)
	return nil
}

// startGo gives a subtree hasher on the Go path its tree.
func (s *subState) startGo(h *Hasher) {
	if s.t == nil {
		h.share()
		s.t = new(goTree)
	}
	key, flags := h.goModeKey()
	s.t.init(key, flags, s.offset/chunkLen)
}

// goPath reports whether h's subtree operations run on the Go path.
func (h *Hasher) goPath() bool {
	h.start()
	return h.path == pathGo
}

// SetInputOffset makes h hash the subtree of a larger input that starts at
// input byte offset, a multiple of 1024, and turns on FinalizeNonRoot. It
// must come before any input; it returns an error after input, or for an
// unaligned offset.
//
// Use 0 for the first subtree: a hasher with input offset 0 still gives the
// root hash through Sum and Digest, as without the call. With any other
// offset there is no root hash:
//
//   - Write rejects input that would make the subtree longer than
//     MaxSubtreeLen(offset), or the input longer than 2^64-1 bytes (the
//     most BLAKE3 hashes), writing none of it and returning an error
//     (ErrSubtreeTooLarge); the rejection is sticky: every later Write and
//     FinalizeNonRoot fail with it until Reset.
//   - Sum appends nothing to its argument (a result Size bytes short), and
//     Digest returns a Digest whose Read fails with ErrRootWithOffset. Err
//     says so.
//
// Reset clears the offset along with the input; Clone keeps it.
func (h *Hasher) SetInputOffset(offset uint64) error {
	h.mine() // a use, as every other call (see Hasher), before any refusal
	if offset%chunkLen != 0 {
		return fmt.Errorf("%w: input offset %d is not a multiple of 1024", ErrInvalidSubtree, offset)
	}
	if h.sub.on && h.sub.n != 0 || !h.sub.on && h.written() {
		return fmt.Errorf("%w: SetInputOffset after input", ErrInvalidSubtree)
	}
	h.beginSubtree(offset)
	return nil
}

// written reports whether h, not yet a subtree hasher, accepted input.
// Wherever h has zeebo's hasher, it holds input: Reset sets it aside
// (spare), and a spill or a resumed state makes one only for input.
func (h *Hasher) written() bool {
	h.start()
	return h.live || h.nbuf > 0 || h.g != nil
}

// beginSubtree makes h an empty subtree hasher at offset, without checks.
func (h *Hasher) beginSubtree(offset uint64) {
	h.start()
	// A change to the heap state as a write is, on either path, though
	// only the Go path's tree is on the heap, so that copies by value
	// behave the same on both.
	h.share()
	h.touch()
	h.sub = subState{on: true, offset: offset, max: subtreeLimit(offset), t: h.sub.t}
	h.live, h.nbuf = false, 0
	h.setLim()
	if h.path == pathGo {
		h.sub.startGo(h)
	}
}

// Err returns nil, or why Sum and Digest do not give h's hash: an input
// offset set by SetInputOffset (ErrRootWithOffset), or a Write it rejected
// (ErrSubtreeTooLarge), which is reported first. Only a hasher given a
// non-zero input offset ever has an error.
func (h *Hasher) Err() error {
	h.mine() // a use, as every other call (see Hasher)
	if !h.sub.on {
		return nil
	}
	if h.sub.err != nil {
		return h.sub.err
	}
	if h.sub.offset != 0 {
		return fmt.Errorf("%w (input offset %d)", ErrRootWithOffset, h.sub.offset)
	}
	return nil
}

// subSum is Sum on a subtree hasher: nothing appended with an offset, the
// root hash on the Go path, and (ok false) the usual native path otherwise.
func (h *Hasher) subSum(b []byte) ([]byte, bool) {
	s := &h.sub
	if !s.on {
		return nil, false
	}
	h.mine() // before the offset's empty result, as Sum's other cases
	if s.offset != 0 || s.err != nil {
		return b, true
	}
	if h.goPath() {
		var out [32]byte
		root := s.t.node()
		goXOF(refOf(&root), 0, out[:])
		return append(b, out[:]...), true
	}
	return nil, false
}

// subDigest is Digest on a subtree hasher, as subSum.
func (h *Hasher) subDigest(d *Digest) bool {
	s := &h.sub
	if !s.on {
		return false
	}
	if err := h.Err(); err != nil {
		*d = Digest{src: srcErr, held: err}
		return true
	}
	if h.goPath() {
		n := s.t.node()
		d.src = srcNode
		d.x.set(&n)
		return true
	}
	return false
}

// FinalizeNonRoot returns the chaining value of the subtree h hashed so far:
// the input written since SetInputOffset, at its input offset. h is not
// changed and may go on being written to.
//
// It needs SetInputOffset (0 for the first subtree of an input) before the
// first Write, on every backend, and returns an error without it, for an
// empty subtree, or after a rejected Write.
//
// A subtree that is the whole input (offset 0 and nothing after it) is the
// root: its hash comes from Sum, not from merging.
func (h *Hasher) FinalizeNonRoot() (Subtree, error) {
	h.mine() // a use, as every other call (see Hasher), before any refusal
	s := &h.sub
	switch {
	case !s.on:
		return Subtree{}, fmt.Errorf("%w: FinalizeNonRoot needs SetInputOffset before the first Write", ErrInvalidSubtree)
	case s.err != nil:
		return Subtree{}, s.err
	case s.n == 0:
		return Subtree{}, fmt.Errorf("%w: empty subtree", ErrInvalidSubtree)
	}
	out := Subtree{Offset: s.offset, Len: s.n, mode: h.mode + 1}
	if h.goPath() {
		out.CV = cvBytes(chainingValue(s.t.node()))
		return out, nil
	}
	if !h.live {
		var t ffi.Tree
		h.frontTree(&t)
		must(lib.TreeFinalizeNonRoot(&t, h.pending(), &out.CV))
		return out, nil
	}
	must(lib.TreeFinalizeNonRoot(h.t, h.pending(), &out.CV))
	return out, nil
}

// checkMerge returns why left and right cannot be the two children of a
// node of the BLAKE3 tree, in h's mode (of the root, if root).
func (h *Hasher) checkMerge(left, right Subtree, root bool) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalidSubtree}, a...)...)
	}
	for _, s := range []Subtree{left, right} {
		if s.mode != 0 && s.mode != h.mode+1 {
			return bad("a subtree hashed in mode %s merged in mode %s", modeName(s.mode-1), modeName(h.mode))
		}
	}
	L, R := left.Len, right.Len
	switch {
	case L == 0 || R == 0:
		return bad("empty subtree")
	case L%chunkLen != 0 || bits.OnesCount64(L/chunkLen) != 1:
		return bad("left subtree of %d bytes: not a power of two number of chunks", L)
	case R > L:
		return bad("right subtree of %d bytes, longer than the left one (%d)", R, L)
	case left.Offset+L < left.Offset || left.Offset+L != right.Offset:
		return bad("subtrees [%d, +%d) and [%d, +%d) are not contiguous", left.Offset, L, right.Offset, R)
	case right.Offset+R < right.Offset:
		return bad("subtree [%d, +%d) ends past 2^64-1 bytes, the most an input has", right.Offset, R)
	case root && left.Offset != 0:
		return bad("root merge of subtrees at input offset %d, not 0", left.Offset)
	case left.Offset&(2*L-1) != 0 || !root && 2*L == 0:
		// The parent starts at left.Offset and is longer than L, so its
		// offset must allow twice L (a mask: 2*L is 0 for a left
		// subtree of 2^63 bytes, whose parent can only be a root).
		return bad("parent of %d bytes at input offset %d: MaxSubtreeLen is smaller", L+R, left.Offset)
	}
	return nil
}

func modeName(m uint32) string {
	switch m {
	case modeHash:
		return "hash"
	case modeKeyed:
		return "keyed"
	case modeDeriveKey:
		return "derive-key"
	}
	return fmt.Sprint(m)
}

// MergeNonRoot returns the chaining value of the parent of two subtrees: left
// a power-of-two number of chunks, right directly after it and no longer,
// both hashed in h's mode (plain, keyed with h's key, or derive-key in h's
// context). h's input is neither used nor changed. Misuse is an error
// (ErrInvalidSubtree).
func (h *Hasher) MergeNonRoot(left, right Subtree) (Subtree, error) {
	if err := h.checkMerge(left, right, false); err != nil {
		return Subtree{}, err
	}
	out := Subtree{Offset: left.Offset, Len: left.Len + right.Len, mode: h.mode + 1}
	if h.goPath() {
		key, flags := h.goModeKey()
		out.CV = cvBytes(chainingValue(parentNode(&left.CV, &right.CV, &key, flags)))
		return out, nil
	}
	must(lib.MergeNonRoot(&left.CV, &right.CV, h.mode, h.modeKey(), &out.CV))
	return out, nil
}

// MergeRoot returns the hash (the first 32 bytes of the root output) of the
// input made of the two subtrees: left starts at offset 0, right ends the
// input, as MergeNonRoot requires otherwise. It is the same as Sum of one
// hasher in h's mode over the whole input.
func (h *Hasher) MergeRoot(left, right Subtree) ([32]byte, error) {
	var out [32]byte
	d, err := h.MergeRootDigest(left, right)
	if err != nil {
		return out, err
	}
	d.fetch(0, out[:])
	return out, nil
}

// MergeRootDigest is MergeRoot with all of the root output: a Digest to read
// and seek through, as Hasher.Digest gives.
func (h *Hasher) MergeRootDigest(left, right Subtree) (*Digest, error) {
	if err := h.checkMerge(left, right, true); err != nil {
		return nil, err
	}
	if h.goPath() {
		key, flags := h.goModeKey()
		d := &Digest{src: srcNode}
		n := parentNode(&left.CV, &right.CV, &key, flags)
		d.x.set(&n)
		return d, nil
	}
	d := new(Digest)
	d.setMerge(h.mode, &h.key, &left.CV, &right.CV)
	return d, nil
}
