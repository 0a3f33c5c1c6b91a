package blake3

import (
	"math/rand/v2"
	"testing"

	"lukechampine.com/blake3/guts"
)

// TestOutputBlock checks outputBlock against lukechampine's CompressNode,
// the code it is, on random nodes and counters (both halves of the
// counter, every flag), and that it leaves the node as it was.
func TestOutputBlock(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		var n guts.Node
		for j := range n.CV {
			n.CV[j] = r.Uint32()
		}
		for j := range n.Block {
			n.Block[j] = r.Uint32()
		}
		n.Counter = r.Uint64() // ignored: the counter is outputBlock's argument
		n.BlockLen = uint32(r.IntN(guts.BlockSize + 1))
		n.Flags = r.Uint32() & 0x7f
		counter := r.Uint64() >> (r.IntN(4) * 16)
		if i == 0 {
			counter = 0
		}
		saved := n
		var got [guts.BlockSize]byte
		outputBlock(refOf(&n), counter, &got)
		if n != saved {
			t.Fatalf("node %d changed", i)
		}
		ref := n
		ref.Counter, ref.Flags = counter, n.Flags|guts.FlagRoot
		if want := guts.WordsToBytes(guts.CompressNode(ref)); got != want {
			t.Fatalf("node %d, counter %#x: %x, want %x", i, counter, got, want)
		}
	}
}
