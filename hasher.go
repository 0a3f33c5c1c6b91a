package blake3

import (
	"slices"
	"strconv"
	"sync"

	zeebo "github.com/zeebo/blake3"
)

// Hasher is a hash.Hash for BLAKE3. Its zero value is ready to use, like
// New(). A Hasher is not safe for concurrent use; Clone gives independent
// copies.
//
// On the native path, small writes are gathered on the Go side and handed to
// the library in large batches, so a stream written in small pieces runs at
// the library's speed, and a short stream never crosses into the library.
type Hasher struct {
	mode    uint32
	key     [32]byte // the key (keyed), or the context key (derive-key, native)
	context string   // the derive-key context, for the Go path

	// g, when set, is the Go path for this hasher: there is no library, or
	// the derive-key context is not UTF-8.
	g *zeebo.Hasher

	st   []uint64 // native state, allocated at the first crossing
	live bool     // st is initialized and holds the input before buf
	buf  []byte   // input not yet handed to the library

	sub *subState // set by SetInputOffset: the hasher hashes a subtree (subtree.go)
}

// start puts h on the Go path when there is no library.
func (h *Hasher) start() {
	if lib == nil && h.g == nil {
		h.g = h.goHasher()
	}
}

// Write implements part of the hash.Hash interface. It never returns an
// error, except on a hasher given an input offset by SetInputOffset, which
// rejects input beyond the largest subtree its offset allows.
func (h *Hasher) Write(p []byte) (int, error) {
	if h.sub != nil {
		return h.subWrite(p)
	}
	h.start()
	if h.g != nil {
		return h.g.Write(p)
	}
	n := len(p)
	if len(h.buf)+len(p) <= bufSize {
		h.buf = append(h.buf, p...)
		return n, nil
	}
	if len(h.buf) > 0 {
		k := bufSize - len(h.buf)
		h.buf = append(h.buf, p[:k]...)
		p = p[k:]
		h.flush()
	}
	if len(p) >= bufSize {
		h.cross(p)
	} else {
		h.buf = append(h.buf, p...)
	}
	return n, nil
}

// WriteString is like Write but for strings, without a copy to a []byte on
// the Go path.
func (h *Hasher) WriteString(s string) (int, error) {
	if h.sub != nil {
		return h.subWrite([]byte(s))
	}
	h.start()
	if h.g != nil {
		return h.g.WriteString(s)
	}
	if len(h.buf)+len(s) <= bufSize {
		h.buf = append(h.buf, s...)
		return len(s), nil
	}
	return h.Write([]byte(s))
}

// cross hands p to the library, initializing the state first if needed.
func (h *Hasher) cross(p []byte) {
	if !h.live {
		if h.st == nil {
			h.st = newState()
		}
		must(stInit(h.st, h))
		h.live = true
	}
	must(stUpdate(h.st, p))
}

// flush hands the gathered input to the library.
func (h *Hasher) flush() {
	if len(h.buf) > 0 {
		h.cross(h.buf)
		h.buf = h.buf[:0]
	}
}

// small reports whether everything written so far is still on the Go side
// and short enough that the Go path is faster.
func (h *Hasher) small() bool { return !h.live && len(h.buf) < goMax }

// Reset implements part of the hash.Hash interface. It causes the Hasher to
// act as if it was newly created.
func (h *Hasher) Reset() {
	if h.g != nil {
		h.g.Reset()
	}
	h.live = false
	h.buf = h.buf[:0]
	h.sub = nil
}

// Clone returns a new Hasher with the same internal state.
//
// Modifying the resulting Hasher will not modify the original Hasher, and
// vice versa.
func (h *Hasher) Clone() *Hasher {
	c := &Hasher{mode: h.mode, key: h.key, context: h.context, live: h.live, sub: h.sub.clone()}
	if h.g != nil {
		c.g = h.g.Clone()
	}
	if h.live {
		c.st = slices.Clone(h.st)
	}
	if len(h.buf) > 0 {
		c.buf = slices.Clone(h.buf)
	}
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
	if h.g != nil {
		return h.g.Sum(b)
	}
	if h.small() {
		if h.mode == modeHash {
			s := goSum256(h.buf)
			return append(b, s[:]...)
		}
		g := h.goHasher()
		_, _ = g.Write(h.buf)
		return g.Sum(b)
	}
	h.flush()
	n := len(b)
	b = slices.Grow(b, 32)[:n+32]
	must(stFinalize(h.st, 0, b[n:]))
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
	if h.g != nil {
		return &Digest{g: h.g.Digest()}
	}
	if h.small() {
		g := h.goHasher()
		_, _ = g.Write(h.buf)
		return &Digest{g: g.Digest()}
	}
	h.flush()
	return &Digest{st: slices.Clone(h.st)}
}

// scratch is output memory for one-shot calls: heap memory without Go
// pointers, reused so that a one-shot hash allocates nothing.
var scratch = sync.Pool{New: func() any { return new([64]byte) }}

func getScratch() *[64]byte  { return scratch.Get().(*[64]byte) }
func putScratch(b *[64]byte) { scratch.Put(b) }

// codeText names a native error code.
func codeText(rc int32) string {
	switch rc {
	case -1:
		return "NULL pointer"
	case -2:
		return "uninitialized state"
	case -3:
		return "input offset not a multiple of 1024"
	case -4:
		return "input offset set after input"
	case -5:
		return "subtree too large for its offset"
	case -6:
		return "root finalization of a subtree with an offset"
	case -7:
		return "empty subtree"
	case -8:
		return "derive-key context is not UTF-8"
	case -9:
		return "length out of range"
	case -10:
		return "thread pool unavailable"
	}
	return "error " + strconv.Itoa(int(rc))
}
