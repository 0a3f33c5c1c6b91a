//go:build !blake3_nonative && linux && !android && (amd64 || arm64)

package ffi

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/purego-blake3/blake3/internal/gctest"
)

// TestCallKeepsInputAlive: a heap input whose only reference is the slice
// handed to a call is not collected while the library reads it, serially
// or on its pool, with the garbage collector running all the while. A
// cleanup on the input records any collection during the call. This is the
// typed pointer in cArgs at work: an argument passed as a bare integer
// lets the collector free the input under the library (then most rounds
// here report it).
func TestCallKeepsInputAlive(t *testing.T) {
	s := testLibrary(t)
	if s.NumThreads() == 0 {
		s.InitThreads(4)
	}
	stop := gctest.Loop()
	d := 3 * time.Second
	if testing.Short() {
		d = time.Second
	}
	var during atomic.Int64
	rounds := int64(0)
	for start := time.Now(); time.Since(start) < d; {
		rounds++
		var out [32]byte
		if rc := hashOnlyReference(s, 8<<20, rounds%2 == 0, out[:], rounds, &during); rc != OK {
			t.Fatalf("round %d: %v", rounds, rc)
		}
	}
	stop()
	if n := during.Load(); n != 0 {
		t.Errorf("the input was collected while the library read it in %d of %d calls", n, rounds)
	}
}

// active is the round whose call is running (0: none).
var active atomic.Int64

// hashOnlyReference hashes a fresh heap input of n bytes, whose only
// reference is the slice passed to the call, and counts in during a
// collection of it that happened while the call ran.
//
//go:noinline
func hashOnlyReference(s *Symbols, n int, parallel bool, out []byte, round int64, during *atomic.Int64) Code {
	in := pattern(n)
	runtime.AddCleanup(&in[0], func(round int64) {
		if active.Load() == round {
			during.Add(1)
		}
	}, round)
	active.Store(round)
	rc := s.HashXOF(ModeHash, nil, parallel, in, 0, out)
	active.Store(0)
	return rc
}
