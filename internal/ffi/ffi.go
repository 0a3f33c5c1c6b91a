// Package ffi is the one place where github.com/purego-blake3/blake3 crosses
// into the native library: the C ABI of rust/include/blake3_purego.h, its
// symbols, error codes, bounds and the call itself. Everything unsafe in
// the module is here.
//
// Rules kept here (see the header for the library's side):
//   - Calls go through call: on Linux (call_linux.go) the runtime's cgocall
//     with a seven-argument trampoline, on darwin and windows
//     (call_purego.go) purego.SyscallN. Either is marked go:uintptrescapes:
//     a pointer converted to uintptr in its argument list is moved to the
//     heap and kept alive until the call returns. So every conversion is
//     written inline in the call, never stored in a variable first.
//   - Only pointers to memory that holds no Go pointers are passed: byte
//     slices, 32-byte arrays, and the pointer-free Tree.
//   - The library keeps no pointer after a call returns, and never calls
//     back into Go, so the calling goroutine's stack cannot move during a
//     call.
//   - int32 results are read from the low 32 bits of the return register;
//     the upper bits are undefined in the C ABI.
package ffi

import (
	"strconv"
	"unsafe"
)

// ABIVersion is the BLAKE3_PUREGO_ABI_VERSION this package speaks.
const ABIVersion = 2

// Modes, the header's MODE_* selectors.
const (
	ModeHash      uint32 = 0
	ModeKeyed     uint32 = 1
	ModeDeriveKey uint32 = 2
)

// flagParallel is BLAKE3_PUREGO_FLAG_PARALLEL, for HashXOF.
const flagParallel = 0x100

// Code is a result of the C ABI: 0, or one of the negative error codes.
type Code int32

// The header's error codes (-4 is retired).
const (
	OK                 Code = 0
	ErrNull            Code = -1
	ErrState           Code = -2
	ErrOffsetUnaligned Code = -3
	ErrSubtreeTooLarge Code = -5
	ErrRootWithOffset  Code = -6
	ErrEmptySubtree    Code = -7
	ErrContextUTF8     Code = -8
	ErrLength          Code = -9
	ErrThreads         Code = -10
)

// String names the code as the header describes it.
func (c Code) String() string {
	switch c {
	case OK:
		return "ok"
	case ErrNull:
		return "NULL pointer"
	case ErrState:
		return "uninitialized tree"
	case ErrOffsetUnaligned:
		return "input offset not a multiple of 1024"
	case ErrSubtreeTooLarge:
		return "subtree too large for its offset"
	case ErrRootWithOffset:
		return "root finalization of a subtree with an offset"
	case ErrEmptySubtree:
		return "empty subtree"
	case ErrContextUTF8:
		return "derive-key context is not UTF-8"
	case ErrLength:
		return "length out of range"
	case ErrThreads:
		return "thread pool unavailable"
	}
	return "error " + strconv.Itoa(int(c))
}

// Tree is blake3_purego_tree, a hash in progress in Go memory: the
// chaining values of the complete subtrees of the input hashed so far (bit
// i of Chunks set: Stack[i] holds a subtree of 2^i chunks, largest first
// in input order), from input byte Offset. It holds no Go pointers. The
// library checks Magic, Mode and Offset at every call; a Tree whose other
// fields are wrong gives wrong hashes, never a fault.
type Tree struct {
	Magic    uint64
	Mode     uint32
	Reserved uint32
	Key      [32]byte
	Offset   uint64
	Chunks   uint64
	Stack    [64][32]byte
}

// TreeMagic is what tree_init writes in Tree.Magic: a Tree resumed from a
// saved state carries it too.
const TreeMagic = 0x3176_6565_7274_3362

// Symbols holds the addresses of the library's functions, resolved once by
// Bind and never changed afterwards. Its methods are the calls.
type Symbols struct {
	abiVersion, crateVersion, simd                         uintptr
	hash, keyedHash, deriveKey, hashXOF, contextKey        uintptr
	mergeNonRoot, mergeRoot, maxSubtreeLen, leftSubtreeLen uintptr
	initThreads, numThreads                                uintptr
	treeSize, treeAlign, treeInit, treeUpdate              uintptr
	treeFinalize, treeRoot, treeFinalizeNonRoot            uintptr
}

// table names each symbol and where its address goes.
func (s *Symbols) table() []struct {
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
		{"blake3_purego_hash", &s.hash},
		{"blake3_purego_keyed_hash", &s.keyedHash},
		{"blake3_purego_derive_key", &s.deriveKey},
		{"blake3_purego_hash_xof", &s.hashXOF},
		{"blake3_purego_derive_key_context_key", &s.contextKey},
		{"blake3_purego_merge_non_root", &s.mergeNonRoot},
		{"blake3_purego_merge_root", &s.mergeRoot},
		{"blake3_purego_max_subtree_len", &s.maxSubtreeLen},
		{"blake3_purego_left_subtree_len", &s.leftSubtreeLen},
		{"blake3_purego_init_threads", &s.initThreads},
		{"blake3_purego_num_threads", &s.numThreads},
		{"blake3_purego_tree_size", &s.treeSize},
		{"blake3_purego_tree_align", &s.treeAlign},
		{"blake3_purego_tree_init", &s.treeInit},
		{"blake3_purego_tree_update", &s.treeUpdate},
		{"blake3_purego_tree_finalize", &s.treeFinalize},
		{"blake3_purego_tree_root", &s.treeRoot},
		{"blake3_purego_tree_finalize_non_root", &s.treeFinalizeNonRoot},
	}
}

// ret converts a C int32_t result.
func ret(r uintptr) Code { return Code(int32(uint32(r))) }

// ptr is the address of a slice's first element, or nil for an empty slice
// with no backing array (valid with length 0 on the library's side).
//
//go:nosplit
func ptr[T any](s []T) *T { return unsafe.SliceData(s) }

// str is a string's bytes, without a copy: the library only reads them
// during the call.
func str(s string) *byte { return unsafe.StringData(s) }

// ABI is the library's abi_version(): the ABI it was built for.
func (s *Symbols) ABI() uint32 {
	return uint32(call(s.abiVersion, 0, 0, 0, 0, 0, 0, 0, 0))
}

// CrateVersion is the blake3 crate's version the library was built from.
func (s *Symbols) CrateVersion() string { return cString(call(s.crateVersion, 0, 0, 0, 0, 0, 0, 0, 0)) }

// SIMD is the instruction set the crate uses on this CPU.
func (s *Symbols) SIMD() string { return cString(call(s.simd, 0, 0, 0, 0, 0, 0, 0, 0)) }

// cString reads a static NUL-terminated string the library returned: it
// points to static, immutable memory that is never freed.
func cString(r uintptr) string {
	if r == 0 {
		return ""
	}
	p := *(*unsafe.Pointer)(unsafe.Pointer(&r))
	n := 0
	for n < 64 && *(*byte)(unsafe.Add(p, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(p), n))
}

// Hash writes the plain hash of in (from output offset 0) to out.
func (s *Symbols) Hash(in, out []byte) Code {
	if pin(len(in) + len(out)) {
		defer unpin()
	}
	return ret(call(s.hash, 4, uintptr(unsafe.Pointer(ptr(in))), uintptr(len(in)), uintptr(unsafe.Pointer(ptr(out))), uintptr(len(out)), 0, 0, 0))
}

// KeyedHash writes the keyed hash of in under key to out.
func (s *Symbols) KeyedHash(key *[32]byte, in, out []byte) Code {
	if pin(len(in) + len(out)) {
		defer unpin()
	}
	return ret(call(s.keyedHash, 5, uintptr(unsafe.Pointer(key)), uintptr(unsafe.Pointer(ptr(in))), uintptr(len(in)), uintptr(unsafe.Pointer(ptr(out))), uintptr(len(out)), 0, 0))
}

// DeriveKey writes the key derived from in under context (UTF-8, or
// ErrContextUTF8) to out.
func (s *Symbols) DeriveKey(context string, in, out []byte) Code {
	if pin(len(in) + len(out)) {
		defer unpin()
	}
	return ret(call(s.deriveKey, 6, uintptr(unsafe.Pointer(str(context))), uintptr(len(context)), uintptr(unsafe.Pointer(ptr(in))), uintptr(len(in)), uintptr(unsafe.Pointer(ptr(out))), uintptr(len(out)), 0))
}

// HashXOF writes the output of in from output offset seek to out, in a
// mode with its key (nil for ModeHash), on the rayon pool if parallel.
func (s *Symbols) HashXOF(mode uint32, key *[32]byte, parallel bool, in []byte, seek uint64, out []byte) Code {
	if parallel {
		mode |= flagParallel
	}
	if pin(len(in) + len(out)) {
		defer unpin()
	}
	return ret(call(s.hashXOF, 7, uintptr(mode), uintptr(unsafe.Pointer(key)), uintptr(unsafe.Pointer(ptr(in))), uintptr(len(in)), uintptr(seek), uintptr(unsafe.Pointer(ptr(out))), uintptr(len(out))))
}

// ContextKey writes the context key of a derive-key context to out.
func (s *Symbols) ContextKey(context string, out *[32]byte) Code {
	return ret(call(s.contextKey, 3, uintptr(unsafe.Pointer(str(context))), uintptr(len(context)), uintptr(unsafe.Pointer(out)), 0, 0, 0, 0))
}

// MergeNonRoot writes the chaining value of the parent of two subtrees.
func (s *Symbols) MergeNonRoot(left, right *[32]byte, mode uint32, key, cv *[32]byte) Code {
	return ret(call(s.mergeNonRoot, 5, uintptr(unsafe.Pointer(left)), uintptr(unsafe.Pointer(right)), uintptr(mode), uintptr(unsafe.Pointer(key)), uintptr(unsafe.Pointer(cv)), 0, 0))
}

// MergeRoot writes the root output of two subtrees from offset seek.
func (s *Symbols) MergeRoot(left, right *[32]byte, mode uint32, key *[32]byte, seek uint64, out []byte) Code {
	if pin(len(out)) {
		defer unpin()
	}
	return ret(call(s.mergeRoot, 7, uintptr(unsafe.Pointer(left)), uintptr(unsafe.Pointer(right)), uintptr(mode), uintptr(unsafe.Pointer(key)), uintptr(seek), uintptr(unsafe.Pointer(ptr(out))), uintptr(len(out))))
}

// MaxSubtreeLen writes the largest subtree allowed at offset to n.
func (s *Symbols) MaxSubtreeLen(offset uint64, n *uint64) Code {
	return ret(call(s.maxSubtreeLen, 2, uintptr(offset), uintptr(unsafe.Pointer(n)), 0, 0, 0, 0, 0))
}

// LeftSubtreeLen writes how many of total bytes go to the left subtree.
func (s *Symbols) LeftSubtreeLen(total uint64, n *uint64) Code {
	return ret(call(s.leftSubtreeLen, 2, uintptr(total), uintptr(unsafe.Pointer(n)), 0, 0, 0, 0, 0))
}

// InitThreads makes the library's rayon pool n threads wide.
func (s *Symbols) InitThreads(n int) Code {
	return ret(call(s.initThreads, 1, uintptr(n), 0, 0, 0, 0, 0, 0))
}

// NumThreads is the size of the library's rayon pool, 0 before any.
func (s *Symbols) NumThreads() int { return int(call(s.numThreads, 0, 0, 0, 0, 0, 0, 0, 0)) }

// TreeInit initializes t in a mode with its key (nil for ModeHash), for
// the input from byte offset (0 for a whole input).
func (s *Symbols) TreeInit(t *Tree, mode uint32, key *[32]byte, offset uint64) Code {
	return ret(call(s.treeInit, 4, uintptr(unsafe.Pointer(t)), uintptr(mode), uintptr(unsafe.Pointer(key)), uintptr(offset), 0, 0, 0))
}

// TreeUpdate hashes p (whole chunks) into t, side by side on the rayon
// pool if parallel.
func (s *Symbols) TreeUpdate(t *Tree, p []byte, parallel bool) Code {
	par := uintptr(0)
	if parallel {
		par = 1
	}
	if pin(len(p)) {
		defer unpin()
	}
	return ret(call(s.treeUpdate, 4, uintptr(unsafe.Pointer(t)), uintptr(unsafe.Pointer(ptr(p))), uintptr(len(p)), par, 0, 0, 0))
}

// TreeFinalize writes the root output of t's input and then tail, from
// output offset seek, to out.
func (s *Symbols) TreeFinalize(t *Tree, tail []byte, seek uint64, out []byte) Code {
	if pin(len(tail) + len(out)) {
		defer unpin()
	}
	return ret(call(s.treeFinalize, 6, uintptr(unsafe.Pointer(t)), uintptr(unsafe.Pointer(ptr(tail))), uintptr(len(tail)), uintptr(seek), uintptr(unsafe.Pointer(ptr(out))), uintptr(len(out)), 0))
}

// TreeRoot writes the chaining values of the root's two children for t's
// input and then tail; ErrLength when that is one chunk or less.
func (s *Symbols) TreeRoot(t *Tree, tail []byte, left, right *[32]byte) Code {
	return ret(call(s.treeRoot, 5, uintptr(unsafe.Pointer(t)), uintptr(unsafe.Pointer(ptr(tail))), uintptr(len(tail)), uintptr(unsafe.Pointer(left)), uintptr(unsafe.Pointer(right)), 0, 0))
}

// TreeFinalizeNonRoot writes the chaining value of t's input and then tail.
func (s *Symbols) TreeFinalizeNonRoot(t *Tree, tail []byte, cv *[32]byte) Code {
	return ret(call(s.treeFinalizeNonRoot, 4, uintptr(unsafe.Pointer(t)), uintptr(unsafe.Pointer(ptr(tail))), uintptr(len(tail)), uintptr(unsafe.Pointer(cv)), 0, 0, 0))
}
