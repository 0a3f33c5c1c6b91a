package blake3

// Concurrency: many goroutines, each with its own Hashers, and one-shot
// calls on shared input, against answers computed beforehand. Run under the
// race detector too: go test -race -run Concurrency -count=1 .

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
)

// concurrencySizes cross chunkLen, bufSize and parallelMin.
var concurrencySizes = []int{0, 1, chunkLen - 1, chunkLen, 4097, bufSize - 1, bufSize + 1, parallelMin, parallelMin + 1025, 300 << 10}

func TestConcurrency(t *testing.T) {
	rng := newTestRand(testSeed(t))
	key := randomBytes(rng, 32)
	shared := make([][]byte, len(concurrencySizes))
	for i, n := range concurrencySizes {
		shared[i] = randomBytes(rng, n)
	}
	// Expected values, from zeebo, before any goroutine starts.
	type answer struct{ sum, keyed, derive []byte }
	want := make([]answer, len(shared))
	for i, d := range shared {
		want[i] = answer{
			sum:    refOutput(t, hashModePlain, nil, "", d, 0, 64),
			keyed:  refOutput(t, hashModeKeyed, key, "", d, 0, 64),
			derive: refOutput(t, hashModeDerive, nil, diffContext, d, 0, 64),
		}
	}

	const workers = 16
	forEachBackend(t, func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan string, workers*len(shared)*8)
		report := func(format string, a ...any) { errs <- fmt.Sprintf(format, a...) }
		start := make(chan struct{})
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for k := range shared {
					i := (k + w) % len(shared) // every worker in a different order
					d, a := shared[i], want[i]
					// Shared input, one-shot calls.
					if s := Sum256(d); !bytes.Equal(s[:], a.sum[:32]) {
						report("worker %d: Sum256(len %d) = %x", w, len(d), s)
					}
					if s := Sum512(d); !bytes.Equal(s[:], a.sum) {
						report("worker %d: Sum512(len %d) = %x", w, len(d), s)
					}
					dk := make([]byte, 64)
					DeriveKey(diffContext, d, dk)
					if !bytes.Equal(dk, a.derive) {
						report("worker %d: DeriveKey(len %d) = %x", w, len(d), dk)
					}
					// Own hashers, written in pieces that depend on the worker.
					h, err := NewKeyed(key)
					if err != nil {
						report("worker %d: NewKeyed: %v", w, err)
						return
					}
					writeSplit(h, d, 1+w*997, 64, bufSize+w)
					c := h.Clone()
					out := make([]byte, 64)
					_, _ = h.Digest().Read(out)
					if !bytes.Equal(out, a.keyed) {
						report("worker %d: keyed Hasher(len %d) = %x", w, len(d), out)
					}
					// A clone handed to another goroutine.
					done := make(chan []byte)
					go func() { done <- c.Sum(nil) }()
					if got := <-done; !bytes.Equal(got, a.keyed[:32]) {
						report("worker %d: clone in another goroutine (len %d) = %x", w, len(d), got)
					}
					var z Hasher
					_, _ = z.Write(d)
					if got := z.Sum(nil); !bytes.Equal(got, a.sum[:32]) {
						report("worker %d: Hasher{}(len %d) = %x", w, len(d), got)
					}
					z.Reset()
					dh := NewDeriveKey(diffContext)
					_, _ = dh.WriteString(string(d))
					if got := dh.Sum(nil); !bytes.Equal(got, a.derive[:32]) {
						report("worker %d: NewDeriveKey(len %d) = %x", w, len(d), got)
					}
					_ = Backend()
				}
			}()
		}
		// The thread cap changes while workers hash; results must not.
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := 0; i < 50; i++ {
				SetMaxThreads(i % 3)
			}
			SetMaxThreads(0)
		}()
		close(start)
		wg.Wait()
		close(errs)
		n := 0
		for e := range errs {
			if n++; n <= 20 {
				t.Error(e)
			}
		}
		if n > 20 {
			t.Errorf("… and %d more errors", n-20)
		}
	})
}
