//go:build !blake3_nonative && !android && (amd64 || arm64)

package ffi

import (
	"unsafe"

	// runtime.cgocall, below, needs the runtime to believe cgo is present:
	// with CGO_ENABLED=0 that is purego's internal fakecgo, which this
	// import links in. Without it every call throws "cgocall unavailable".
	_ "github.com/ebitengine/purego"
)

// trampolineABI0 is the address of trampoline, which the runtime runs on the
// thread's system stack with the C calling convention: it loads a *cArgs's
// arguments (p+v of each) into the argument registers (and the seventh onto
// the stack on amd64), calls fn and stores fn's integer result in r.
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

// ArgsStay reports whether memory passed to a call stays where it is: a
// caller's variable passed to the library stays on its stack.
const ArgsStay = true

// call is the one place the module crosses into the library (see ffi.go).
// c, and what its arguments point to, may be on the caller's stack: c stays
// a Go pointer into runtime.cgocall, which keeps it alive until the call
// returns, and the goroutine is in a system call from before the
// trampoline reads c until after, so its stack cannot move under the
// library. The library never calls back into Go. c.n is unused here:
// surplus arguments are zero, and the C calling convention ignores them.
//
// It is used rather than purego.SyscallN, which copies 32 integer and 8
// float arguments through a pooled block: BenchmarkCrossing measures both
// (docs/benchmarks.md).
func call(c *cArgs) uintptr {
	if c.fn == 0 {
		panic("blake3: call of a nil native function") // Bind refuses these
	}
	runtimeCgocall(trampolineABI0, unsafe.Pointer(c))
	return c.r
}
