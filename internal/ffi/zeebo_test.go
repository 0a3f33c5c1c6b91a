package ffi

import (
	"bytes"
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
}

// TestZeeboBlockOutput: ZeeboBlockOutput's output is the root output of
// its block, as lukechampine's portable compression gives it, block after
// block: at every length of the block, in each mode's flags, with the IV
// and with another key, for reads that end within the first block, at its
// end and past it; and it writes no byte past p.
func TestZeeboBlockOutput(t *testing.T) {
	in := make([]byte, guts.BlockSize)
	for i := range in {
		in[i] = byte(3*i + 1)
	}
	key := guts.IV
	key[0] ^= 0x5a5a5a5a
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
	if h := ZeeboNewMode(&kw, guts.FlagKeyedHash); h != nil {
		t.Error("ZeeboNewMode without the layout check: a hasher")
	}
}

// TestZeeboNewMode: a hasher from ZeeboNewMode hashes in the mode it is
// given, as zeebo's NewKeyed and NewDeriveKey make one, though the one
// given back before it (most likely the same one) was in another mode.
func TestZeeboNewMode(t *testing.T) {
	in, key, kw := checkInput(2*1024 + 10)
	const ctx = "ZeeboNewMode test context"
	ctxKey := zeebo.NewDeriveKey(ctx)
	// The context key: the derive-key hasher's key words, as zeebo sets them.
	ck := view(ctxKey).h.key
	keyed, _ := zeebo.NewKeyed(key[:])
	_, _ = keyed.Write(in)
	_, _ = ctxKey.Write(in)
	for range 2 {
		for _, c := range []struct {
			name  string
			key   *[8]uint32
			flags uint32
			want  []byte
		}{
			{"keyed", &kw, guts.FlagKeyedHash, keyed.Sum(nil)},
			{"derive-key", &ck, guts.FlagDeriveKeyMaterial, ctxKey.Sum(nil)},
		} {
			h := ZeeboNewMode(c.key, c.flags)
			if h == nil {
				t.Fatal("ZeeboNewMode: nil with the layout known")
			}
			_, _ = h.Write(in)
			if got := h.Sum(nil); !bytes.Equal(got, c.want) {
				t.Errorf("%s: %x, want zeebo's %x", c.name, got, c.want)
			}
			ZeeboFree(h)
		}
	}
}

// TestLayoutCheck: a layout check runs once, whoever calls first, and the
// callers beside it wait for its result; a check that panics leaves the
// layout unknown, with no panic; forget makes it unknown until its restore.
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
