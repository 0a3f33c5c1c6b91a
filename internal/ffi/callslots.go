package ffi

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// The long native calls (those pin locks to their thread) in flight at once
// are at most GOMAXPROCS. A goroutine in a native call holds its OS thread
// in a system call, and the runtime hands its P to another thread to run
// other goroutines; unbounded, every hashing goroutine could end up holding
// a thread of its own inside the library, and a process under a thread
// limit (RLIMIT_NPROC, a cgroup's pids.max) where the Go path runs would die
// in pthread_create. A goroutine waiting for a slot is parked, not runnable,
// so no thread is started for it. GOMAXPROCS is also the CPU parallelism
// the program asked for: more long calls at once than that would exceed it
// (they run outside the scheduler's count), and with GOMAXPROCS at the
// number of cores they would only share the cores.
//
// The fast path is one compare-and-swap and one add; the mutex and
// condition are only for goroutines that must wait. The limit is the
// GOMAXPROCS seen when a caller last found every slot taken, not read on
// every call (runtime.GOMAXPROCS takes the scheduler's lock, which costs
// several times the atomics): a raised GOMAXPROCS is noticed
// by the first caller it would have let in, a lowered one once callers
// wait, and until then the bound is the higher value, which the process had
// already been allowed.
var (
	slotsInUse  atomic.Int32
	slotLimit   atomic.Int32
	slotWaiters atomic.Int32
	slotMu      sync.Mutex
	slotFreed   = sync.NewCond(&slotMu)
)

// acquireSlot returns once the caller holds one of the slots.
func acquireSlot() {
	for {
		if n := slotsInUse.Load(); n < slotLimit.Load() {
			if slotsInUse.CompareAndSwap(n, n+1) {
				return
			}
			continue
		}
		limit := int32(runtime.GOMAXPROCS(0))
		slotLimit.Store(limit)
		slotMu.Lock()
		// A releaser decrements slotsInUse before it reads slotWaiters, and
		// this counts itself before it reads slotsInUse: one of the two sees
		// the other, so a slot freed now is either seen here or signalled.
		slotWaiters.Add(1)
		for slotsInUse.Load() >= limit {
			slotFreed.Wait()
		}
		slotWaiters.Add(-1)
		slotMu.Unlock()
	}
}

// releaseSlot gives back the caller's slot, waking one waiter if any.
func releaseSlot() {
	slotsInUse.Add(-1)
	if slotWaiters.Load() > 0 {
		slotMu.Lock()
		slotFreed.Signal()
		slotMu.Unlock()
	}
}
