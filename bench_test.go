package blake3

import (
	"crypto/sha256"
	"fmt"
	"testing"

	zeebo "github.com/zeebo/blake3"
	luke "lukechampine.com/blake3"
)

// benchSizes are the input sizes of docs/benchmarks.md's table.
var benchSizes = []int{0, 64, 256, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 1 << 20, 16 << 20, 64 << 20}

func sizeName(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// benchImpl is one implementation of a one-shot 32-byte hash.
type benchImpl struct {
	name   string
	native bool // needs the native library
	sum    func([]byte) [32]byte
	setup  func() (restore func())
}

// oneCore caps this package to one thread for the run.
func oneCore() func() {
	prev := maxThreads.Load()
	SetMaxThreads(1)
	return func() { maxThreads.Store(prev) }
}

// goForced puts the whole package on the Go path for the run.
func goForced() func() {
	prev := active
	setBackend(goBackend("benchmark: forced"))
	return func() { setBackend(prev) }
}

func noSetup() func() { return func() {} }

// nativeOneShot crosses for every size: the raw library through the FFI,
// with no size dispatch.
func nativeOneShot(b []byte) (out [32]byte) {
	must(lib.Hash(b, out[:]))
	return out
}

var benchImpls = []benchImpl{
	{"auto", false, Sum256, noSetup},
	{"auto-1core", false, Sum256, oneCore},
	{"native-1core", true, nativeOneShot, noSetup},
	{"go", false, Sum256, goForced},
	{"zeebo", false, zeebo.Sum256, noSetup},
	{"lukechampine", false, luke.Sum256, noSetup},
	{"sha256", false, sha256.Sum256, noSetup},
}

// BenchmarkSum256 compares one-shot hashing across implementations at each
// size, in one run (scripts/bench.sh interleaves rounds and takes medians).
func BenchmarkSum256(b *testing.B) {
	for _, n := range benchSizes {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i % 251)
		}
		for _, im := range benchImpls {
			b.Run("size="+sizeName(n)+"/impl="+im.name, func(b *testing.B) {
				if im.native && lib == nil {
					b.Skip("native library not loaded: " + Backend().Reason)
				}
				defer im.setup()()
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					im.sum(data)
				}
			})
		}
	}
}

// streamHash is what BenchmarkStream needs of a streaming hasher.
type streamHash interface {
	Write([]byte) (int, error)
	Sum([]byte) []byte
}

// BenchmarkStream writes 16 MiB through a Hasher in pieces of each size.
func BenchmarkStream(b *testing.B) {
	const total = 16 << 20
	data := make([]byte, total)
	impls := []struct {
		name  string
		hash  func() streamHash
		setup func() func()
	}{
		{"auto", func() streamHash { return New() }, noSetup},
		{"auto-1core", func() streamHash { return New() }, oneCore},
		{"zeebo", func() streamHash { return zeebo.New() }, noSetup},
		{"lukechampine", func() streamHash { return luke.New(32, nil) }, noSetup},
	}
	for _, piece := range []int{64, 1 << 10, 64 << 10} {
		for _, im := range impls {
			b.Run("piece="+sizeName(piece)+"/impl="+im.name, func(b *testing.B) {
				defer im.setup()()
				b.SetBytes(total)
				b.ReportAllocs()
				var sum [32]byte
				for b.Loop() {
					h := im.hash()
					for off := 0; off < total; off += piece {
						_, _ = h.Write(data[off : off+piece])
					}
					h.Sum(sum[:0])
				}
			})
		}
	}
}
