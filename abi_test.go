//go:build !blake3_nonative && ((linux && !android && (amd64 || arm64)) || (darwin && !ios && (amd64 || arm64)) || (windows && amd64))

package blake3

import (
	"bytes"
	"testing"

	zeebo "github.com/zeebo/blake3"
)

// TestABIEveryFunction calls each function of rust/include/blake3_purego.h
// through the FFI boundary, including those the package's hashing paths do
// not use, and checks its result against the Go path or the contract.
func TestABIEveryFunction(t *testing.T) {
	if !nativeActive(t) {
		t.Skip("native library not loaded: " + Backend().Reason)
	}
	l := lib
	in := vectorInput(40000)
	st := make([]uint64, l.stateWords)
	want := func(h *zeebo.Hasher, n int, seek int64) []byte {
		d := h.Digest()
		_, _ = d.Seek(seek, 0)
		out := make([]byte, n)
		_, _ = d.Read(out)
		return out
	}
	check := func(what string, rc int32, got, exp []byte) {
		t.Helper()
		if rc != 0 || !bytes.Equal(got, exp) {
			t.Errorf("%s: code %d, %x…; want %x…", what, rc, got[:min(8, len(got))], exp[:min(8, len(exp))])
		}
	}

	// Identity.
	if v := ffiABIVersion(l); v != abiVersion {
		t.Errorf("abi_version %d", v)
	}
	if v := ffiString(l.crateVersion); v != "1.8.1" {
		t.Errorf("crate_version %q", v)
	}
	if v := ffiString(l.simd); !map[string]bool{"avx512": true, "avx2": true, "sse41": true, "sse2": true, "neon": true, "portable": true}[v] {
		t.Errorf("simd %q", v)
	}
	if a := ffiSize(l.stateAlign); a == 0 || a > 8 {
		t.Errorf("state_align %d", a)
	}

	// init_derive_key (the package uses init_context_key), update, count,
	// reset, finalize at an offset.
	ctx := []byte(vectorContext)
	zd := zeebo.NewDeriveKey(vectorContext)
	_, _ = zd.Write(in[:5000])
	out := make([]byte, 100)
	rc := ffiInitDeriveKey(l, st, ctx)
	if rc == 0 {
		rc = ffiUpdate(l, st, in[:5000])
	}
	if rc == 0 {
		rc = ffiFinalize(l, st, 3, out)
	}
	check("init_derive_key+update+finalize(seek 3)", rc, out, want(zd, 100, 3))
	var n uint64
	if rc := ffiCount(l, st, &n); rc != 0 || n != 5000 {
		t.Errorf("count: code %d, %d; want 5000", rc, n)
	}
	rc = ffiReset(l, st)
	if rc == 0 {
		rc = ffiCount(l, st, &n)
	}
	if rc != 0 || n != 0 {
		t.Errorf("reset then count: code %d, %d; want 0", rc, n)
	}
	rc = ffiUpdate(l, st, in[:7])
	if rc == 0 {
		rc = ffiFinalize(l, st, 0, out[:32])
	}
	zr := zeebo.NewDeriveKey(vectorContext)
	_, _ = zr.Write(in[:7])
	check("reset keeps the derive-key mode", rc, out[:32], want(zr, 32, 0))

	// update_rayon with a pool, and num_threads.
	if !startThreads(l, 2) {
		t.Fatal("init_threads(2) failed")
	}
	if got := ffiSize(l.numThreads); got != 2 {
		t.Errorf("num_threads %d, want 2", got)
	}
	zh := zeebo.New()
	_, _ = zh.Write(in)
	rc = ffiInit(l, st)
	if rc == 0 {
		rc = ffiUpdateRayon(l, st, in)
	}
	if rc == 0 {
		rc = ffiFinalize(l, st, 0, out[:32])
	}
	check("update_rayon", rc, out[:32], want(zh, 32, 0))

	// Subtrees: a 3-chunk tree, the first two chunks merged with
	// merge_non_root, that parent and the third chunk with merge_root; and
	// the two length helpers.
	var left, right, cv [32]byte
	for i, c := range []*[32]byte{&left, &right} {
		if rc := subtreeCV(l, st, uint64(i*1024), in[i*1024:(i+1)*1024], c); rc != 0 {
			t.Fatalf("chunk %d: code %d", i, rc)
		}
	}
	if rc := ffiMergeNonRoot(l, &left, &right, modeHash, nil, &cv); rc != 0 {
		t.Fatalf("merge_non_root: code %d", rc)
	}
	var third [32]byte
	rc = subtreeCV(l, st, 2048, in[2048:3000], &third)
	if rc == 0 {
		rc = ffiMergeRoot(l, &cv, &third, modeHash, nil, 5, out[:40])
	}
	z3 := zeebo.New()
	_, _ = z3.Write(in[:3000])
	check("merge_non_root + merge_root(seek 5) of a 3-chunk tree", rc, out[:40], want(z3, 40, 5))
	var m uint64
	if rc := ffiMaxSubtreeLen(l, 3*1024, &m); rc != 0 || m != 1024 {
		t.Errorf("max_subtree_len(3072): code %d, %d", rc, m)
	}
	if rc := ffiLeftSubtreeLen(l, 3000, &m); rc != 0 || m != 2048 {
		t.Errorf("left_subtree_len(3000): code %d, %d", rc, m)
	}
	if rc := ffiLeftSubtreeLen(l, ^uint64(0), &m); rc != 0 || m != 1<<63 {
		t.Errorf("left_subtree_len(2^64-1): code %d, %d; want 2^63", rc, m)
	}

	// The contract's error codes.
	if rc := ffiUpdate(l, make([]uint64, l.stateWords), in[:1]); rc != errState {
		t.Errorf("update of an uninitialized state: code %d, want %d", rc, errState)
	}
	if rc := ffiInitDeriveKey(l, st, []byte{0xff, 0xfe}); rc != errContextUTF8 {
		t.Errorf("init_derive_key with a non-UTF-8 context: code %d, want %d", rc, errContextUTF8)
	}
	if rc := ffiHash(l, nil, nil); rc != 0 {
		t.Errorf("hash(NULL, 0, NULL, 0): code %d", rc)
	}
}
