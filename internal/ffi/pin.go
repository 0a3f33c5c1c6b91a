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
