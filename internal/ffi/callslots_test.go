package ffi

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Pinned calls in flight never outnumber GOMAXPROCS, reach it (the bound
// holds nobody back below it), follow a raised GOMAXPROCS, and every
// waiter is woken in the end. (A lowered GOMAXPROCS is noticed only once
// callers wait, so the test forgets the limit it leaves behind.)
func TestCallSlots(t *testing.T) {
	defer slotLimit.Store(0)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	slotLimit.Store(0)
	for _, procs := range []int{runtime.GOMAXPROCS(0), runtime.GOMAXPROCS(0) + 2} {
		runtime.GOMAXPROCS(procs)
		var in, peak atomic.Int32
		var wg sync.WaitGroup
		for range 4*procs + 1 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 50 {
					if !pin(pinMin) {
						t.Error("pin(pinMin) did not pin")
						return
					}
					n := in.Add(1)
					for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
					}
					time.Sleep(100 * time.Microsecond)
					in.Add(-1)
					unpin()
				}
			}()
		}
		finished := make(chan struct{})
		go func() { wg.Wait(); close(finished) }()
		select {
		case <-finished:
		case <-time.After(20 * time.Second):
			t.Fatalf("GOMAXPROCS %d: goroutines still wait for a slot after 20 s (a freed slot woke nobody)", procs)
		}
		if p := int(peak.Load()); p != procs {
			t.Errorf("GOMAXPROCS %d: at most %d pinned calls were in flight at once, want exactly %d", procs, p, procs)
		}
		if n := slotsInUse.Load(); n != 0 {
			t.Errorf("GOMAXPROCS %d: %d slots still taken after every call returned", procs, n)
		}
	}
}
