//go:build !blake3_nonative && linux && !android && (amd64 || arm64)

package blake3

import (
	"io"
	"testing"

	"github.com/purego-blake3/blake3/internal/ffi"

	zeebo "github.com/zeebo/blake3"
	luke "lukechampine.com/blake3"
)

// BenchmarkDispatch is the side-by-side measurement behind the dispatch
// (dispatch.go), for scripts/dispatch-check.sh: for each size up to 64 KiB,
// zeebo, lukechampine, the library through one crossing ("native"), and
// this package's Sum256 ("auto", once its plan is measured); and from
// 256 KiB, the rayon pool against one thread (parallelMin).
//
//	scripts/dispatch-check.sh [ROUNDS]
func BenchmarkDispatch(b *testing.B) {
	if lib == nil {
		b.Skip("native library not loaded: " + Backend().Reason)
	}
	waitPlan()
	b.Logf("plan: %s", planNow.Load())
	for _, n := range dispatchSizes {
		data := make([]byte, n)
		for _, im := range []struct {
			name string
			sum  func([]byte) [32]byte
		}{{"auto", Sum256}, {"native", nativeOneShot}, {"zeebo", zeebo.Sum256}, {"lukechampine", luke.Sum256}} {
			b.Run("size="+sizeName(n)+"/impl="+im.name, func(b *testing.B) {
				b.SetBytes(int64(n))
				for b.Loop() {
					im.sum(data)
				}
			})
		}
	}
	for _, n := range []int{256 << 10, 1 << 20, 2 << 20, 4 << 20, 16 << 20} {
		data := make([]byte, n)
		out := make([]byte, 32)
		b.Run("size="+sizeName(n)+"/impl=rayon-2", func(b *testing.B) {
			if lib.InitThreads(2) != ffi.OK {
				b.Skip("no rayon pool")
			}
			b.SetBytes(int64(n))
			for b.Loop() {
				must(lib.HashXOF(modeHash, nil, true, data, 0, out))
			}
		})
		b.Run("size="+sizeName(n)+"/impl=native-1core", func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				must(lib.Hash(data, out))
			}
		})
	}
}

// BenchmarkCrossing is the cost of one call into the library that does no
// work, and of the one-shot hash of nothing.
func BenchmarkCrossing(b *testing.B) {
	if lib == nil {
		b.Skip("native library not loaded: " + Backend().Reason)
	}
	b.Run("abi_version", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			lib.ABI()
		}
	})
	b.Run("hash-empty", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			nativeOneShot(nil)
		}
	})
}

// BenchmarkDeriveKey compares DeriveKey (32-byte output) with the Go
// peers at the sizes key material usually has, and a few larger ones. It is
// why DeriveKey has no Go-side size dispatch: the library won at every size
// (32 B: ~0.31-0.33 µs against ~3.3-3.9 µs for lukechampine and zeebo, which
// allocate a hasher each time), and "go" (this package's Go path) is
// zeebo's DeriveKey itself.
func BenchmarkDeriveKey(b *testing.B) {
	const ctx = "example.com 2019-12-25 16:18:03 session tokens v1"
	impls := []struct {
		name  string
		fn    func(material, out []byte)
		setup func() func()
	}{
		{"auto", func(m, o []byte) { DeriveKey(ctx, m, o) }, noSetup},
		{"go", func(m, o []byte) { DeriveKey(ctx, m, o) }, goForced},
		{"zeebo", func(m, o []byte) { zeebo.DeriveKey(ctx, m, o) }, noSetup},
		{"lukechampine", func(m, o []byte) { luke.DeriveKey(o, ctx, m) }, noSetup},
	}
	for _, n := range []int{0, 32, 64, 256, 1 << 10, 2 << 10, 4 << 10, 16 << 10} {
		material := make([]byte, n)
		out := make([]byte, 32)
		for _, im := range impls {
			b.Run("size="+sizeName(n)+"/impl="+im.name, func(b *testing.B) {
				defer im.setup()()
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					im.fn(material, out)
				}
			})
		}
	}
}

// BenchmarkDigestRead reads a native digest (of 64 KiB of input) in pieces
// of each size, against zeebo's digest of the same input: the measurement
// behind outBufLen.
func BenchmarkDigestRead(b *testing.B) {
	seed := make([]byte, 64<<10)
	impls := []struct {
		name   string
		digest func() io.Reader
	}{
		{"native", func() io.Reader { h := New(); _, _ = h.Write(seed); return h.Digest() }},
		{"zeebo", func() io.Reader { h := zeebo.New(); _, _ = h.Write(seed); return h.Digest() }},
	}
	for _, n := range []int{1, 32, 64, 1 << 10, 64 << 10} {
		out := make([]byte, n)
		for _, im := range impls {
			b.Run("piece="+sizeName(n)+"/impl="+im.name, func(b *testing.B) {
				d := im.digest()
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					_, _ = d.Read(out)
				}
			})
		}
	}
}
