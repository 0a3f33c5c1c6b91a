// Package blake3 is BLAKE3 for Go at the speed of the official Rust crate,
// without cgo.
//
// The package loads a native library built from the Rust blake3 crate
// (embedded in the package for linux/amd64, linux/arm64 and windows/amd64)
// through github.com/ebitengine/purego, checks it and binds it, once per
// process: at its first use (any hash, or Backend), so that process start
// does not pay for it, or at init with BLAKE3_BACKEND=native. Where the
// library cannot be used it falls back, quietly, on github.com/zeebo/blake3;
// Backend says which path is in use and why.
//
// The API is a drop-in for github.com/zeebo/blake3 v0.2.4: changing the
// import path is all a user of that package has to do.
//
// Environment variables, read at init:
//
//	BLAKE3_BACKEND=auto    native if it can be loaded, else Go (the default)
//	BLAKE3_BACKEND=native  native, or panic at init naming the cause
//	BLAKE3_BACKEND=go      always the Go path
//	BLAKE3_LIBRARY=/abs/path/to/libblake3_purego.so  load this file instead
//	                        of the embedded library (absolute paths only)
//
// Loading a library runs its constructors before any check can look at it:
// BLAKE3_LIBRARY must name a file trusted as much as the program (the
// README's security notes say what the package checks, and when).
//
// Build tags: blake3_noembed leaves the embedded library out (set
// BLAKE3_LIBRARY instead); blake3_nonative leaves out the loader and purego
// altogether, so that a CGO_ENABLED=0 binary is fully static.
package blake3

import (
	"errors"
	"sync"

	zeebo "github.com/zeebo/blake3"
	luke "lukechampine.com/blake3"
)

// Hashing modes, shared with the native library's ABI.
const (
	modeHash      uint32 = 0
	modeKeyed     uint32 = 1
	modeDeriveKey uint32 = 2
)

// Size dispatch, measured on the 2-core AVX-512 (AMD EPYC) development
// machine with
//
//	go test -run '^$' -bench 'BenchmarkDispatch' -count 3 .
//
// (tune_bench_test.go; figures in docs/benchmarks.md):
//   - up to goMax bytes (one chunk) the Go path is faster than a crossing
//     into the library (lukechampine's one-chunk code is the fastest there:
//     1 KiB in 1.6 µs, against 1.9 µs native and 2.1 µs zeebo; measured
//     again with the 33 ns crossing, 5 alternating rounds: 1.51 µs against
//     1.73 µs native and 1.99 µs zeebo, native 1.14-1.24x slower than
//     lukechampine at every size from 65 B to 1 KiB);
//   - from goBandLo to goBandHi bytes, zeebo's 4-way code beats the crate,
//     whose 3-chunk path is slow (3.5 KiB: 3.2 µs zeebo, 5.0 µs native);
//   - streams are handed to the library in pieces of at least bufSize;
//   - single updates of parallelMin bytes or more use every allowed core
//     (2 MiB: 8.7 GB/s on 2 threads against 7.1 GB/s on one; 1 MiB: 5.6
//     against 7.4).
const (
	goMax       = 1024
	goBandLo    = 2560
	goBandHi    = 4096
	bufSize     = 16 << 10
	parallelMin = 2 << 20
)

// blockLen is BLAKE3's block size. zeebo hashes exactly one block faster than
// lukechampine (103 ns against 110 ns, BenchmarkDispatch at 64 B), and
// lukechampine everything else up to a chunk.
const blockLen = 64

// goFaster reports whether an input of n bytes is hashed faster on the Go
// path than through the library.
func goFaster(n int) bool { return n <= goMax || n > goBandLo && n < goBandHi }

// errKeySize is NewKeyed's error for a key that is not 32 bytes.
var errKeySize = errors.New("blake3: invalid key size: the key must be 32 bytes")

// Sum256 returns the first 256 bits of the unkeyed digest of the data.
func Sum256(data []byte) [32]byte {
	if len(data) <= goMax && len(data) != blockLen {
		return luke.Sum256(data) // the Go path's one-chunk case, without a call between
	}
	if goFaster(len(data)) || native() == nil {
		return zeebo.Sum256(data)
	}
	return sum256Native(data)
}

// Sum512 returns the first 512 bits of the unkeyed digest of the data.
func Sum512(data []byte) [64]byte {
	if len(data) <= goMax && len(data) != blockLen {
		return luke.Sum512(data)
	}
	if goFaster(len(data)) || native() == nil {
		return zeebo.Sum512(data)
	}
	return sum512Native(data)
}

func sum256Native(data []byte) (sum [32]byte) {
	out := getScratch()
	sumNative(data, out[:32])
	copy(sum[:], out[:32])
	putScratch(out)
	return sum
}

func sum512Native(data []byte) (sum [64]byte) {
	out := getScratch()
	sumNative(data, out[:])
	sum = *out
	putScratch(out)
	return sum
}

// DeriveKey derives a key based on reusable key material of any length, in
// the given context. The key is stored in out, using all of its current
// length.
//
// Context strings must be hardcoded constants, and the recommended format is
// "[application] [commit timestamp] [purpose]", e.g.,
// "example.com 2019-12-25 16:18:03 session tokens v1".
func DeriveKey(context string, material []byte, out []byte) {
	if native() == nil {
		zeebo.DeriveKey(context, material, out)
		return
	}
	if len(material) < parallelMin {
		if nativeDeriveKey(context, material, out) != 0 {
			// A context that is not UTF-8: the crate takes &str.
			zeebo.DeriveKey(context, material, out)
		}
		return
	}
	// Large material: through a Hasher, for the library's threads.
	h := NewDeriveKey(context)
	_, _ = h.Write(material)
	_, _ = h.Digest().Read(out)
}

// New returns a new Hasher that has a digest size of 32 bytes.
//
// If you need more or less output bytes than that, use the Digest method.
func New() *Hasher {
	h := &Hasher{mode: modeHash}
	h.start()
	return h
}

// NewKeyed returns a new Hasher that uses the 32 byte input key and has a
// digest size of 32 bytes. It returns an error if the key is not 32 bytes.
//
// If you need more or less output bytes than that, use the Digest method.
func NewKeyed(key []byte) (*Hasher, error) {
	if len(key) != 32 {
		return nil, errKeySize
	}
	h := &Hasher{mode: modeKeyed}
	copy(h.key[:], key)
	h.start()
	return h, nil
}

// NewDeriveKey returns a Hasher that is initialized with the context string.
// See DeriveKey for details. It has a digest size of 32 bytes.
//
// If you need more or less output bytes than that, use the Digest method.
func NewDeriveKey(context string) *Hasher {
	h := &Hasher{mode: modeDeriveKey, context: context}
	if native() != nil && nativeContextKey(context, &h.key) != 0 {
		// Not UTF-8: the crate takes &str, so this hasher uses the Go path.
		h.setGo()
	}
	h.start()
	return h
}

// sumNative hashes a large input with one crossing, or through a state when
// it is large enough for several cores.
func sumNative(data, out []byte) {
	var rc int32
	if len(data) >= parallelMin && threads() > 1 {
		h := hashers.Get().(*Hasher)
		h.Reset()
		h.cross(data)
		rc = stFinalize(h.state(), 0, out)
		hashers.Put(h)
	} else {
		rc = nativeHash(data, out)
	}
	must(rc)
}

// hashers are Hashers for one-shot hashes that go through a state, reused so
// that such a hash allocates nothing.
var hashers = sync.Pool{New: func() any { return new(Hasher) }}

// must turns an error code from a call that cannot fail on valid input into
// a panic: it means a broken library or a bug in this package, never bad
// input.
func must(rc int32) {
	if rc != 0 {
		panic("blake3: internal error: native library returned " + codeText(rc))
	}
}
