//go:build !blake3_nonative && ((linux && (amd64 || arm64)) || (darwin && (amd64 || arm64)) || (windows && amd64))

// This file is the FFI boundary: every call into the native library goes
// through one of the functions below, and nowhere else.
//
// Rules kept here (see rust/include/blake3_purego.h for the library's side):
//   - Calls go through call: on Linux (ffi_call_linux.go) the runtime's
//     cgocall with a seven-argument trampoline, elsewhere (ffi_call_purego.go)
//     purego.SyscallN. Either is marked go:uintptrescapes: a pointer
//     converted to uintptr in its argument list is moved to the heap and kept
//     alive until the call returns. So every conversion is written inline in
//     the call, never stored in a variable first.
//   - Only pointers to memory that holds no Go pointers are passed (byte
//     slices and the []uint64 hasher state).
//   - The library keeps no pointer after a call returns, so nothing needs to
//     be pinned beyond the call, and it never calls back into Go, so the
//     calling goroutine's stack cannot move during a call.
//   - int32 results are read from the low 32 bits of the return register; the
//     upper bits are undefined in the C ABI.

package blake3

import (
	"runtime"
	"unsafe"
)

// abiVersion is the BLAKE3_PUREGO_ABI_VERSION this package speaks.
const abiVersion = 1

// Error codes of the C ABI.
const (
	errNull             = -1
	errState            = -2
	errOffsetUnaligned  = -3
	errOffsetAfterInput = -4
	errSubtreeTooLarge  = -5
	errRootWithOffset   = -6
	errEmptySubtree     = -7
	errContextUTF8      = -8
	errLength           = -9
	errThreads          = -10
)

// symbols holds the addresses of the library's functions, resolved once at
// load time and never changed afterwards.
type symbols struct {
	abiVersion, crateVersion, simd                                    uintptr
	stateSize, stateAlign                                             uintptr
	init, initKeyed, initDeriveKey, initContextKey                    uintptr
	update, updateRayon, finalize, reset, count                       uintptr
	hash, keyedHash, deriveKey                                        uintptr
	contextKey, setInputOffset, finalizeNonRoot, mergeNonRoot         uintptr
	mergeRoot, maxSubtreeLen, leftSubtreeLen, initThreads, numThreads uintptr

	// stateWords is the size of the library's hasher state in uint64 words.
	stateWords int
}

// symbolTable names each symbol and where its address goes; bind looks every
// one up before any is called, so a library missing one is refused.
func (s *symbols) table() []struct {
	name string
	addr *uintptr
} {
	return []struct {
		name string
		addr *uintptr
	}{
		{"blake3_purego_abi_version", &s.abiVersion},
		{"blake3_purego_crate_version", &s.crateVersion},
		{"blake3_purego_simd", &s.simd},
		{"blake3_purego_state_size", &s.stateSize},
		{"blake3_purego_state_align", &s.stateAlign},
		{"blake3_purego_init", &s.init},
		{"blake3_purego_init_keyed", &s.initKeyed},
		{"blake3_purego_init_derive_key", &s.initDeriveKey},
		{"blake3_purego_init_context_key", &s.initContextKey},
		{"blake3_purego_update", &s.update},
		{"blake3_purego_update_rayon", &s.updateRayon},
		{"blake3_purego_finalize", &s.finalize},
		{"blake3_purego_reset", &s.reset},
		{"blake3_purego_count", &s.count},
		{"blake3_purego_hash", &s.hash},
		{"blake3_purego_keyed_hash", &s.keyedHash},
		{"blake3_purego_derive_key", &s.deriveKey},
		{"blake3_purego_derive_key_context_key", &s.contextKey},
		{"blake3_purego_set_input_offset", &s.setInputOffset},
		{"blake3_purego_finalize_non_root", &s.finalizeNonRoot},
		{"blake3_purego_merge_non_root", &s.mergeNonRoot},
		{"blake3_purego_merge_root", &s.mergeRoot},
		{"blake3_purego_max_subtree_len", &s.maxSubtreeLen},
		{"blake3_purego_left_subtree_len", &s.leftSubtreeLen},
		{"blake3_purego_init_threads", &s.initThreads},
		{"blake3_purego_num_threads", &s.numThreads},
	}
}

// lib is the bound library; its zero value means none is loaded. It is set
// once during package initialization (or by tests before use) and read-only
// afterwards.
var lib *symbols

// pinMin is the size of input or output from which a call runs with the
// calling goroutine locked to its thread. Measured by alternating a build
// that does so with one that does not, 12 rounds of BenchmarkSum256 and
// BenchmarkStream (medians, MB/s): 64 KiB one-shots 7437 against 7052, 1 MiB
// 7533 against 7384, 16 MiB 6685 against 6479, a 16 MiB stream in 64 KiB
// pieces 6041 against 5607; GODEBUG=asyncpreemptoff=1 gave the unlocked
// build a like gain, so it is the runtime's preemption machinery around a
// long call that costs. Locking costs ~4 ns, so short calls are not locked.
const pinMin = 16 << 10

// pin locks the goroutine to its thread for a call that hashes or produces
// n bytes, when n is at least pinMin, and reports whether it did; the
// caller then defers unpin (deferred, so that no panic can leave the
// goroutine locked or its slot taken). It nests with the caller's own
// LockOSThread, if any. A pinned call also takes one of the slots that bound
// the long calls in flight (callslots.go), before locking: a goroutine
// parked while locked would keep its thread.
func pin(n int) bool {
	if n < pinMin {
		return false
	}
	acquireSlot()
	runtime.LockOSThread()
	return true
}

// unpin undoes pin.
func unpin() {
	runtime.UnlockOSThread()
	releaseSlot()
}

// ret converts a C int32_t result.
func ret(r uintptr) int32 { return int32(uint32(r)) }

// ptr is the address of a slice's first element, or nil for an empty slice
// with no backing array (valid with length 0 on the library's side).
//
//go:nosplit
func ptr[T any](s []T) *T { return unsafe.SliceData(s) }

func ffiABIVersion(l *symbols) uint32 {
	r := call(l.abiVersion, 0, 0, 0, 0, 0, 0, 0, 0)
	return uint32(r)
}

func ffiSize(fn uintptr) uintptr {
	r := call(fn, 0, 0, 0, 0, 0, 0, 0, 0)
	return r
}

// ffiString reads a static NUL-terminated string the library returned.
func ffiString(fn uintptr) string {
	r := call(fn, 0, 0, 0, 0, 0, 0, 0, 0)
	if r == 0 {
		return ""
	}
	// The library returns a pointer to static, immutable memory that is never
	// freed; reading it as a C string is safe for the life of the process.
	p := *(*unsafe.Pointer)(unsafe.Pointer(&r))
	n := 0
	for n < 64 && *(*byte)(unsafe.Add(p, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(p), n))
}

func ffiInit(l *symbols, st []uint64) int32 {
	r := call(l.init, 1, uintptr(unsafe.Pointer(ptr(st))), 0, 0, 0, 0, 0, 0)
	return ret(r)
}

func ffiInitKeyed(l *symbols, st []uint64, key *[32]byte) int32 {
	r := call(l.initKeyed, 2, uintptr(unsafe.Pointer(ptr(st))), uintptr(unsafe.Pointer(key)), 0, 0, 0, 0, 0)
	return ret(r)
}

func ffiInitContextKey(l *symbols, st []uint64, key *[32]byte) int32 {
	r := call(l.initContextKey, 2, uintptr(unsafe.Pointer(ptr(st))), uintptr(unsafe.Pointer(key)), 0, 0, 0, 0, 0)
	return ret(r)
}

func ffiInitDeriveKey(l *symbols, st []uint64, ctx []byte) int32 {
	r := call(l.initDeriveKey, 3, uintptr(unsafe.Pointer(ptr(st))), uintptr(unsafe.Pointer(ptr(ctx))), uintptr(len(ctx)), 0, 0, 0, 0)
	return ret(r)
}

func ffiUpdate(l *symbols, st []uint64, p []byte) int32 {
	if pin(len(p)) {
		defer unpin()
	}
	r := call(l.update, 3, uintptr(unsafe.Pointer(ptr(st))), uintptr(unsafe.Pointer(ptr(p))), uintptr(len(p)), 0, 0, 0, 0)
	return ret(r)
}

func ffiUpdateRayon(l *symbols, st []uint64, p []byte) int32 {
	if pin(len(p)) {
		defer unpin()
	}
	r := call(l.updateRayon, 3, uintptr(unsafe.Pointer(ptr(st))), uintptr(unsafe.Pointer(ptr(p))), uintptr(len(p)), 0, 0, 0, 0)
	return ret(r)
}

func ffiFinalize(l *symbols, st []uint64, seek uint64, out []byte) int32 {
	if pin(len(out)) {
		defer unpin()
	}
	r := call(l.finalize, 4, uintptr(unsafe.Pointer(ptr(st))), uintptr(seek), uintptr(unsafe.Pointer(ptr(out))), uintptr(len(out)), 0, 0, 0)
	return ret(r)
}

func ffiReset(l *symbols, st []uint64) int32 {
	r := call(l.reset, 1, uintptr(unsafe.Pointer(ptr(st))), 0, 0, 0, 0, 0, 0)
	return ret(r)
}

func ffiCount(l *symbols, st []uint64, n *uint64) int32 {
	r := call(l.count, 2, uintptr(unsafe.Pointer(ptr(st))), uintptr(unsafe.Pointer(n)), 0, 0, 0, 0, 0)
	return ret(r)
}

func ffiHash(l *symbols, in, out []byte) int32 {
	if pin(len(in) + len(out)) {
		defer unpin()
	}
	r := call(l.hash, 4, uintptr(unsafe.Pointer(ptr(in))), uintptr(len(in)), uintptr(unsafe.Pointer(ptr(out))), uintptr(len(out)), 0, 0, 0)
	return ret(r)
}

func ffiKeyedHash(l *symbols, key *[32]byte, in, out []byte) int32 {
	if pin(len(in) + len(out)) {
		defer unpin()
	}
	r := call(l.keyedHash, 5, uintptr(unsafe.Pointer(key)), uintptr(unsafe.Pointer(ptr(in))), uintptr(len(in)), uintptr(unsafe.Pointer(ptr(out))), uintptr(len(out)), 0, 0)
	return ret(r)
}

func ffiDeriveKey(l *symbols, ctx, in, out []byte) int32 {
	if pin(len(in) + len(out)) {
		defer unpin()
	}
	r := call(l.deriveKey, 6, uintptr(unsafe.Pointer(ptr(ctx))), uintptr(len(ctx)), uintptr(unsafe.Pointer(ptr(in))), uintptr(len(in)), uintptr(unsafe.Pointer(ptr(out))), uintptr(len(out)), 0)
	return ret(r)
}

func ffiContextKey(l *symbols, ctx []byte, out *[32]byte) int32 {
	r := call(l.contextKey, 3, uintptr(unsafe.Pointer(ptr(ctx))), uintptr(len(ctx)), uintptr(unsafe.Pointer(out)), 0, 0, 0, 0)
	return ret(r)
}

func ffiSetInputOffset(l *symbols, st []uint64, off uint64) int32 {
	r := call(l.setInputOffset, 2, uintptr(unsafe.Pointer(ptr(st))), uintptr(off), 0, 0, 0, 0, 0)
	return ret(r)
}

func ffiFinalizeNonRoot(l *symbols, st []uint64, cv *[32]byte) int32 {
	r := call(l.finalizeNonRoot, 2, uintptr(unsafe.Pointer(ptr(st))), uintptr(unsafe.Pointer(cv)), 0, 0, 0, 0, 0)
	return ret(r)
}

func ffiMergeNonRoot(l *symbols, left, right *[32]byte, mode uint32, key *[32]byte, cv *[32]byte) int32 {
	r := call(l.mergeNonRoot, 5, uintptr(unsafe.Pointer(left)), uintptr(unsafe.Pointer(right)), uintptr(mode), uintptr(unsafe.Pointer(key)), uintptr(unsafe.Pointer(cv)), 0, 0)
	return ret(r)
}

func ffiMergeRoot(l *symbols, left, right *[32]byte, mode uint32, key *[32]byte, seek uint64, out []byte) int32 {
	if pin(len(out)) {
		defer unpin()
	}
	r := call(l.mergeRoot, 7, uintptr(unsafe.Pointer(left)), uintptr(unsafe.Pointer(right)), uintptr(mode), uintptr(unsafe.Pointer(key)), uintptr(seek), uintptr(unsafe.Pointer(ptr(out))), uintptr(len(out)))
	return ret(r)
}

func ffiMaxSubtreeLen(l *symbols, off uint64, n *uint64) int32 {
	r := call(l.maxSubtreeLen, 2, uintptr(off), uintptr(unsafe.Pointer(n)), 0, 0, 0, 0, 0)
	return ret(r)
}

func ffiLeftSubtreeLen(l *symbols, total uint64, n *uint64) int32 {
	r := call(l.leftSubtreeLen, 2, uintptr(total), uintptr(unsafe.Pointer(n)), 0, 0, 0, 0, 0)
	return ret(r)
}

func ffiInitThreads(l *symbols, n int) int32 {
	r := call(l.initThreads, 1, uintptr(n), 0, 0, 0, 0, 0, 0)
	return ret(r)
}
