// The Go path: github.com/zeebo/blake3 (and, for one-chunk one-shot hashes,
// lukechampine.com/blake3), used when the native library cannot be loaded,
// and for inputs where Go code is faster than a crossing.

package blake3

import (
	"golang.org/x/sys/cpu"

	zeebo "github.com/zeebo/blake3"
	luke "lukechampine.com/blake3"
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

// setGo puts h on the Go path for good.
func (h *Hasher) setGo() {
	h.g, h.gon = h.goHasher(), true
}

// goDigest wraps a zeebo Digest, held by value so that a copy of the Digest
// is independent.
func goDigest(d *zeebo.Digest) *Digest { return &Digest{g: *d, gon: true} }

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
		return zeebo.NewDeriveKey(h.context)
	}
	return zeebo.New()
}

// goSum256 hashes on the Go path: one chunk or less with
// lukechampine.com/blake3, the fastest Go code there (but for one block:
// see blockLen), more with zeebo.
func goSum256(b []byte) [32]byte {
	if len(b) <= goMax && len(b) != blockLen {
		return luke.Sum256(b)
	}
	return zeebo.Sum256(b)
}

func goDeriveKey(context string, material, out []byte) { zeebo.DeriveKey(context, material, out) }
