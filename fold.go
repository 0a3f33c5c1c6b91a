package blake3

import (
	"math/bits"

	"github.com/purego-blake3/blake3/internal/ffi"
)

// foldable reports whether h may hold k bytes more gathered, in itself,
// past the end of the chunk after front, for fold to hash at its next read:
// where all its input, those bytes with it, is no more than first holds
// (so that front has at most 7 chunks, whose values are in fcv, not in
// first: frontCV). A Hasher that holds its input so has no state on the
// heap that holds input (zeebo's hasher, the library's live tree, a
// buffer), nor a subtree. On the Go path, where its reads take zeebo's
// root node (zeeboRoots); zeebo's layouts, which fold needs, were known
// where h first took a front (fold, goFront). On the native path, where
// the library's tree on the stack stays there (ffi.ArgsStay), as for
// handFront.
func (h *Hasher) foldable(k int) bool {
	if int(h.front)*chunkLen+h.nbuf+k > firstLen {
		return false
	}
	if h.path == pathNative {
		return ffi.ArgsStay
	}
	return zeeboRoots
}

// fold hashes the whole chunks of what a Hasher holds in itself, after the
// chunks of front, but the last one, and keeps in h the count of chunks
// before the last (front) and their chaining values, and the last chunk
// (gathered): what zeebo's hasher does at each read. The reads after it
// hash only the last chunk and what writes added to it, where they would
// hash all that is gathered again, and nothing is allocated. It changes h
// alone, none of the state copies by value share (it counts no change:
// gen). It reports whether it did: not where h does not hold its input so
// (foldable), nor, on the Go path, where zeebo's layouts are not known.
//
// On the Go path the chunks are hashed in a zeebo hasher from the pool
// (ffi.ZeeboFront), which gives the root node too (groot), as goFront
// keeps it. On the native path they are handed to the library in a tree
// on the stack, as handFront does, whose reads hash the last chunk (Sum,
// digest: the front's cases).
func (h *Hasher) fold() bool {
	if !h.foldable(0) {
		return false
	}
	if h.path == pathNative {
		h.foldNative()
		return true
	}
	key, flags := h.goModeKey()
	var stack [len(Hasher{}.fcv)][8]uint32
	for rest := h.front; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros64(rest)
		stack[i] = cvWords(&h.fcv[i])
	}
	n := int(h.front)*chunkLen + h.nbuf
	chunks, root, ok := ffi.ZeeboFront(&key, flags, h.front, stack[:], h.pending(), nil)
	if !ok {
		return false
	}
	last := n - int(chunks)*chunkLen
	if last != h.nbuf {
		copy(h.first[:], h.first[h.nbuf-last:h.nbuf])
	}
	h.front, h.nbuf, h.groot, h.gnbuf = chunks, last, root, last
	for rest := chunks; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros64(rest)
		h.fcv[i] = cvBytes(stack[i])
	}
	return true
}

// foldNative is fold on the native path, for more than a chunk gathered:
// one crossing.
func (h *Hasher) foldNative() {
	p := h.pending()
	k := (len(p) - 1) / chunkLen * chunkLen
	var t ffi.Tree
	h.frontTree(&t)
	must(lib.TreeUpdate(&t, p[:k], false))
	copy(h.first[:], p[k:])
	h.front, h.fcv, h.lastOK, h.nbuf = t.Chunks, [4][32]byte(t.Stack[:4]), false, len(p)-k
}

// readNative readies a read (Sum, Digest: digest) of a native-path Hasher
// (its callers test the path, so that the Go path's reads make no call)
// that holds its input in itself, as readGo does on the Go path: what is
// gathered after front is folded where it is more than a chunk (it must:
// the library takes no more after a tree's smallest subtree); without
// front, more than a chunk gathered is folded by a read that comes after
// a write of less than a chunk since another read since Reset (rlast),
// whose reads then hash the last chunk. Reads a chunk apart or more, a
// read again of the same input, and a first read hash all that is
// gathered in one crossing, its widest SIMD, which hashes a few chunks
// side by side in about the time of one, where a fold hashes them in a
// crossing of its own and leaves the next read its last chunk alone:
// after each 1 KiB piece of a stream of 4 KiB, folding took a Sum from 1.6
// times zeebo's speed to 1.1, and after each 256-byte piece from 0.9 to
// 1.04 (BenchmarkSumEachWriteShort, docs/stream.md). Where h does not
// fold, the reads go on as before fold was written (rereadNative), which
// moves what is gathered to the heap once they hashed 8 KiB again.
func (h *Hasher) readNative() {
	if h.live || h.buf != nil || h.sub.on || h.gen != nil && *h.gen != h.ngen {
		return
	}
	switch {
	case h.front != 0:
		if h.nbuf > chunkLen {
			h.foldNative() // gathered so only where it may fold (foldable)
		}
		return
	case h.nbuf > chunkLen && h.nbuf > h.rlast && h.nbuf-h.rlast < chunkLen && h.fold():
		return
	}
	h.rereadNative()
}

// readGo readies a read (Sum, Digest: digest) of a Go-path Hasher with no
// zeebo hasher, which holds its input in itself (its callers test both, so
// that other reads make no call):
//
//   - After front (fold, goFront), what is gathered is folded where it is
//     more than a chunk (goRoot hashes one). Up to a chunk, where the plan
//     hashes it with zeebo (xof.setTail), it is folded where the reads
//     come a quarter of a chunk apart or more, and else it goes to zeebo's
//     hasher (spillGo), whose reads hash the last chunk with less around
//     them: each fold takes a hasher from the pool and copies what it
//     hashes, which costs more than the allocation of zeebo's hasher where
//     reads come after each 64-byte piece of a stream, and less where they
//     come after each 256-byte piece (BenchmarkDigestEachWrite,
//     BenchmarkSumEachWriteShort; docs/stream.md). Elsewhere goRoot hashes
//     the last chunk with lukechampine's code (xof.setTail).
//   - Without front, more than a chunk gathered is folded by a Digest,
//     whose root comes from a zeebo hasher either way (fold's gives it),
//     and by a Sum after another read since Reset (rlast), the first
//     hashing it in one call, as Sum256 does; in the keyed modes, whose
//     Sum has no such call past a chunk (goGather), by every read, or
//     where it cannot fold, moved to zeebo's hasher. One chunk or less is
//     hashed whole at each read, as zeebo's reads hash their last chunk.
//   - Where h cannot fold, a read goes on as before fold was written:
//     zeebo's hasher once the reads since Reset hashed 8 KiB again, as
//     reread counts it (spillReread), or at once where what is gathered
//     after front is more than a chunk.
//
// A Hasher whose copy by value was written to is left to panic as before.
func (h *Hasher) readGo(sum bool) {
	if h.g != nil || h.sub.on || h.gen != nil && *h.gen != h.ngen {
		return
	}
	switch {
	case h.front != 0:
		switch {
		case h.nbuf > chunkLen:
			if !h.fold() {
				h.spillGo(false)
			}
		case h.nbuf == h.gnbuf || implFor(h.nbuf) != implZeebo || !h.foldable(0):
		case h.nbuf-h.gnbuf >= chunkLen/4:
			h.fold()
		default:
			h.spillGo(false)
		}
		return
	case h.nbuf <= chunkLen:
	case sum && h.rlast == 0 && h.mode == modeHash:
		h.rlast = h.nbuf
		return
	case h.fold():
		return
	case h.mode != modeHash:
		h.spillGo(false)
		return
	}
	h.spillReread()
}
