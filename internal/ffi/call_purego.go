//go:build !blake3_nonative && ((darwin && !ios) || (windows && amd64))

package ffi

import (
	"sync"

	"github.com/ebitengine/purego"
)

// argSlots holds call's arguments: passing an existing slice to the variadic
// purego.SyscallN allocates nothing, where an implicit one escapes to the heap.
var argSlots = sync.Pool{New: func() any { return new([7]uintptr) }}

// Native reports whether this build can load the native library.
const Native = true

// Unavailable says why this build cannot: it can.
const Unavailable = ""

// call is the one place the module crosses into the library (see ffi.go).
// Being marked go:uintptrescapes, it makes every pointer its callers convert
// to uintptr in its argument list live on the heap and stay alive until it
// returns; the library keeps none of them after that. n is the function's
// arity; the unused trailing arguments are zero and not passed.
//
// On darwin and windows it goes through purego.SyscallN rather than the
// lean trampoline of call_linux.go: darwin cannot be run on the machines
// this module is built on, and windows (another calling convention) only
// under wine, where its speed cannot be measured.
//
//go:uintptrescapes
func call(fn uintptr, n int, a1, a2, a3, a4, a5, a6, a7 uintptr) uintptr {
	args := argSlots.Get().(*[7]uintptr)
	*args = [7]uintptr{a1, a2, a3, a4, a5, a6, a7}
	r, _, _ := purego.SyscallN(fn, args[:n]...)
	*args = [7]uintptr{}
	argSlots.Put(args)
	return r
}
