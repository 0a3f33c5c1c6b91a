// Package gctest is for the module's tests of memory handed to the native
// library: it keeps the garbage collector running while they hash.
package gctest

import "runtime"

// Loop runs runtime.GC back to back on another goroutine until the
// returned stop is called; stop returns once the loop has ended.
func Loop() (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			default:
				runtime.GC()
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}
