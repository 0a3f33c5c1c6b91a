// The Go path: github.com/zeebo/blake3, and lukechampine.com/blake3 where
// its code is the faster of the two (dispatch.go), used when the native
// library cannot be loaded, and for inputs where Go code beats a crossing.

package blake3

import (
	"golang.org/x/sys/cpu"

	"github.com/purego-blake3/blake3/internal/ffi"
	zeebo "github.com/zeebo/blake3"
	"lukechampine.com/blake3/guts"
)

// zeeboVersion is the version of the Go implementation (see go.mod).
const zeeboVersion = "github.com/zeebo/blake3 v0.2.4"

// goSIMD is the level zeebo/blake3 uses on this CPU.
func goSIMD() string {
	switch {
	case cpu.X86.HasAVX2:
		return "avx2"
	case cpu.X86.HasSSE41:
		return "sse41"
	}
	return "portable"
}

// goHasher is a zeebo hasher in the same mode as h.
func (h *Hasher) goHasher() *zeebo.Hasher {
	switch h.mode {
	case modeKeyed:
		g, err := zeebo.NewKeyed(h.key[:])
		if err != nil {
			panic("blake3: internal error: " + err.Error()) // the key is 32 bytes by construction
		}
		return g
	case modeDeriveKey:
		if h.hasCtxKey {
			return zeeboWithKey(&h.key, modeDeriveKey)
		}
		return zeebo.NewDeriveKey(h.context)
	}
	return zeebo.New()
}

// zeeboWithKey is a zeebo hasher in a keyed or derive-key mode with its
// key (for derive-key, the context key rather than the context); it needs
// ffi.ZeeboOK.
func zeeboWithKey(key *[32]byte, mode uint32) *zeebo.Hasher {
	return ffi.ZeeboImport(&ffi.ZeeboState{Key: cvWords(key), Flags: modeFlags(mode)})
}

// goChunkSum writes the root output of in, the whole of an input of one
// chunk or less, in the mode of key and flags, to out from its first
// byte, in Go: as zeebo's Sum computes it (ffi.ZeeboChunkOutput) where the
// plan picks zeebo for its length, else from lukechampine's node of it
// (goXOF then computes its blocks as measureBlocks picks). Through the
// node and goXOF, a reused keyed Hasher's Sum of 64 bytes on the Go path
// took twice zeebo's time (BenchmarkReuseSum, docs/zeebo-api.md).
func goChunkSum(key *[8]uint32, flags uint32, in, out []byte) {
	if implFor(len(in)) == implZeebo && ffi.ZeeboChunkOutput(key, flags, in, out) {
		return
	}
	var n guts.Node
	if len(in) <= guts.BlockSize {
		setBlock(&n, key, flags, in)
	} else {
		n = guts.CompressChunk(in, key, 0, flags)
	}
	goXOF(refOf(&n), 0, out)
}

// lukeSum512 is lukechampine.com/blake3's Sum512 for an input of one chunk
// at most, the inputs the dispatch gives it, written with its primitives:
// the same code, without the path for longer inputs that makes the input
// of every call escape to the heap (go build -gcflags=-m), so that a
// caller's stack buffer stays on its stack, as with zeebo, and with its
// last compression as outputBlock, which gives the bytes without
// CompressNode's copies (BenchmarkDispatch). A longer input, which the
// dispatch never gives it, goes to zeebo.
func lukeSum512(b []byte) (out [64]byte) {
	var n guts.Node
	if len(b) > guts.ChunkSize {
		return zeebo.Sum512(b)
	}
	if len(b) <= guts.BlockSize {
		setBlock(&n, &guts.IV, 0, b)
	} else {
		n = guts.CompressChunk(b, &guts.IV, 0, 0)
	}
	outputBlock(refOf(&n), 0, &out)
	return out
}

// zeeboSum512 is zeebo's Sum512, with zeebo's hasher for an input longer
// than a chunk taken from a pool (ffi.ZeeboNew), or, where its layout is
// not the one known, made where it is used: zeebo's Sum512 zeroes its 10
// KiB hasher in a temporary and then copies it into place (go tool
// objdump: REP STOSQ, then REP MOVSQ), which its New, Write and Digest do
// not, and a hasher from the pool is not zeroed (BenchmarkZeeboSum,
// docs/dispatch.md). Up to a chunk zeebo's Sum512 makes no hasher, and is
// called.
func zeeboSum512(b []byte) [64]byte {
	if len(b) <= chunkLen {
		return zeebo.Sum512(b)
	}
	if h := ffi.ZeeboNew(); h != nil {
		defer ffi.ZeeboFree(h)
		return zeeboOut(h, b)
	}
	return zeeboOut(zeebo.New(), b)
}

// zeeboOut is the first 64 bytes of the output of h, a new hasher, for b.
func zeeboOut(h *zeebo.Hasher, b []byte) (out [64]byte) {
	_, _ = h.Write(b)
	_, _ = h.Digest().Read(out[:])
	return out
}

// zeeboSum256 is zeeboSum512's first 32 bytes, as zeebo's Sum256 is its
// Sum512's.
func zeeboSum256(b []byte) [32]byte {
	s := zeeboSum512(b)
	return [32]byte(s[:32])
}

// lukeSum256 is lukeSum512's first 32 bytes, as lukechampine.com/blake3's
// Sum256 is its Sum512's.
func lukeSum256(b []byte) (out [32]byte) {
	s := lukeSum512(b)
	copy(out[:], s[:])
	return out
}

// keyWords is the key of a mode as guts takes it.
func keyWords(mode uint32, key *[32]byte) *[8]uint32 {
	if mode == modeHash {
		return &guts.IV
	}
	w := cvWords(key)
	return &w
}

// modeFlags is the domain flag of a mode.
func modeFlags(mode uint32) uint32 {
	switch mode {
	case modeKeyed:
		return guts.FlagKeyedHash
	case modeDeriveKey:
		return guts.FlagDeriveKeyMaterial
	}
	return 0
}
