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

	// g is the Go path for this hasher when gon is set: there is no
	// library, or the derive-key context is not UTF-8. It is a pointer (zeebo's
	// Hasher is 10 KiB, and most Hashers never need it), so a copy of a
	// Go-path Hasher by value shares it: use Clone.
	g   *zeebo.Hasher
	gon bool

	// sub is set by SetInputOffset (sub.on): the hasher hashes a subtree
	// (subtree.go). It is held by value, like the native state, so that a
	// copy of a native subtree hasher by value is independent too.
	sub subState

	// The native state and the input not yet handed to the library live in
	// the Hasher itself, not behind pointers, so that a copy of a native
	// Hasher by value (h2 := *h, which zeebo's Hasher allows) is an
	// independent hasher, and two copies never write one native state. The state is pointer-free memory that only the library
	// writes, and only during a call.
	live bool                  // st is initialized and holds the input before buf
	nbuf int                   // bytes of input in buf
	st   [maxStateWords]uint64 // native state: its first lib.stateWords words
	buf  [bufSize]byte         // input not yet handed to the library
}

// maxStateWords bounds the native state the Hasher holds inline (2 KiB);
// the loader refuses a library whose state is larger. blake3 1.8.1's is
// 1976 bytes.
const maxStateWords = 256

// state is the native state, as the library sees it.
func (h *Hasher) state() []uint64 { return h.st[:lib.stateWords] }

// pending is the input gathered and not yet handed to the library.
func (h *Hasher) pending() []byte { return h.buf[:h.nbuf] }

// push gathers p, which fits.
func (h *Hasher) push(p []byte) { h.nbuf += copy(h.buf[h.nbuf:], p) }

// start puts h on the Go path when there is no library.
func (h *Hasher) start() {
	if native() == nil && !h.gon {
		h.setGo()
	}
}

// Write implements part of the hash.Hash interface. It never returns an
// error, except on a hasher given an input offset by SetInputOffset, which
// rejects input beyond the largest subtree its offset allows.
func (h *Hasher) Write(p []byte) (int, error) {
	if h.live && !h.sub.on && h.nbuf+len(p) <= bufSize {
		// The common case of a stream in small pieces, once the library
		// holds part of it: only gather. (live implies the native path.)
		h.push(p)
		return len(p), nil
	}
	if h.sub.on {
		return h.subWrite(p)
	}
	h.start()
	if h.gon {
		return h.g.Write(p)
	}
	n := len(p)
	if h.nbuf+len(p) <= bufSize {
		h.push(p)
		return n, nil
	}
	if h.nbuf > 0 {
		k := bufSize - h.nbuf
		h.push(p[:k])
		p = p[k:]
		h.flush()
	}
	if len(p) >= bufSize {
		h.cross(p)
	} else {
		h.push(p)
	}
	return n, nil
}

// WriteString is like Write but for strings, without a copy to a []byte on
// the Go path.
func (h *Hasher) WriteString(s string) (int, error) {
	if h.sub.on {
		return h.subWrite([]byte(s))
	}
	h.start()
	if h.gon {
		return h.g.WriteString(s)
	}
	if h.nbuf+len(s) <= bufSize {
		h.nbuf += copy(h.buf[h.nbuf:], s)
		return len(s), nil
	}
	return h.Write([]byte(s))
}

// cross hands p to the library, initializing the state first if needed.
func (h *Hasher) cross(p []byte) {
	if !h.live {
		must(stInit(h.state(), h))
		h.live = true
	}
	must(stUpdate(h.state(), p))
}

// flush hands the gathered input to the library.
func (h *Hasher) flush() {
	if h.nbuf > 0 {
		h.cross(h.pending())
		h.nbuf = 0
	}
}

// small reports whether everything written so far is still on the Go side
// and short enough that the Go path is faster.
func (h *Hasher) small() bool { return !h.live && goFaster(h.nbuf) }

// Reset implements part of the hash.Hash interface. It causes the Hasher to
// act as if it was newly created.
func (h *Hasher) Reset() {
	if h.gon {
		h.g.Reset()
	}
	h.live = false
	h.nbuf = 0
	h.sub = subState{}
}

// Clone returns a new Hasher with the same internal state.
//
// Modifying the resulting Hasher will not modify the original Hasher, and
// vice versa.
func (h *Hasher) Clone() *Hasher {
	c := new(Hasher)
	*c = *h
	if h.gon {
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
	if h.gon {
		return h.g.Sum(b)
	}
	if h.small() {
		if h.mode == modeHash {
			s := goSum256(h.pending())
			return append(b, s[:]...)
		}
		g := h.goHasher()
		_, _ = g.Write(h.pending())
		return g.Sum(b)
	}
	h.flush()
	n := len(b)
	b = slices.Grow(b, 32)[:n+32]
	must(stFinalize(h.state(), 0, b[n:]))
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
	if h.gon {
		return goDigest(h.g.Digest())
	}
	if h.small() {
		g := h.goHasher()
		_, _ = g.Write(h.pending())
		return goDigest(g.Digest())
	}
	h.flush()
	return &Digest{st: slices.Clone(h.state())}
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
