package blake3

import (
	"cmp"
	"errors"
	"math"
	"sync"

	"lukechampine.com/blake3/guts"
)

// ReadAt reads len(p) bytes of output from offset off into p, as Read
// would from there, and returns len(p); it returns 0 and an error for a
// negative offset, and where Read would. It neither moves nor uses the
// Digest's position, so that ReadAt calls may run at once, on several
// goroutines, as io.ReaderAt allows (but not with Read or Seek). Output
// blocks are computed apart from one another, so a read of 2 MiB or more
// is computed in parts of about a MiB or more, on as many goroutines as
// SetMaxThreads allows, where Read computes it on one. The parts write to
// p from other goroutines, so p escapes to the heap (where a buffer that
// long usually is already); Read lets a buffer stay on the caller's
// stack.
func (d *Digest) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("blake3: ReadAt at a negative offset")
	}
	if err := d.readErr(uint64(off), uint64(len(p))); err != nil || len(p) == 0 {
		return 0, err
	}
	c := *d // first and a fetch from the input (srcShort) change it
	c.fetchWide(uint64(off), p, outputPart)
	return len(p), nil
}

// outputPart is the least output a goroutine of a wide read computes
// (fetchWide, from ReadAt). Each block of output is a compression of the
// root node at its own counter, so the parts of a read are computed
// apart, on as many cores as a hash may use (threads). A part costs a
// goroutine that wakes an idle thread: parts of 16 KiB lost to it, and
// parts of 256 KiB gained on two cores. A MiB of output takes a core a
// fifth of a millisecond or more on the fastest output measured (the
// library with AVX-512), which leaves room for a slower wake-up elsewhere
// (BenchmarkDigestWide; docs/stream.md).
const outputPart = 1 << 20

// fetchWide is fetch for a read of p from position pos, in parts of about
// least bytes (outputPart) or more, each on a goroutine of its own, at
// most threads() of them; a read of less than two parts, one with a single
// thread allowed, and one that wraps past 2^64 are one fetch, on the
// caller's goroutine (outputParts). Each part is a fetch of a copy of d,
// as d was before the read (a copy is independent), so that d does not
// change once there are parts. A part that panics (the library's internal
// error) is recovered on its goroutine; fetchWide waits for every part,
// so that none writes to p after it returns, and then panics with the
// first such value, as a fetch would have. The caller's goroutine waits
// rather than compute a part, so that every part is computed, and
// recovered, alike.
func (d *Digest) fetchWide(pos uint64, p []byte, least int) {
	ends := outputParts(pos, len(p), threads(), least)
	if ends == nil {
		d.fetch(pos, p)
		return
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first any
	)
	for i, to := range ends {
		from := 0
		if i > 0 {
			from = ends[i-1]
		}
		c := *d
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					mu.Lock()
					first = cmp.Or(first, r)
					mu.Unlock()
				}
			}()
			c.fetch(pos+uint64(from), p[from:to])
		})
	}
	wg.Wait()
	if first != nil {
		panic(first)
	}
}

// outputParts splits a read of n bytes of output from position pos into
// parts for fetchWide: as many as t threads and parts of least bytes or
// more allow, of about the same size, each but the first starting on a
// block's edge, which may take up to a block less from a part (a part
// that starts within a block computes that whole block). It returns each
// part's end, an offset into the read, and nil (allocating nothing) for
// fewer than two parts and for a read that wraps past 2^64.
func outputParts(pos uint64, n, t, least int) []int {
	k := min(t, n/least)
	if k < 2 || pos > math.MaxUint64-uint64(n) {
		return nil
	}
	ends := make([]int, k)
	for i := 1; i < k; i++ {
		at := (pos + uint64(i*(n/k))) &^ (guts.BlockSize - 1)
		ends[i-1] = int(at - pos)
	}
	ends[k-1] = n
	return ends
}
