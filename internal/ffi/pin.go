package ffi

import "runtime"

// pinMin is the size of input or output from which a call runs with the
// calling goroutine locked to its thread: the runtime's preemption
// machinery around a long call (asynchronous preemption signals sent to a
// thread that is in a system call) slowed such calls measurably, and
// locking costs a few nanoseconds, so short calls are not locked.
// Measured by BenchmarkSum256 and BenchmarkStream with and without it
// (docs/benchmarks.md).
const pinMin = 16 << 10

// pin locks the goroutine to its thread for a call that hashes or produces
// n bytes, when n is at least pinMin, and reports whether it did; the
// caller then defers unpin (deferred, so that no panic can leave the
// goroutine locked). It nests with the caller's own LockOSThread, if any.
func pin(n int) bool {
	if n < pinMin {
		return false
	}
	runtime.LockOSThread()
	return true
}

func unpin() { runtime.UnlockOSThread() }
