//go:build !blake3_nonative && !android && (amd64 || arm64)

package ffi

import (
	"unsafe"

	// runtime.cgocall, below, needs the runtime to believe cgo is present:
	// with CGO_ENABLED=0 that is purego's internal fakecgo, which this
	// import links in. Without it every call throws "cgocall unavailable".
	_ "github.com/ebitengine/purego"
)

// cArgs is the block call hands to trampoline (call_linux_$GOARCH.s): the C
// function, its arguments, and the slot for its result. It holds no Go
// pointers.
type cArgs struct {
	fn, a1, a2, a3, a4, a5, a6, a7, r uintptr
}

// trampolineABI0 is the address of trampoline, which the runtime runs on the
// thread's system stack with the C calling convention: it loads a *cArgs's
// arguments into the argument registers (and a7 onto the stack on amd64),
// calls fn and stores fn's integer result in r.
var trampolineABI0 uintptr

// runtimeCgocall is the runtime's entry into C code, the one
// purego.SyscallN itself uses; runtime.cgocall keeps its linkname for
// purego (go.dev/issue/67401). It runs fn(arg) with the goroutine marked as
// in a system call, so its stack is neither grown nor shrunk until fn
// returns; arg is only read and written during the call, hence noescape.
//
//go:linkname runtimeCgocall runtime.cgocall
//go:noescape
func runtimeCgocall(fn uintptr, arg unsafe.Pointer) int32

// Native reports whether this build can load the native library.
const Native = true

// Unavailable says why this build cannot: it can.
const Unavailable = ""

// call is the one place the module crosses into the library (see ffi.go).
// Being marked go:uintptrescapes, it makes every pointer its callers convert
// to uintptr in its argument list live on the heap and stay alive until it
// returns; the library keeps none of them after that. The argument block
// lives on call's own stack frame, which cannot move while the library runs
// (it never calls back into Go). n is the function's arity, unused here:
// surplus arguments are zero, and the C calling convention ignores them.
//
// It is used rather than purego.SyscallN, which copies 32 integer and 8
// float arguments through a pooled block: BenchmarkCrossing measures both
// (docs/benchmarks.md).
//
//go:uintptrescapes
func call(fn uintptr, n int, a1, a2, a3, a4, a5, a6, a7 uintptr) uintptr {
	if fn == 0 {
		panic("blake3: call of a nil native function") // Bind refuses these
	}
	args := cArgs{fn: fn, a1: a1, a2: a2, a3: a3, a4: a4, a5: a5, a6: a6, a7: a7}
	runtimeCgocall(trampolineABI0, unsafe.Pointer(&args))
	return args.r
}
