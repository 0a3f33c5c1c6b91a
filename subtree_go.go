// The Go path of the subtree API, over lukechampine.com/blake3/guts: used
// when there is no native library, and for derive-key hashers whose context
// is not UTF-8.

package blake3

import (
	"encoding/binary"

	"lukechampine.com/blake3/guts"
)

// goTree hashes a subtree in bounded memory, as the BLAKE3 reference
// implementation does: input is gathered into groups of guts.MaxSIMD chunks,
// each compressed at once, and the chaining values of complete groups are
// kept on a stack, merged as soon as they pair up. The last group stays in
// the buffer until more input comes, so that the tree's last node can still
// be finalized as the root.
type goTree struct {
	key     [8]uint32
	flags   uint32
	counter uint64      // the chunk counter of buf's first chunk
	groups  uint64      // complete groups pushed on stack
	stack   [][8]uint32 // chaining values of complete subtrees, largest first
	n       int         // bytes in buf
	buf     [guts.MaxSIMD * guts.ChunkSize]byte
}

func (t *goTree) init(key [8]uint32, flags uint32, counter uint64) {
	t.key, t.flags, t.counter = key, flags, counter
	t.groups, t.stack, t.n = 0, t.stack[:0], 0
}

const groupLen = len(goTree{}.buf)

// push adds the chaining value of the group at t.counter.
func (t *goTree) push(cv [8]uint32) {
	t.stack = append(t.stack, cv)
	t.groups++
	t.counter += guts.MaxSIMD
	for g := t.groups; g&1 == 0; g >>= 1 {
		k := len(t.stack)
		t.stack[k-2] = guts.ChainingValue(guts.ParentNode(t.stack[k-2], t.stack[k-1], &t.key, t.flags))
		t.stack = t.stack[:k-1]
	}
}

func (t *goTree) write(p []byte) {
	for len(p) > 0 {
		if t.n == groupLen {
			t.push(guts.ChainingValue(guts.CompressBuffer(&t.buf, groupLen, &t.key, t.counter, t.flags)))
			t.n = 0
		}
		// Whole groups straight from p, when more input follows them.
		for t.n == 0 && len(p) > groupLen {
			t.push(guts.ChainingValue(guts.CompressBuffer((*[groupLen]byte)(p), groupLen, &t.key, t.counter, t.flags)))
			p = p[groupLen:]
		}
		k := copy(t.buf[t.n:], p)
		t.n += k
		p = p[k:]
	}
}

// node returns the top node of the tree of the input so far, not yet
// compressed: its chaining value is the subtree's, and with the root flag it
// gives the root output. t is not changed.
func (t *goTree) node() guts.Node {
	n := guts.CompressBuffer(&t.buf, t.n, &t.key, t.counter, t.flags)
	for i := len(t.stack) - 1; i >= 0; i-- {
		n = guts.ParentNode(t.stack[i], guts.ChainingValue(n), &t.key, t.flags)
	}
	return n
}

func chainingValue(n guts.Node) [8]uint32 { return guts.ChainingValue(n) }

// goXOF fills p with the root output of node n from byte position pos.
func goXOF(n guts.Node, pos uint64, p []byte) {
	n.Flags |= guts.FlagRoot
	for len(p) > 0 {
		n.Counter = pos / guts.BlockSize
		block := guts.WordsToBytes(guts.CompressNode(n))
		k := copy(p, block[pos%guts.BlockSize:])
		p = p[k:]
		pos += uint64(k)
	}
}

func parentNode(left, right *[32]byte, key *[8]uint32, flags uint32) guts.Node {
	return guts.ParentNode(cvWords(left), cvWords(right), key, flags)
}

func cvWords(b *[32]byte) (w [8]uint32) {
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w
}

func cvBytes(w [8]uint32) (b [32]byte) {
	for i, x := range w {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

// goModeKey returns the key words and flags of h's mode for guts.
func (h *Hasher) goModeKey() ([8]uint32, uint32) {
	switch h.mode {
	case modeKeyed:
		return cvWords(&h.key), guts.FlagKeyedHash
	case modeDeriveKey:
		if !h.goPath() {
			return cvWords(&h.key), guts.FlagDeriveKeyMaterial // the context key
		}
		return goContextKey(h.context), guts.FlagDeriveKeyMaterial
	}
	return guts.IV, 0
}

// goContextKey is the context key of a derive-key context: the hash of the
// context in derive-key-context mode, which the key material is then hashed
// under.
func goContextKey(context string) [8]uint32 {
	var n guts.Node
	if len(context) <= guts.ChunkSize {
		n = guts.CompressChunk([]byte(context), &guts.IV, 0, guts.FlagDeriveKeyContext)
	} else {
		t := new(goTree)
		t.init(guts.IV, guts.FlagDeriveKeyContext, 0)
		t.write([]byte(context))
		n = t.node()
	}
	n.Flags |= guts.FlagRoot
	out := guts.CompressNode(n)
	return [8]uint32(out[:8])
}
