package blake3

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/purego-blake3/blake3/internal/ffi"
)

// The saved state of a Hasher (MarshalBinary), version 1. Integers are
// big-endian, as in the states of Go's own hashes:
//
//	0   4  magic "b3st"
//	4   1  version, 1
//	5   1  mode: 0 plain, 1 keyed, 2 derive-key
//	6   1  flags: 1 for a subtree hasher (SetInputOffset was called); no other bit is set
//	7   1  0
//	8  32  the key (keyed), the context key (derive-key: the hash of the
//	       context that the key material is hashed under), or zeros (plain)
//	40  8  the input offset (a multiple of 1024; 0 unless a subtree hasher)
//	48  8  c, the whole chunks (of 1024 bytes) hashed so far: the stack
//	56  2  t, the length of the tail (at most 16384)
//	58     for each bit of c, highest first: the 32-byte chaining value of
//	       the subtree of that many chunks, the input so far being these
//	       subtrees in order
//	       then t bytes: the input after them (the tail), which must not be
//	       longer than the smallest subtree, nor empty after any of them
//
// The same input saved at another point (or by another backend) may have
// another stack and tail; any of them resumes to the same hash.
const (
	stateMagic   = "b3st"
	stateVersion = 1
	stateHeader  = 58
	stateMaxTail = bufSize
	stateSubtree = 1
)

// errState is UnmarshalBinary's error for data that is not a state it can
// resume: wrapped with the reason.
var errState = errors.New("blake3: invalid saved state")

// MarshalBinary saves the state of the hash in progress, as
// encoding.BinaryMarshaler: UnmarshalBinary resumes it, in this or another
// process, on either backend, and in later versions of this package (the
// format is versioned, and docs/state-format.md describes it).
//
// The state holds the key of a keyed hasher (and of a derive-key hasher, the
// key its context gives): keep it as secret as the key. It also holds up to
// 16 KiB of input, as given.
//
// It fails for a subtree hasher whose Write was rejected, and on the Go path
// when the github.com/zeebo/blake3 in the build is not the version whose
// state this package can read (v0.2.4).
func (h *Hasher) MarshalBinary() ([]byte, error) {
	return h.AppendBinary(make([]byte, 0, stateHeader+64))
}

// AppendBinary appends the state MarshalBinary returns to b, as
// encoding.BinaryAppender.
func (h *Hasher) AppendBinary(b []byte) ([]byte, error) {
	if h.sub.err != nil {
		return b, fmt.Errorf("blake3: no state to save after a rejected Write: %w", h.sub.err)
	}
	h.start()
	if mu := h.hold(); mu != nil {
		defer mu.Unlock()
		h.absorb()
	}
	if h.front != 0 && h.nbuf > chunkLen {
		// A tail no longer than a chunk, as the format wants (fold).
		if h.path == pathGo {
			h.readGo(false)
		} else {
			h.readNative()
		}
	}
	var (
		key    [32]byte
		chunks uint64
		stack  [][32]byte
		tail   []byte
	)
	switch {
	case h.path == pathNative:
		key = h.key
		switch {
		case h.live:
			chunks, stack = h.t.Chunks, h.t.Stack[:]
		case h.front != 0:
			chunks, stack = h.front, h.fcv[:] // bits 0 to 3
		}
		tail = h.pending()
	case h.sub.on:
		t := h.sub.t
		key, chunks, tail = cvBytes(t.key), t.chunks, t.buf[:t.n]
		stack = make([][32]byte, 64)
		for i := range stack {
			stack[i] = cvBytes(t.stack[i])
		}
	case h.g == nil:
		// The Go path's first input, gathered (writeGo), after the chunks
		// goFront or fold hashed.
		w, _ := h.goModeKey()
		key, chunks, stack, tail = cvBytes(w), h.front, h.fcv[:], h.pending()
		if chunks >= 1<<len(h.fcv) {
			stack = make([][32]byte, 64)
			for rest := chunks; rest != 0; rest &= rest - 1 {
				i := bits.TrailingZeros64(rest)
				stack[i] = *h.frontCV(i)
			}
		}
	default:
		if !ffi.ZeeboOK() {
			return b, errors.New("blake3: cannot save a Go-path hasher with this version of github.com/zeebo/blake3")
		}
		z := ffi.ZeeboExport(h.g)
		key, chunks, tail = cvBytes(z.Key), z.Chunks, z.Tail
		stack = make([][32]byte, 64)
		for i := range stack {
			stack[i] = cvBytes(z.Stack[i])
		}
	}
	if h.mode == modeHash {
		key = [32]byte{}
	}
	var flags byte
	if h.sub.on {
		flags = stateSubtree
	}
	b = append(b, stateMagic...)
	b = append(b, stateVersion, byte(h.mode), flags, 0)
	b = append(b, key[:]...)
	b = binary.BigEndian.AppendUint64(b, h.sub.offset)
	b = binary.BigEndian.AppendUint64(b, chunks)
	b = binary.BigEndian.AppendUint16(b, uint16(len(tail)))
	for i := 63; i >= 0; i-- {
		if chunks&(1<<i) != 0 {
			b = append(b, stack[i][:]...)
		}
	}
	return append(b, tail...), nil
}

// savedState is a parsed and checked state.
type savedState struct {
	mode    uint32
	subtree bool
	key     [32]byte
	offset  uint64
	chunks  uint64
	stack   [64][32]byte
	tail    []byte
}

// UnmarshalBinary resumes the hash in progress that MarshalBinary saved, as
// encoding.BinaryUnmarshaler: h becomes that hasher (whatever it was, the
// zero Hasher included), and further writes continue the same input. It
// returns an error, and leaves h unchanged, for anything that is not such a
// state: another format or version, a wrong length, a mode, offset or
// length that no hasher can have. On the Go path it also returns one for a
// state it could not go on with where the build selects another version of
// github.com/zeebo/blake3 than go.mod's, whose hasher it cannot resume. A
// state is not authenticated: one with the right shape but other chaining
// values resumes to another hash.
func (h *Hasher) UnmarshalBinary(data []byte) error {
	var s savedState
	if err := parseState(data, &s); err != nil {
		return err
	}
	// On the Go path a state that writeGo would still gather (goGather)
	// resumes gathered; a longer one needs zeebo's hasher.
	// A derive-key state holds the context key, not the context, which
	// zeebo's API takes: its hasher is made in that mode through the same
	// layout (goHasher), at the first write past what is gathered; a
	// subtree state's too, once Reset has made it a hasher of a whole
	// input.
	onZeebo := native() == nil && !s.subtree && (s.chunks > 0 || len(s.tail) > goGather(s.mode, true))
	if (onZeebo || native() == nil && s.mode == modeDeriveKey) && !ffi.ZeeboOK() {
		return errors.New("blake3: cannot resume on the Go path with this version of github.com/zeebo/blake3")
	}
	// After the last check, h lets go of its state (which a copy by value
	// may share) and becomes the saved one.
	*h = Hasher{hasherState: hasherState{mode: s.mode, key: s.key, hasCtxKey: s.mode == modeDeriveKey}}
	h.far = s.offset+s.chunks*chunkLen+uint64(len(s.tail)) >= 1<<63
	if s.subtree {
		h.sub = subState{on: true, offset: s.offset, max: subtreeLimit(s.offset), n: s.chunks*chunkLen + uint64(len(s.tail))}
	}
	switch {
	case native() != nil:
		h.path = pathNative
		if s.chunks > 0 {
			h.initTree(s.offset)
			h.t.Chunks, h.t.Stack = s.chunks, s.stack
			h.tchunks = s.chunks
		}
		h.gather(s.tail)
	case s.subtree:
		h.path = pathGo
		h.sub.startGo(h)
		t := h.sub.t
		t.chunks = s.chunks
		for i := range t.stack {
			t.stack[i] = cvWords(&s.stack[i])
		}
		t.n = copy(t.buf[:], s.tail)
	case !onZeebo:
		h.path = pathGo
		h.gather(s.tail)
	default:
		z := ffi.ZeeboState{Key: *keyWords(h.mode, &h.key), Flags: modeFlags(h.mode), Chunks: s.chunks, Tail: s.tail}
		for i := range z.Stack {
			z.Stack[i] = cvWords(&s.stack[i])
		}
		h.share()
		h.path, h.g = pathGo, ffi.ZeeboImport(&z)
		h.lockable()
		h.setLim()
	}
	return nil
}

// parseState checks data as a state of the format above and reads it into s.
func parseState(data []byte, s *savedState) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{errState}, a...)...)
	}
	if len(data) < stateHeader {
		return bad("%d bytes, shorter than the %d-byte header", len(data), stateHeader)
	}
	if string(data[:4]) != stateMagic {
		return bad("not a BLAKE3 hasher state (magic %q)", data[:4])
	}
	if data[4] != stateVersion {
		return bad("version %d, this package reads version %d", data[4], stateVersion)
	}
	*s = savedState{mode: uint32(data[5]), subtree: data[6] == stateSubtree}
	if s.mode > modeDeriveKey {
		return bad("mode %d", data[5])
	}
	if data[6]&^stateSubtree != 0 || data[7] != 0 {
		return bad("flags %#x %#x", data[6], data[7])
	}
	copy(s.key[:], data[8:40])
	if s.mode == modeHash && s.key != [32]byte{} {
		return bad("a key in a plain hasher's state")
	}
	s.offset = binary.BigEndian.Uint64(data[40:])
	s.chunks = binary.BigEndian.Uint64(data[48:])
	tail := int(binary.BigEndian.Uint16(data[56:]))
	switch {
	case s.offset%chunkLen != 0:
		return bad("input offset %d is not a multiple of 1024", s.offset)
	case s.offset != 0 && !s.subtree:
		return bad("input offset %d without the subtree flag", s.offset)
	case tail > stateMaxTail:
		return bad("a tail of %d bytes, more than %d", tail, stateMaxTail)
	case s.chunks != 0 && tail == 0:
		return bad("no tail after %d chunks", s.chunks)
	case s.chunks != 0 && uint64(tail) > chunkLen<<bits.TrailingZeros64(s.chunks):
		return bad("a tail of %d bytes after %d chunks, longer than the smallest subtree", tail, s.chunks)
	}
	hi, n := bits.Mul64(s.chunks, chunkLen)
	n, c1 := bits.Add64(n, s.offset, 0)
	_, c2 := bits.Add64(n, uint64(tail), 0)
	if hi|c1|c2 != 0 {
		return bad("%d chunks and a tail of %d after input offset %d: more than 2^64 bytes", s.chunks, tail, s.offset)
	}
	if max, _ := MaxSubtreeLen(s.offset); max != 0 && s.chunks*chunkLen+uint64(tail) > max {
		return bad("%d bytes at input offset %d, where at most %d fit", s.chunks*chunkLen+uint64(tail), s.offset, max)
	}
	cvs := bits.OnesCount64(s.chunks)
	if want := stateHeader + 32*cvs + tail; len(data) != want {
		return bad("%d bytes, want %d for %d chunks and a tail of %d", len(data), want, s.chunks, tail)
	}
	p := data[stateHeader:]
	for i := 63; i >= 0; i-- {
		if s.chunks&(1<<i) != 0 {
			copy(s.stack[i][:], p)
			p = p[32:]
		}
	}
	s.tail = p
	return nil
}
