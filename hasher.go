package blake3

import (
	"fmt"
	"math"
	"slices"

	"github.com/purego-blake3/blake3/internal/ffi"
	zeebo "github.com/zeebo/blake3"
)

// Hasher is a hash.Hash for BLAKE3. Its zero value is ready to use, like
// New(). A Hasher is not safe for concurrent use; Clone gives independent
// copies, and so does a copy by value (h2 := *h) on the native path.
//
// On the native path, small writes are gathered on the Go side and handed to
// the library in large batches, so a stream written in small pieces runs at
// the library's speed, and a short stream never crosses into the library.
type Hasher struct {
	mode      uint32
	key       [32]byte // the key (keyed), or the context key (derive-key, when hasCtxKey)
	hasCtxKey bool
	context   string // the derive-key context, for the Go path

	// path is pathNative or pathGo once the hasher has started: the
	// backend it began on, for good.
	path uint8

	// far is set on a hasher resumed by UnmarshalBinary with half of the
	// most input BLAKE3 hashes (2^64-1 bytes) or more: its writes are
	// checked against that end (fits).
	far bool

	// g is the Go path's hasher. It is a pointer (zeebo's Hasher is 10 KiB,
	// and native Hashers never need it), so a copy of a Go-path Hasher by
	// value shares it: use Clone.
	g *zeebo.Hasher

	// sub is set by SetInputOffset (sub.on): the hasher hashes a subtree
	// (subtree.go).
	sub subState

	// The native path: the tree of the input handed to the library, and the
	// input after it (buf[:nbuf]). Both live in the Hasher itself, so that a
	// copy by value is independent. live reports that t is initialized; lim
	// is how much buf may hold before the next write goes through write
	// (0 when every write must: not started, or a subtree hasher).
	live bool
	t    ffi.Tree
	lim  int
	nbuf int
	buf  [bufSize]byte
}

// Hashing paths.
const (
	pathUnset uint8 = iota
	pathNative
	pathGo
)

// Hashing modes, shared with the native library's ABI.
const (
	modeHash      = ffi.ModeHash
	modeKeyed     = ffi.ModeKeyed
	modeDeriveKey = ffi.ModeDeriveKey
)

// bufSize is the input the Hasher gathers before it crosses into the
// library: a batch of 16 chunks, the widest the crate hashes in one SIMD
// pass (AVX-512), for few crossings per byte (BenchmarkStream).
const bufSize = 16 << 10

// start puts h on the native path if the library is loaded, else on the Go
// path, the first time it is needed.
func (h *Hasher) start() {
	if h.path != pathUnset {
		return
	}
	if native() != nil {
		h.path = pathNative
		if h.mode == modeDeriveKey && !h.hasCtxKey {
			h.key, h.hasCtxKey = contextKey(h.context), true
		}
		h.setLim()
		return
	}
	h.path = pathGo
	if h.sub.on {
		h.sub.startGo(h)
	} else {
		h.g = h.goHasher()
	}
}

// Write implements part of the hash.Hash interface. It never returns an
// error, except on a hasher given an input offset by SetInputOffset, which
// rejects input beyond the largest subtree its offset allows, and for input
// past 2^64-1 bytes, the most BLAKE3 hashes, which only a hasher resumed
// by UnmarshalBinary can come near (ErrSubtreeTooLarge, nothing written).
func (h *Hasher) Write(p []byte) (int, error) {
	if h.nbuf+len(p) <= h.lim {
		// The common case of a stream in small pieces on the native path:
		// only gather.
		h.nbuf += copy(h.buf[h.nbuf:], p)
		return len(p), nil
	}
	return h.write(p)
}

// WriteString is like Write but for strings, without a copy to a []byte on
// the Go path.
func (h *Hasher) WriteString(s string) (int, error) {
	if h.nbuf+len(s) <= h.lim {
		h.nbuf += copy(h.buf[h.nbuf:], s)
		return len(s), nil
	}
	if h.path == pathGo && !h.sub.on {
		if err := h.fits(len(s)); err != nil {
			return 0, err
		}
		return h.g.WriteString(s)
	}
	return h.write([]byte(s))
}

// fits refuses n more bytes that would take a hasher, not a subtree one
// (whose accept counts its input), past 2^64-1 bytes, the most an input
// has, which the library refuses. Only a state resumed by UnmarshalBinary
// can be that close to it (h.far): no other hasher pays for the look.
func (h *Hasher) fits(n int) error {
	if !h.far {
		return nil
	}
	have := h.inputLen()
	if h.path == pathGo {
		var ok bool
		if have, ok = ffi.ZeeboLen(h.g); !ok {
			return nil // no state is resumed on this path then
		}
	}
	if uint64(n) > math.MaxUint64-have {
		return fmt.Errorf("%w: %d bytes after %d: an input has at most 2^64-1", ErrSubtreeTooLarge, n, have)
	}
	return nil
}

// write is Write's general case.
func (h *Hasher) write(p []byte) (int, error) {
	if h.sub.on {
		if err := h.sub.accept(len(p)); err != nil {
			return 0, err
		}
	}
	h.start()
	if !h.sub.on {
		if err := h.fits(len(p)); err != nil {
			return 0, err
		}
	}
	if h.path == pathGo {
		if h.sub.t != nil {
			h.sub.t.write(p)
			return len(p), nil
		}
		return h.g.Write(p)
	}
	n := len(p)
	for {
		room := h.room()
		if h.nbuf+len(p) <= room {
			h.nbuf += copy(h.buf[h.nbuf:], p)
			h.setLim()
			return n, nil
		}
		// Fill the buffer to the end of its group and hand it over.
		k := copy(h.buf[h.nbuf:room], p)
		h.update(h.buf[:room])
		p = p[k:]
		if room == bufSize {
			break
		}
	}
	// Then whole groups straight from p. The last group (1 to bufSize
	// bytes) stays here, even when it is whole: more input may follow, and
	// if none does, the root is computed from it.
	whole := (len(p) - 1) / bufSize * bufSize
	if whole > 0 {
		h.update(p[:whole])
	}
	h.nbuf = copy(h.buf[:], p[whole:])
	h.setLim()
	return n, nil
}

// room is how much input the buffer gathers before it is handed over:
// bufSize bytes, in groups aligned in the whole input, so that each is one
// subtree for the library. After a position that is not a multiple of
// bufSize (the first group of a subtree hasher, or of a hasher resumed from
// a saved state), as many bytes as the largest subtree that may start
// there: the input after the tree must be one subtree, no longer than the
// smallest one in it.
func (h *Hasher) room() int {
	at := h.sub.offset
	if h.live {
		at = h.t.Offset + h.t.Chunks*chunkLen
	}
	return alignedRoom(at, bufSize)
}

// alignedRoom is the length of the aligned group that starts at input byte
// at: group, or the largest power of two that divides at if smaller.
func alignedRoom(at uint64, group int) int {
	if at == 0 {
		return group
	}
	return int(min(at&-at, uint64(group)))
}

// setLim sets what Write may gather without a look at anything else: the
// room left in the buffer's group on the native path, none for a subtree
// hasher (whose writes are counted) or on the Go path.
func (h *Hasher) setLim() {
	h.lim = 0
	if h.path == pathNative && !h.sub.on {
		h.lim = h.room()
		// Nothing past 2^64-1 bytes without a look (fits).
		if at := h.inputLen() - uint64(h.nbuf); h.far && uint64(h.lim) > math.MaxUint64-at {
			h.lim = int(math.MaxUint64 - at)
		}
	}
}

// update hands p, whole chunks, to the library, initializing the tree
// first if needed.
func (h *Hasher) update(p []byte) {
	if !h.live {
		must(lib.TreeInit(&h.t, h.mode, h.modeKey(), h.sub.offset))
		h.live = true
	}
	must(lib.TreeUpdate(&h.t, p, !h.sub.single && parallel(len(p))))
	h.nbuf = 0
}

// modeKey is h's key as the library takes it: nil for plain hashing.
func (h *Hasher) modeKey() *[32]byte {
	if h.mode == modeHash {
		return nil
	}
	return &h.key
}

// tree is h's tree, for a finalization: an empty one if nothing was handed
// over yet.
func (h *Hasher) tree() *ffi.Tree {
	if !h.live {
		var t ffi.Tree
		must(lib.TreeInit(&t, h.mode, h.modeKey(), h.sub.offset))
		return &t
	}
	return &h.t
}

// pending is the input gathered and not yet handed to the library.
func (h *Hasher) pending() []byte { return h.buf[:h.nbuf] }

// Reset implements part of the hash.Hash interface. It causes the Hasher to
// act as if it was newly created.
func (h *Hasher) Reset() {
	if h.g != nil {
		h.g.Reset()
	}
	h.live, h.nbuf, h.far = false, 0, false
	h.sub = subState{}
	h.setLim()
	if h.path == pathGo && h.g == nil {
		h.g = h.goHasher() // it was a subtree hasher
	}
}

// Clone returns a new Hasher with the same internal state.
//
// Modifying the resulting Hasher will not modify the original Hasher, and
// vice versa.
func (h *Hasher) Clone() *Hasher {
	c := new(Hasher)
	*c = *h
	if h.g != nil {
		c.g = h.g.Clone()
	}
	c.sub = h.sub.clone()
	return c
}

// Size implements part of the hash.Hash interface. It returns the number of
// bytes the hash will output in Sum.
func (h *Hasher) Size() int { return 32 }

// BlockSize implements part of the hash.Hash interface. It returns the most
// natural size to write to the Hasher.
func (h *Hasher) BlockSize() int { return 64 }

// Sum implements part of the hash.Hash interface. It appends the digest of
// the Hasher to the provided buffer and returns it. It does not change the
// Hasher's state.
func (h *Hasher) Sum(b []byte) []byte {
	if s, ok := h.subSum(b); ok {
		return s
	}
	h.start()
	if h.path == pathGo {
		return h.g.Sum(b)
	}
	n := len(b)
	b = slices.Grow(b, 32)[:n+32]
	out := b[n:]
	if !h.live {
		sumSmall(h.mode, h.modeKey(), h.pending(), out)
	} else {
		must(lib.TreeFinalize(&h.t, h.pending(), 0, out))
	}
	return b
}

// Digest takes a snapshot of the hash state and returns an object that can
// be used to read and seek through 2^64 bytes of digest output. The Hasher
// may go on being written to; the Digest does not change.
func (h *Hasher) Digest() *Digest {
	if d, ok := h.subDigest(); ok {
		return d
	}
	h.start()
	if h.path == pathGo {
		return &Digest{src: srcGo, g: *h.g.Digest()}
	}
	d := &Digest{mode: h.mode, key: h.key}
	if !h.live && h.nbuf <= chunkLen {
		// One chunk or less: its root is no parent; the library hashes it
		// again at each read.
		d.src, d.n = srcShort, h.nbuf
		copy(d.in[:], h.pending())
		return d
	}
	d.src = srcMerge
	must(lib.TreeRoot(h.tree(), h.pending(), &d.left, &d.right))
	return d
}

// sumSmall writes the 32-byte hash of in, which never crossed into the
// library, in a mode with its key (nil for plain hashing): with the
// implementation the dispatch picks for its size.
func sumSmall(mode uint32, key *[32]byte, in, out []byte) {
	if mode == modeHash {
		s := Sum256(in)
		copy(out, s[:])
		return
	}
	if len(in) <= chunkLen && implFor(len(in)) != implNative {
		goSum(mode, key, in, out)
		return
	}
	must(lib.HashXOF(mode, key, false, in, 0, out))
}
