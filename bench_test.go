package blake3

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/purego-blake3/blake3/internal/ffi"
	zeebo "github.com/zeebo/blake3"
	luke "lukechampine.com/blake3"
	"lukechampine.com/blake3/guts"
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
func oneCore() func() { return capThreads(1) }

// capThreads caps this package to n threads until the returned function
// restores the cap before.
func capThreads(n int) func() {
	prev := maxThreads.Load()
	SetMaxThreads(n)
	return func() { maxThreads.Store(prev) }
}

// goForced puts the whole package on the Go path for the run.
func goForced() func() {
	prev := active
	setBackend(goBackend("benchmark: forced"))
	waitPlan() // the Go path's measured plan and bigByTree, as a process on it has them
	return func() { setBackend(prev); waitPlan() }
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
	waitPlan() // what users get once the package has measured its dispatch
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
	benchStream(b, 16<<20, []int{64, 1 << 10, 64 << 10}, false)
}

// BenchmarkSumEachWrite writes 256 KiB through a Hasher in pieces of each
// size and takes its Sum after each piece, as a caller that keeps a running
// hash does: what a Sum costs where the Hasher has gathered part of a
// stream (absorb hands the chunks gathered to the library from the second
// Sum on, as zeebo's Sum does).
func BenchmarkSumEachWrite(b *testing.B) {
	benchStream(b, 256<<10, []int{64, 1 << 10, 4 << 10, 16 << 10}, true)
}

// BenchmarkSumEachWriteShort is BenchmarkSumEachWrite for a stream of 4
// KiB, what a plain Hasher gathers in itself: its reads after the first
// go to zeebo's hasher on the Go path (spillReread).
func BenchmarkSumEachWriteShort(b *testing.B) {
	benchStream(b, firstLen, []int{64, 256, 1 << 10}, true)
}

// benchStream writes total bytes through a Hasher of each implementation
// in pieces of each size, and takes its Sum at the end, or after each
// piece (sumEach).
func benchStream(b *testing.B, total int, pieces []int, sumEach bool) {
	waitPlan()
	data := make([]byte, total)
	impls := []struct {
		name  string
		hash  func() streamHash
		setup func() func()
	}{
		{"auto", func() streamHash { return New() }, noSetup},
		{"auto-1core", func() streamHash { return New() }, oneCore},
		{"go", func() streamHash { return New() }, goForced},
		{"zeebo", func() streamHash { return zeebo.New() }, noSetup},
		{"lukechampine", func() streamHash { return luke.New(32, nil) }, noSetup},
	}
	for _, piece := range pieces {
		for _, im := range impls {
			benchLoop(b, "piece="+sizeName(piece)+"/impl="+im.name, im.setup, total, func(sum *[32]byte) {
				h := im.hash()
				for off := 0; off < total; off += piece {
					_, _ = h.Write(data[off : off+piece])
					if sumEach {
						h.Sum(sum[:0])
					}
				}
				h.Sum(sum[:0])
			})
		}
	}
}

// benchLoop runs body, which hashes n bytes into sum, as the sub-benchmark
// name, with setup's state.
func benchLoop(b *testing.B, name string, setup func() func(), n int, body func(sum *[32]byte)) {
	b.Run(name, func(b *testing.B) {
		defer setup()()
		b.SetBytes(int64(n))
		b.ReportAllocs()
		var sum [32]byte
		for b.Loop() {
			body(&sum)
		}
	})
}

// BenchmarkDigestAgain takes a Digest of one Hasher again and again and
// reads 32 bytes from each: what a read costs once the Hasher has seen the
// input before (absorb, and the tree ahead of it). The input, 64 KiB (a
// power of two of chunks) or 72 KiB, is written in 64-byte pieces or in
// one write.
func BenchmarkDigestAgain(b *testing.B) {
	waitPlan()
	for _, in := range []struct{ size, piece int }{{64 << 10, 64}, {64 << 10, 64 << 10}, {72 << 10, 64}, {72 << 10, 72 << 10}} {
		data := make([]byte, in.size)
		piece := in.piece
		for _, impl := range []string{"auto", "zeebo"} {
			b.Run("size="+sizeName(in.size)+"/piece="+sizeName(piece)+"/impl="+impl, func(b *testing.B) {
				var out [32]byte
				if impl == "zeebo" {
					h := zeebo.New()
					writeSplit(h, data, piece)
					for b.Loop() {
						_, _ = h.Digest().Read(out[:])
					}
					return
				}
				h := New()
				writeSplit(h, data, piece)
				for b.Loop() {
					_, _ = h.Digest().Read(out[:])
				}
			})
		}
	}
}

// BenchmarkSumAgain takes the Sum of one Hasher again and again, or a
// Digest of it and 32 bytes of output, unchanged after one write: a
// block, and a block and a byte (the input held in the Hasher, hashed
// again at each read, as zeebo's reads hash it), a chunk and a byte (in
// the library's tree after 8 KiB hashed again: rereadNative), 8 chunks
// and a byte (the tree of the first write held in the Hasher: front), 63
// chunks and a byte (six subtrees): the root of a tree and a part of a
// chunk, which tailGo computes in Go or in the library.
func BenchmarkSumAgain(b *testing.B) {
	waitPlan()
	for _, size := range []int{blockLen, blockLen + 1, chunkLen + 1, 8*chunkLen + 1, 63*chunkLen + 1} {
		data := vectorInput(size)
		for _, read := range []string{"sum", "digest"} {
			for _, impl := range []string{"auto", "zeebo"} {
				b.Run("size="+sizeName(size)+"/read="+read+"/impl="+impl, func(b *testing.B) {
					h, z := New(), zeebo.New()
					_, _ = h.Write(data)
					_, _ = z.Write(data)
					sum, digest := h.Sum, func(p []byte) { _, _ = h.Digest().Read(p) }
					if impl == "zeebo" {
						sum, digest = z.Sum, func(p []byte) { _, _ = z.Digest().Read(p) }
					}
					var out [32]byte
					for b.Loop() {
						if read == "sum" {
							sum(out[:0])
						} else {
							digest(out[:])
						}
					}
				})
			}
		}
	}
}

// BenchmarkDispatch times the candidates of the dispatch (dispatch.go) one
// after the other: for each size up to 64 KiB, zeebo, lukechampine, the
// library through one crossing ("native"), and this package's Sum256
// ("auto", once its plan is measured); and from 256 KiB, the rayon pool
// against one thread (parallelMin). Whole benchmarks one after the other
// drift apart on a shared machine: for ratios, scripts/dispatch-check.sh
// times them in turns (TestDispatchTable).
func BenchmarkDispatch(b *testing.B) {
	if lib == nil {
		b.Skip("native library not loaded: " + Backend().Reason)
	}
	waitPlan()
	b.Logf("plan: %s", planNow.Load())
	for _, n := range dispatchSizes {
		data := make([]byte, n)
		for _, im := range dispatchImpls {
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

// BenchmarkNewSum hashes a short input through a new hasher each time (New,
// Write, Sum) against the Go peers, each used through an interface
// (use=interface, as hash.Hash users do: the hasher is on the heap) and
// through its own type (use=concrete: the compiler keeps it on the stack,
// and only what it allocates itself is on the heap). Much of the cost is
// allocation, which is why a Hasher holds its first 4 KiB itself and
// allocates the rest as the input needs it (docs/stream.md); "go" is this
// package on its Go path, which allocates zeebo's hasher past those 4 KiB.
func BenchmarkNewSum(b *testing.B) {
	waitPlan()
	data := vectorInput(1 << 20)
	ours := func(p []byte, out *[32]byte) {
		h := New()
		_, _ = h.Write(p)
		h.Sum(out[:0])
	}
	impls := []struct {
		name     string
		iface    func() streamHash
		concrete func(p []byte, out *[32]byte)
		setup    func() func()
	}{
		{"auto", func() streamHash { return New() }, ours, noSetup},
		{"go", func() streamHash { return New() }, ours, goForced},
		{"zeebo", func() streamHash { return zeebo.New() }, func(p []byte, out *[32]byte) {
			h := zeebo.New()
			_, _ = h.Write(p)
			h.Sum(out[:0])
		}, noSetup},
		{"lukechampine", func() streamHash { return luke.New(32, nil) }, func(p []byte, out *[32]byte) {
			h := luke.New(32, nil)
			_, _ = h.Write(p)
			h.Sum(out[:0])
		}, noSetup},
	}
	for _, use := range []string{"interface", "concrete"} {
		for _, n := range []int{0, 64, 1 << 10, 2 << 10, 4 << 10, 8 << 10, 16 << 10, 64 << 10, 1 << 20} {
			for _, im := range impls {
				b.Run("use="+use+"/size="+sizeName(n)+"/impl="+im.name, func(b *testing.B) {
					defer im.setup()()
					b.SetBytes(int64(n))
					b.ReportAllocs()
					var sum [32]byte
					for b.Loop() {
						if use == "concrete" {
							im.concrete(data[:n], &sum)
							continue
						}
						h := im.iface()
						_, _ = h.Write(data[:n])
						h.Sum(sum[:0])
					}
				})
			}
		}
	}
}

// BenchmarkReuses: a new Hasher used uses times (Write, Sum, Reset), on
// the Go path, against zeebo's, with reuseAfter at after: from how many
// uses the allocation of zeebo's hasher at the reuseAfter-th Reset (the
// Hasher reused) pays for itself, per use (ns/use), through hash.Hash, as
// a caller that keeps its hasher holds it (docs/zeebo-api.md).
func BenchmarkReuses(b *testing.B) {
	defer goForced()()
	saved := reuseAfter
	defer func() { reuseAfter = saved }()
	for _, size := range []int{4 << 10, 16 << 10} {
		data := vectorInput(size)
		for _, uses := range []int{2, 8, 32, 128, 512} {
			run := func(name string, mk func() hash.Hash) {
				b.Run(fmt.Sprintf("size=%s/uses=%d/%s", sizeName(size), uses, name), func(b *testing.B) {
					sum := make([]byte, 0, 32)
					for range b.N {
						h := mk()
						for range uses {
							_, _ = h.Write(data)
							sum = h.Sum(sum[:0])
							h.Reset()
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*uses), "ns/use")
				})
			}
			for _, after := range []uint8{1, 64, 255} {
				reuseAfter = after
				run(fmt.Sprintf("after=%d", after), func() hash.Hash { return New() })
			}
			run("zeebo", func() hash.Hash { return zeebo.New() })
		}
	}
}

// BenchmarkReuseStream hashes a stream in 64-byte pieces again and again
// through one Hasher of each implementation (Reset, the pieces, Sum), on
// the path in use: on the native path, a Hasher used again hands its
// streams over in groups of bufSize, not of firstLen (Hasher.wide).
func BenchmarkReuseStream(b *testing.B) {
	for _, size := range []int{6 << 10, 12 << 10, 16 << 10, 48 << 10} {
		data := vectorInput(size)
		for _, impl := range []struct {
			name string
			h    hash.Hash
		}{{"ours", New()}, {"zeebo", zeebo.New()}} {
			b.Run(fmt.Sprintf("size=%s/%s", sizeName(size), impl.name), func(b *testing.B) {
				sum := make([]byte, 0, 32)
				b.SetBytes(int64(size))
				for b.Loop() {
					impl.h.Reset()
					for p := data; len(p) > 0; p = p[min(64, len(p)):] {
						_, _ = impl.h.Write(p[:min(64, len(p))])
					}
					sum = impl.h.Sum(sum[:0])
				}
			})
		}
	}
}

// BenchmarkReuseSum hashes one input again and again through one Hasher
// of each implementation (Reset, Write, Sum), in each mode, as a caller
// that keeps its hasher does: the Hasher's own layers around the one-shot,
// with nothing allocated (docs/zeebo-api.md: "Mended", "A reused Hasher,
// small input", and "A reused Hasher in the keyed modes").
func BenchmarkReuseSum(b *testing.B) {
	waitPlan()
	data := vectorInput(8 << 10)
	key := vectorInput(32)
	const ctx = "BenchmarkReuseSum context"
	type hashers struct{ ours, zeebo, luke func() hash.Hash }
	modes := []struct {
		name string
		hashers
	}{
		{"hash", hashers{func() hash.Hash { return New() }, func() hash.Hash { return zeebo.New() }, func() hash.Hash { return luke.New(32, nil) }}},
		{"keyed", hashers{
			func() hash.Hash { h, _ := NewKeyed(key); return h },
			func() hash.Hash { h, _ := zeebo.NewKeyed(key); return h },
			func() hash.Hash { return luke.New(32, key) },
		}},
		{"derive-key", hashers{
			func() hash.Hash { return NewDeriveKey(ctx) },
			func() hash.Hash { return zeebo.NewDeriveKey(ctx) },
			nil, // lukechampine's derive-key hasher is not a hash.Hash of its own
		}},
	}
	for _, m := range modes {
		impls := []struct {
			name  string
			hash  func() hash.Hash
			setup func() func()
		}{
			{"ours", m.ours, noSetup},
			{"go", m.ours, goForced},
			{"zeebo", m.zeebo, noSetup},
			{"lukechampine", m.luke, noSetup},
		}
		for _, n := range []int{0, 64, 256, 1 << 10, 2 << 10, 4 << 10, 8 << 10} {
			for _, im := range impls {
				if im.hash == nil {
					continue
				}
				b.Run("mode="+m.name+"/size="+sizeName(n)+"/impl="+im.name, func(b *testing.B) {
					defer im.setup()()
					h := im.hash()
					b.SetBytes(int64(n))
					b.ReportAllocs()
					var sum [32]byte
					for b.Loop() {
						h.Reset()
						_, _ = h.Write(data[:n])
						h.Sum(sum[:0])
					}
				})
			}
		}
	}
}

// BenchmarkSumKeyed hashes a short input through a new keyed hasher
// (NewKeyed, Write, Sum) against the Go peers: on the Go path ("go") the
// Hasher gathers up to a chunk in the keyed modes, and Sum compresses it
// with zeebo's assembly or lukechampine's one-chunk code, as the plan
// picks for a one-shot of that length (goChunkSum).
func BenchmarkSumKeyed(b *testing.B) {
	waitPlan()
	data := vectorInput(1 << 10)
	key := make([]byte, 32)
	ours := func(p []byte, out *[32]byte) {
		h, _ := NewKeyed(key)
		_, _ = h.Write(p)
		h.Sum(out[:0])
	}
	impls := []struct {
		name  string
		sum   func(p []byte, out *[32]byte)
		setup func() func()
	}{
		{"auto", ours, noSetup},
		{"go", ours, goForced},
		{"zeebo", func(p []byte, out *[32]byte) {
			h, _ := zeebo.NewKeyed(key)
			_, _ = h.Write(p)
			h.Sum(out[:0])
		}, noSetup},
		{"lukechampine", func(p []byte, out *[32]byte) {
			h := luke.New(32, key)
			_, _ = h.Write(p)
			h.Sum(out[:0])
		}, noSetup},
	}
	for _, n := range []int{64, 65, 256, 1 << 10} {
		for _, im := range impls {
			benchLoop(b, "size="+sizeName(n)+"/impl="+im.name, im.setup, n, func(sum *[32]byte) { im.sum(data[:n], sum) })
		}
	}
}

// BenchmarkWriteString hashes one string through a new hasher (New,
// WriteString, Sum) against zeebo's WriteString and this package's Write of
// the same bytes as a slice: WriteString hashes a string where it is, as
// Write does a slice, where it used to copy a string longer than what the
// Hasher gathers (docs/stream.md).
func BenchmarkWriteString(b *testing.B) {
	waitPlan()
	for _, n := range []int{8 << 10, 64 << 10, 1 << 20} {
		p := vectorInput(n)
		s := string(p)
		impls := []struct {
			name string
			hash func(out *[32]byte)
		}{
			{"WriteString", func(out *[32]byte) {
				h := New()
				_, _ = h.WriteString(s)
				h.Sum(out[:0])
			}},
			{"Write", func(out *[32]byte) {
				h := New()
				_, _ = h.Write(p)
				h.Sum(out[:0])
			}},
			{"zeebo-WriteString", func(out *[32]byte) {
				h := zeebo.New()
				_, _ = h.WriteString(s)
				h.Sum(out[:0])
			}},
		}
		for _, im := range impls {
			b.Run("size="+sizeName(n)+"/impl="+im.name, func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				var sum [32]byte
				for b.Loop() {
					im.hash(&sum)
				}
			})
		}
	}
}

// BenchmarkDeriveKey compares DeriveKey (32-byte output) with the Go
// peers at the sizes key material usually has, and a few larger ones. It is
// why DeriveKey has no Go-side size dispatch: the library won at every size
// (at 32 B by about ten times over lukechampine and zeebo, which allocate a
// hasher each time), and "go" (this package's Go path) is
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
// behind the block a Digest holds and its run of output ahead (aheadAfter).
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

// BenchmarkDigestWide reads output of a one-byte input in reads of 32 KiB
// to 8 MiB at position 0: with Read, on one core ("read"), in as many
// parts as threads allow whatever their size ("parts": fetchWide with no
// least part), with ReadAt (parts of outputPart bytes or more), and with
// zeebo's Digest for scale. The figures behind outputPart
// (docs/stream.md).
func BenchmarkDigestWide(b *testing.B) {
	waitPlan()
	h, z := New(), zeebo.New()
	_, _ = h.Write([]byte{1})
	_, _ = z.Write([]byte{1})
	for _, n := range []int{32 << 10, 128 << 10, 512 << 10, 1 << 20, 2 << 20, 8 << 20} {
		p := make([]byte, n)
		for _, impl := range []string{"read", "parts", "readat", "zeebo"} {
			b.Run("read="+sizeName(n)+"/impl="+impl, func(b *testing.B) {
				d, zd := h.Digest(), z.Digest()
				b.SetBytes(int64(n))
				for b.Loop() {
					switch impl {
					case "read":
						_, _ = d.Seek(0, io.SeekStart)
						_, _ = d.Read(p)
					case "parts":
						d.fetchWide(0, p, max(1, n/threads()))
					case "readat":
						_, _ = d.ReadAt(p, 0)
					case "zeebo":
						_, _ = zd.Seek(0, io.SeekStart)
						_, _ = zd.Read(p)
					}
				}
			})
		}
	}
}

// BenchmarkGoXOF produces the output of a 64-byte input, one read of each
// size at position 0 of a fresh output, in the ways a Digest can (goXOF in
// runs of guts.MaxSIMD blocks, and one block at a time with zeebo's
// compression or lukechampine's; the library, from the input and from the
// root node), and as zeebo's and lukechampine's own Digest and XOF reader
// do: the figures behind outGo's rule and goXOF's choice between runs and
// blocks.
func BenchmarkGoXOF(b *testing.B) {
	defer pinDispatch()() // blocksByLuke, as measured, and set below
	in := vectorInput(64)
	node := guts.CompressChunk(in, &guts.IV, 0, 0)
	saved := xofRuns
	defer func() { xofRuns = saved }()
	for _, n := range []int{64, 128, 192, 1 << 10, 64 << 10} {
		out := make([]byte, n)
		run := func(name string, f func()) {
			b.Run("read="+sizeName(n)+"/impl="+name, func(b *testing.B) {
				b.SetBytes(int64(n))
				for b.Loop() {
					f()
				}
			})
		}
		xofRuns = true
		run("go-runs", func() { goXOF(refOf(&node), 0, out) })
		xofRuns = false
		byLuke := blocksByLuke.Swap(false) // zeebo's blocks, whatever was measured
		run("go-blocks", func() { goXOF(refOf(&node), 0, out) })
		blocksByLuke.Store(byLuke)
		zeeboBlocks = false
		run("go-blocks-lukechampine", func() { goXOF(refOf(&node), 0, out) })
		xofRuns, zeeboBlocks = saved, true
		if lib != nil {
			run("native", func() { must(lib.HashXOF(modeHash, nil, false, in, 0, out)) })
			run("native-node", func() { must(lib.RootOutput(node, 0, out)) })
		}
		z := zeebo.New()
		_, _ = z.Write(in)
		run("zeebo", func() { _, _ = z.Digest().Read(out) })
		l := luke.New(32, nil)
		_, _ = l.Write(in)
		run("lukechampine", func() { _, _ = l.XOF().Read(out) })
	}
}

// BenchmarkDigestNew takes a Digest of a hasher and reads one piece from
// it, each time, as a caller that derives one output of a given length
// does, against zeebo: through the Digest's own Read (use=method: the
// Digest stays on the caller's stack, Digest being inlined), and through
// io.ReadFull (use=reader: the Digest escapes to the heap, and its size is
// what it costs). The first 64 bytes of the output of a short input come
// from the size dispatch's one-shot hash or from a root node computed the
// way the dispatch would hash the input (Digest.setShort, Digest.first).
func BenchmarkDigestNew(b *testing.B) {
	waitPlan()
	seed := vectorInput(64 << 10)
	key := make([]byte, 32)
	for _, mode := range []string{"hash", "keyed"} {
		for _, in := range []int{64, 256, 1 << 10, 4 << 10, 64 << 10} {
			for _, n := range []int{32, 64, 1 << 10} {
				out := make([]byte, n)
				for _, use := range []string{"method", "reader"} {
					name := "mode=" + mode + "/input=" + sizeName(in) + "/read=" + sizeName(n) + "/use=" + use
					// each runs method or reader, per use, in the loop.
					each := func(b *testing.B, method, reader func()) {
						b.ReportAllocs()
						for b.Loop() {
							if use == "reader" {
								reader()
							} else {
								method()
							}
						}
					}
					b.Run(name+"/impl=ours", func(b *testing.B) {
						h := New()
						if mode == "keyed" {
							h, _ = NewKeyed(key)
						}
						_, _ = h.Write(seed[:in])
						each(b, func() { _, _ = h.Digest().Read(out) }, func() { _, _ = io.ReadFull(h.Digest(), out) })
					})
					b.Run(name+"/impl=zeebo", func(b *testing.B) {
						h := zeebo.New()
						if mode == "keyed" {
							h, _ = zeebo.NewKeyed(key)
						}
						_, _ = h.Write(seed[:in])
						each(b, func() { _, _ = h.Digest().Read(out) }, func() { _, _ = io.ReadFull(h.Digest(), out) })
					})
				}
			}
		}
	}
}

// BenchmarkDigestOnce makes a new Hasher, writes one input to it, takes
// its Digest and reads 32 bytes, as a caller that derives one output from
// each input does, on both paths, against zeebo: what BenchmarkDigestNew,
// which takes Digests of one Hasher written once, leaves out (zeebo hashes
// the chunks before the last at Write, outside that benchmark's loop).
func BenchmarkDigestOnce(b *testing.B) {
	out := make([]byte, 32)
	benchNewDigest(b, []int{64, 65, 256, chunkLen, 2 * chunkLen, firstLen}, func(in []byte) {
		h := New()
		_, _ = h.Write(in)
		_, _ = h.Digest().Read(out)
	}, func(in []byte) {
		h := zeebo.New()
		_, _ = h.Write(in)
		_, _ = h.Digest().Read(out)
	})
}

// BenchmarkDigestSeek is BenchmarkDigestOnce with a Seek to byte 1,000 of
// the output before the read of 32 bytes, which crosses the edge of two
// blocks: a key drawn from the middle of an output.
func BenchmarkDigestSeek(b *testing.B) {
	out := make([]byte, 32)
	benchNewDigest(b, []int{64, chunkLen, 8 << 10}, func(in []byte) {
		h := New()
		_, _ = h.Write(in)
		d := h.Digest()
		_, _ = d.Seek(1000, io.SeekStart)
		_, _ = d.Read(out)
	}, func(in []byte) {
		h := zeebo.New()
		_, _ = h.Write(in)
		d := h.Digest()
		_, _ = d.Seek(1000, io.SeekStart)
		_, _ = d.Read(out)
	})
}

// benchNewDigest runs ours (on the native path where it is loaded, and on
// the Go path) and zeebo's, each hashing an input of each size through a
// new Hasher and reading its Digest. Each is a function of its own, not
// one reading a Digest through an interface, which would move the Digest
// to the heap.
func benchNewDigest(b *testing.B, sizes []int, ours, zeebos func(in []byte)) {
	waitPlan()
	data := vectorInput(slices.Max(sizes))
	impls := []struct {
		name  string
		fn    func(in []byte)
		setup func() func()
	}{{"auto", ours, noSetup}, {"go", ours, goForced}, {"zeebo", zeebos, noSetup}}
	for _, n := range sizes {
		for _, im := range impls {
			b.Run("size="+sizeName(n)+"/impl="+im.name, func(b *testing.B) {
				defer im.setup()()
				b.ReportAllocs()
				for b.Loop() {
					im.fn(data[:n])
				}
			})
		}
	}
}

// BenchmarkDigestEachWrite writes 4 KiB (what a plain Hasher gathers in
// itself) through a new Hasher in pieces and takes a Digest after each,
// reading 32 bytes, on both paths, against zeebo: a running Digest of a
// short stream, which the Go path's first Digest (fold) must not
// make hash all that is gathered at each piece.
func BenchmarkDigestEachWrite(b *testing.B) {
	waitPlan()
	data := vectorInput(firstLen)
	impls := []struct {
		name  string
		fn    func(piece int, out []byte)
		setup func() func()
	}{
		{"auto", func(piece int, out []byte) { digestEachWrite(data, piece, out) }, noSetup},
		{"go", func(piece int, out []byte) { digestEachWrite(data, piece, out) }, goForced},
		{"zeebo", func(piece int, out []byte) { zeeboDigestEachWrite(data, piece, out) }, noSetup},
	}
	for _, piece := range []int{64, 256} {
		for _, im := range impls {
			benchLoop(b, "piece="+sizeName(piece)+"/impl="+im.name, im.setup, len(data), func(sum *[32]byte) {
				im.fn(piece, sum[:])
			})
		}
	}
}

// digestEachWrite is BenchmarkDigestEachWrite's loop on this package. It
// and zeeboDigestEachWrite are functions of their own, not inlined, so
// that the compiler inlines Digest into each alike: in a closure made by
// a function inlined into the benchmark, it inlined zeebo's Digest but not
// this package's, whose Digest then went to the heap at each read.
//
//go:noinline
func digestEachWrite(data []byte, piece int, out []byte) {
	h := New()
	for off := 0; off < len(data); off += piece {
		_, _ = h.Write(data[off : off+piece])
		_, _ = h.Digest().Read(out)
	}
}

// zeeboDigestEachWrite is digestEachWrite on zeebo's Hasher.
//
//go:noinline
func zeeboDigestEachWrite(data []byte, piece int, out []byte) {
	h := zeebo.New()
	for off := 0; off < len(data); off += piece {
		_, _ = h.Write(data[off : off+piece])
		_, _ = h.Digest().Read(out)
	}
}

// BenchmarkSumSmallKeyed hashes a short keyed input, as Sum of a keyed
// Hasher that has gathered it does, in Go (goChunkSum) on plans that pick
// zeebo's compression and lukechampine's one-chunk code, and with the
// library: why sumSmall gives the keyed modes to the Go package the plan
// picks for the size, and to the library where that is neither.
func BenchmarkSumSmallKeyed(b *testing.B) {
	if lib == nil {
		b.Skip("no native library")
	}
	defer pinDispatch()()
	saved := planNow.Load()
	key := new([32]byte)
	data := vectorInput(chunkLen)
	out := make([]byte, 32)
	for _, n := range []int{0, 64, 256, 512, chunkLen} {
		for _, im := range []impl{implZeebo, implLuke} {
			b.Run("size="+sizeName(n)+"/impl="+im.String(), func(b *testing.B) {
				planNow.Store(planAll(im))
				defer planNow.Store(saved)
				for b.Loop() {
					goChunkSum(keyWords(modeKeyed, key), modeFlags(modeKeyed), data[:n], out)
				}
			})
		}
		b.Run("size="+sizeName(n)+"/impl=native", func(b *testing.B) {
			for b.Loop() {
				must(lib.HashXOF(modeKeyed, key, false, data[:n], 0, out))
			}
		})
	}
}

// BenchmarkMarshal measures saving (AppendBinary into a reused buffer) and
// resuming (UnmarshalBinary into a reused Hasher) a state after inputs of a
// few sizes, on each backend: what a checkpoint costs. A Hasher that is
// never saved pays nothing for it (BenchmarkStream, TestAllocations).
func BenchmarkMarshal(b *testing.B) {
	backends := []struct {
		name  string
		setup func() func()
	}{{"native", noSetup}, {"go", goForced}}
	for _, be := range backends {
		if be.name == "native" && lib == nil {
			continue
		}
		for _, n := range []int{64, 1 << 20, 64 << 20} {
			restore := be.setup()
			h := New()
			_, _ = h.Write(make([]byte, n+100))
			state, err := h.MarshalBinary()
			restore()
			if err != nil {
				b.Fatal(err)
			}
			name := "input=" + sizeName(n) + "+100B/backend=" + be.name
			b.Run("op=save/"+name, func(b *testing.B) {
				defer be.setup()()
				buf := make([]byte, 0, len(state))
				b.ReportAllocs()
				for b.Loop() {
					buf, _ = h.AppendBinary(buf[:0])
				}
			})
			b.Run("op=resume/"+name, func(b *testing.B) {
				defer be.setup()()
				r := New()
				b.ReportAllocs()
				for b.Loop() {
					if err := r.UnmarshalBinary(state); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkZeeboSum is zeebo's Sum256 and Sum512 against zeeboSum256 and
// zeeboSum512, which the dispatch calls for zeebo above a chunk: they take
// zeebo's hasher from a pool rather than zero one in a temporary that
// zeebo's Sum512 copies (fallback.go).
func BenchmarkZeeboSum(b *testing.B) {
	data := vectorInput(16 << 10)
	for _, n := range []int{64, 1 << 10, 1<<10 + 1, 2 << 10, 4 << 10, 8 << 10, 16 << 10} {
		for _, im := range []struct {
			name string
			sum  func([]byte, *[64]byte)
		}{
			{"zeebo-256", func(p []byte, s *[64]byte) { *(*[32]byte)(s[:]) = zeebo.Sum256(p) }},
			{"ours-256", func(p []byte, s *[64]byte) { *(*[32]byte)(s[:]) = zeeboSum256(p) }},
			{"zeebo-512", func(p []byte, s *[64]byte) { *s = zeebo.Sum512(p) }},
			{"ours-512", func(p []byte, s *[64]byte) { *s = zeeboSum512(p) }},
		} {
			b.Run("size="+sizeName(n)+"/impl="+im.name, func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				var s [64]byte
				for b.Loop() {
					im.sum(data[:n], &s)
				}
			})
		}
	}
}

// BenchmarkTreeSum is the Go path's candidates for a one-shot hash longer
// than a group: zeebo (zeeboSum256, as the dispatch calls it) against
// treeSum256, lukechampine's compression of 16 chunks side by side in a
// goTree (bigByTree), and lukechampine's own Sum256, which allocates its
// hasher. The 16 MiB input is not in the cache.
func BenchmarkTreeSum(b *testing.B) {
	data := vectorInput(16 << 20)
	for _, n := range []int{8 << 10, 16<<10 + 64, 64 << 10, 256 << 10, 1 << 20, 16 << 20} {
		for _, im := range []struct {
			name string
			sum  func([]byte) [32]byte
		}{{"zeebo", zeeboSum256}, {"tree", treeSum256}, {"lukechampine", luke.Sum256}} {
			b.Run("size="+sizeName(n)+"/impl="+im.name, func(b *testing.B) {
				b.SetBytes(int64(n))
				b.ReportAllocs()
				var s [32]byte
				for b.Loop() {
					s = im.sum(data[:n])
				}
				_ = s
			})
		}
	}
}

// BenchmarkReadFromStream: io.Copy of 1 and 64 MiB into a new Hasher
// (through ReadFrom) and into zeebo's, from memory (a reader without
// WriteTo), a file in the page cache read through Read, a pipe another
// goroutine writes to, and a gzip stream, on both paths: the readers the
// choice of how ReadFrom reads a stream was measured with (streamPiece).
func BenchmarkReadFromStream(b *testing.B) {
	path := filepath.Join(b.TempDir(), "input")
	data := vectorInput(64 << 20)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	_, _ = w.Write(data)
	_ = w.Close()
	readers := []struct {
		name string
		open func(n int) (io.Reader, func())
	}{
		{"memory", func(n int) (io.Reader, func()) { return struct{ io.Reader }{bytes.NewReader(data[:n])}, func() {} }},
		{"file", func(n int) (io.Reader, func()) {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			return io.LimitReader(f, int64(n)), func() { _ = f.Close() }
		}},
		{"pipe", func(n int) (io.Reader, func()) {
			r, w, err := os.Pipe()
			if err != nil {
				b.Fatal(err)
			}
			go func() { _, _ = w.Write(data[:n]); _ = w.Close() }()
			return r, func() { _ = r.Close() }
		}},
		{"gzip", func(n int) (io.Reader, func()) {
			z, err := gzip.NewReader(bytes.NewReader(gz.Bytes()))
			if err != nil {
				b.Fatal(err)
			}
			return io.LimitReader(z, int64(n)), func() {}
		}},
	}
	for _, be := range []struct {
		name  string
		setup func() func()
	}{{"auto", noSetup}, {"go", goForced}} {
		for _, rd := range readers {
			for _, n := range []int{1 << 20, 64 << 20} {
				for _, impl := range []string{"ours", "zeebo"} {
					b.Run(fmt.Sprintf("path=%s/reader=%s/size=%s/impl=%s", be.name, rd.name, sizeName(n), impl), func(b *testing.B) {
						defer be.setup()()
						b.SetBytes(int64(n))
						for range b.N {
							var h io.Writer = New()
							if impl == "zeebo" {
								h = zeebo.New()
							}
							r, done := rd.open(n)
							if k, err := io.Copy(h, r); k != int64(n) || err != nil {
								b.Fatalf("io.Copy: %d, %v", k, err)
							}
							done()
						}
					})
				}
			}
		}
	}
}
