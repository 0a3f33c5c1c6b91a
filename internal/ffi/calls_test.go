//go:build !blake3_nonative && linux && !android && (amd64 || arm64)

package ffi

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"
	"time"
	"unsafe"

	zeebo "github.com/zeebo/blake3"
	"lukechampine.com/blake3/guts"
)

// The official test vectors' key and context.
const (
	vectorKey     = "whats the Elvish word for friend"
	vectorContext = "BLAKE3 2019-12-27 16:29:52 test vectors context"
)

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

// oracle is zeebo's output of in, in mode m, from offset seek.
func oracle(m uint32, in []byte, seek int64, n int) []byte {
	var h *zeebo.Hasher
	switch m {
	case ModeKeyed:
		h, _ = zeebo.NewKeyed([]byte(vectorKey))
	case ModeDeriveKey:
		h = zeebo.NewDeriveKey(vectorContext)
	default:
		h = zeebo.New()
	}
	_, _ = h.Write(in)
	d := h.Digest()
	_, _ = d.Seek(seek, 0)
	out := make([]byte, n)
	_, _ = d.Read(out)
	return out
}

// modeKey is the key a mode's calls take: the vectors' key, or the context
// key of their context.
func modeKey(t *testing.T, s *Symbols, m uint32) *[32]byte {
	switch m {
	case ModeKeyed:
		return (*[32]byte)([]byte(vectorKey))
	case ModeDeriveKey:
		var k [32]byte
		if rc := s.ContextKey(vectorContext, &k); rc != OK {
			t.Fatalf("context key: %v", rc)
		}
		return &k
	}
	return nil
}

func check(t *testing.T, what string, rc Code, got, want []byte) {
	t.Helper()
	if rc != OK || !bytes.Equal(got, want) {
		t.Errorf("%s: %v, %x…; want %x…", what, rc, got[:min(8, len(got))], want[:min(8, len(want))])
	}
}

// TestCallsIdentity: what the library says of itself.
func TestCallsIdentity(t *testing.T) {
	s := testLibrary(t)
	if v := s.ABI(); v != ABIVersion {
		t.Errorf("abi_version %d", v)
	}
	if v := s.CrateVersion(); v != "1.8.1" {
		t.Errorf("crate_version %q", v)
	}
	if v := s.SIMD(); !map[string]bool{"avx512": true, "avx2": true, "sse41": true, "sse2": true, "neon": true, "portable": true}[v] {
		t.Errorf("simd %q", v)
	}
}

// TestCallsOneShot: hash, keyed_hash, derive_key and hash_xof, on one
// thread and on the pool, against zeebo.
func TestCallsOneShot(t *testing.T) {
	s := testLibrary(t)
	if rc := s.InitThreads(2); rc != OK {
		t.Fatalf("init_threads(2): %v", rc)
	}
	if n := s.NumThreads(); n != 2 {
		t.Errorf("num_threads %d, want 2", n)
	}
	for _, n := range []int{0, 1, 1024, 1025, 40000, 3 << 20} {
		in := pattern(n)
		out := make([]byte, 100)
		check(t, "hash", s.Hash(in, out), out, oracle(ModeHash, in, 0, 100))
		check(t, "keyed_hash", s.KeyedHash((*[32]byte)([]byte(vectorKey)), in, out), out, oracle(ModeKeyed, in, 0, 100))
		check(t, "derive_key", s.DeriveKey(vectorContext, in, out), out, oracle(ModeDeriveKey, in, 0, 100))
		for m := range uint32(3) {
			for _, par := range []bool{false, true} {
				check(t, "hash_xof", s.HashXOF(m, modeKey(t, s, m), par, in, 1<<40+3, out), out, oracle(m, in, 1<<40+3, 100))
			}
		}
	}
	out := make([]byte, 32)
	if rc := s.DeriveKey("\xff\xfe", nil, out); rc != ErrContextUTF8 {
		t.Errorf("derive_key with a context that is not UTF-8: %v, want %v", rc, ErrContextUTF8)
	}
	if rc := s.HashXOF(ModeKeyed, nil, false, nil, 0, out); rc != ErrNull {
		t.Errorf("hash_xof keyed without a key: %v, want %v", rc, ErrNull)
	}
	if rc := s.HashXOF(3, nil, false, nil, 0, out); rc != ErrLength {
		t.Errorf("hash_xof in mode 3: %v, want %v", rc, ErrLength)
	}
	if rc := s.Hash(nil, nil); rc != OK {
		t.Errorf("hash(NULL, 0, NULL, 0): %v", rc)
	}
}

// TestCallsTreeLayout: the tree holds what the header says it holds, the
// chaining values of the complete subtrees, at the heights of the bits of
// Chunks, as lukechampine's primitives compute them.
func TestCallsTreeLayout(t *testing.T) {
	s := testLibrary(t)
	in := pattern(100 << 10)
	var tr Tree
	if rc := s.TreeInit(&tr, ModeHash, nil, 0); rc != OK {
		t.Fatal(rc)
	}
	if tr.Magic != TreeMagic || tr.Mode != ModeHash || tr.Offset != 0 || tr.Chunks != 0 {
		t.Fatalf("tree after init: %+v", tr)
	}
	const chunks = 37 // 32 + 4 + 1
	if rc := s.TreeUpdate(&tr, in[:chunks*1024], false); rc != OK {
		t.Fatal(rc)
	}
	if tr.Chunks != chunks {
		t.Fatalf("chunks %d, want %d", tr.Chunks, chunks)
	}
	at := uint64(0)
	for h := 63; h >= 0; h-- {
		if tr.Chunks&(1<<h) == 0 {
			continue
		}
		n := uint64(1) << h
		want := subtreeCV(in[at*1024:(at+n)*1024], at)
		if tr.Stack[h] != want {
			t.Errorf("stack[%d] (chunks %d..%d): %x, want %x", h, at, at+n, tr.Stack[h], want)
		}
		at += n
	}
}

// subtreeCV is the chaining value of the subtree data at chunk counter c,
// by lukechampine's primitives.
func subtreeCV(data []byte, c uint64) [32]byte {
	var n guts.Node
	if len(data) <= guts.ChunkSize {
		n = guts.CompressChunk(data, &guts.IV, c, 0)
	} else {
		n = guts.CompressEigentree(data, &guts.IV, c, 0)
	}
	var b [32]byte
	for i, w := range guts.ChainingValue(n) {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

// TestCallsTree: any input cut anywhere on chunk boundaries, in every mode,
// on one thread and on the pool, finalized, through the root's children,
// and as subtrees, against zeebo.
func TestCallsTree(t *testing.T) {
	s := testLibrary(t)
	if rc := s.InitThreads(2); rc != OK {
		t.Fatal(rc)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	in := pattern(5<<20 + 3000)
	for round := range 60 {
		n := []int{0, 1, 1024, 1025, 2048, 16384, 16385, 3 << 20}[round%8]
		if round >= 8 {
			n = rng.IntN(len(in))
		}
		m := uint32(round % 3)
		key := modeKey(t, s, m)
		var tr Tree
		if rc := s.TreeInit(&tr, m, key, 0); rc != OK {
			t.Fatal(rc)
		}
		done := 0
		for done < n {
			k := min(n-done, rng.IntN(3)*(rng.IntN(1<<uint(rng.IntN(22)))+1))
			k = k / 1024 * 1024
			if done+k == n || k == 0 {
				break
			}
			if rc := s.TreeUpdate(&tr, in[done:done+k], rng.IntN(2) == 0); rc != OK {
				t.Fatalf("update: %v", rc)
			}
			done += k
		}
		// The rest but the last chunk's bytes, so that the tail is no longer
		// than the smallest subtree, as the header asks.
		if rest := (n - done - 1) / 1024 * 1024; n > done && rest > 0 {
			if rc := s.TreeUpdate(&tr, in[done:done+rest], false); rc != OK {
				t.Fatalf("update: %v", rc)
			}
			done += rest
		}
		tail := in[done:n]
		out := make([]byte, 64)
		want := oracle(m, in[:n], 5, 64)
		check(t, "tree_finalize", s.TreeFinalize(&tr, tail, 5, out), out, want)
		var l, r [32]byte
		if rc := s.TreeRoot(&tr, tail, &l, &r); n <= 1024 {
			if rc != ErrLength {
				t.Errorf("tree_root of %d bytes: %v, want %v", n, rc, ErrLength)
			}
		} else {
			if rc != OK {
				t.Fatalf("tree_root of %d bytes: %v", n, rc)
			}
			check(t, "tree_root + merge_root", s.MergeRoot(&l, &r, m, key, 5, out), out, want)
		}
	}
}

// TestCallsTreeUpdateLast: tree_update_last against tree_update of all but
// the last chunk and tree_finalize_non_root of that chunk, in every mode,
// on trees at offset 0 and at offsets past it holding some chunks already,
// with 1 to 20 chunks (one pass up to 16, the crate's subtrees past it).
func TestCallsTreeUpdateLast(t *testing.T) {
	s := testLibrary(t)
	rng := rand.New(rand.NewPCG(3, 4))
	in := pattern(64 << 10)
	// same reports whether a and b describe one input: their header and the
	// stack entries their count of chunks uses (the others are left over).
	same := func(a, b *Tree) bool {
		if a.Mode != b.Mode || a.Key != b.Key || a.Offset != b.Offset || a.Chunks != b.Chunks {
			return false
		}
		for i := range a.Stack {
			if a.Chunks&(1<<i) != 0 && a.Stack[i] != b.Stack[i] {
				return false
			}
		}
		return true
	}
	for round := range 240 {
		m := uint32(round % 3)
		key := modeKey(t, s, m)
		chunks, before := 1+round%20, rng.IntN(24)
		var offset uint64
		if round%4 >= 2 {
			offset = uint64(1+rng.IntN(4)) << 20 // room for 1 MiB
		}
		var a, b, c Tree
		for _, tr := range []*Tree{&a, &b} {
			if rc := s.TreeInit(tr, m, key, offset); rc != OK {
				t.Fatal(rc)
			}
			if rc := s.TreeUpdate(tr, in[:before*1024], false); rc != OK {
				t.Fatal(rc)
			}
		}
		p := in[before*1024 : (before+chunks)*1024]
		var last, want [32]byte
		if rc := s.TreeUpdateLast(&a, p, &last); rc != OK {
			t.Fatalf("round %d: tree_update_last of %d chunks after %d: %v", round, chunks, before, rc)
		}
		if rc := s.TreeUpdate(&b, p[:len(p)-1024], false); rc != OK {
			t.Fatal(rc)
		}
		if rc := s.TreeInit(&c, m, key, offset+uint64(before+chunks-1)*1024); rc != OK {
			t.Fatal(rc)
		}
		if rc := s.TreeFinalizeNonRoot(&c, p[len(p)-1024:], &want); rc != OK {
			t.Fatal(rc)
		}
		if !same(&a, &b) || last != want {
			t.Fatalf("round %d, mode %d, offset %d: tree_update_last of %d chunks after %d: tree as tree_update's %v, last chunk's value %x, want %x",
				round, m, offset, chunks, before, same(&a, &b), last[:8], want[:8])
		}
	}
	var tr Tree
	var cv [32]byte
	expect := func(what string, got, want Code) {
		t.Helper()
		if got != want {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}
	expect("tree_update_last of an uninitialized tree", s.TreeUpdateLast(&tr, in[:1024], &cv), ErrState)
	expect("init at 4096", s.TreeInit(&tr, ModeHash, nil, 4096), OK)
	expect("tree_update_last of nothing", s.TreeUpdateLast(&tr, nil, &cv), ErrLength)
	expect("tree_update_last of part of a chunk", s.TreeUpdateLast(&tr, in[:1000], &cv), ErrLength)
	expect("tree_update_last past MaxSubtreeLen", s.TreeUpdateLast(&tr, in[:8192], &cv), ErrSubtreeTooLarge)
	expect("tree_update_last of a whole subtree", s.TreeUpdateLast(&tr, in[:4096], &cv), OK)
	if tr.Chunks != 3 {
		t.Errorf("tree_update_last of 4 chunks left %d in the tree, want 3", tr.Chunks)
	}
}

// TestCallsShortTails: the inputs of 2 to 17 chunks, whole or not, whose
// chunks tree_root (the input as the tail of an empty tree) and tree_finalize
// (as the tail of a tree of 16 chunks) hash in one pass, against the oracle.
func TestCallsShortTails(t *testing.T) {
	s := testLibrary(t)
	rng := rand.New(rand.NewPCG(5, 6))
	in := pattern(64 << 10)
	for round := range 192 {
		m := uint32(round % 3)
		key := modeKey(t, s, m)
		n := (2+round%16)*1024 - rng.IntN(1024)
		var tr Tree
		var l, r [32]byte
		out := make([]byte, 64)
		if rc := s.TreeInit(&tr, m, key, 0); rc != OK {
			t.Fatal(rc)
		}
		if rc := s.TreeRoot(&tr, in[:n], &l, &r); rc != OK {
			t.Fatalf("tree_root of %d bytes: %v", n, rc)
		}
		check(t, fmt.Sprintf("tree_root of %d bytes + merge_root", n), s.MergeRoot(&l, &r, m, key, 3, out), out, oracle(m, in[:n], 3, 64))
		if rc := s.TreeUpdate(&tr, in[:16<<10], false); rc != OK {
			t.Fatal(rc)
		}
		if n > 16<<10 {
			continue // longer than the tree's smallest subtree
		}
		whole := in[:16<<10+n]
		check(t, fmt.Sprintf("tree_finalize of 16 chunks and %d bytes", n), s.TreeFinalize(&tr, whole[16<<10:], 3, out), out, oracle(m, whole, 3, 64))
	}
}

// TestCallsRootOutput: root_output of the root nodes of real inputs (a
// chunk's last block, a parent node), in each mode, against zeebo's output
// of the input; and the node's layout and the codes.
func TestCallsRootOutput(t *testing.T) {
	s := testLibrary(t)
	if n := unsafe.Sizeof(node{}); n != 104 {
		t.Errorf("node is %d bytes, the header's 104", n)
	}
	in := pattern(2048)
	for _, m := range []uint32{ModeHash, ModeKeyed, ModeDeriveKey} {
		kw, flags := guts.IV, uint32(0)
		if k := modeKey(t, s, m); k != nil {
			kw = words(k)
			flags = map[uint32]uint32{ModeKeyed: guts.FlagKeyedHash, ModeDeriveKey: guts.FlagDeriveKeyMaterial}[m]
		}
		for _, n := range []int{0, 1, 64, 65, 700, 1024, 1025, 1500, 2048} {
			var root guts.Node
			if n <= 1024 {
				root = guts.CompressChunk(in[:n], &kw, 0, flags)
			} else {
				l := guts.ChainingValue(guts.CompressChunk(in[:1024], &kw, 0, flags))
				r := guts.ChainingValue(guts.CompressChunk(in[1024:n], &kw, 1, flags))
				root = guts.ParentNode(l, r, &kw, flags)
			}
			for _, c := range []struct{ seek, n int }{{0, 32}, {0, 64}, {5, 1}, {63, 2}, {0, 16 * 64}, {7, 3*16*64 + 100}, {1 << 40, 200}} {
				out := make([]byte, c.n)
				check(t, fmt.Sprintf("root_output, mode %d, %d bytes, from %d, %d bytes", m, n, c.seek, c.n), s.RootOutput(root, uint64(c.seek), out), out, oracle(m, in[:n], int64(c.seek), c.n))
			}
		}
	}
	bad := guts.Node{BlockLen: 65}
	if rc := s.RootOutput(bad, 0, make([]byte, 32)); rc != ErrLength {
		t.Errorf("root_output of block_len 65: %v, want %v", rc, ErrLength)
	}
	bad = guts.Node{Flags: 0x80}
	if rc := s.RootOutput(bad, 0, make([]byte, 32)); rc != ErrFlags {
		t.Errorf("root_output of flags 0x80: %v, want %v", rc, ErrFlags)
	}
	if rc := Code(call(&cArgs{fn: s.rootOutput, n: 4, a: [7]arg{{}, intArg(0), {}, intArg(0)}})); rc != ErrNull {
		t.Errorf("root_output of NULL: %v, want %v", rc, ErrNull)
	}
}

// TestCallsSubtrees: trees with input offsets, merged, against the hash of
// the whole; and the length helpers.
func TestCallsSubtrees(t *testing.T) {
	s := testLibrary(t)
	in := pattern(3 * 1024)
	var left, right, cv [32]byte
	var tr Tree
	for i, c := range []*[32]byte{&left, &right} {
		rc := s.TreeInit(&tr, ModeHash, nil, uint64(i*1024))
		if rc == OK {
			rc = s.TreeFinalizeNonRoot(&tr, in[i*1024:(i+1)*1024], c)
		}
		if rc != OK {
			t.Fatalf("chunk %d: %v", i, rc)
		}
	}
	if rc := s.MergeNonRoot(&left, &right, ModeHash, nil, &cv); rc != OK {
		t.Fatal(rc)
	}
	var third [32]byte
	rc := s.TreeInit(&tr, ModeHash, nil, 2048)
	if rc == OK {
		rc = s.TreeFinalizeNonRoot(&tr, in[2048:3000], &third)
	}
	out := make([]byte, 40)
	if rc == OK {
		rc = s.MergeRoot(&cv, &third, ModeHash, nil, 5, out)
	}
	check(t, "merge_non_root + merge_root(seek 5) of a 3-chunk tree", rc, out, oracle(ModeHash, in[:3000], 5, 40))
	var m uint64
	if rc := s.MaxSubtreeLen(3*1024, &m); rc != OK || m != 1024 {
		t.Errorf("max_subtree_len(3072): %v, %d", rc, m)
	}
	if rc := s.LeftSubtreeLen(3000, &m); rc != OK || m != 2048 {
		t.Errorf("left_subtree_len(3000): %v, %d", rc, m)
	}
	if rc := s.LeftSubtreeLen(^uint64(0), &m); rc != OK || m != 1<<63 {
		t.Errorf("left_subtree_len(2^64-1): %v, %d; want 2^63", rc, m)
	}
}

// TestCallsTreeErrors: the contract's error codes for trees.
func TestCallsTreeErrors(t *testing.T) {
	s := testLibrary(t)
	in := pattern(64 << 10)
	var tr Tree
	var cv, l, r [32]byte
	out := make([]byte, 32)
	expect := func(what string, got, want Code) {
		t.Helper()
		if got != want {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
	}
	expect("update of an uninitialized tree", s.TreeUpdate(&tr, in[:1024], false), ErrState)
	expect("init in mode 3", s.TreeInit(&tr, 3, nil, 0), ErrLength)
	expect("init keyed without a key", s.TreeInit(&tr, ModeKeyed, nil, 0), ErrNull)
	expect("init at an unaligned offset", s.TreeInit(&tr, ModeHash, nil, 1000), ErrOffsetUnaligned)
	expect("init at 4096", s.TreeInit(&tr, ModeHash, nil, 4096), OK)
	expect("update of part of a chunk", s.TreeUpdate(&tr, in[:1000], false), ErrLength)
	expect("update past MaxSubtreeLen", s.TreeUpdate(&tr, in[:8192], false), ErrSubtreeTooLarge)
	expect("finalize of a subtree with an offset", s.TreeFinalize(&tr, in[:1], 0, out), ErrRootWithOffset)
	expect("root of a subtree with an offset", s.TreeRoot(&tr, in[:1], &l, &r), ErrRootWithOffset)
	expect("non-root finalize of nothing", s.TreeFinalizeNonRoot(&tr, nil, &cv), ErrEmptySubtree)
	expect("non-root finalize past MaxSubtreeLen", s.TreeFinalizeNonRoot(&tr, in[:4097], &cv), ErrSubtreeTooLarge)
	expect("init at 0", s.TreeInit(&tr, ModeHash, nil, 0), OK)
	expect("update of 2 chunks", s.TreeUpdate(&tr, in[:2048], false), OK)
	expect("finalize of one subtree and no tail", s.TreeFinalize(&tr, nil, 0, out), ErrLength)
	expect("tail longer than the smallest subtree", s.TreeFinalize(&tr, in[:2049], 0, out), ErrSubtreeTooLarge)
	// tree_update_last's arguments, NULL ones through the raw call: a tree
	// left as it was by each refusal.
	updateLast := func(tree *Tree, p unsafe.Pointer, n int, last *[32]byte) Code {
		return ret(call(&cArgs{fn: s.treeUpdateLast, n: 4, a: [7]arg{ptrArg(tree), {p: p}, intArg(n), ptrArg(last)}}))
	}
	before := tr
	data := unsafe.Pointer(&in[0])
	expect("tree_update_last of a NULL tree", updateLast(nil, data, 1024, &cv), ErrNull)
	expect("tree_update_last of NULL input of 1024 bytes", updateLast(&tr, nil, 1024, &cv), ErrNull)
	expect("tree_update_last into a NULL chaining value", updateLast(&tr, data, 1024, nil), ErrNull)
	expect("tree_update_last of NULL input of 0 bytes", updateLast(&tr, nil, 0, &cv), ErrLength)
	expect("tree_update_last of 0 bytes", updateLast(&tr, data, 0, &cv), ErrLength)
	for _, n := range []int{1, 1000, 1023, 1025, 2047, 2049} {
		expect(fmt.Sprintf("tree_update_last of %d bytes", n), updateLast(&tr, data, n, &cv), ErrLength)
	}
	if tr != before {
		t.Errorf("a refused tree_update_last changed the tree")
	}
	tr.Mode = 7
	expect("a tree with a mode tree_init never writes", s.TreeFinalize(&tr, in[:1], 0, out), ErrState)
	if bits.UintSize == 64 {
		tr.Mode, tr.Chunks = ModeHash, 1<<60
		expect("a tree whose end overflows", s.TreeUpdate(&tr, in[:1024], false), ErrSubtreeTooLarge)
	}
}

// TestCallsTreeScribbled: a tree changed by another goroutine during the
// calls (Go code writing one Hasher from two goroutines, which it must not)
// gives wrong results or error codes, never a fault or an abort: the library
// reads the header once per call and indexes the stack below 64.
func TestCallsTreeScribbled(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector rightly stops this test")
	}
	s := testLibrary(t)
	if rc := s.InitThreads(2); rc != OK {
		t.Fatal(rc)
	}
	in := pattern(1 << 20)
	var tr Tree
	if rc := s.TreeInit(&tr, ModeHash, nil, 0); rc != OK {
		t.Fatal(rc)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // the scribbler
		defer close(done)
		rng := rand.New(rand.NewPCG(3, 4))
		for {
			select {
			case <-stop:
				return
			default:
			}
			switch rng.IntN(4) {
			case 0:
				tr.Chunks = rng.Uint64() >> rng.IntN(64)
			case 1:
				tr.Offset = rng.Uint64() &^ 1023 >> rng.IntN(64)
			case 2:
				tr.Mode = uint32(rng.IntN(3))
			default:
				tr.Stack[rng.IntN(64)][rng.IntN(32)] = byte(rng.Uint32())
			}
		}
	}()
	out := make([]byte, 64)
	var l, r, cv [32]byte
	deadline := time.Now().Add(time.Second)
	rng := rand.New(rand.NewPCG(5, 6))
	for time.Now().Before(deadline) {
		k := rng.IntN(len(in)/1024+1) * 1024
		_ = s.TreeUpdate(&tr, in[:k], rng.IntN(2) == 0)
		tail := in[:rng.IntN(17<<10)]
		_ = s.TreeFinalize(&tr, tail, 0, out)
		_ = s.TreeRoot(&tr, tail, &l, &r)
		_ = s.TreeFinalizeNonRoot(&tr, tail, &cv)
		tr.Magic = TreeMagic // keep the calls going past the magic check
	}
	close(stop)
	<-done
}
