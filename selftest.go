// The known-answer test a library must pass before it is trusted: every
// entry point the package uses, on the official test-vector input pattern,
// against the published empty-input hash and against the Go path.

package blake3

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/bits"

	"github.com/purego-blake3/blake3/internal/ffi"
	zeebo "github.com/zeebo/blake3"
	"lukechampine.com/blake3/guts"
)

// selfTestLens cover one block, a full chunk, the chunk edge, and several
// chunks with a partial last one (more than one subtree level), in every
// mode; 3 and 5 whole chunks and a byte take the library's one pass over a
// short input (lanes padded to 4, and to 8) on CPUs of 4 lanes and more.
// wideLen, 16 chunks and a byte, reaches the widest SIMD kernel (AVX-512's
// 16 lanes); it is checked in one mode only, to keep the test (which runs
// when the library is loaded) well under a millisecond.
var selfTestLens = []int{0, 1, 64, 1024, 1025, 3073, 5121}

const wideLen = 16385

// lastLen is the first write of whole chunks whose last chunk's value the
// self-test has tree_update_last keep, as a Hasher's first write does.
const lastLen = 5 * chunkLen

func selfTest(s *ffi.Symbols) error {
	out := make([]byte, 131)
	if rc := s.Hash(nil, out[:32]); rc != ffi.OK || hex.EncodeToString(out[:32]) != emptyHash {
		return fmt.Errorf("hash of the empty input is %x (%v), want %s", out[:32], rc, emptyHash)
	}
	in := make([]byte, wideLen)
	for i := range in {
		in[i] = byte(i % 251)
	}
	key := (*[32]byte)([]byte(vectorKey))
	var ctxKey [32]byte
	if rc := s.ContextKey(vectorContext, &ctxKey); rc != ffi.OK {
		return fmt.Errorf("context key: %v", rc)
	}
	modes := []struct {
		name string
		mode uint32
		key  *[32]byte
		z    func() *zeebo.Hasher
	}{
		{"hash", modeHash, nil, zeebo.New},
		{"keyed hash", modeKeyed, key, func() *zeebo.Hasher { z, _ := zeebo.NewKeyed(key[:]); return z }},
		{"derive key", modeDeriveKey, &ctxKey, func() *zeebo.Hasher { return zeebo.NewDeriveKey(vectorContext) }},
	}
	var t ffi.Tree
	for _, n := range selfTestLens {
		data := in[:n]
		for _, m := range modes {
			zh := m.z()
			_, _ = zh.Write(data)
			want := make([]byte, len(out))
			_, _ = zh.Digest().Read(want)
			// One shot, from an output offset, as a short Digest reads.
			if err := expect(m.name+" (one shot, seek 7)", n, want[7:], func(o []byte) ffi.Code {
				return s.HashXOF(m.mode, m.key, false, data, 7, o)
			}); err != nil {
				return err
			}
			// A tree: the largest power of two of whole chunks handed over,
			// the rest (as long at most) as the tail.
			split := 0
			if n > chunkLen {
				split = 1 << (bits.Len(uint(n-1)) - 1) / chunkLen * chunkLen
			}
			if err := expect(m.name+" (tree)", n, want, func(o []byte) ffi.Code {
				rc := s.TreeInit(&t, m.mode, m.key, 0)
				if rc == ffi.OK {
					rc = s.TreeUpdate(&t, data[:split], false)
				}
				if rc == ffi.OK {
					rc = s.TreeFinalize(&t, data[split:], 0, o)
				}
				return rc
			}); err != nil {
				return err
			}
			// From a root node made in Go, as a Digest of an input the plan
			// hashed in Go reads: across blocks, from an offset.
			if n <= chunkLen {
				root := guts.CompressChunk(data, keyWords(m.mode, m.key), 0, modeFlags(m.mode))
				if err := expect(m.name+" (root node, seek 7)", n, want[7:], func(o []byte) ffi.Code {
					return s.RootOutput(root, 7, o)
				}); err != nil {
					return err
				}
			}
			// Far into the output, through the root's children, as a long
			// Digest reads.
			if n > chunkLen {
				if err := expect(m.name+" (tree root at output offset 2^40)", n, zeeboAt(zh, 1<<40), func(o []byte) ffi.Code {
					var l, r [32]byte
					rc := s.TreeRoot(&t, data[split:], &l, &r)
					if rc == ffi.OK {
						rc = s.MergeRoot(&l, &r, m.mode, m.key, 1<<40, o)
					}
					return rc
				}); err != nil {
					return err
				}
			}
		}
		zk, _ := zeebo.NewKeyed(key[:])
		_, _ = zk.Write(data)
		want := make([]byte, 32)
		_, _ = zk.Digest().Read(want)
		if err := expect("keyed hash (one shot)", n, want, func(o []byte) ffi.Code { return s.KeyedHash(key, data, o) }); err != nil {
			return err
		}
		zeebo.DeriveKey(vectorContext, data, want)
		if err := expect("derive key (one shot)", n, want, func(o []byte) ffi.Code { return s.DeriveKey(vectorContext, data, o) }); err != nil {
			return err
		}
	}
	wide := zeebo.Sum256(in)
	if err := expect("hash", wideLen, wide[:], func(o []byte) ffi.Code { return s.Hash(in, o) }); err != nil {
		return err
	}
	// The tree of the first 4 chunks, and the 5th chunk's value beside it:
	// the root's two children.
	want := zeebo.Sum256(in[:lastLen])
	if err := expect("tree update keeping the last chunk", lastLen, want[:], func(o []byte) ffi.Code {
		var last [32]byte
		rc := s.TreeInit(&t, modeHash, nil, 0)
		if rc == ffi.OK {
			rc = s.TreeUpdateLast(&t, in[:lastLen], &last)
		}
		if rc == ffi.OK {
			rc = s.MergeRoot(&t.Stack[2], &last, modeHash, nil, 0, o)
		}
		return rc
	}); err != nil {
		return err
	}
	return selfTestSubtrees(s, in[:3*1024], &t)
}

// selfTestSubtrees hashes a subtree of two chunks and one of a chunk, as
// trees with input offsets, and merges them into the root, which must be
// the hash of the 3 KiB.
func selfTestSubtrees(s *ffi.Symbols, in []byte, t *ffi.Tree) error {
	var left, right [32]byte
	rc := s.TreeInit(t, modeHash, nil, 0)
	if rc == ffi.OK {
		rc = s.TreeUpdate(t, in[:1024], false)
	}
	if rc == ffi.OK {
		rc = s.TreeFinalizeNonRoot(t, in[1024:2048], &left)
	}
	if rc == ffi.OK {
		rc = s.TreeInit(t, modeHash, nil, 2048)
	}
	if rc == ffi.OK {
		rc = s.TreeFinalizeNonRoot(t, in[2048:], &right)
	}
	if rc != ffi.OK {
		return fmt.Errorf("subtrees: %v", rc)
	}
	want := zeebo.Sum256(in)
	return expect("merged subtrees", len(in), want[:], func(o []byte) ffi.Code {
		return s.MergeRoot(&left, &right, modeHash, nil, 0, o)
	})
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
func expect(what string, n int, want []byte, f func([]byte) ffi.Code) error {
	got := make([]byte, len(want))
	if rc := f(got); rc != ffi.OK {
		return fmt.Errorf("%s of %d bytes: %v", what, n, rc)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for got[i] == want[i] {
			i++
		}
		k := min(len(got), i+8)
		return fmt.Errorf("%s of %d bytes: from output byte %d, got %x…, want %x…", what, n, i, got[i:k], want[i:k])
	}
	return nil
}

// The official BLAKE3 test vectors' key and context (test_vectors.json in
// the BLAKE3 repository), used by the loader's self-test and by the tests.
const (
	// emptyHash is BLAKE3("").
	emptyHash = "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"

	vectorKey     = "whats the Elvish word for friend"
	vectorContext = "BLAKE3 2019-12-27 16:29:52 test vectors context"
)
