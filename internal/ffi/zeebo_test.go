package ffi

import (
	"bytes"
	"math/bits"
	"testing"
	"time"

	zeebo "github.com/zeebo/blake3"
	"lukechampine.com/blake3/guts"
)

func TestZeeboOK(t *testing.T) {
	if !ZeeboOK() {
		t.Fatal("the layout of zeebo's hasher is not the one zeebo.go expects")
	}
}

func TestZeeboDigestOK(t *testing.T) {
	if !ZeeboDigestOK() {
		t.Fatal("the layout of zeebo's Digest is not the one zeebo.go expects")
	}
}

// TestZeeboDigestGuard: where the Digest's layout check fails, the mirror
// neither reads a zeebo Digest nor writes output.
func TestZeeboDigestGuard(t *testing.T) {
	defer zeeboDigestLayout.forget()()
	h := zeebo.New()
	if _, ok := ZeeboRoot(h.Digest()); ok {
		t.Error("ZeeboRoot without the layout check: a node")
	}
	p := []byte{7}
	if ZeeboOutput(new([8]uint32), new([16]uint32), 0, 0, 0, 0, p) || p[0] != 7 {
		t.Error("ZeeboOutput without the layout check: output")
	}
	if ZeeboBlockOutput(new([8]uint32), 0, []byte{1}, p) || p[0] != 7 {
		t.Error("ZeeboBlockOutput without the layout check: output")
	}
	if ZeeboChunkOutput(new([8]uint32), 0, []byte{1}, p) || p[0] != 7 {
		t.Error("ZeeboChunkOutput without the layout check: output")
	}
	x := ZeeboXOF{BlockLen: 1, Pos: 5}
	x.Out[0] = 7
	if was := x; x.SetChunk([]byte{1}, new([8]uint32), 0, 0) || x != was {
		t.Error("ZeeboXOF.SetChunk without the layout check: a node")
	}
	if was := x; x.Output(0) || x != was {
		t.Error("ZeeboXOF.Output without the layout check: output")
	}
	if was := x; x.Parent(new([32]byte), 0, new([8]uint32), 0) || x != was {
		t.Error("ZeeboXOF.Parent without the layout check: a node")
	}
}

// otherKey is the key the tests hash under beside the IV.
func otherKey() [8]uint32 {
	key := guts.IV
	key[0] ^= 0x5a5a5a5a
	return key
}

// patterned is n bytes of the pattern mul*i+add.
func patterned(n int, mul, add byte) []byte {
	in := make([]byte, n)
	for i := range in {
		in[i] = byte(i)*mul + add
	}
	return in
}

// TestZeeboXOF: Output computes the root output block at its counter where
// x holds the node, as lukechampine's portable compression gives it, for
// parent nodes and chunk nodes of every block length, in each mode's
// flags, with the IV and another key, at counters up to 2^64-1; and it
// leaves the node and the caller's position as they were, with no counter
// left behind (a second Output at counter 0 gives the first block again).
func TestZeeboXOF(t *testing.T) {
	if !xofLayout {
		t.Skip("ZeeboXOF is not laid out as zeebo's Digest on this platform (int narrower than 64 bits): Output refuses, as TestZeeboDigestGuard checks")
	}
	var block [16]uint32
	for i := range block {
		block[i] = uint32(i)*0x9e3779b9 + 1
	}
	key := otherKey()
	for _, cv := range []*[8]uint32{&guts.IV, &key} {
		for _, flags := range []uint32{guts.FlagParent, guts.FlagParent | guts.FlagKeyedHash, guts.FlagChunkStart | guts.FlagChunkEnd | guts.FlagDeriveKeyMaterial, guts.FlagChunkEnd} {
			for _, n := range []uint32{0, 1, 33, 63, 64} {
				x := ZeeboXOF{CV: *cv, Block: block, BlockLen: n, Flags: flags, Pos: uint64(n)*7 + 3}
				was := x
				for _, counter := range []uint64{0, 1, 5, 1<<32 + 1, 1<<57 - 1, 1 << 57, 1<<63 - 1, 1<<64 - 1, 0} {
					if !x.Output(counter) {
						t.Fatal("ZeeboXOF.Output: zeebo's Digest is not the layout known")
					}
					want := guts.WordsToBytes(guts.CompressNode(guts.Node{CV: *cv, Block: block, Counter: counter, BlockLen: n, Flags: flags | guts.FlagRoot}))
					if x.Out != want {
						t.Fatalf("key %x, flags %#x, length %d, counter %d: %x, want %x", cv[0], flags, n, counter, x.Out, want)
					}
					got := x
					got.Out = was.Out
					if got != was {
						t.Fatalf("key %x, flags %#x, length %d, counter %d: the node or position changed: %+v, was %+v", cv[0], flags, n, counter, got, was)
					}
				}
			}
		}
	}
}

// TestZeeboChunk: SetChunk's node is lukechampine's (guts.CompressChunk)
// for every length of a chunk, 0 to 1,024 bytes, in each mode's flags,
// with the IV and another key, at chunk counters up to the last below
// 2^57; it does not read past its chunk (the bytes after it differ), and
// allocates nothing. From 2^57 on, it declines.
func TestZeeboChunk(t *testing.T) {
	// chunkNode is SetChunk's node, with its counter, as guts has it.
	chunkNode := func(chunk []byte, key *[8]uint32, counter uint64, flags uint32) (guts.Node, bool) {
		var x ZeeboXOF
		if !x.SetChunk(chunk, key, counter, flags) {
			return guts.Node{}, false
		}
		return guts.Node{CV: x.CV, Block: x.Block, Counter: counter, BlockLen: x.BlockLen, Flags: x.Flags}, true
	}
	buf := make([]byte, guts.ChunkSize+guts.BlockSize)
	for i := range buf {
		buf[i] = byte(i%251) ^ 0x3c
	}
	key := otherKey()
	for _, cv := range []*[8]uint32{&guts.IV, &key} {
		for _, flags := range []uint32{0, guts.FlagKeyedHash, guts.FlagDeriveKeyContext, guts.FlagDeriveKeyMaterial} {
			for _, counter := range []uint64{0, 1, 7, 1<<32 + 1, 1<<54 - 1, 1<<57 - 1} {
				for n := 0; n <= guts.ChunkSize; n++ {
					if n > 2*guts.BlockSize+1 && n%7 != 0 && n < guts.ChunkSize-guts.BlockSize && counter > 1 {
						continue // every length at counters 0 and 1; a seventh elsewhere
					}
					got, ok := chunkNode(buf[:n], cv, counter, flags)
					if want := guts.CompressChunk(buf[:n], cv, counter, flags); !ok || got != want {
						t.Fatalf("key %x, flags %#x, counter %d, %d bytes: %v, %+v; want %+v", cv[0], flags, counter, n, ok, got, want)
					}
				}
			}
		}
	}
	for _, n := range []int{0, 64, 65, 1000, 1024} {
		a, _ := chunkNode(buf[:n], &key, 3, 0)
		buf[n] ^= 0xff
		b, _ := chunkNode(buf[:n], &key, 3, 0)
		buf[n] ^= 0xff
		if a != b {
			t.Errorf("%d bytes: the node changed with the byte after the chunk", n)
		}
		if allocs := testing.AllocsPerRun(20, func() { _, _ = chunkNode(buf[:n], &key, 3, 0) }); allocs != 0 {
			t.Errorf("%d bytes: %v allocations, want 0", n, allocs)
		}
	}
	for _, counter := range []uint64{1 << 57, 1<<64 - 1} {
		if n, ok := chunkNode(buf[:100], &key, counter, 0); ok || n != (guts.Node{}) {
			t.Errorf("counter %#x: %v, %+v; want no node", counter, ok, n)
		}
	}
}

// TestZeeboChunkOutput: ZeeboChunkOutput's output is the root output of
// the chunk's node, as lukechampine's code gives it, block after block,
// for inputs of 0 bytes to a chunk, in each mode's flags, with the IV and
// another key, for reads that end within the first block, at its end and
// past it; it writes no byte past p. SetChunk sets the same node where a
// ZeeboXOF holds it, and keeps its position.
func TestZeeboChunkOutput(t *testing.T) {
	in := patterned(guts.ChunkSize, 5, 3)
	key := otherKey()
	for _, cv := range []*[8]uint32{&guts.IV, &key} {
		for _, flags := range []uint32{0, guts.FlagKeyedHash, guts.FlagDeriveKeyContext} {
			for _, n := range []int{0, 1, 63, 64, 65, 128, 129, 500, guts.ChunkSize - 1, guts.ChunkSize} {
				node := guts.CompressChunk(in[:n], cv, 0, flags)
				node.Flags |= guts.FlagRoot
				var want []byte
				for i := range 3 {
					node.Counter = uint64(i)
					b := guts.WordsToBytes(guts.CompressNode(node))
					want = append(want, b[:]...)
				}
				for _, k := range []int{0, 1, 32, 64, 65, 3 * guts.BlockSize} {
					p := bytes.Repeat([]byte{0xee}, k+1)
					if !ZeeboChunkOutput(cv, flags, in[:n], p[:k]) {
						t.Fatal("ZeeboChunkOutput: zeebo's Digest is not the layout known")
					}
					if !bytes.Equal(p[:k], want[:k]) || p[k] != 0xee {
						t.Fatalf("key %x, flags %#x, %d bytes, a read of %d: %x, want %x and one byte untouched", cv[0], flags, n, k, p, want[:k])
					}
				}
				x := ZeeboXOF{Pos: 77}
				if !x.SetChunk(in[:n], cv, 0, flags) {
					t.Fatal("SetChunk: zeebo's Digest is not the layout known")
				}
				node.Counter, node.Flags = 0, node.Flags&^guts.FlagRoot
				if got := (guts.Node{CV: x.CV, Block: x.Block, BlockLen: x.BlockLen, Flags: x.Flags}); got != node || x.Pos != 77 || x.counter != 0 {
					t.Fatalf("key %x, flags %#x, %d bytes: SetChunk %+v, position %d, counter %d; want %+v, 77, 0", cv[0], flags, n, got, x.Pos, x.counter, node)
				}
			}
		}
	}
}

// TestZeeboParent: SetChunk at a chunk counter sets lukechampine's node
// there, and Parent then sets the parent of a left child and that node's
// chaining value, as lukechampine's code makes it (guts.ParentNode from
// guts.ChainingValue), for chunk nodes of lengths around a block and a
// chunk at counters up to the last below 2^57, and for parent nodes, in
// each mode's flags, with the IV and another key; both keep the caller's
// position, leave no counter behind, and allocate nothing. From 2^57 on
// both decline, and change nothing.
func TestZeeboParent(t *testing.T) {
	in := patterned(guts.ChunkSize, 11, 5)
	left := [32]byte(patterned(32, 3, 9))
	key := otherKey()
	for _, cv := range []*[8]uint32{&guts.IV, &key} {
		for _, flags := range []uint32{0, guts.FlagKeyedHash, guts.FlagDeriveKeyMaterial} {
			for _, counter := range []uint64{0, 1, 6, 1<<32 + 1, 1<<54 - 1, 1<<57 - 1} {
				for _, n := range []int{0, 1, 64, 65, 500, guts.ChunkSize} {
					x := ZeeboXOF{Pos: 99}
					if !x.SetChunk(in[:n], cv, counter, flags) {
						t.Fatal("SetChunk: zeebo's Digest is not the layout known")
					}
					node := guts.CompressChunk(in[:n], cv, counter, flags)
					if got := (guts.Node{CV: x.CV, Block: x.Block, Counter: counter, BlockLen: x.BlockLen, Flags: x.Flags}); got != node || x.Pos != 99 || x.counter != 0 {
						t.Fatalf("key %x, flags %#x, counter %d, %d bytes: SetChunk %+v, position %d, counter %d; want %+v, 99, 0", cv[0], flags, counter, n, got, x.Pos, x.counter, node)
					}
					var lw [8]uint32
					CVWords(&lw, &left)
					for level, c := range []uint64{counter, 0, 0} {
						if !x.Parent(&left, c, cv, flags) {
							t.Fatal("Parent: zeebo's Digest is not the layout known")
						}
						node = guts.ParentNode(lw, guts.ChainingValue(node), cv, flags)
						if got := (guts.Node{CV: x.CV, Block: x.Block, BlockLen: x.BlockLen, Flags: x.Flags}); got != node || x.Pos != 99 || x.counter != 0 {
							t.Fatalf("key %x, flags %#x, counter %d, %d bytes, level %d: Parent %+v, position %d, counter %d; want %+v, 99, 0", cv[0], flags, counter, n, level, got, x.Pos, x.counter, node)
						}
					}
				}
			}
		}
	}
	var x ZeeboXOF
	if a := testing.AllocsPerRun(20, func() {
		x.SetChunk(in[:300], &key, 5, 0)
		x.Parent(&left, 5, &key, 0)
	}); a != 0 {
		t.Errorf("%v allocations, want 0", a)
	}
	x = ZeeboXOF{CV: key, BlockLen: 7, Pos: 3}
	for _, counter := range []uint64{1 << 57, 1<<64 - 1} {
		if was := x; x.SetChunk(in[:100], &key, counter, 0) || x.Parent(&left, counter, &key, 0) || x != was {
			t.Errorf("counter %#x: SetChunk or Parent set a node, or changed x", counter)
		}
	}
}

// TestZeeboBlockOutput: ZeeboBlockOutput's output is the root output of
// its block, as lukechampine's portable compression gives it, block after
// block: at every length of the block, in each mode's flags, with the IV
// and with another key, for reads that end within the first block, at its
// end and past it; and it writes no byte past p.
func TestZeeboBlockOutput(t *testing.T) {
	in := patterned(guts.BlockSize, 3, 1)
	key := otherKey()
	for _, cv := range []*[8]uint32{&guts.IV, &key} {
		for _, flags := range []uint32{0, guts.FlagKeyedHash, guts.FlagDeriveKeyMaterial} {
			for n := 0; n <= len(in); n++ {
				var words [64]byte
				copy(words[:], in[:n])
				node := guts.Node{CV: *cv, Block: guts.BytesToWords(words), BlockLen: uint32(n), Flags: guts.FlagChunkStart | guts.FlagChunkEnd | guts.FlagRoot | flags}
				var want []byte
				for i := range 3 {
					node.Counter = uint64(i)
					b := guts.WordsToBytes(guts.CompressNode(node))
					want = append(want, b[:]...)
				}
				for _, k := range []int{0, 1, 32, 63, 64, 65, 3 * guts.BlockSize} {
					p := bytes.Repeat([]byte{0xee}, k+1)
					if !ZeeboBlockOutput(cv, flags, in[:n], p[:k]) {
						t.Fatal("ZeeboBlockOutput: zeebo's Digest is not the layout known")
					}
					if !bytes.Equal(p[:k], want[:k]) || p[k] != 0xee {
						t.Fatalf("key %x, flags %#x, %d bytes, a read of %d: %x, want %x and one byte untouched", cv[0], flags, n, k, p, want[:k])
					}
				}
			}
		}
	}
}

// TestZeeboGuard: where the layout check fails, the mirror refuses to read
// or write a zeebo hasher (a panic, not writes through the wrong layout),
// whatever its caller checked.
func TestZeeboGuard(t *testing.T) {
	defer zeeboLayout.forget()()
	for name, f := range map[string]func(){
		"ZeeboImport": func() { ZeeboImport(&ZeeboState{Flags: 1 << 4}) },
		"ZeeboExport": func() { ZeeboExport(zeebo.New()) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s without the layout check: no panic", name)
				}
			}()
			f()
		}()
	}
	if _, ok := ZeeboLen(zeebo.New()); ok {
		t.Error("ZeeboLen without the layout check: ok")
	}
}

// TestZeeboNew: a hasher from ZeeboNew hashes as zeebo.New's does (its
// Sum, of New's size), though the one given back before it (most likely
// the same one) was keyed, of another size, had hashed more than a batch
// and was left unfinished; one given back has its key cleared; and with
// the layout check failing there is none.
func TestZeeboNew(t *testing.T) {
	in, _, kw := checkInput(3*8192 + 100)
	for range 3 {
		h := ZeeboNew()
		if h == nil {
			t.Fatal("ZeeboNew: nil with the layout known")
		}
		_, _ = h.Write([]byte("abc"))
		if got, want := h.Sum(nil), zeebo.Sum256([]byte("abc")); string(got) != string(want[:]) {
			t.Fatalf("ZeeboNew's hasher: %x, want %x", got, want)
		}
		v := view(h)
		v.h.key, v.h.flags, v.size = kw, guts.FlagKeyedHash, 64
		_, _ = h.Write(in)
		ZeeboFree(h)
		if v.h.key != [8]uint32{} { // read after it is given back: no one else gets it here
			t.Fatalf("a hasher given back keeps its key: %x", v.h.key)
		}
	}
	defer zeeboLayout.forget()()
	if h := ZeeboNew(); h != nil {
		t.Error("ZeeboNew without the layout check: a hasher")
	}
}

// TestLayoutCheck: a layout check runs once, whoever calls first, and the
// callers beside it wait for its result, as does one that calls first
// after it (having read the state before it ended); a check that panics
// leaves the layout unknown, with no panic; forget makes it unknown until
// its restore.
func TestLayoutCheck(t *testing.T) {
	runs := 0
	entered, release := make(chan struct{}), make(chan struct{})
	c := layoutCheck{check: func() bool {
		runs++
		close(entered)
		<-release
		return true
	}}
	results, calling := make(chan bool), make(chan struct{})
	go func() { results <- c.ok() }()
	<-entered
	for range 3 {
		go func() {
			calling <- struct{}{}
			results <- c.ok()
		}()
	}
	for range 3 {
		<-calling
	}
	time.Sleep(20 * time.Millisecond) // the three, about to call ok, call it while the check runs
	close(release)
	for range 4 {
		if !<-results {
			t.Error("a caller beside the check's first got false for a layout that is known")
		}
	}
	if runs != 1 || !c.ok() || runs != 1 {
		t.Errorf("the check ran %d times; want once", runs)
	}
	// A caller that read the state before the check ended calls first
	// after it: it gets the check's result, and leaves it as it was.
	if !c.first() || !c.ok() {
		t.Error("first called after the check: the layout not known")
	}
	restore := c.forget()
	if c.ok() {
		t.Error("ok after forget")
	}
	restore()
	if !c.ok() {
		t.Error("not ok after forget's restore")
	}

	p := layoutCheck{check: func() bool { panic("a field laid out otherwise") }}
	for range 2 { // its first call, and one after
		if p.ok() {
			t.Error("a check that panicked: the layout known")
		}
	}
	if p.state.Load() != layoutUnknown {
		t.Errorf("a check that panicked left state %d; want layoutUnknown", p.state.Load())
	}

	// forget while the first check runs (the dispatch's measurement may
	// make it): it waits for the check, whose result would else land over
	// the forgetting, and the restore over the result.
	entered, release = make(chan struct{}), make(chan struct{})
	u := layoutCheck{check: func() bool {
		close(entered)
		<-release
		return true
	}}
	go func() { results <- u.ok() }()
	<-entered
	go func() {
		time.Sleep(20 * time.Millisecond)
		close(release)
	}()
	restore = u.forget()
	<-results // the check is done
	if u.ok() {
		t.Error("ok during a forget that began while the check ran")
	}
	restore()
	if !u.ok() {
		t.Error("not ok after the restore of a forget that began while the check ran")
	}

	f := layoutCheck{check: func() bool { return false }}
	if f.ok() || f.state.Load() != layoutUnknown {
		t.Error("a check that failed: the layout known")
	}
	restore = f.forget()
	restore()
	if f.ok() {
		t.Error("a failed check known after forget's restore")
	}
}

// TestZeeboFrontAnyCount: ZeeboFront after any count of chunks (not only
// zeebo's batches of 8: fold gives it 1 to 3), with the input after them
// whole in a, or split between a and b, in plain and keyed mode, returns
// the count of chunks before the last, their subtrees' chaining values and
// the root node that lukechampine's portable code computes chunk by chunk;
// and refuses, with stack as it was, a count past its stack, and an input
// of a chunk or less.
func TestZeeboFrontAnyCount(t *testing.T) {
	in := make([]byte, 60<<10)
	for i := range in {
		in[i] = byte(i % 251)
	}
	key := guts.IV
	key[3] ^= 0x01020304
	for _, mode := range []struct {
		key   *[8]uint32
		flags uint32
	}{{&guts.IV, 0}, {&key, guts.FlagKeyedHash}} {
		kw, flags := mode.key, mode.flags
		// ref is the stack of the first c chunks of in, and the root node
		// of its first n bytes.
		ref := func(c uint64, n int) (st [64][8]uint32, root guts.Node) {
			st = refStack(in, kw, flags, c)
			last := uint64((n - 1) / 1024)
			full := refStack(in, kw, flags, last)
			root = guts.CompressChunk(in[last*1024:n], kw, last, flags)
			for rest := last; rest != 0; rest &= rest - 1 {
				root = guts.ParentNode(full[bits.TrailingZeros64(rest)], guts.ChainingValue(root), kw, flags)
			}
			return st, root
		}
		for _, c := range []uint64{0, 1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33} {
			for _, n := range []int{1, 63, 64, 65, 1023, 1024, 1025, 2048, 3000, 9000, 17000} {
				total := int(c)*1024 + n
				before, _ := ref(c, total)
				for _, cut := range []int{n, n / 3} {
					stack := make([][8]uint32, 64)
					for i := range 64 {
						if c&(1<<i) != 0 {
							stack[i] = before[i]
						}
					}
					a, b := in[c*1024:int(c)*1024+cut], in[int(c)*1024+cut:total]
					chunks, root, ok := ZeeboFront(kw, flags, c, stack, a, b)
					if total <= 1024 {
						if ok {
							t.Errorf("flags %#x, %d chunks and %d bytes: ok for a chunk or less", flags, c, n)
						}
						continue
					}
					want := uint64((total - 1) / 1024)
					wantStack, wantRoot := ref(want, total)
					wantRoot.Flags |= guts.FlagRoot // as zeebo's Digest holds it
					if !ok || chunks != want || root != wantRoot {
						t.Fatalf("flags %#x, %d chunks and %d bytes (cut %d): %d chunks, ok %v, root %v; want %d chunks, root %v", flags, c, n, cut, chunks, ok, root.CV[:2], want, wantRoot.CV[:2])
					}
					for i := range 64 {
						if chunks&(1<<i) != 0 && stack[i] != wantStack[i] {
							t.Fatalf("flags %#x, %d chunks and %d bytes: the value of bit %d of %d chunks differs", flags, c, n, i, chunks)
						}
					}
				}
			}
		}
		// A stack too short for the count given, or for the count after.
		short := make([][8]uint32, 2)
		short[0][0] = 7
		if _, _, ok := ZeeboFront(kw, flags, 4, short, in[:10], nil); ok || short[0][0] != 7 {
			t.Errorf("flags %#x: a count of 4 with a stack of 2: ok %v, stack changed %v", flags, ok, short[0][0] != 7)
		}
		if _, _, ok := ZeeboFront(kw, flags, 3, short, in[:2048], nil); ok {
			t.Errorf("flags %#x: 3 chunks and 2 more with a stack of 2: ok", flags)
		}
	}
}

// refStack is the stack of the first c chunks of in, with lukechampine's
// portable code: the chaining value of the subtree of bit i of c in [i].
func refStack(in []byte, kw *[8]uint32, flags uint32, c uint64) [64][8]uint32 {
	var st [64][8]uint32
	for i := range c {
		cv := guts.ChainingValue(guts.CompressChunk(in[i*1024:(i+1)*1024], kw, i, flags))
		lvl := 0
		for k := i; k&1 == 1; k >>= 1 {
			cv = guts.ChainingValue(guts.ParentNode(st[lvl], cv, kw, flags))
			lvl++
		}
		st[lvl] = cv
	}
	return st
}
