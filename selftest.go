//go:build !blake3_nonative && ((linux && !android && (amd64 || arm64)) || (darwin && !ios && (amd64 || arm64)) || (windows && amd64))

// The known-answer test a library must pass before it is trusted: every
// entry point the package uses, on the official test-vector input pattern,
// against the published empty-input hash and against the Go path.

package blake3

import (
	"bytes"
	"encoding/hex"
	"fmt"

	zeebo "github.com/zeebo/blake3"
)

// selfTestLens cover one block, a full chunk, the chunk edge, and several
// chunks with a partial last one (more than one subtree level), in every
// mode. wideLen, 16 chunks and a byte, reaches the widest SIMD kernel
// (AVX-512's 16 lanes); it is checked in one mode only, to keep the test
// (which runs at every process start) well under a millisecond.
var selfTestLens = []int{0, 1, 64, 1024, 1025, 5121}

const wideLen = 16385

func selfTest(s *symbols) error {
	out := make([]byte, 131)
	if rc := ffiHash(s, nil, out[:32]); rc != 0 || hex.EncodeToString(out[:32]) != emptyHash {
		return fmt.Errorf("hash of the empty input is %x (code %d), want %s", out[:32], rc, emptyHash)
	}
	in := make([]byte, wideLen)
	for i := range in {
		in[i] = byte(i % 251)
	}
	key := (*[32]byte)([]byte(vectorKey))
	ctx := []byte(vectorContext)
	var ctxKey [32]byte
	if rc := ffiContextKey(s, ctx, &ctxKey); rc != 0 {
		return fmt.Errorf("context key: code %d", rc)
	}
	st := make([]uint64, s.stateWords)
	for _, n := range selfTestLens {
		data := in[:n]
		want := make([]byte, 131)
		zh := zeebo.New()
		_, _ = zh.Write(data)
		_, _ = zh.Digest().Read(want)
		if err := expect("hash", n, want, func(o []byte) int32 { return ffiHash(s, data, o) }); err != nil {
			return err
		}
		// The streaming path, split mid-chunk, read from an output offset.
		initHash := func() int32 { return ffiInit(s, st) }
		if err := expect("streamed hash", n, want[7:], streamed(s, st, initHash, 7, data[:n/3], data[n/3:])); err != nil {
			return err
		}
		// Far into the output, as a Digest after Seek reads it.
		if err := expect("hash at output offset 2^40", n, zeeboAt(zh, 1<<40), streamed(s, st, initHash, 1<<40, data)); err != nil {
			return err
		}
		zk, _ := zeebo.NewKeyed(key[:])
		_, _ = zk.Write(data)
		_, _ = zk.Digest().Read(want)
		if err := expect("keyed hash", n, want, func(o []byte) int32 { return ffiKeyedHash(s, key, data, o) }); err != nil {
			return err
		}
		initKeyed := func() int32 { return ffiInitKeyed(s, st, key) }
		if err := expect("streamed keyed hash", n, want, streamed(s, st, initKeyed, 0, data)); err != nil {
			return err
		}
		zeebo.DeriveKey(vectorContext, data, want)
		if err := expect("derive key", n, want, func(o []byte) int32 { return ffiDeriveKey(s, ctx, data, o) }); err != nil {
			return err
		}
		initContext := func() int32 { return ffiInitContextKey(s, st, &ctxKey) }
		if err := expect("derive key (context key)", n, want, streamed(s, st, initContext, 0, data)); err != nil {
			return err
		}
	}
	wide := zeebo.Sum256(in)
	if err := expect("hash", wideLen, wide[:], func(o []byte) int32 { return ffiHash(s, in, o) }); err != nil {
		return err
	}
	return selfTestSubtrees(s, in[:2*1024], st)
}

// streamed is a call that initializes st with init, updates it with each
// piece, and finalizes into its output from output offset seek.
func streamed(s *symbols, st []uint64, init func() int32, seek uint64, pieces ...[]byte) func([]byte) int32 {
	return func(o []byte) int32 {
		rc := init()
		for _, p := range pieces {
			if rc == 0 {
				rc = ffiUpdate(s, st, p)
			}
		}
		if rc == 0 {
			rc = ffiFinalize(s, st, seek, o)
		}
		return rc
	}
}

// selfTestSubtrees hashes two 1 KiB chunks as subtrees and merges them into
// the root, which must be the hash of the 2 KiB.
func selfTestSubtrees(s *symbols, in []byte, st []uint64) error {
	var left, right [32]byte
	for i, cv := range []*[32]byte{&left, &right} {
		if rc := subtreeCV(s, st, uint64(i*1024), in[i*1024:(i+1)*1024], cv); rc != 0 {
			return fmt.Errorf("subtree %d: code %d", i, rc)
		}
	}
	want := zeebo.Sum256(in)
	return expect("merged subtrees", len(in), want[:], func(o []byte) int32 {
		return ffiMergeRoot(s, &left, &right, modeHash, nil, 0, o)
	})
}

// subtreeCV writes the plain-hash chaining value of data, the subtree at
// input offset off, to cv.
func subtreeCV(s *symbols, st []uint64, off uint64, data []byte, cv *[32]byte) int32 {
	rc := ffiInit(s, st)
	if rc == 0 {
		rc = ffiSetInputOffset(s, st, off)
	}
	if rc == 0 {
		rc = ffiUpdate(s, st, data)
	}
	if rc == 0 {
		rc = ffiFinalizeNonRoot(s, st, cv)
	}
	return rc
}

// zeeboAt is 32 bytes of zh's output from offset off.
func zeeboAt(zh *zeebo.Hasher, off int64) []byte {
	d := zh.Digest()
	_, _ = d.Seek(off, 0)
	out := make([]byte, 32)
	_, _ = d.Read(out)
	return out
}

// expect runs f into a fresh buffer of len(want) bytes and compares.
func expect(what string, n int, want []byte, f func([]byte) int32) error {
	got := make([]byte, len(want))
	if rc := f(got); rc != 0 {
		return fmt.Errorf("%s of %d bytes: code %d", what, n, rc)
	}
	if !bytes.Equal(got, want) {
		k := min(len(got), 8)
		return fmt.Errorf("%s of %d bytes: got %x…, want %x…", what, n, got[:k], want[:k])
	}
	return nil
}
