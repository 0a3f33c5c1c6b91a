//go:build !blake3_nonative && ((linux && (amd64 || arm64)) || (darwin && (amd64 || arm64)) || (windows && amd64))

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

// selfTestLens cover one block, a partial and a full chunk, the chunk edge,
// and several chunks with a partial last one (more than one subtree level).
var selfTestLens = []int{0, 1, 64, 1023, 1024, 1025, 2049, 5121}

func selfTest(s *symbols) error {
	out := make([]byte, 131)
	if rc := ffiHash(s, nil, out[:32]); rc != 0 || hex.EncodeToString(out[:32]) != emptyHash {
		return fmt.Errorf("hash of the empty input is %x (code %d), want %s", out[:32], rc, emptyHash)
	}
	in := make([]byte, selfTestLens[len(selfTestLens)-1])
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
		if err := expect("streamed hash", n, want[7:], func(o []byte) int32 {
			rc := ffiInit(s, st)
			if rc == 0 {
				rc = ffiUpdate(s, st, data[:n/3])
			}
			if rc == 0 {
				rc = ffiUpdate(s, st, data[n/3:])
			}
			if rc == 0 {
				rc = ffiFinalize(s, st, 7, o)
			}
			return rc
		}); err != nil {
			return err
		}
		zk, _ := zeebo.NewKeyed(key[:])
		_, _ = zk.Write(data)
		_, _ = zk.Digest().Read(want)
		if err := expect("keyed hash", n, want, func(o []byte) int32 { return ffiKeyedHash(s, key, data, o) }); err != nil {
			return err
		}
		zeebo.DeriveKey(vectorContext, data, want)
		if err := expect("derive key", n, want, func(o []byte) int32 { return ffiDeriveKey(s, ctx, data, o) }); err != nil {
			return err
		}
		if err := expect("derive key (context key)", n, want, func(o []byte) int32 {
			rc := ffiInitContextKey(s, st, &ctxKey)
			if rc == 0 {
				rc = ffiUpdate(s, st, data)
			}
			if rc == 0 {
				rc = ffiFinalize(s, st, 0, o)
			}
			return rc
		}); err != nil {
			return err
		}
	}
	return nil
}

// expect runs f into a fresh buffer of len(want) bytes and compares.
func expect(what string, n int, want []byte, f func([]byte) int32) error {
	got := make([]byte, len(want))
	if rc := f(got); rc != 0 {
		return fmt.Errorf("%s of %d bytes: code %d", what, n, rc)
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%s of %d bytes: got %x, want %x", what, n, got[:8], want[:8])
	}
	return nil
}
