// Package ffi is the one place where github.com/purego-blake3/blake3 crosses
// into the native library: the C ABI of rust/include/blake3_purego.h, its
// symbols, error codes, bounds and the call itself. Everything unsafe in
// the module is here.
//
// Rules kept here (see the header for the library's side):
//   - Calls go through call, with their arguments in a cArgs: on Linux
//     (call_linux.go) the runtime's cgocall with a seven-argument
//     trampoline, on darwin and windows (call_purego.go) purego.SyscallN.
//   - A pointer argument stays a typed pointer (arg.p) until the
//     trampoline loads it into a register, on the thread's system stack:
//     while the cArgs is built and call runs, the garbage collector sees it
//     (what it points to stays alive) and a goroutine stack that grows
//     takes it along. From there on the goroutine is in a system call,
//     whose stack the runtime never moves, and runtime.cgocall keeps the
//     cArgs alive until the call returns. So on Linux the memory passed
//     need not be on the heap: a caller's stack buffer stays on its stack,
//     as with cgo's noescape. purego.SyscallN takes integers, so on darwin
//     and windows what the arguments point to is moved to the heap instead
//     (call_purego.go).
//   - Only pointers to memory that holds no Go pointers are passed to the
//     library: byte slices, 32-byte arrays, and the pointer-free Tree.
//   - The library keeps no pointer after a call returns, and never calls
//     back into Go, so the calling goroutine's stack cannot move during a
//     call.
//   - int32 results are read from the low 32 bits of the return register;
//     the upper bits are undefined in the C ABI.
package ffi

import (
	"strconv"
	"sync"
	"unsafe"

	"lukechampine.com/blake3/guts"
)

// ABIVersion is the BLAKE3_PUREGO_ABI_VERSION this package speaks.
const ABIVersion = 4

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
	ErrFlags           Code = -11
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
	case ErrFlags:
		return "node flags out of range"
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
	rootOutput, treeUpdateLast                             uintptr
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
		{"blake3_purego_root_output", &s.rootOutput},
		{"blake3_purego_tree_update_last", &s.treeUpdateLast},
	}
}

// ret converts a C int32_t result.
func ret(r uintptr) Code { return Code(int32(uint32(r))) }

// cArgs is one call: the C function, its arity, its arguments and the slot
// for its result. The trampolines (call_linux_$GOARCH.s) read fn and a and
// write r, at the offsets go_asm.h gives.
type cArgs struct {
	fn uintptr
	n  int
	a  [7]arg
	r  uintptr
}

// arg is one argument of a C function: p, a pointer to Go memory (or nil),
// plus v, an integer (0 beside a pointer). The trampolines pass p+v.
type arg struct {
	p unsafe.Pointer
	v uintptr
}

// ptrArg passes a pointer to Go memory that holds no Go pointers (nil is
// NULL).
func ptrArg[T any](p *T) arg { return arg{p: unsafe.Pointer(p)} }

// bytesArg passes a byte slice's first element, or NULL for an empty slice
// with no backing array (valid with length 0 on the library's side).
func bytesArg(b []byte) arg { return arg{p: unsafe.Pointer(unsafe.SliceData(b))} }

// strArg passes a string's bytes, without a copy: the library only reads
// them during the call.
func strArg(s string) arg { return arg{p: unsafe.Pointer(unsafe.StringData(s))} }

// StringBytes returns the bytes of s as a slice, without a copy, for a
// caller that only reads them and keeps nothing of the slice after its call
// (io.Writer's contract): Hasher.WriteString, which hashes a string as Write
// hashes a slice. A copy of a long string cost an allocation of its length
// and made WriteString slower than zeebo's, which copies nothing
// (BenchmarkWriteString). Nothing may write to the slice: the string's bytes
// may be in read-only memory.
func StringBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// intArg passes an integer.
func intArg[T ~int | ~uint32 | ~uint64 | ~uintptr](v T) arg { return arg{v: uintptr(v)} }

// call0 calls a function of no arguments.
func call0(fn uintptr) uintptr { return call(&cArgs{fn: fn}) }

// ABI is the library's abi_version(): the ABI it was built for.
func (s *Symbols) ABI() uint32 {
	return uint32(call0(s.abiVersion))
}

// CrateVersion is the blake3 crate's version the library was built from.
func (s *Symbols) CrateVersion() string { return cString(call0(s.crateVersion)) }

// SIMD is the instruction set the crate uses on this CPU.
func (s *Symbols) SIMD() string { return cString(call0(s.simd)) }

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
	return ret(call(&cArgs{fn: s.hash, n: 4, a: [7]arg{bytesArg(in), intArg(len(in)), bytesArg(out), intArg(len(out))}}))
}

// KeyedHash writes the keyed hash of in under key to out.
func (s *Symbols) KeyedHash(key *[32]byte, in, out []byte) Code {
	if pin(len(in) + len(out)) {
		defer unpin()
	}
	return ret(call(&cArgs{fn: s.keyedHash, n: 5, a: [7]arg{ptrArg(key), bytesArg(in), intArg(len(in)), bytesArg(out), intArg(len(out))}}))
}

// DeriveKey writes the key derived from in under context (UTF-8, or
// ErrContextUTF8) to out.
func (s *Symbols) DeriveKey(context string, in, out []byte) Code {
	if pin(len(in) + len(out)) {
		defer unpin()
	}
	return ret(call(&cArgs{fn: s.deriveKey, n: 6, a: [7]arg{strArg(context), intArg(len(context)), bytesArg(in), intArg(len(in)), bytesArg(out), intArg(len(out))}}))
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
	return ret(call(&cArgs{fn: s.hashXOF, n: 7, a: [7]arg{intArg(mode), ptrArg(key), bytesArg(in), intArg(len(in)), intArg(seek), bytesArg(out), intArg(len(out))}}))
}

// ContextKey writes the context key of a derive-key context to out.
func (s *Symbols) ContextKey(context string, out *[32]byte) Code {
	return ret(call(&cArgs{fn: s.contextKey, n: 3, a: [7]arg{strArg(context), intArg(len(context)), ptrArg(out)}}))
}

// MergeNonRoot writes the chaining value of the parent of two subtrees.
func (s *Symbols) MergeNonRoot(left, right *[32]byte, mode uint32, key, cv *[32]byte) Code {
	return ret(call(&cArgs{fn: s.mergeNonRoot, n: 5, a: [7]arg{ptrArg(left), ptrArg(right), intArg(mode), ptrArg(key), ptrArg(cv)}}))
}

// MergeRoot writes the root output of two subtrees from offset seek.
func (s *Symbols) MergeRoot(left, right *[32]byte, mode uint32, key *[32]byte, seek uint64, out []byte) Code {
	if pin(len(out)) {
		defer unpin()
	}
	return ret(call(&cArgs{fn: s.mergeRoot, n: 7, a: [7]arg{ptrArg(left), ptrArg(right), intArg(mode), ptrArg(key), intArg(seek), bytesArg(out), intArg(len(out))}}))
}

// node is blake3_purego_node: a root node as the library takes it.
type node struct {
	cv       [8]uint32
	block    [16]uint32
	blockLen uint32
	flags    uint32
}

// RootOutput writes the root output of n (n.Counter aside: the output's
// block counter is what the position gives) from output offset seek to out.
// n is copied, into the header's layout, and the copy passed.
//
// Where memory passed to a call escapes to the heap (not ArgsStay), the
// copy is pooled (nodes), which else would be allocated at each call;
// elsewhere it stays on the stack.
func (s *Symbols) RootOutput(n guts.Node, seek uint64, out []byte) Code {
	var c *node
	if ArgsStay {
		c = new(node)
	} else {
		c = nodes.Get().(*node)
		defer nodes.Put(c)
	}
	*c = node{cv: n.CV, block: n.Block, blockLen: n.BlockLen, flags: n.Flags}
	if pin(len(out)) {
		defer unpin()
	}
	return ret(call(&cArgs{fn: s.rootOutput, n: 4, a: [7]arg{ptrArg(c), intArg(seek), bytesArg(out), intArg(len(out))}}))
}

// nodes holds RootOutput's copies of nodes where memory passed to a call
// escapes.
var nodes = sync.Pool{New: func() any { return new(node) }}

// MaxSubtreeLen writes the largest subtree allowed at offset to n.
func (s *Symbols) MaxSubtreeLen(offset uint64, n *uint64) Code {
	return ret(call(&cArgs{fn: s.maxSubtreeLen, n: 2, a: [7]arg{intArg(offset), ptrArg(n)}}))
}

// LeftSubtreeLen writes how many of total bytes go to the left subtree.
func (s *Symbols) LeftSubtreeLen(total uint64, n *uint64) Code {
	return ret(call(&cArgs{fn: s.leftSubtreeLen, n: 2, a: [7]arg{intArg(total), ptrArg(n)}}))
}

// InitThreads makes the library's rayon pool n threads wide.
func (s *Symbols) InitThreads(n int) Code {
	return ret(call(&cArgs{fn: s.initThreads, n: 1, a: [7]arg{intArg(n)}}))
}

// NumThreads is the size of the library's rayon pool, 0 before any.
func (s *Symbols) NumThreads() int { return int(call0(s.numThreads)) }

// TreeInit initializes t in a mode with its key (nil for ModeHash), for
// the input from byte offset (0 for a whole input).
func (s *Symbols) TreeInit(t *Tree, mode uint32, key *[32]byte, offset uint64) Code {
	return ret(call(&cArgs{fn: s.treeInit, n: 4, a: [7]arg{ptrArg(t), intArg(mode), ptrArg(key), intArg(offset)}}))
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
	return ret(call(&cArgs{fn: s.treeUpdate, n: 4, a: [7]arg{ptrArg(t), bytesArg(p), intArg(len(p)), intArg(par)}}))
}

// TreeUpdateLast hashes p (whole chunks, at least one) as TreeUpdate does
// on one thread, but for its last chunk, whose chaining value it writes to
// last: up to 16 chunks hashed together (in one SIMD pass where the CPU
// has as many lanes), the last one with them.
func (s *Symbols) TreeUpdateLast(t *Tree, p []byte, last *[32]byte) Code {
	return ret(call(&cArgs{fn: s.treeUpdateLast, n: 4, a: [7]arg{ptrArg(t), bytesArg(p), intArg(len(p)), ptrArg(last)}}))
}

// TreeFinalize writes the root output of t's input and then tail, from
// output offset seek, to out.
func (s *Symbols) TreeFinalize(t *Tree, tail []byte, seek uint64, out []byte) Code {
	if pin(len(tail) + len(out)) {
		defer unpin()
	}
	return ret(call(&cArgs{fn: s.treeFinalize, n: 6, a: [7]arg{ptrArg(t), bytesArg(tail), intArg(len(tail)), intArg(seek), bytesArg(out), intArg(len(out))}}))
}

// TreeRoot writes the chaining values of the root's two children for t's
// input and then tail; ErrLength when that is one chunk or less.
func (s *Symbols) TreeRoot(t *Tree, tail []byte, left, right *[32]byte) Code {
	return ret(call(&cArgs{fn: s.treeRoot, n: 5, a: [7]arg{ptrArg(t), bytesArg(tail), intArg(len(tail)), ptrArg(left), ptrArg(right)}}))
}

// TreeFinalizeNonRoot writes the chaining value of t's input and then tail.
func (s *Symbols) TreeFinalizeNonRoot(t *Tree, tail []byte, cv *[32]byte) Code {
	return ret(call(&cArgs{fn: s.treeFinalizeNonRoot, n: 4, a: [7]arg{ptrArg(t), bytesArg(tail), intArg(len(tail)), ptrArg(cv)}}))
}
