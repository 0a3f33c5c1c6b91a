package blake3

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestResourcesNoThreadLeftLocked: long calls lock the goroutine to its
// thread (pin in ffi.go) and must unlock it. A goroutine that exits while
// locked takes its thread with it, so after every pinned kind of call the
// goroutine's thread must outlive the goroutine.
func TestResourcesNoThreadLeftLocked(t *testing.T) {
	if lib == nil {
		t.Skip("no native library: nothing is pinned on the Go path")
	}
	data := make([]byte, 2*pinMin)
	out := make([]byte, pinMin)
	calls := map[string]func(){
		"Sum256":    func() { _ = Sum256(data) },
		"Sum512":    func() { _ = Sum512(data) },
		"DeriveKey": func() { DeriveKey("ctx", data, out) },
		"Write+Sum": func() { h := New(); _, _ = h.Write(data); _ = h.Sum(nil) },
		"Digest":    func() { h := New(); _, _ = h.Write(data); _, _ = h.Digest().Read(out) },
		"keyed":     func() { k, _ := NewKeyed(make([]byte, 32)); _, _ = k.Write(data); _ = k.Sum(nil) },
	}
	for name, call := range calls {
		tid := make(chan int)
		go func() { call(); tid <- syscall.Gettid() }()
		task := "/proc/self/task/" + strconv.Itoa(<-tid)
		time.Sleep(20 * time.Millisecond) // a locked goroutine's thread exits by then
		if _, err := os.Stat(task); err != nil {
			t.Fatalf("%s: the goroutine's thread exited with it (%v): a call left it locked", name, err)
		}
	}
}
