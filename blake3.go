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
// import path is all a user of that package has to do. It adds what Go's own
// hashes offer: a Hasher is an io.ReaderFrom (io.Copy(h, f) reads a large
// file on every core) and an encoding.BinaryMarshaler (a hash in progress
// can be saved and resumed, on either backend: docs/state-format.md); and
// what the Rust crate's hazmat module offers, hashing subtrees of one input
// apart (Hasher.SetInputOffset).
//
// Environment variables, read at init:
//
//	BLAKE3_BACKEND=auto    native if it can be loaded, else Go (the default)
//	BLAKE3_BACKEND=native  native, or panic at init naming the cause
//	BLAKE3_BACKEND=go      always the Go path
//	BLAKE3_LIBRARY=/abs/path/to/libblake3_purego.so  load this file instead
//	                        of the embedded library (absolute paths only)
//
// github.com/zeebo/blake3's own BLAKE3_PUREGO and BLAKE3_DISABLE_SSE41 (and
// the purego build tag), which turn its assembly off, are read too: where
// its compression is portable Go, the package does not count on it.
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

	"github.com/purego-blake3/blake3/internal/ffi"
	zeebo "github.com/zeebo/blake3"
	"lukechampine.com/blake3/guts"
)

// Sizes of the BLAKE3 function.
const (
	blockLen = 64
	chunkLen = 1024
)

// errKeySize is NewKeyed's error for a key that is not 32 bytes.
var errKeySize = errors.New("blake3: invalid key size: the key must be 32 bytes")

// Sum256 returns the first 256 bits of the unkeyed digest of the data.
func Sum256(data []byte) [32]byte {
	switch implFor(len(data)) {
	case implLuke:
		return lukeSum256(data)
	case implZeebo:
		// A block or less: zeebo's compression, its output written
		// straight into s (ffi.ZeeboBlockOutput), without Sum512's result
		// and its copies, and without zeebo's slower case of the empty
		// input (BenchmarkDispatch, size=0B and 64B; docs/dispatch.md).
		var s [32]byte
		if len(data) <= blockLen && zeeboBlocks && ffi.ZeeboBlockOutput(&guts.IV, 0, data, s[:]) {
			return s
		}
		if len(data) <= chunkLen {
			// zeebo's Sum512 called here, and cut: through zeeboSum512, or
			// zeebo's Sum256, each a call that copies the result once more,
			// Sum256 took 6 to 10% longer than zeebo's from 0 to 128 bytes
			// (TestDispatchTable, docs/dispatch.md).
			s := zeebo.Sum512(data)
			return [32]byte(s[:32])
		}
		return zeeboSum256(data)
	case implTree:
		return treeSum256(data)
	}
	sum := sumNative(data, 32)
	return [32]byte(sum[:32])
}

// Sum512 returns the first 512 bits of the unkeyed digest of the data.
func Sum512(data []byte) [64]byte {
	switch implFor(len(data)) {
	case implLuke:
		return lukeSum512(data)
	case implZeebo:
		var s [64]byte
		if len(data) <= blockLen && zeeboBlocks && ffi.ZeeboBlockOutput(&guts.IV, 0, data, s[:]) {
			return s // as in Sum256
		}
		// Up to a chunk, zeebo's compression with the root output written
		// straight into s: through zeebo's Sum512 and the copies of its
		// result, Sum512 of 65 to 256 B ran well behind zeebo's own on
		// the Go path, and level with it this way; Sum256 this way was no
		// faster than below (BLAKE3_API_CALL=Sum512 and Sum256 of
		// TestAPITable; the figures are in docs/zeebo-api.md).
		if len(data) <= chunkLen && zeeboBlocks && ffi.ZeeboChunkOutput(&guts.IV, 0, data, s[:]) {
			return s
		}
		if len(data) <= chunkLen {
			return zeebo.Sum512(data) // as in Sum256
		}
		return zeeboSum512(data)
	case implTree:
		return treeSum512(data)
	}
	return sumNative(data, 64)
}

// sumNative is the first n bytes of the hash of data by the library (the
// rest of sum is not the hash), with one crossing, on every allowed core
// when data is large enough. Where memory passed to the library stays
// where it is (ffi.ArgsStay), the library writes sum itself; elsewhere it
// writes pooled memory (scratch), copied to sum: the pool's Get and Put
// took about 1% of Sum256 of 4 KiB, whose target is within 5% of the
// library's own hash called in-process (docs/crossing.md). It is a
// function of its own so that Sum256 and Sum512, on the Go path, neither
// clear nor hold the pool's pointer: with this body inlined, Sum256 of 0
// bytes on lukechampine's path took 3 ns longer than lukechampine's own
// (of about 106 ns; BenchmarkDispatch at 0 B, auto against lukechampine,
// and docs/dispatch.md). It is never inlined, whatever the inliner's
// budget (with profile-guided optimization, say).
//
//go:noinline
func sumNative(data []byte, n int) (sum [64]byte) {
	if ffi.ArgsStay {
		hashNative(data, sum[:n])
		return sum
	}
	out := scratch.Get().(*[64]byte)
	hashNative(data, out[:n])
	sum = *out
	scratch.Put(out)
	return sum
}

// hashNative writes the hash of data to out by the library, on every
// allowed core when data is large enough.
func hashNative(data, out []byte) {
	if parallelOneShot(len(data)) {
		must(lib.HashXOF(modeHash, nil, true, data, 0, out))
	} else {
		must(lib.Hash(data, out))
	}
}

// scratch is output memory for the library's one-shot hashes where memory
// passed to a call escapes to the heap (darwin, windows:
// internal/ffi/call_purego.go): a result variable would be allocated at
// every call of Sum256 there, even on the Go path; pooled memory is not.
// On Linux a call's memory stays where it is, and sumNative does not use
// it.
var scratch = sync.Pool{New: func() any { return new([64]byte) }}

// DeriveKey derives a key based on reusable key material of any length, in
// the given context. The key is stored in out, using all of its current
// length.
//
// Context strings must be hardcoded constants, and the recommended format is
// "[application] [commit timestamp] [purpose]", e.g.,
// "example.com 2019-12-25 16:18:03 session tokens v1".
func DeriveKey(context string, material []byte, out []byte) {
	l := native()
	if l == nil {
		zeebo.DeriveKey(context, material, out)
		return
	}
	par := parallelOneShot(len(material))
	if !par && l.DeriveKey(context, material, out) == ffi.OK {
		return
	}
	// Large material, for the library's threads, or a context that is not
	// UTF-8 (the crate takes &str): through the context key.
	key := contextKey(context)
	must(l.HashXOF(modeDeriveKey, &key, par, material, 0, out))
}

// contextKey is the key that derive-key hashers in this context hash their
// key material under.
func contextKey(context string) (key [32]byte) {
	if lib != nil && lib.ContextKey(context, &key) == ffi.OK {
		return key
	}
	return cvBytes(goContextKey(context)) // not UTF-8, or no library
}

// New returns a new Hasher that has a digest size of 32 bytes.
//
// If you need more or less output bytes than that, use the Digest method.
func New() *Hasher {
	h := &Hasher{hasherState: hasherState{mode: modeHash}}
	h.begin()
	return h
}

// NewKeyed returns a new Hasher that uses the 32 byte input key and has a
// digest size of 32 bytes. It returns an error if the key is not 32 bytes.
//
// If you need more or less output bytes than that, use the Digest method.
func NewKeyed(key []byte) (h *Hasher, err error) {
	// Named results, the key converted rather than copied and the bare
	// return keep it within the inliner's budget, so that a Hasher its
	// caller does not keep stays on the caller's stack, as New's does
	// (TestAllocationsNewHasher; docs/zeebo-api.md has the times).
	if len(key) != 32 {
		return nil, errKeySize
	}
	h = &Hasher{hasherState: hasherState{mode: modeKeyed, key: [32]byte(key)}}
	h.begin()
	return
}

// NewDeriveKey returns a Hasher that is initialized with the context string.
// See DeriveKey for details. It has a digest size of 32 bytes.
//
// If you need more or less output bytes than that, use the Digest method.
func NewDeriveKey(context string) *Hasher {
	h := &Hasher{hasherState: hasherState{mode: modeDeriveKey, context: context}}
	h.begin()
	return h
}

// must turns an error code from a call that cannot fail on valid input into
// a panic: it means a broken library or a bug in this package, never bad
// input.
func must(rc ffi.Code) {
	if rc != ffi.OK {
		panic("blake3: internal error: native library returned " + rc.String())
	}
}
