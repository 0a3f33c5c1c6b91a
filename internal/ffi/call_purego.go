//go:build !blake3_nonative && ((darwin && !ios) || (windows && amd64))

package ffi

import (
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// argSlots holds call's arguments: passing an existing slice to the variadic
// purego.SyscallN allocates nothing, where an implicit one escapes to the heap.
var argSlots = sync.Pool{New: func() any { return new([7]uintptr) }}

// Native reports whether this build can load the native library.
const Native = true

// Unavailable says why this build cannot: it can.
const Unavailable = ""

// ArgsStay reports whether memory passed to a call stays where it is: not
// here, where it escapes to the heap (escapeArgs).
const ArgsStay = false

// call is the one place the module crosses into the library (see ffi.go).
// purego.SyscallN takes integers, which neither keep what they point to
// alive nor follow a goroutine stack that grows before the call: so
// whatever c's arguments point to is moved to the heap (escapeArgs), where
// nothing moves, and c, which points to it, is kept alive until the call
// returns (runtime.KeepAlive). The library keeps
// none of it after that. c.n is the function's arity; the unused trailing
// arguments are not passed.
//
// On darwin and windows it goes through purego.SyscallN rather than the
// lean trampoline of call_linux.go: darwin cannot be run on the machines
// this module is built on, and windows (another calling convention) only
// under wine, where its speed cannot be measured.
func call(c *cArgs) uintptr {
	if escapeArgs.never {
		for _, a := range c.a {
			escapeArgs.p = a.p
		}
	}
	args := argSlots.Get().(*[7]uintptr)
	for i, a := range c.a {
		args[i] = uintptr(a.p) + a.v
	}
	r, _, _ := purego.SyscallN(c.fn, args[:c.n]...)
	runtime.KeepAlive(c)
	*args = [7]uintptr{}
	argSlots.Put(args)
	return r
}

// escapeArgs is never written: that call might store its arguments'
// pointers here is what makes the compiler put what they point to on the
// heap (not the cArgs itself, which allocates nothing).
var escapeArgs struct {
	never bool
	p     unsafe.Pointer
}
