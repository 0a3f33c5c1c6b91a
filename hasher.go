package blake3

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/purego-blake3/blake3/internal/ffi"
	zeebo "github.com/zeebo/blake3"
	"lukechampine.com/blake3/guts"
)

// Hasher is a hash.Hash for BLAKE3. Its zero value is ready to use, like
// New(). A Hasher is not safe for concurrent use.
//
// Copy a Hasher with Clone. A Hasher holds the first 8 KiB of its input
// itself, as zeebo's does, and the rest of its state on the heap,
// allocated as the input needs it, so that a new Hasher that hashes a
// short input allocates its struct and an 8-byte count of changes, or only
// the count where the compiler keeps it on the stack (BenchmarkNewSum),
// and a new Hasher's stream in small pieces allocates nothing more up to
// 8 KiB, as zeebo's, and no buffer up to 64 KiB (its tree, 2 KiB, past 8
// KiB). A copy by value
// (h2 := *h) shares that state with the Hasher it was copied from once it
// has been written to: from then on, once either of the two is written to
// (or reset, or given an input offset), the other panics at its next use,
// Reset excepted, which makes it a new Hasher. The same holds for a
// Hasher restored from an earlier copy of itself (*h = saved), and for
// the Hashers of a slice that append has copied. A copy of a new Hasher
// never written to is independent. A Hasher reset keeps its heap state,
// and a Clone, or an UnmarshalBinary, of a Hasher that was written to has
// its own from the start: copies of them share it as above. None of these
// gives a wrong hash; save a Hasher with Clone, or with MarshalBinary.
// Copies by value that are only read (Sum, Digest, Clone, MarshalBinary)
// may be read at once, on several goroutines.
//
// On the native path, small writes are gathered on the Go side and handed to
// the library in large batches, so a stream written in small pieces runs at
// the library's speed, and a short stream never crosses into the library.
// From the second Sum or Digest of what the buffer gathered on, the library
// holds its whole chunks too, and from a Hasher's second read on, a second
// tree holds the ones after them, so that a Sum after each piece of a
// stream hashes again at most the last part of a chunk, where zeebo's
// hashes its last chunk. The first 8 KiB, held in the Hasher itself, are
// hashed whole at each read, in one crossing; a read that comes less than
// a chunk after another hands the library the chunks before the last one
// and keeps their chaining values in the Hasher (fold), and reads further
// apart move what is gathered to the buffer once they have hashed 8 KiB of
// it again (reread). Where a read computes the root node in Go (a part of
// a chunk after the chunks), the reads after it, until the input changes,
// take that node (rootKept).
// On the Go path, the first 8 KiB are gathered too (in the keyed modes,
// once the Hasher holds input: a first write past a chunk is hashed at
// once), and hashed in one call at a single Sum, as Sum256 would; a
// Digest, or a Sum after another read (in the keyed modes, any read), of
// more than a chunk hashes the chunks before the last one in a zeebo
// hasher from a pool and keeps their chaining values (fold), as zeebo's
// reads do, so that the reads after it hash the last chunk; a first write
// past them is hashed at once, with hashers on the stack, and only its
// last chunk and what a Sum needs are kept, but for a stream in pieces,
// which goes to zeebo's hasher (inPieces).
type Hasher struct {
	hasherState

	// first is where the Hasher gathers its first firstLen bytes of
	// input, and a stream's groups in the input's first halfUntil bytes
	// (see hasherState): last, after every pointer, and apart, so that
	// clone copies the state without it.
	first [firstLen]byte
}

// hasherState is a Hasher's state but first.
type hasherState struct {
	// What Write's two fast paths read and change, together at the front
	// (in one or two cache lines). gen counts the changes to the heap
	// state, which it is shared with, and ngen is the count as h last left
	// it: a copy by value, or a Hasher restored from one, whose count is
	// behind has seen the state changed under it (mine). gw is g where
	// Write hands the input to it with no other look (setLim); lim, nbuf
	// and buf are described with g below.
	gen  *uint64
	ngen uint64
	gw   *zeebo.Hasher
	lim  int
	nbuf int
	buf  []byte
	flim int // after buf, which the more common of the fast paths reads

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

	// sub is set by SetInputOffset (sub.on): the hasher hashes a subtree
	// (subtree.go).
	sub subState

	// The state on the heap, allocated as the input needs it: g, the Go
	// path's hasher once the input outgrows goGather (or at the second
	// read since Reset of more than a block gathered: spillReread); t, the native
	// path's tree of the input handed to the library (live reports that it
	// is initialized); the input gathered after that, first[:nbuf] until
	// it outgrows first (firstLen bytes), then buf[:nbuf], a buffer of
	// bufSize bytes (grow): in the input's first halfUntil bytes, a
	// stream's groups are gathered in first (room). lim bounds what Write
	// gathers into buf without a look at anything else, and flim what it
	// gathers into first so, after a hand-over (setLim). front and fcv
	// hold, in h, a tree of the
	// few chunks that a first write handed over before h had one
	// (handFront), or that a read folded (fold): its count of chunks, and
	// the chaining values of its stack, fcv[i] for bit i of front. While
	// front is not 0 there is no tree (!live) and some input is gathered
	// (after a fold, up to firstLen bytes of input in all: foldable); lift
	// makes the tree from them at the first need of it. Where what is
	// gathered after handFrontLast's front is its whole last chunk, last
	// holds its chaining value (lastOK).
	// On the Go path, front and fcv hold the chunks before the last one of
	// a first write that took the input past goGather (goFront), with the
	// values of bits 4 and up in first (frontCV), or of what a read folded
	// (fold), and groot the root node of the input, while gnbuf is still
	// nbuf; what is gathered after them is the last chunk, or up to
	// firstLen bytes of input in all, which the next read folds.
	// On the native path, groot is the root node of the input that a read
	// computed in Go (tailSum, tailDigest) while gen and ngen were rgen and
	// rn: the reads after it take it until the input changes (rootKept).
	// On the Go path, Reset takes zeebo's hasher from g, reset, and keeps
	// it aside (spare) for the next write that needs one (writeGo; a read
	// makes one of its own: copies by value share the spare, and only a
	// write counts a change, which leaves the others behind). reused is
	// set by Reset where h has a spare, or had more than a chunk before
	// reuseAfter Resets: until the next Reset, a write past a chunk goes
	// to zeebo's hasher, the spare or a new one kept from then on, rather
	// than be gathered up to goGather and copied again into a pooled
	// hasher at each read, or taken by goFront; up to a chunk it is
	// gathered, as in a new Hasher, whose reads take fewer steps than
	// zeebo's hasher's. reuses counts those Resets, up to reuseAfter. A
	// Clone is a new Hasher: none of the three. Measured by
	// scripts/api-check.sh (BLAKE3_API_CALL=Reset,Write,Sum) and
	// BenchmarkReuses (docs/zeebo-api.md).
	// pieces counts the writes of a chunk or less that Write gathered in
	// first since Reset and since the last longer write, up to
	// streamPieces (countPiece): a stream in pieces (inPieces). A Clone
	// keeps it.
	// wide is set by Reset of a native-path Hasher that has a tree and no
	// buffer (a stream that went to the library from first, or a write
	// long enough to go from where it was): the Hasher, used again,
	// gathers its groups in a buffer of bufSize, allocated at its next
	// need (grow), once for its uses after, rather than hand its streams
	// over in groups of firstLen at each (BenchmarkReuseStream). A Clone
	// is a new Hasher, without it.
	g      *zeebo.Hasher
	spare  *zeebo.Hasher
	reused bool
	reuses uint8
	pieces uint8
	wide   bool
	live   bool
	t      *ffi.Tree
	front  uint64
	fcv    [4][32]byte
	last   [32]byte
	lastOK bool
	groot  guts.Node
	gnbuf  int
	rgen   *uint64
	rn     uint64
	rlast  int // what was gathered at the last read since Reset that hashed it all (reread)
	rwaste int // how much of it the reads since Reset hashed again, as reread counts it

	// tchunks is the count of chunks t held when h last handed it input:
	// the input gathered starts there. A Sum, Digest, Clone or
	// AppendBinary of a stream may since have handed t the whole chunks at
	// the front of what is gathered (absorb), which leaves them gathered
	// too; pending is what t does not hold. summed reports that one of
	// them has seen the input gathered since the last hand-over (absorb
	// waits for the second), read that one has seen h's input since Reset
	// (from the second on, a read keeps the tree ahead: rootOf).
	tchunks uint64
	summed  bool
	read    bool

	// ahead, allocated by the first read after another (since Reset)
	// that needs it, and shared with t by copies by value, is a tree of
	// the input that t holds followed by whole chunks pending (some or
	// all of them), or, where the input read is a power of two of chunks,
	// of its right half (rootOf): reads compute the root from it without
	// hashing those chunks again, and absorb and a hand-over take them
	// from it (fromAhead). It holds part of h's input where its end is
	// past t's; initTree, which starts another input in t, sets its count
	// to 0.
	ahead *ffi.Tree

	// mu is the lock that Sum, Digest, Clone and AppendBinary hold while
	// they may absorb gathered input into the tree and read it, or on the
	// Go path read zeebo's hasher, whose Sum changes it (hold): allocated
	// with the first of t, buf and g, and shared with them by copies by
	// value. After absorb every copy still reads the same input (tchunks),
	// so those four stay reads, which copies may make at once; the lock
	// keeps the state whole for them. It is not in gen's allocation, which
	// a short hash makes too: 8 bytes come from the tiny allocator.
	mu *sync.Mutex
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

// firstLen is the input the Hasher holds itself, in first, before it
// needs a buffer on the heap: a new Hasher that hashes up to this much
// allocates only itself and its gen count, or only the count where it
// stays on the stack, and a longer first write keeps its last piece of up
// to this much (keep), the pieces it hands over being wide enough for the
// library's SIMD; a stream in small pieces goes to the library from it, 8
// chunks at a time, up to halfUntil (room). 8 KiB, as zeebo's hasher holds:
// with 4 KiB, a stream of 4 to 8 KiB on the caller's stack allocated a
// buffer where zeebo's allocates nothing, and read well below its speed.
// The cost is the short hashes through hash.Hash and Clone, mostly the
// allocation of the Hasher, which is still smaller than zeebo's: they lost
// most of their lead over zeebo's (scripts/api-check.sh, "stack: 64B
// pieces,Sum", "New,Write,Sum", "Clone,Sum"; docs/zeebo-api.md, "The
// Hasher holds 8 KiB"). first is the struct's last field, after every
// pointer, which the collector then scans without it.
const firstLen = 8 << 10

// goGather is the input a Go-path Hasher in mode, written to before
// (written) or not, gathers before it allocates zeebo's hasher (10 KiB) or
// hashes it at once (goFront): what first holds, which a read then hashes
// in one call (Sum256, or in the keyed modes a fold: one pass of zeebo's
// hasher from the pool; where zeebo's layout is not known, the read moves
// it to zeebo's hasher: readGo). A first write of more than a chunk to a
// Hasher in a keyed mode goes to goFront, which hashes it from where it is
// rather than copy it first, as the keyed modes' Sum of a chunk or less
// takes the one-chunk code (BenchmarkNewSum). A keyed stream gathered only
// a chunk before: goFront then hashed its first chunk alone, and its folds
// and zeebo's hasher a chunk or a few at a time after it, where zeebo
// hashes 8 side by side (0.59 to 0.80 of zeebo's speed from 3 to 8 KiB in
// 64-byte pieces; BLAKE3_API_CALL="keyed 64B pieces",
// scripts/api-check.sh; docs/zeebo-api.md).
func goGather(mode uint32, written bool) int {
	if mode == modeHash || written {
		return firstLen
	}
	return chunkLen
}

// start puts h on the native path if the library is loaded, else on the Go
// path, the first time it is needed. Like mine, it panics if h's heap
// state was changed by a copy by value of it.
func (h *Hasher) start() {
	if h.path == pathUnset || h.gen != nil && *h.gen != h.ngen {
		h.begin()
	}
}

// begin is start but for its usual case, a Hasher on its path with its
// state its own: apart, so that that case is inlined into start's callers
// (a Digest of 64 bytes read again, BenchmarkSumAgain). New, NewKeyed and
// NewDeriveKey, whose Hasher is new, call it themselves: start inlined
// would put them over the inliner's budget, and their Hasher on the heap
// (TestAllocationsNewHasher).
func (h *Hasher) begin() {
	h.mine()
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
	if h.mode == modeDeriveKey && !h.hasCtxKey && ffi.ZeeboOK() {
		// The context key once, as the native path and zeebo's
		// NewDeriveKey compute it, where zeebo's hasher can then be made
		// with it (goHasher): from the context at each read, a reused
		// derive-key Hasher's Sum of 64 bytes took nearly four times
		// zeebo's time (BenchmarkReuseSum, docs/zeebo-api.md).
		h.key, h.hasCtxKey = cvBytes(goContextKey(h.context)), true
	}
	if h.sub.on {
		h.sub.startGo(h)
	}
	h.setLim()
}

// mine panics if h's heap state was changed by another Hasher since h last
// changed it: h and that Hasher are copies by value of one another.
func (h *Hasher) mine() {
	if h.gen != nil && *h.gen != h.ngen {
		panic("blake3: Hasher used after a copy by value of it, or the Hasher it was copied from, was written to; copy a Hasher with Clone")
	}
}

// touch records a change to h's heap state (see gen). The count only
// grows, so a copy whose count is behind stays behind.
func (h *Hasher) touch() {
	if h.gen != nil {
		*h.gen++
		h.ngen = *h.gen
	}
}

// share gives h a count of changes for the heap state it is about to have,
// when it has none yet.
func (h *Hasher) share() {
	if h.gen == nil {
		h.gen, h.ngen = new(uint64), 0
	}
}

// Write implements part of the hash.Hash interface. It never returns an
// error, except on a hasher given an input offset by SetInputOffset, which
// rejects input beyond the largest subtree its offset allows, and for input
// past 2^64-1 bytes, the most BLAKE3 hashes, which only a hasher resumed
// by UnmarshalBinary can come near (ErrSubtreeTooLarge, nothing written).
func (h *Hasher) Write(p []byte) (int, error) {
	if g := h.gw; g != nil && *h.gen == h.ngen {
		// A stream on the Go path once zeebo's hasher has it: what write
		// would come to (writeGo's last case), without its looks, which
		// took about a quarter of the CPU profile of a stream in 64-byte
		// pieces (BenchmarkStream, impl=go).
		*h.gen++
		h.ngen++
		return g.Write(p)
	}
	if h.nbuf+len(p) < h.lim && *h.gen == h.ngen {
		// The common case of a stream in small pieces: only gather (lim
		// is 0 until h has a buffer, and gen with it).
		h.nbuf += copy(h.buf[h.nbuf:], p)
		*h.gen++
		h.ngen = *h.gen
		return len(p), nil
	}
	if h.nbuf+len(p) < h.flim && *h.gen == h.ngen {
		// The same for first, where a stream gathers its groups in the
		// input's first halfUntil bytes, and where a group past them
		// starts (flim is 0 without a tree, and with a buffer).
		h.nbuf += copy(h.first[h.nbuf:], p)
		*h.gen++
		h.ngen = *h.gen
		return len(p), nil
	}
	if h.buf == nil && h.g == nil && !h.sub.on && !h.far && (h.nbuf+len(p) <= chunkLen || h.front != 0 && h.foldable(len(p)) || h.front == 0 && !h.live && h.nbuf+len(p) <= h.firstMax()) {
		// The first chunk, in the Hasher itself (either path), or after
		// the chunks of front, up to what it holds (foldable), or up to
		// what the Hasher's path gathers in it before it hands anything
		// over (firstMax): here, not in write, whose frame a reused
		// Hasher's Reset, Write and Sum of a block or less paid for
		// (BenchmarkReuseSum), and whose tests each 64-byte piece of a
		// stream paid for from 1 to 4 KiB (scripts/api-check.sh, 64B
		// pieces).
		h.share()
		h.mine()
		h.touch()
		h.nbuf += copy(h.first[h.nbuf:], p)
		h.countPiece(len(p))
		return len(p), nil
	}
	return h.write(p)
}

// firstMax is what h gathers in first, on its path, before write hands
// anything over: firstLen bytes on the native path (keep), goGather on the
// Go path (writeGo), none before h has a path.
func (h *Hasher) firstMax() int {
	switch h.path {
	case pathNative:
		return firstLen
	case pathGo:
		if h.reused {
			return chunkLen
		}
		return goGather(h.mode, h.nbuf > 0)
	}
	return 0
}

// WriteString is like Write but for strings, without a copy of s: it
// hashes s's bytes where they are, as Write hashes a slice.
func (h *Hasher) WriteString(s string) (int, error) {
	return h.Write(ffi.StringBytes(s))
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
	if h.path == pathGo && h.g != nil {
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

// write is Write but for its cases above: a stream's small pieces, and the
// first chunk.
func (h *Hasher) write(p []byte) (int, error) {
	if h.sub.on {
		if err := h.sub.accept(len(p)); err != nil {
			// The write counts no change: at offset 0 a root kept is
			// still the input's (the refusal is not sticky there), and
			// at any other offset no root is kept (no Sum gives one).
			return 0, err
		}
	}
	h.start()
	if !h.sub.on {
		if err := h.fits(len(p)); err != nil {
			return 0, err
		}
	}
	h.touch()
	if h.path == pathGo {
		return h.writeGo(p)
	}
	h.lift()
	n, fresh := len(p), !h.live
	for {
		room := h.room()
		if h.nbuf == 0 {
			// Nothing to gather: the whole group, straight from p.
			room = alignedRoom(h.groupAt(), bufSize)
		}
		if h.nbuf+len(p) <= room {
			h.keep(p, fresh)
			return n, nil
		}
		// Fill the buffer to the end of its group and hand it over, or
		// hand the group over from p when nothing is gathered.
		if h.nbuf == 0 {
			h.update(p[:room])
			p = p[room:]
		} else {
			h.grow(room)
			b := h.store()
			k := copy(b[h.nbuf:room], p)
			h.update(b[h.absorbed():room])
			p = p[k:]
		}
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
	h.keep(p[whole:], fresh)
	return n, nil
}

// keep gathers p, the end of a write on the native path, which fits in the
// buffer's group. In a write to a Hasher that has handed nothing over yet
// (fresh), with nothing gathered and no buffer on the heap, it hands over
// the front of a p that first cannot hold and keeps the rest, rather than
// allocate the buffer: one Write of up to 16 KiB to a new Hasher then
// allocates no buffer (BenchmarkNewSum). Where h keeps the tree of that
// front in itself, the front is every whole chunk of p, in one pass of the
// library, but the last chunk of a p that ends on a chunk's end, which is
// kept with its chaining value, computed in the same pass (handFrontLast),
// so that a Sum or Digest right after hashes no chunk again; elsewhere it
// is the whole groups of firstLen bytes, wide enough for the library's
// SIMD. Later writes gather into first, then the buffer, so that a stream
// is handed over in groups of bufSize bytes (of firstLen in first: room).
func (h *Hasher) keep(p []byte, fresh bool) {
	if h.handsFront(len(p), fresh) {
		switch k := len(p) / chunkLen * chunkLen; {
		case !h.frontHeld(len(p)):
			k = (len(p) - 1) / len(h.first) * len(h.first)
			h.handFront(p[:k])
			p = p[k:]
		case k == len(p):
			h.handFrontLast(p)
			p = p[k-chunkLen:]
		default:
			h.handFront(p[:k])
			p = p[k:]
		}
	}
	h.gather(p)
}

// frontHeld reports whether h keeps in itself the tree of the whole chunks
// at the front of n bytes, all of them but a last chunk (handFront).
func (h *Hasher) frontHeld(n int) bool {
	return ffi.ArgsStay && h.t == nil && !h.sub.on && (n-1)/chunkLen < 1<<len(h.fcv)
}

// handFront hands p, the whole chunks at the front of a first write, to
// the library (keep). A Hasher that has no tree yet keeps the one p makes
// in itself (front, fcv) rather than allocate it (2 KiB), where a tree on
// the stack stays there (ffi.ArgsStay: on Linux): a new Hasher that hashes
// one write of up to 16 KiB then allocates nothing but its count of
// changes (BenchmarkNewSum). Elsewhere it would allocate a tree at each
// use instead of once, and the Hasher makes its own.
func (h *Hasher) handFront(p []byte) {
	if !h.frontHeld(len(p) + 1) {
		h.update(p)
		return
	}
	var t ffi.Tree
	must(lib.TreeInit(&t, h.mode, h.modeKey(), 0))
	must(lib.TreeUpdate(&t, p, false))
	h.holdFront(&t, false)
}

// handFrontLast hands p, a first write of whole chunks that h can hold the
// tree of (frontHeld), to the library in one pass: all of it but its last
// chunk, which keep gathers, and whose chaining value h holds (last) for a
// Sum or Digest of it (lastChildren).
func (h *Hasher) handFrontLast(p []byte) {
	var t ffi.Tree
	must(lib.TreeInit(&t, h.mode, h.modeKey(), 0))
	must(lib.TreeUpdateLast(&t, p, &h.last))
	h.holdFront(&t, true)
}

// holdFront keeps t, a tree of fewer than 16 chunks on the caller's stack,
// in h (front, fcv), with whether h.last is the value of the chunk gathered
// next.
func (h *Hasher) holdFront(t *ffi.Tree, last bool) {
	h.touch()
	h.front = t.Chunks
	h.fcv = [4][32]byte(t.Stack[:4])
	h.lastOK = last
}

// lastChildren returns the chaining values of the root's children of h's
// input, where it is the tree h holds (front) and then a whole chunk whose
// value h holds too (lastOK, set by handFrontLast, whose front of 4 chunks
// or more never gathers more than that chunk: foldable; a fold clears
// lastOK): the front's largest subtree, and the rest of it merged with the
// last chunk, as the library's tree_root would give them from the chunk
// itself.
func (h *Hasher) lastChildren() (left, right [32]byte) {
	top := bits.Len64(h.front) - 1
	right = h.last
	for i := range top {
		if h.front&(1<<i) != 0 {
			cv := right
			must(lib.MergeNonRoot(&h.fcv[i], &cv, h.mode, h.modeKey(), &right))
		}
	}
	return h.fcv[top], right
}

// lastHeld reports whether h's input is its front and the chunk whose value
// h holds (lastChildren).
func (h *Hasher) lastHeld() bool {
	return h.front != 0 && h.lastOK && h.nbuf == chunkLen
}

// lift makes h's tree from the one a first write (handFront) or a read
// (fold) left in h, if any, folding first what is gathered past a chunk.
// write and WriteString lift before they hand anything over or look at
// the buffer's group (room), and ReadFrom before it counts the input
// (inputLen). Until then h only gathers, within first (write's first
// path: a chunk at most after handFront's front, up to firstLen bytes of
// input in all after a fold), and Sum, Digest and AppendBinary read front
// as it is, but for a fold of more than a chunk gathered after it.
func (h *Hasher) lift() {
	if h.front == 0 {
		return
	}
	if h.nbuf > chunkLen {
		h.foldNative() // what is gathered after front, up to the tree's smallest subtree
	}
	h.initTree(0)
	h.frontInto(h.t)
	h.front, h.lastOK, h.tchunks = 0, false, h.t.Chunks
}

// frontInto adds to t, an empty tree, the tree h holds in itself (front).
func (h *Hasher) frontInto(t *ffi.Tree) {
	t.Chunks = h.front
	copy(t.Stack[:], h.fcv[:])
}

// frontTree initializes t as the tree of h, which has none on the heap
// (!live): the one h holds in itself (front), or an empty one, for a
// finalization that leaves h as it is. Its callers' t is on their stack
// where memory passed to the library stays there (ffi.ArgsStay); elsewhere
// it is pooled (treeRoot), used only where memory stays (Sum: a front),
// or allocated (a subtree's FinalizeNonRoot).
func (h *Hasher) frontTree(t *ffi.Tree) {
	must(lib.TreeInit(t, h.mode, h.modeKey(), h.sub.offset))
	h.frontInto(t)
}

// handsFront reports whether keep hands over the front of an end of n
// bytes of a write (fresh: to a Hasher that had handed nothing over), rather
// than gather all of it.
func (h *Hasher) handsFront(n int, fresh bool) bool {
	return fresh && h.buf == nil && h.nbuf == 0 && n > len(h.first)
}

// writeGo is write on the Go path: the first goGather bytes are gathered;
// a first write past them that does not continue a stream in pieces
// (inPieces) is hashed at once (goFront), after which writes
// within its last chunk are gathered (write's first case, which after a
// fold gathers up to firstLen bytes of input in all: foldable); from there
// on (or at a read that readGo picks) the input goes to zeebo's hasher (or,
// for a subtree hasher, to the Go-path tree). A reused Hasher gathers a
// chunk, and hands a write past it to zeebo's hasher (spare).
func (h *Hasher) writeGo(p []byte) (int, error) {
	switch {
	case h.sub.t != nil:
		h.sub.t.write(p)
		return len(p), nil
	case h.g == nil && h.front == 0 && h.nbuf+len(p) <= h.firstMax(),
		h.g == nil && h.front != 0 && h.nbuf+len(p) <= chunkLen:
		h.gather(p)
		return len(p), nil
	case h.g == nil && h.front == 0 && !h.reused && !h.inPieces(len(p)) && h.goFront(p):
		return len(p), nil
	}
	h.spillGo(true)
	return h.g.Write(p)
}

// streamPieces is how many writes gathered in a Hasher make it a stream in
// pieces (inPieces).
const streamPieces = 3

// countPiece counts a write of n bytes that Write gathered (pieces): one
// longer than a chunk (a body, not a piece) starts the count again, and
// an empty one is not counted.
func (h *Hasher) countPiece(n int) {
	switch {
	case n > chunkLen:
		h.pieces = 0
	case n > 0:
		h.pieces = min(h.pieces+1, streamPieces)
	}
}

// inPieces reports that a write of n bytes past goGather (the 8 chunks
// first holds, after a write) continues a stream in pieces: streamPieces
// writes or more gathered (countPiece), and this one no longer than a
// chunk. Its input then goes to zeebo's hasher at once, rather than
// through goFront, which hashes those chunks, after which the stream's
// next chunk moves it to zeebo's hasher (allocated) all the same
// (BLAKE3_API_CALL="64B pieces", scripts/api-check.sh). What it costs, a
// stream that ends within that next chunk, is the allocation. Measured
// again with first of 8 KiB, goFront for streams too gained at 8 KiB and a
// piece and lost from 16 to 64 KiB (docs/zeebo-api.md). A write longer
// than a chunk goFront hashes from where it is, and a write and a trailer
// keep goFront's.
func (h *Hasher) inPieces(n int) bool {
	return h.pieces >= streamPieces && n <= chunkLen
}

// treeGroups hashes a and then b, whole groups in all, from the start of an
// input in key's mode (flags), in a goTree on its own stack (18 KiB, not on
// Write's), and returns their count of chunks and the chaining values of
// their subtrees, in stack (stack[i] for bit i of the count). Each group is
// copied into the tree's buffer and hashed there, as in treeSum512.
//
//go:noinline
func treeGroups(key *[8]uint32, flags uint32, a, b []byte, stack [][8]uint32) uint64 {
	var t goTree
	t.init(*key, flags, 0)
	for _, p := range [2][]byte{a, b} {
		for len(p) > 0 {
			k := copy(t.buf[t.n:], p)
			t.n += k
			p = p[k:]
			if t.n == groupLen {
				t.hash(t.buf[:])
				t.n = 0
			}
		}
	}
	copy(stack, t.stack[:])
	return t.chunks
}

// goFront hashes what is gathered and then p, a first write past
// goGather, without allocating a hasher, and keeps in h what Sum, Digest and a
// later write need: the chunks before the last (front, and the chaining
// values of their subtrees: frontCV), the last chunk (gathered), and the
// root node (groot). It reports whether it did. Where bigByTree found
// lukechampine's 16 chunks side by side faster than zeebo's 8, the whole
// groups before the input's last byte are hashed in a goTree
// (treeGroups); the rest, or all, in a zeebo hasher (ffi.ZeeboFront): the
// tree compresses a part of a group in as many passes of 16 chunks as it
// has subtrees. Without goFront, such a write through a new Hasher that
// stays on the caller's stack would allocate zeebo's hasher (10 KiB)
// there, where zeebo's own hasher stays on the stack too, and most of the
// difference is the collector's work (BenchmarkNewSum, docs/stream.md).
func (h *Hasher) goFront(p []byte) bool {
	// The last chunk is the end of p: what is gathered, at most goGather,
	// is before it.
	n := h.nbuf + len(p)
	last := (n-1)%chunkLen + 1
	if !zeeboRoots || last > len(p) || h.buf != nil || !ffi.ZeeboOK() || !ffi.ZeeboDigestOK() {
		return false // ZeeboFront would refuse it, after treeGroups
	}
	key, flags := h.goModeKey()
	// Up to a group, the chaining values of at most 15 chunks: 4. The
	// stack of 64 (2 KiB of the frame either way) is zeroed only past a
	// group: zeroed for every input, it cost 2 to 3% at 8 and 16 KiB
	// (BenchmarkNewSum, impl=go).
	var small [4][8]uint32
	stack := small[:]
	var chunks uint64
	a, b := h.pending(), p
	if n > groupLen {
		stack = make([][8]uint32, 64)
		if bigByTree.Load() {
			groups := (n - 1) / groupLen * groupLen
			chunks = treeGroups(&key, flags, a, b[:groups-len(a)], stack)
			a, b = nil, b[groups-len(a):]
		}
	}
	chunks, root, ok := ffi.ZeeboFront(&key, flags, chunks, stack, a, b)
	if !ok {
		return false
	}
	h.share()
	copy(h.first[:], p[len(p)-last:])
	h.front, h.nbuf, h.groot, h.gnbuf = chunks, last, root, last
	for rest := chunks; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros64(rest)
		*h.frontCV(i) = cvBytes(stack[i])
	}
	h.setLim()
	return true
}

// frontCV is the chaining value of the subtree of bit i of front: in fcv for
// bits 0 to 3, and for those above them, which only goFront sets, in first
// after the last chunk, which is all that h gathers while such a front is
// there (writeGo; foldable, which gathers more, keeps front below 4
// chunks). first holds the 60 of them: the constant below fails to compile
// where it cannot.
func (h *Hasher) frontCV(i int) *[32]byte { return h.frontStack().at(i) }

const _ = uint(firstLen - chunkLen - (64-len(Hasher{}.fcv))*32)

// frontStack is the chaining values of the subtrees of h's front, where
// frontCV has them.
func (h *Hasher) frontStack() cvStack { return cvStack{h.fcv[:], h.first[chunkLen:]} }

// spillGo gives a Go-path hasher zeebo's hasher, with the input gathered
// so far, and the chunks goFront hashed before it: the spare that Reset
// kept where spare is set (a write; see Hasher.spare), else a new one.
func (h *Hasher) spillGo(spare bool) {
	if h.g != nil {
		return
	}
	h.share()
	if h.front != 0 {
		key, flags := h.goModeKey()
		s := ffi.ZeeboState{Key: key, Flags: flags, Chunks: h.front, Tail: h.pending()}
		for rest := h.front; rest != 0; rest &= rest - 1 {
			i := bits.TrailingZeros64(rest)
			s.Stack[i] = cvWords(h.frontCV(i))
		}
		h.g, h.front = ffi.ZeeboImport(&s), 0
	} else {
		if spare && h.spare != nil {
			h.g, h.spare = h.spare, nil
		} else {
			h.g = h.goHasher()
		}
		_, _ = h.g.Write(h.pending())
	}
	h.lockable()
	h.nbuf = 0
	h.setLim()
}

// gather appends p, which fits in the buffer's group (room), or on the Go
// path in goGather, to the input gathered.
func (h *Hasher) gather(p []byte) {
	h.share()
	h.grow(h.nbuf + len(p))
	h.nbuf += copy(h.store()[h.nbuf:], p)
	h.setLim()
}

// grow makes h hold at least n bytes of input (n <= bufSize), keeping what
// it holds: in first up to firstLen bytes, then in buf, bufSize bytes.
func (h *Hasher) grow(n int) {
	if n <= len(h.store()) {
		return
	}
	b := make([]byte, bufSize)
	copy(b, h.first[:h.nbuf])
	h.buf, h.flim = b, 0
	h.lockable()
}

// halfUntil is where in the input a stream in small pieces stops going to
// the library from first, in groups of 8 chunks, which it hashes in a
// pass 8 wide (where AVX-512 would take 16 in one), and gathers its groups
// of bufSize in a buffer: far enough that the buffer's allocation is a
// small part of the stream's time (zeebo's hasher, holding 8 KiB in
// itself, allocates nothing on the caller's stack), and near enough that
// the groups of 8 chunks, which cross twice as often, cost little. At
// bufSize, the streams just past it lost to the allocation; with no
// buffer of bufSize at all, the long ones lost to the groups of 8 chunks
// (scripts/api-check.sh with more sizes; docs/zeebo-api.md, "Where the
// buffer of 16 KiB takes over", measured with a first buffer of 8 KiB on
// the heap, which first now is).
const halfUntil = 4 * bufSize

// store is where h gathers input: first, until it outgrows it, then buf.
func (h *Hasher) store() []byte {
	if h.buf == nil {
		return h.first[:]
	}
	return h.buf
}

// room is how much input the buffer gathers before it is handed over:
// bufSize bytes, in groups aligned in the whole input, so that each is one
// subtree for the library. After a position that is not a multiple of
// bufSize (the first group of a subtree hasher, or of a hasher resumed from
// a saved state), as many bytes as the largest subtree that may start
// there: the input after the tree must be one subtree, no longer than the
// smallest one in it. In the input's first halfUntil bytes, where h has no
// buffer (and is not wide), first holds groups of up to firstLen; write
// hands a group over from p, where nothing is gathered, whole.
func (h *Hasher) room() int {
	at := h.groupAt()
	r := alignedRoom(at, bufSize)
	if at < halfUntil && !h.wide {
		r = min(r, len(h.store()))
	}
	return r
}

// groupAt is where in the input the group that h gathers starts: after
// what the tree holds, as of the last hand-over.
func (h *Hasher) groupAt() uint64 {
	if h.live {
		return h.t.Offset + h.tchunks*chunkLen
	}
	return h.sub.offset
}

// alignedRoom is the length of the aligned group that starts at input byte
// at: group, or the largest power of two that divides at if smaller.
func alignedRoom(at uint64, group int) int {
	if at == 0 {
		return group
	}
	return int(min(at&-at, uint64(group)))
}

// setLim sets gw, zeebo's hasher where Write hands it the input without
// another look: on the Go path, once h has one, but for a subtree hasher
// (whose writes are counted) and one resumed near 2^64 bytes (fits). And
// it sets what Write may gather into buf without a look at anything
// else: the room of the buffer's group on the native path; none for a
// subtree hasher (whose writes are counted), nor on the Go path, which
// gathers no more than first holds. lim is one more than that, and 0
// without a buffer or for a subtree hasher, so that Write's test fails
// for every write there, the empty one included. flim is the same for
// first, once h has handed input over to its tree on the heap (live; the
// Write after that is a stream's) and has no buffer, within first (past
// halfUntil the group outgrows it, and grow makes the buffer); 0 without
// that.
func (h *Hasher) setLim() {
	h.lim, h.flim, h.gw = 0, 0, nil
	l := 0
	switch {
	case h.sub.on:
		return // every write is counted, the empty one too (a sticky error)
	case h.path == pathGo && h.g != nil && !h.far:
		h.gw = h.g
	case h.path == pathNative:
		l = h.room()
		// Nothing past 2^64-1 bytes without a look (fits).
		if at := h.inputLen() - uint64(h.nbuf); h.far && uint64(l) > math.MaxUint64-at {
			l = int(math.MaxUint64 - at)
		}
	}
	switch {
	case len(h.buf) > 0:
		h.lim = min(l, len(h.buf)) + 1
	case l > 0 && h.live && h.gen != nil: // live: no front
		h.flim = min(l, len(h.first)) + 1
	}
}

// update hands p, whole chunks, to the library, initializing the tree
// first if needed; the chunks at its front that a read has hashed into the
// tree ahead (rootOf) come from there, as when a Sum follows each piece of
// a stream.
func (h *Hasher) update(p []byte) {
	h.touch()
	if !h.live {
		h.initTree(h.sub.offset)
	}
	if p = p[h.fromAhead(len(p)):]; len(p) > 0 {
		must(lib.TreeUpdate(h.t, p, !h.sub.single && parallel(len(p))))
	}
	h.nbuf, h.tchunks, h.summed = 0, h.t.Chunks, false
}

// initTree makes h's tree, allocated at the first need, an empty one at
// input offset off.
func (h *Hasher) initTree(off uint64) {
	if h.t == nil {
		h.share()
		h.t = new(ffi.Tree)
		h.lockable()
	}
	must(lib.TreeInit(h.t, h.mode, h.modeKey(), off))
	h.live, h.tchunks = true, 0
	if h.ahead != nil {
		h.ahead.Offset, h.ahead.Chunks = 0, 0
	}
}

// modeKey is h's key as the library takes it: nil for plain hashing.
func (h *Hasher) modeKey() *[32]byte {
	if h.mode == modeHash {
		return nil
	}
	return &h.key
}

// pending is the input gathered and not yet handed to the library.
func (h *Hasher) pending() []byte { return h.store()[h.absorbed():h.nbuf] }

// absorbed is how many bytes at the front of the input gathered the tree
// holds (absorb).
func (h *Hasher) absorbed() int {
	if !h.live {
		return 0
	}
	return int(h.t.Chunks-h.tchunks) * chunkLen
}

// hold takes the lock of h's heap state for a read of it (Sum, Digest,
// Clone, AppendBinary), which then absorbs; it returns the lock to
// release, or nil where the read changes nothing that copies by value
// share. On the native path that is where h has a tree or a buffer on the
// heap; on the Go path, where it has zeebo's hasher, whose Sum and Digest
// hand its whole chunks over (as absorb does) in the hasher that copies
// share.
func (h *Hasher) hold() *sync.Mutex {
	switch {
	case h.path == pathNative && (h.buf != nil || h.live):
	case h.path == pathGo && h.g != nil:
	default:
		return nil
	}
	h.mine()
	h.mu.Lock()
	return h.mu
}

// lockable gives h the lock of its heap state (mu), when it has none yet:
// where it allocates its tree, buffer or zeebo's hasher.
func (h *Hasher) lockable() {
	if h.mu == nil {
		h.mu = new(sync.Mutex)
	}
}

// absorb hands the tree the front of the input gathered (absorbLen),
// which stays gathered as well, so that the next read hashes a chunk or an
// aligned group at most where it would hash up to bufSize bytes again: as
// zeebo's Sum does, for a caller that takes a Sum after each piece of a
// stream, or several Digests of one input (BenchmarkSumEachWrite). It
// waits for the second read since the last hand-over: a single Sum hashes
// all that is gathered in one call, its widest SIMD, where handing the
// front over first would cut it in narrower pieces. What it changes (the
// tree, and h.live where the first chunks gathered make the tree) every
// copy by value of h reads as the same input, from its own tchunks and
// nbuf; and a copy that goes on takes its next read for a second one if
// another has absorbed, since what it gathered may have grown past the
// tail the tree takes.
//
// It reports whether a read came before this one since Reset (reread),
// which then keeps a tree ahead for the reads and the hand-over after it
// (rootOf).
func (h *Hasher) absorb() (reread bool) {
	if h.path != pathNative || h.sub.on || h.front != 0 {
		return false
	}
	// The first read absorbs nothing, but where a copy by value has
	// absorbed since the last hand-over: what is pending after that may
	// have grown past what the tree takes as a tail.
	first := !h.summed && h.absorbed() == 0
	moved := h.summed && !h.read // by rereadNative, at this read
	reread = h.read || !first
	h.summed, h.read = true, true
	if first {
		return reread
	}
	var at uint64 // chunks before the input pending (a tree's offset is 0 here)
	if h.live {
		at = h.t.Chunks
	}
	p := h.pending()
	k := absorbLen(at, len(p))
	if k == 0 && moved && len(p) > chunkLen {
		// 2 or 4 whole chunks, all the input, which absorbLen leaves as
		// one group: half of them, so that the reads after this one find
		// the other half in the tree ahead (rootOf), where each would
		// hash all of them again, as zeebo's do, and a little slower.
		// Only at the move, which waits for that (rereadNative): handed
		// over at every second read, a reused Hasher whose input of 4 KiB
		// is read twice fell from ahead of zeebo's to behind it, paying
		// for the tree ahead (a scratch benchmark; docs/zeebo-api.md,
		// "Read again at 2 and 4 KiB").
		k = len(p) / 2
	}
	if k == 0 {
		return true
	}
	if !h.live {
		h.initTree(0)
	}
	if p = p[h.fromAhead(k):k]; len(p) > 0 {
		must(lib.TreeUpdate(h.t, p, false))
	}
	return true
}

// rootOf is what a read of a live tree computes the root of its input
// from (Sum, Digest): the tree t, and the tail after it; or, where left
// is not nil, the parent of left and right. That is t and the input
// pending; but where what is pending is whole chunks, the tree ahead,
// which holds them too: with no tail where the tree they end has two
// subtrees or more (the library takes no empty tail after one), and
// otherwise the right half of the input, whose chaining value is the
// root's right child (the left one is t's largest subtree). A read after
// another since Reset (reread) makes it by hashing the chunks pending into
// a copy of t, or only those after the ones it holds already; the reads
// after it, until more input comes, find them there, and absorb and the
// next hand-over take them from there (fromAhead): repeated Digests of one
// input hash no chunk again, and a Sum after each piece of a stream hashes
// each whole chunk once (BenchmarkDigestAgain, BenchmarkSumEachWrite). The
// first read hashes what is pending as t's tail, in one call, as a single
// Sum does, and allocates nothing.
func (h *Hasher) rootOf(reread bool) (t *ffi.Tree, tail []byte, left, right *[32]byte) {
	p := h.pending()
	g := uint64(len(p) / chunkLen)
	end := h.t.Chunks + g
	half := uint64(0) // where ahead starts: the right half of a single subtree
	if bits.OnesCount64(end) == 1 {
		half = end / 2
	}
	switch {
	case len(p) == 0 || len(p)%chunkLen != 0 || end < 2 || h.t.Chunks < half:
		return h.t, p, nil, nil
	case h.aheadHolds(end, half):
	case !reread:
		return h.t, p, nil, nil
	default:
		if h.ahead == nil {
			h.ahead = new(ffi.Tree)
		}
		from := h.t.Chunks // the first chunk to hash into ahead
		if a := h.ahead; half == 0 && a.Offset == 0 && a.Chunks > from && a.Chunks < end {
			from = a.Chunks // it holds the front of what is pending
		} else {
			copyTree(h.ahead, h.t)
			h.ahead.Offset, h.ahead.Chunks = half*chunkLen, h.t.Chunks-half
		}
		must(lib.TreeUpdate(h.ahead, p[(from-h.t.Chunks)*chunkLen:], false))
	}
	if half == 0 {
		return h.ahead, nil, nil, nil
	}
	k := bits.Len64(half) - 1
	return nil, nil, &h.t.Stack[k], &h.ahead.Stack[k]
}

// aheadHolds reports whether the tree ahead holds the input from chunk
// from to chunk end.
func (h *Hasher) aheadHolds(end, from uint64) bool {
	return h.ahead != nil && h.ahead.Offset == from*chunkLen && from+h.ahead.Chunks == end
}

// fromAhead makes t the tree ahead where that holds t's input and the
// front of the n bytes of whole chunks that follow (from the input's
// start), and returns how many of them it took: 0 where it holds none of
// them, or more.
func (h *Hasher) fromAhead(n int) int {
	a := h.ahead
	if a == nil || a.Offset != 0 || a.Chunks <= h.t.Chunks || a.Chunks > h.t.Chunks+uint64(n/chunkLen) {
		return 0
	}
	k := int(a.Chunks-h.t.Chunks) * chunkLen
	copyTree(h.t, a)
	return k
}

// copyTree sets dst to src: its header and the entries of its stack that
// its count of chunks uses, the only ones the library reads.
func copyTree(dst, src *ffi.Tree) {
	n := bits.Len64(src.Chunks)
	dst.Magic, dst.Mode, dst.Reserved, dst.Key = src.Magic, src.Mode, src.Reserved, src.Key
	dst.Offset, dst.Chunks = src.Offset, src.Chunks
	copy(dst.Stack[:n], src.Stack[:n])
}

// absorbLen is how much of n bytes pending after at chunks absorb hands
// over: the whole chunks but a last part of a chunk; or, where the input
// pending ends at a chunk's end, all but its last aligned group of up to
// absorbGroup chunks (the largest power of two that divides where it
// ends, and fits), which the library hashes side by side at a Sum, where a
// last whole chunk alone is hashed one block after the other (4 KiB
// pieces, BenchmarkSumEachWrite). What stays is never more than the
// smallest subtree before it, and never nothing.
func absorbLen(at uint64, n int) int {
	if n%chunkLen != 0 || n == 0 {
		return n / chunkLen * chunkLen
	}
	chunks := uint64(n / chunkLen)
	end := at + chunks
	group := min(end&-end, 1<<(bits.Len64(chunks)-1), absorbGroup)
	return n - int(group)*chunkLen
}

// absorbGroup is the most whole chunks absorb leaves: as many as the
// narrowest SIMD the library has hashes side by side (SSE4.1, NEON), so
// that a Sum hashes them in one pass. A group as wide as AVX2 (8) made a
// Sum after each 4 KiB piece a little faster on such a host, and repeated
// Digests of a stream much slower (BenchmarkSumEachWrite; the figures are
// in docs/stream.md), before the tree ahead, which now keeps the group
// hashed for the reads after the one that leaves it (rootOf); the choice
// has not been measured again since.
const absorbGroup = 4

// reuseAfter is how many Resets of a Go-path Hasher that had more than a
// chunk make it reused (Hasher.reused), where it has no spare: its next
// write past a chunk then allocates zeebo's hasher (10.8 KiB), which
// saves a copy of the input at each use after it. Fewer uses than about
// this many did not pay for the allocation (BenchmarkReuses,
// docs/zeebo-api.md).
var reuseAfter uint8 = 64

// Reset implements part of the hash.Hash interface. It causes the Hasher to
// act as if it was newly created. A copy by value that may no longer be
// used (see Hasher) lets go of the state it shared, and may be used again.
func (h *Hasher) Reset() {
	if h.gen != nil && *h.gen != h.ngen {
		// The state is another Hasher's now.
		h.g, h.spare, h.t, h.ahead, h.buf, h.gen, h.ngen, h.mu = nil, nil, nil, nil, nil, nil, 0, nil
	}
	h.touch()
	if h.reuses < reuseAfter && h.path == pathGo && (h.g != nil || h.nbuf > chunkLen || h.front != 0) {
		h.reuses++
	}
	if h.g != nil {
		h.g.Reset()
		h.g, h.spare = nil, h.g
	}
	if h.buf == nil && h.live && h.path == pathNative {
		// Used again, after a stream that went to the library from
		// first: its next one gathers in a buffer of bufSize.
		h.wide = true
	}
	h.reused = h.spare != nil || h.reuses == reuseAfter
	h.live, h.nbuf, h.far, h.front, h.lastOK, h.summed, h.read = false, 0, false, 0, false, false, false
	h.rlast, h.rwaste, h.pieces = 0, 0, 0
	h.sub = subState{}
	if h.buf == nil && h.g == nil {
		// What setLim sets then, without its tests: a reused Hasher's
		// Reset, Write and Sum of 64 bytes (BenchmarkReuseSum).
		h.lim, h.flim, h.gw = 0, 0, nil
		return
	}
	h.setLim()
}

// Clone returns a new Hasher with the same internal state.
//
// Modifying the resulting Hasher will not modify the original Hasher, and
// vice versa.
func (h *Hasher) Clone() *Hasher {
	// A clone that its caller does not keep stays on the caller's stack, as
	// zeebo's does: Clone is small enough to be inlined, and clone does not
	// keep c.
	c := new(Hasher)
	h.clone(c)
	return c
}

// clone sets c, a zero Hasher, to the copy Clone returns.
func (h *Hasher) clone(c *Hasher) {
	h.mine()
	if mu := h.hold(); mu != nil {
		defer mu.Unlock()
		h.absorb()
	}
	// The state, and of first what the clone reads but does not gather:
	// the Go path's chaining values past fcv (frontStack), where the front
	// has them. What it gathers, gather copies.
	c.hasherState = h.hasherState
	if h.front>>len(h.fcv) != 0 {
		copy(c.first[chunkLen:], h.first[chunkLen:])
	}
	c.g, c.spare, c.gw, c.t, c.ahead, c.buf, c.gen, c.nbuf, c.summed, c.read, c.mu = nil, nil, nil, nil, nil, nil, nil, 0, false, false, nil
	c.rlast, c.rwaste = 0, 0 // the clone's first read is a first
	c.reused, c.reuses = false, 0
	c.wide = false
	if h.g != nil {
		c.g = h.g.Clone()
	}
	if h.t != nil {
		t := *h.t
		c.t, c.tchunks = &t, t.Chunks
	}
	if c.g != nil || c.t != nil {
		c.lockable()
	}
	c.sub = h.sub.clone()
	c.gather(h.pending()) // and a count of changes of its own
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
	if h.nbuf <= chunkLen && h.buf == nil && h.g == nil && !h.live && h.front == 0 && !h.sub.on && (h.gen == nil || *h.gen == h.ngen) &&
		(h.mode == modeHash && (h.path != pathUnset || h.nbuf <= guts.BlockSize) || h.path != pathUnset && (h.mode == modeKeyed || h.hasCtxKey)) {
		return h.sumHeld(b)
	}
	if h.rootKept() {
		return h.keptSum(b)
	}
	return h.sum(b)
}

// sumHeld is Sum of an input of a chunk or less gathered whole in h, with
// none of the heap state of its path to read (zeebo's hasher, the
// library's live tree, a buffer), no subtree and its mode's key at hand:
// what sum computes, without its tests of the reads of longer inputs
// (fold, absorb, which up to a chunk hand nothing over) and its frame (a
// tree of the library's), and a block or less, where the plan picks zeebo
// for it, with the output written straight into b. A reused keyed
// Hasher's Reset, Write and Sum of 64 bytes took 1.35 times zeebo's time
// through sum, and 1.12 times here (BenchmarkReuseSum, docs/zeebo-api.md).
func (h *Hasher) sumHeld(b []byte) []byte {
	in := h.first[:h.nbuf]
	if len(in) > guts.BlockSize && h.reread() && h.path == pathGo {
		// The count of the reads of more than a block that rereadNative
		// and spillReread keep, and on the Go path the move to zeebo's
		// hasher that it picks (on the native path, up to a chunk, none
		// moves: absorbLen).
		h.spillGo(false)
		return h.sum(b)
	}
	n := len(b)
	b = slices.Grow(b, 32)[:n+32]
	out := b[n:]
	switch {
	case len(in) <= guts.BlockSize && implFor(len(in)) == implZeebo && zeeboBlocks && ffi.ZeeboBlockOutput(keyWords(h.mode, &h.key), modeFlags(h.mode), in, out):
	case h.mode == modeHash && implFor(len(in)) == implZeebo && zeeboBlocks && ffi.ZeeboChunkOutput(&guts.IV, 0, in, out):
		// Past a block, the output written straight into b too, as the
		// keyed modes' goChunkSum writes it: through Sum256 and the copies
		// of its result, a reused Hasher's Reset, Write and Sum, and a Sum
		// read again, of 65 to 256 B ran further behind zeebo's (api-check,
		// BLAKE3_API_CALL=Reset,Write,Sum and "Sum again"; docs/zeebo-api.md).
	case h.mode == modeHash:
		s := Sum256(in)
		copy(out, s[:])
	case h.path == pathGo:
		goChunkSum(keyWords(h.mode, &h.key), modeFlags(h.mode), in, out)
	default:
		sumSmall(h.mode, &h.key, in, out)
	}
	return b
}

// sum is Sum but for its first case: apart, so that the frame of that
// case is small (the others hold a tree of the library's on the stack).
func (h *Hasher) sum(b []byte) []byte {
	if h.path == pathUnset {
		h.start() // a zero Hasher's first Write gathers without it
	}
	if h.path == pathNative {
		h.readNative()
	}
	reread := false
	if mu := h.hold(); mu != nil {
		defer mu.Unlock()
		reread = h.absorb()
	}
	if h.path == pathGo && h.g == nil {
		h.readGo(true)
	}
	if h.mode == modeHash && h.front == 0 && !h.live && h.g == nil && !h.sub.on && (h.gen == nil || *h.gen == h.ngen) {
		// A plain hash of input only gathered, on either path or before
		// either (as the switch below would hash it): the one-shot hash,
		// without the layers below (a reused Hasher's small Sum,
		// docs/zeebo-api.md).
		s := Sum256(h.pending())
		return append(b, s[:]...)
	}
	if s, ok := h.subSum(b); ok {
		return s
	}
	h.start()
	if h.path == pathGo && h.g != nil {
		return h.g.Sum(b)
	}
	n := len(b)
	b = slices.Grow(b, 32)[:n+32]
	out := b[n:]
	switch {
	case h.path == pathGo && h.front == 0: // the keyed modes
		key, flags := h.goModeKey()
		goChunkSum(&key, flags, h.pending(), out)
	case h.path == pathGo: // after goFront's or fold's chunks
		root := h.goRoot()
		goXOF(refOf(&root), 0, out)
	case h.lastHeld():
		left, right := h.lastChildren()
		must(lib.MergeRoot(&left, &right, h.mode, h.modeKey(), 0, out))
	case h.front != 0 && tailGo(h.front, h.pending()):
		h.tailSum(h.front, h.frontStack(), h.pending(), out)
	case h.front != 0:
		var t ffi.Tree
		h.frontTree(&t)
		must(lib.TreeFinalize(&t, h.pending(), 0, out))
	case !h.live:
		sumSmall(h.mode, h.modeKey(), h.pending(), out)
	default:
		t, tail, left, right := h.rootOf(reread)
		switch {
		case left != nil:
			must(lib.MergeRoot(left, right, h.mode, h.modeKey(), 0, out))
		case tailInGo(t, tail):
			h.tailSum(t.Chunks, cvStack{lo: t.Stack[:]}, tail, out)
		default:
			must(lib.TreeFinalize(t, tail, 0, out))
		}
	}
	return b
}

// tailInGo is tailGo for t's input and then tail: where t holds whole
// chunks from the input's start (not a subtree's).
func tailInGo(t *ffi.Tree, tail []byte) bool {
	return t.Offset == 0 && tailGo(t.Chunks, tail)
}

// tailGo reports whether the root of an input of chunks whole chunks,
// held as the library's tree holds them (the chaining value of each
// subtree), and then tail, a part of a chunk, is computed in Go
// (xof.setTail) rather than by the library, on the native path: where the
// plan picks a Go package for tail's length, whose compression setTail
// then uses (zeebo's where its Digest's layout is known), and the tree
// has no more subtrees than tailLevels allows for that length. Both ways
// compress tail's blocks and then one parent node for each subtree; the
// library adds a crossing and its tree's frame, which tailLevels weighs
// against each way's cost of a subtree and of a block, measured. Where
// the plan picks the library for tail's length, it takes the whole root.
// A Sum after each 64-byte write ran at 0.89x of lukechampine's through
// the library (BenchmarkSumEachWrite), and a Sum of a chunk and a byte
// read again and again, or of 8 chunks and a byte, far behind zeebo's
// (BenchmarkSumAgain; docs/stream.md, docs/zeebo-api.md).
func tailGo(chunks uint64, tail []byte) bool {
	if chunks == 0 || len(tail) == 0 || len(tail) >= chunkLen {
		return false
	}
	im := implFor(len(tail))
	return (im == implLuke || im == implZeebo && ffi.ZeeboDigestOK()) && bits.OnesCount64(chunks) <= tailLevels(len(tail))
}

// cvStack is the chaining values of the subtrees of a tree, for
// xof.setTail: bit i's at lo[i], and those above lo's in hi, 32 bytes
// each, as the library's tree holds them (lo: its stack) and a Hasher
// (lo: fcv; on the Go path, hi: first after a chunk: frontStack). A func
// value in its place moved every Hasher to the heap
// (TestAllocationsNewHasher).
type cvStack struct {
	lo [][32]byte
	hi []byte
}

// at is the chaining value of bit i's subtree.
func (s cvStack) at(i int) *[32]byte {
	if i < len(s.lo) {
		return &s.lo[i]
	}
	return (*[32]byte)(s.hi[32*(i-len(s.lo)):])
}

// tailSum writes to out the root output of chunks whole chunks and then
// tail, in h's mode, computed in Go (tailGo; xof.setTail): its first block
// where the node is (xof.blockGo), else by goXOF.
func (h *Hasher) tailSum(chunks uint64, cv cvStack, tail, out []byte) {
	var x xof
	x.setTail(implFor(len(tail)) == implZeebo, chunks, cv, keyWords(h.mode, h.modeKey()), modeFlags(h.mode), tail)
	h.keepRoot(&x)
	x.firstBlock(out)
}

// firstBlock writes to out the first bytes (up to a block) of x's root output.
func (x *xof) firstBlock(out []byte) {
	if x.blockGo(0) {
		copy(out, x.Out[:])
		return
	}
	goXOF(x.ref(), 0, out)
}

// tailDigest sets d to the root node of chunks whole chunks and then tail,
// in h's mode, computed in Go (tailGo; xof.setTail).
func (h *Hasher) tailDigest(d *Digest, chunks uint64, cv cvStack, tail []byte) {
	d.src, d.mode = srcLib, uint8(h.mode)
	d.x.setTail(implFor(len(tail)) == implZeebo, chunks, cv, keyWords(h.mode, h.modeKey()), modeFlags(h.mode), tail)
	h.keepRoot(&d.x)
}

// keepRoot keeps x's node, the root node of h's input, computed in Go by
// a read on the native path, for the reads after it (rootKept).
func (h *Hasher) keepRoot(x *xof) {
	h.groot, h.rgen, h.rn = x.node(), h.gen, h.ngen
}

// rootKept reports whether groot is the root node of h's input: kept by a
// read (keepRoot) since which h's count of changes has not moved, so that
// its input is the same. Every change to the input counts one (gen), a
// new count is a new allocation, and rgen keeps the one the node was kept
// at from being reused; a Hasher whose copy by value has been written to
// since is not taken (its count is behind), and panics in sum or digest as
// before. A subtree hasher's rejected write counts no change, and keeps
// the node: it is still the input's (write). Such a Hasher read again and
// again (a part of a chunk after its chunks) then computes one output
// block, or none for a Digest, where it computed the root node first
// (tail's blocks and a parent per subtree), under the lock that copies by
// value share, and read at 0.74 to 0.95 of the speed of zeebo's reads,
// which compute it each time (BenchmarkSumAgain, docs/zeebo-api.md).
func (h *Hasher) rootKept() bool {
	return h.rgen != nil && h.rgen == h.gen && h.rn == h.ngen && *h.gen == h.ngen
}

// keptSum is Sum from the root node kept (rootKept).
func (h *Hasher) keptSum(b []byte) []byte {
	var x xof
	x.set(&h.groot)
	n := len(b)
	b = slices.Grow(b, 32)[:n+32]
	x.firstBlock(b[n:])
	return b
}

// Digest takes a snapshot of the hash state and returns an object that can
// be used to read and seek through 2^64 bytes of digest output. The Hasher
// may go on being written to; the Digest does not change.
func (h *Hasher) Digest() *Digest {
	// A Digest that its caller does not keep stays on the caller's stack,
	// as zeebo's does: Digest is small enough to be inlined, and digest
	// does not keep d.
	d := new(Digest)
	h.digest(d)
	return d
}

// digestBlock is digestHeld for a block or less in a mode whose key the
// Hasher keeps (all but a derive-key Hasher on the Go path where zeebo's
// hasher cannot be made with its key: begin), on either path or before
// either: the node is the block (setBlock), which it sets without
// digestHeld's tests and frame. It reports whether it set d. A Digest of
// 64 bytes read again took 2 to 3% more time through digestHeld (an
// in-process comparison with zeebo's, docs/zeebo-api.md).
func (h *Hasher) digestBlock(d *Digest) bool {
	if h.nbuf > guts.BlockSize || h.front != 0 || h.sub.on || h.buf != nil || h.g != nil || h.live ||
		h.mode == modeDeriveKey && !h.hasCtxKey || h.gen != nil && *h.gen != h.ngen {
		return false
	}
	d.mode, d.src = uint8(h.mode), srcLib
	d.x.setBlock(keyWords(h.mode, &h.key), modeFlags(h.mode), h.first[:h.nbuf])
	return true
}

// digestHeld is digest for an input of a chunk or less, gathered whole in
// h, with none of the heap state of its path to read (zeebo's hasher, the
// library's live tree, a buffer) and no subtree: what digest computes,
// without its tests of the reads of longer inputs (fold, absorb, which up
// to a chunk hand nothing over). The node of a block or less is the block
// (as setShort makes it); of more, on the Go path, it is computed where d
// holds it where the plan picks zeebo (ZeeboXOF.SetChunk, as setShort
// does), not returned and copied (goRoot). It reports whether it set d. A
// Digest of 64 bytes read once took 1.3 to 1.8 times zeebo's time through
// digest (BenchmarkDigestNew, input=64B; docs/stream.md), and a new
// Hasher's Digest of 65 or 256 bytes on the Go path 1.2 times
// (BenchmarkDigestOnce; docs/zeebo-api.md).
func (h *Hasher) digestHeld(d *Digest) bool {
	if h.sub.on || h.front != 0 || h.nbuf > chunkLen {
		return false
	}
	h.start() // a zero Hasher's first Write gathers without it
	if h.path == pathGo && h.g != nil || h.path == pathNative && (h.live || h.buf != nil) {
		return false
	}
	in := h.pending()
	if len(in) > guts.BlockSize {
		// The count of the reads of more than a block that rereadNative
		// and spillReread keep, and on the Go path the move to zeebo's
		// hasher that it picks, which digest then reads (on the native
		// path, up to a chunk, none moves: absorbLen). A Hasher whose
		// copy by value was written to has panicked in start (mine).
		if h.reread() && h.path == pathGo {
			h.spillGo(false)
			return false
		}
	}
	if h.path == pathNative {
		d.setShort(h.mode, &h.key, in)
		return true
	}
	// The Go path: the context key from the context, where the Hasher
	// does not keep it (goModeKey).
	kw, flags := h.goModeKey()
	d.mode = uint8(h.mode)
	switch {
	case len(in) <= guts.BlockSize:
		d.src = srcLib
		d.x.setBlock(&kw, flags, in)
	case implFor(len(in)) == implZeebo && d.x.SetChunk(in, &kw, 0, flags):
		d.src = srcNode
	default:
		n := guts.CompressChunk(in, &kw, 0, flags)
		d.src = srcNode
		d.x.set(&n)
	}
	return true
}

// reread counts a read (Sum, Digest) that hashes all of the more than a
// block that h has gathered in itself, and reports whether h is to move it
// to its state on the heap (spillReread, rereadNative), from where the
// reads hash only the last chunk and what writes add, as zeebo's do: once
// what the reads since Reset hashed again (each all that is gathered, what
// the read before it hashed included) reaches rereadMove. A read of a
// chunk or less with nothing written since the read before is not
// counted: zeebo's reads hash that chunk again too, and on the Go path
// the move made each such read go through zeebo's hasher under the lock
// that copies by value share, 0.83 to 0.92 of zeebo's speed at 65 to 256
// bytes (docs/zeebo-api.md). What the reads after writes counted before
// them stays counted, so a Hasher read again and again while it held a
// chunk or less moves later once it grows: after up to rereadMove more
// hashed again.
func (h *Hasher) reread() bool {
	if h.nbuf == h.rlast && h.nbuf <= chunkLen {
		return false
	}
	h.rwaste += h.rlast
	h.rlast = h.nbuf
	return h.rwaste >= rereadMove
}

// rereadMove is how much input the reads of what a Hasher gathered in
// itself hash again before it moves it to the heap (reread): half of
// bufSize, twice what first held when the rule was measured. The move
// allocates 10 to 18 KiB (zeebo's hasher, or the
// library's buffer and tree), whose allocation and collection cost about
// as much as hashing a few KiB again; a move at the second read (Sum after
// each 1 KiB piece of 4 KiB: 0.76-0.86 of zeebo's speed on both paths,
// against 1.03-1.6 without a move) and one after bufSize hashed again
// (Sum after each 256-byte piece: 0.59-0.66) each lost where the other
// did not (BenchmarkSumEachWriteShort, BenchmarkDigestEachWrite;
// docs/stream.md has the table for each rule measured).
const rereadMove = bufSize / 2

// rereadNative is spillReread on the native path, for a Hasher that holds
// all its input in itself (first), none of it in the library's tree nor
// on the heap, at a read that does not fold it (readNative): it counts
// the read as reread does, and at a read after the one
// that reread picks, where absorb has whole chunks to hand over
// (absorbLen), moves what is gathered to the buffer on the heap (grow),
// where that read's absorb hands them to the tree (hold), as at a second
// read (summed). Only that read marks h read: a read that moves nothing
// leaves absorb and the tree ahead as they were, for the input after it. A
// Sum after each 64-byte piece of a stream of 4 KiB read 0.5 of zeebo's
// speed without it (BenchmarkSumEachWriteShort, docs/stream.md). What
// absorbLen leaves whole, 2 or 4 whole chunks, moves too, once the reads
// hashed rereadMove and that input again; that read's absorb hands half
// of it over, so that the reads after it find the other half in the tree
// ahead and take a fraction of zeebo's time, where each hashed all of it
// again, a little slower than zeebo's (Sum again of 4 KiB,
// scripts/api-check.sh). It waits for more than rereadMove: a Sum after
// each 1 KiB piece of 4 KiB and one more at the end, which moved at that
// last Sum at rereadMove, fell from ahead of zeebo's to behind it
// (BenchmarkSumEachWriteShort, piece=1KiB; docs/zeebo-api.md, "Read again
// at 2 and 4 KiB"). A Hasher whose copy by value was written to is left
// to panic as before.
func (h *Hasher) rereadNative() {
	if h.buf != nil || h.live || h.front != 0 || h.sub.on || h.nbuf <= guts.BlockSize || h.gen != nil && *h.gen != h.ngen {
		return
	}
	if h.reread() && (absorbLen(0, h.nbuf) > 0 || h.nbuf > chunkLen && h.rwaste >= rereadMove+h.nbuf) {
		h.summed = true
		h.grow(bufSize)
	}
}

// spillReread gives a Go-path Hasher that has gathered more than a block,
// and has no zeebo hasher yet, where it does not fold it (readGo: a chunk
// or less, or zeebo's layout not known), zeebo's hasher (spillGo) at the
// read (Sum or Digest) that reread picks, for that read and those after it: from
// there, a read hashes the last chunk and what writes added, as zeebo's
// do, where each would hash all that is gathered again. A single read
// hashes it in one call and allocates nothing. A Sum after each 64-byte
// piece of a stream of 4 KiB read 0.47 of zeebo's speed without it
// (BenchmarkSumEachWriteShort, docs/stream.md). A Hasher whose copy by
// value was written to is left to panic as before.
func (h *Hasher) spillReread() {
	if h.front != 0 || h.sub.on || h.nbuf <= guts.BlockSize || h.gen != nil && *h.gen != h.ngen {
		return
	}
	if h.reread() {
		h.spillGo(false)
	}
}

// digest sets d, a zero Digest, to the snapshot Digest returns.
func (h *Hasher) digest(d *Digest) {
	if h.rootKept() {
		d.src, d.mode = srcLib, uint8(h.mode)
		d.x.set(&h.groot)
		return
	}
	if h.digestBlock(d) || h.digestHeld(d) || h.subDigest(d) {
		return
	}
	h.start()
	if h.path == pathNative {
		h.readNative()
	}
	reread := false
	if mu := h.hold(); mu != nil {
		defer mu.Unlock()
		reread = h.absorb()
	}
	if h.path == pathGo && h.g == nil {
		h.readGo(false)
	}
	if h.path == pathGo && h.g == nil && h.nbuf > chunkLen {
		h.spillGo(false) // not folded (readGo): the root of more than a chunk, from zeebo's hasher
	}
	if h.path == pathGo && h.g != nil {
		// From its root node, for goXOF's runs and the plan's compression
		// of single blocks (docs/dispatch.md).
		if n, ok := ffi.ZeeboRoot(h.g.Digest()); ok && zeeboRoots {
			d.src = srcNode
			d.x.set(&n)
			return
		}
		*d = Digest{src: srcGo, held: zeeboDigest(h.g)}
		return
	}
	if h.path == pathGo {
		n := h.goRoot()
		d.src = srcNode
		d.x.set(&n)
		return
	}
	if !h.live && h.front == 0 && h.nbuf <= chunkLen {
		// One chunk or less: its root is no parent.
		d.setShort(h.mode, &h.key, h.pending())
		return
	}
	var left, right [32]byte
	if h.lastHeld() {
		left, right = h.lastChildren()
	} else if !h.live && tailGo(h.front, h.pending()) {
		h.tailDigest(d, h.front, h.frontStack(), h.pending())
		return
	} else if !h.live {
		left, right = h.treeRoot(nil, h.pending())
	} else if t, tail, l, r := h.rootOf(reread); l != nil {
		left, right = *l, *r
	} else if tailInGo(t, tail) {
		h.tailDigest(d, t.Chunks, cvStack{lo: t.Stack[:]}, tail)
		return
	} else {
		left, right = h.treeRoot(t, tail)
	}
	d.setMerge(h.mode, &h.key, &left, &right)
}

// treeRoot is the children of the root of t's input and then tail (t nil:
// the tree h holds in itself, its front or none, as frontTree makes it: a
// finalization that leaves h as it is). Where memory passed to the library
// escapes to the heap (not ffi.ArgsStay), the call's memory is pooled
// (callMems), which else would be allocated at each Digest: the children's
// 64 bytes and, for a tree of its own, 2 KiB (TestAllocationsDigest).
func (h *Hasher) treeRoot(t *ffi.Tree, tail []byte) (left, right [32]byte) {
	if ffi.ArgsStay {
		if t == nil {
			var own ffi.Tree
			h.frontTree(&own)
			must(lib.TreeRoot(&own, tail, &left, &right))
			return left, right
		}
		must(lib.TreeRoot(t, tail, &left, &right))
		return left, right
	}
	m := callMems.Get().(*callMem)
	defer callMems.Put(m)
	if t == nil {
		t = &m.t
		h.frontTree(t)
	}
	must(lib.TreeRoot(t, tail, &m.left, &m.right))
	return m.left, m.right
}

// callMem is memory for a library call's small inputs and outputs where
// what a call is given escapes to the heap (not ffi.ArgsStay): taken from
// callMems for the call and put back after, nothing in it outlives the
// call.
type callMem struct {
	t           ffi.Tree
	left, right [32]byte
	key         [32]byte
}

var callMems = sync.Pool{New: func() any { return new(callMem) }}

// zeeboRoots reports whether a Digest on the Go path is read from zeebo's
// root node where its layout is known, and goFront takes one; tests turn
// it off to reach srcGo, as where the layout is not known.
var zeeboRoots = true

// zeeboDigest is g's Digest, on the heap, for a Digest (srcGo) where
// zeebo's layout is not the one internal/ffi knows. It is apart so that
// only then is one allocated.
//
//go:noinline
func zeeboDigest(g *zeebo.Hasher) *zeebo.Digest { return g.Digest() }

// goRoot is the root node of a Go-path hasher's input, gathered (one chunk
// or less: readGo), after the chunks goFront or fold hashed: the node it
// kept, while nothing was written since, else the last chunk's merged into
// theirs.
func (h *Hasher) goRoot() guts.Node {
	if h.front != 0 && h.nbuf == h.gnbuf {
		return h.groot
	}
	key, flags := h.goModeKey()
	tail := h.pending()
	var x xof
	x.setTail(implFor(len(tail)) == implZeebo, h.front, h.frontStack(), &key, flags, tail)
	return x.node()
}

// sumSmall writes the first len(out) bytes (32 for plain hashing) of the
// output of in, which never crossed into the library, in a mode with its
// key (nil for plain hashing). Plain hashing goes through the size
// dispatch (Sum256). The keyed modes, up to a chunk, go to the Go package
// that the plan picks for the size (goChunkSum), and else to the library;
// where the plan picks zeebo and its Digest's layout is not known, to the
// library too: lukechampine's portable code took up to twice the library's
// time where the plan picks zeebo (BenchmarkSumSmallKeyed). Through the
// library, a reused keyed Hasher's Sum of 64 bytes took twice zeebo's time
// (BenchmarkReuseSum, docs/zeebo-api.md).
func sumSmall(mode uint32, key *[32]byte, in, out []byte) {
	if mode == modeHash {
		s := Sum256(in)
		copy(out, s[:])
		return
	}
	if im := implFor(len(in)); len(in) <= chunkLen && (im == implLuke || im == implZeebo && ffi.ZeeboDigestOK()) {
		goChunkSum(keyWords(mode, key), modeFlags(mode), in, out)
		return
	}
	must(lib.HashXOF(mode, key, false, in, 0, out))
}
