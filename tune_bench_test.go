//go:build !blake3_nonative && linux && (amd64 || arm64)

package blake3

import (
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
	for _, n := range []int{0, 32, 64, 65, 256, 512, 768, 1024, 1536, 2048, 2304, 2560, 2816, 3072, 3584, 3840, 4096} {
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
