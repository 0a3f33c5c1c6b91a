//go:build !blake3_nonative && linux && !android && (amd64 || arm64)

package blake3

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestResourcesNoThreadLeftLocked: long calls lock the goroutine to its
// thread (pin in internal/ffi) and must unlock it, exactly once. A goroutine that
// exits while locked takes its thread with it, so after every pinned kind
// of call the thread of a goroutine that did not lock itself must outlive
// it, and the thread of one that did lock itself must not.
func TestResourcesNoThreadLeftLocked(t *testing.T) {
	if lib == nil {
		t.Skip("no native library: nothing is pinned on the Go path")
	}
	if runtime.GOMAXPROCS(0) < 2 {
		t.Log("GOMAXPROCS is 1: the multi-threaded update is not reached")
	}
	data := make([]byte, 32<<10) // twice what ffi pins from
	big := make([]byte, 3<<20)   // a multi-threaded update
	out := make([]byte, 16<<10)
	calls := map[string]func(){
		"Sum256":         func() { _ = Sum256(data) },
		"Sum512":         func() { _ = Sum512(data) },
		"DeriveKey":      func() { DeriveKey("ctx", data, out) },
		"Write+Sum":      func() { h := New(); _, _ = h.Write(data); _ = h.Sum(nil) },
		"Write 3 MiB":    func() { h := New(); _, _ = h.Write(big); _ = h.Sum(nil) },
		"Digest.Read":    func() { h := New(); _, _ = h.Write(data); _, _ = h.Digest().Read(out) },
		"keyed":          func() { k, _ := NewKeyed(make([]byte, 32)); _, _ = k.Write(data); _ = k.Sum(nil) },
		"merged root":    func() { d, _ := New().DigestReaderAt(bytes.NewReader(big), int64(len(big)), 2); _, _ = d.Read(out) },
		"subtree Update": func() { h := New(); _ = h.SetInputOffset(0); _, _ = h.Write(data); _, _ = h.FinalizeNonRoot() },
	}
	// Hold this goroutine's thread, so that the goroutines below run on
	// others (a new goroutine otherwise tends to run on its creator's
	// thread, which may be the main one).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	threadLives := func(call func(), lock bool) bool {
		tid := make(chan int)
		var id int
		for range 20 {
			go func() {
				if lock {
					runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
				}
				call()
				tid <- syscall.Gettid()
			}()
			// The main thread is never ended, only parked: try again
			// when the goroutine ran there.
			if id = <-tid; id != os.Getpid() {
				break
			}
		}
		if id == os.Getpid() {
			t.Skip("every goroutine ran on the main thread")
		}
		task := "/proc/self/task/" + strconv.Itoa(id)
		for range 50 { // a locked goroutine's thread exits within milliseconds
			time.Sleep(2 * time.Millisecond)
			if _, err := os.Stat(task); err != nil {
				return false
			}
		}
		return true
	}
	for name, call := range calls {
		if !threadLives(call, false) {
			t.Errorf("%s: the goroutine's thread ended with it: a call left it locked", name)
		}
		if threadLives(call, true) {
			t.Errorf("%s: a goroutine that locked itself was unlocked by the call", name)
		}
	}
}
