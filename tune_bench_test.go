//go:build !blake3_nonative && linux && !android && (amd64 || arm64)

package blake3

import (
	"io"
	"testing"

	zeebo "github.com/zeebo/blake3"
	luke "lukechampine.com/blake3"
)

// BenchmarkDispatch measures what the size dispatch constants in blake3.go
// are chosen from: the library through one crossing against the two Go
// implementations for small inputs, and the rayon pool against one thread
// for large ones.
//
//	go test -run '^$' -bench 'BenchmarkDispatch' -count 3 .
func BenchmarkDispatch(b *testing.B) {
	if lib == nil {
		b.Skip("native library not loaded: " + Backend().Reason)
	}
	for _, n := range []int{0, 32, 64, 65, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 2304, 2560, 2816, 3072, 3584, 3840, 4096} {
		data := make([]byte, n)
		for _, im := range []struct {
			name string
			sum  func([]byte) [32]byte
		}{{"native", nativeOneShot}, {"zeebo", zeebo.Sum256}, {"lukechampine", luke.Sum256}} {
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
			if !startThreads(lib, 2) {
				b.Skip("no rayon pool")
			}
			h := new(Hasher)
			b.SetBytes(int64(n))
			for b.Loop() {
				h.Reset()
				must(stInit(h.state(), h))
				must(ffiUpdateRayon(lib, h.state(), data))
				must(stFinalize(h.state(), 0, out))
			}
		})
		b.Run("size="+sizeName(n)+"/impl=native-1core", func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				must(nativeHash(data, out))
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
			ffiABIVersion(lib)
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
