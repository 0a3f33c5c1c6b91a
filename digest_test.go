// The Digest: reads and seeks, small and huge, near the 2^64 limit, against
// the library and zeebo.

package blake3

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/purego-blake3/blake3/internal/ffi"
	zeebo "github.com/zeebo/blake3"
	"golang.org/x/sys/cpu"
	"lukechampine.com/blake3/guts"
)

func TestBadInputSeek(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		for _, n := range badSizes {
			data := vectorInput(n)
			h := New()
			_, _ = h.Write(data)
			d := h.Digest()
			ref := func(seek int64, k int) []byte { return refOutput(t, hashModePlain, nil, "", data, seek, k) }
			if pos, err := d.Seek(100, io.SeekStart); err != nil || pos != 100 {
				t.Fatalf("len %d: Seek(100, SeekStart) = %d, %v", n, pos, err)
			}
			bad := []struct {
				off    int64
				whence int
			}{
				{-1, io.SeekStart}, {math.MinInt64, io.SeekStart},
				{0, io.SeekEnd}, {10, io.SeekEnd}, {-10, io.SeekEnd},
				{0, 7}, {0, -1}, {0, 3}, {5, math.MaxInt32},
				{-101, io.SeekCurrent}, {math.MinInt64, io.SeekCurrent},
			}
			for _, b := range bad {
				badNoPanic(t, fmt.Sprintf("Seek(%d, %d)", b.off, b.whence), func() {
					if _, err := d.Seek(b.off, b.whence); err == nil || err.Error() == "" {
						t.Errorf("len %d: Seek(%d, whence %d) did not fail", n, b.off, b.whence)
					}
				})
			}
			// A failed seek leaves the position where it was.
			got := make([]byte, 40)
			if _, err := d.Read(got); err != nil || !bytes.Equal(got, ref(100, 40)) {
				t.Fatalf("len %d: read after failed seeks: %s, %v; want %s", n, shortHex(got), err, shortHex(ref(100, 40)))
			}
		}
	})
}

func TestBadInputSeekCurrent(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		for _, n := range badSizes {
			data := vectorInput(n)
			for _, m := range allHashModes {
				h := newModeHasher(t, m, []byte(vectorKey), vectorContext)
				_, _ = h.Write(data)
				d := h.Digest()
				ref := func(seek int64, k int) []byte {
					return refOutput(t, m, []byte(vectorKey), vectorContext, data, seek, k)
				}
				seek := func(off int64, whence int, want int64) {
					t.Helper()
					if pos, err := d.Seek(off, whence); err != nil || pos != want {
						t.Fatalf("%s len %d: Seek(%d, %d) = %d, %v; want %d", m, n, off, whence, pos, err, want)
					}
				}
				read := func(k int, at int64) {
					t.Helper()
					got := make([]byte, k)
					if _, err := d.Read(got); err != nil || !bytes.Equal(got, ref(at, k)) {
						t.Fatalf("%s len %d: %d bytes at %d: %s, %v; want %s", m, n, k, at, shortHex(got), err, shortHex(ref(at, k)))
					}
				}
				seek(0, io.SeekCurrent, 0)
				read(10, 0)
				seek(0, io.SeekCurrent, 10) // Read moves the position
				read(7, 10)
				read(1, 17)
				seek(0, io.SeekCurrent, 18)
				seek(100, io.SeekStart, 100)
				seek(30, io.SeekCurrent, 130)
				read(65, 130)
				seek(-80, io.SeekCurrent, 115)
				read(16, 115)
				seek(-131, io.SeekCurrent, 0)
				if _, err := d.Seek(-1, io.SeekCurrent); err == nil {
					t.Fatalf("%s len %d: Seek(-1, SeekCurrent) at 0 did not fail", m, n)
				}
				seek(0, io.SeekCurrent, 0)
				seek(1<<40+3, io.SeekCurrent, 1<<40+3)
				read(64, 1<<40+3)
				seek(math.MaxInt64, io.SeekStart, math.MaxInt64)
				seek(0, io.SeekCurrent, math.MaxInt64)
				// One more would overflow an int64: an error, not a wrap.
				if pos, err := d.Seek(1, io.SeekCurrent); err == nil {
					t.Fatalf("%s len %d: Seek(1, SeekCurrent) at MaxInt64 = %d, no error", m, n, pos)
				}
				seek(-(math.MaxInt64 - 5), io.SeekCurrent, 5)
				read(3, 5)
			}
		}
	})
}

// TestBadInputHugeRead reads 64 MiB of output in one Read, at the start and
// at a far offset, and compares it with reads in small pieces and with
// zeebo's output. (-short: a native digest at a far offset only.)
func TestBadInputHugeRead(t *testing.T) {
	const huge = 64 << 20
	big := make([]byte, huge)
	piece := make([]byte, huge)
	seeks, sizes := []int64{1<<50 + 13}, []int{bufSize + 1}
	if !testing.Short() {
		seeks, sizes = append(seeks, 0), append(sizes, 3)
	}
	wants := map[string][]byte{}
	forEachBackend(t, func(t *testing.T) {
		for _, n := range sizes {
			data := vectorInput(n)
			for _, seek := range seeks {
				h := New()
				_, _ = h.Write(data)
				d := h.Digest()
				_, _ = d.Seek(seek, io.SeekStart)
				if k, err := d.Read(big); k != huge || err != nil {
					t.Fatalf("len %d: Read(64 MiB) = %d, %v", n, k, err)
				}
				if pos, _ := d.Seek(0, io.SeekCurrent); pos != seek+huge {
					t.Fatalf("len %d: position after Read(64 MiB) from %d: %d", n, seek, pos)
				}
				// Pieces of odd sizes from another digest of the same hasher.
				d2 := h.Digest()
				_, _ = d2.Seek(seek, io.SeekStart)
				for off, k := 0, 1; off < huge; k = k*3 + 1 {
					k = min(k, huge-off)
					_, _ = d2.Read(piece[off : off+k])
					off += k
				}
				id := fmt.Sprint(n, "@", seek)
				want := wants[id]
				if want == nil {
					want = make([]byte, huge)
					z := zeebo.New()
					_, _ = z.Write(data)
					zd := z.Digest()
					_, _ = zd.Seek(seek, io.SeekStart)
					_, _ = zd.Read(want)
					wants[id] = want
				}
				if !bytes.Equal(big, want) {
					t.Fatalf("len %d seek %d: one 64 MiB Read differs from zeebo", n, seek)
				}
				if !bytes.Equal(piece, want) {
					t.Fatalf("len %d seek %d: 64 MiB read in pieces differs from zeebo", n, seek)
				}
			}
		}
		if n, err := new(Hasher).Digest().Read(big[:0]); n != 0 || err != nil {
			t.Fatalf("Read of an empty slice = %d, %v", n, err)
		}
	})
}

func TestDigestSeekErrors(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		for _, small := range []bool{true, false} {
			h := New()
			if !small {
				_, _ = h.Write(vectorInput(bufSize + 1))
			}
			d := h.Digest()
			if _, err := d.Seek(0, io.SeekEnd); err == nil {
				t.Error("Seek(SeekEnd) did not fail")
			}
			if _, err := d.Seek(0, 42); err == nil {
				t.Error("Seek(whence 42) did not fail")
			}
			if _, err := d.Seek(-1, io.SeekStart); err == nil {
				t.Error("Seek(-1, SeekStart) did not fail")
			}
			_, _ = d.Seek(5, io.SeekStart)
			if _, err := d.Seek(-6, io.SeekCurrent); err == nil {
				t.Error("Seek(-6, SeekCurrent) at 5 did not fail")
			}
		}
	})
}

// TestDifferentialSeekLimits checks that the native and Go digests agree at
// the edge of what Seek can reach: reads across 2^63, and the errors when a
// relative seek would overflow.
func TestDifferentialSeekLimits(t *testing.T) {
	data := vectorInput(bufSize + 5) // large enough for the native state
	results := map[string][]string{}
	forEachBackend(t, func(t *testing.T) {
		var log []string
		h := New()
		_, _ = h.Write(data)
		d := h.Digest()
		for _, st := range []struct {
			off    int64
			whence int
			read   int
		}{
			{math.MaxInt64 - 10, io.SeekStart, 20}, // now past 2^63
			{0, io.SeekCurrent, 0},                 // the position does not fit an int64
			{-100, io.SeekCurrent, 0},
			{math.MaxInt64, io.SeekStart, 1},
			{5, io.SeekStart, 3},
			{math.MaxInt64 - 8, io.SeekCurrent, 10}, // 8 + MaxInt64-8 = MaxInt64
			{1, io.SeekCurrent, 0},
		} {
			pos, err := d.Seek(st.off, st.whence)
			buf := make([]byte, st.read)
			_, _ = d.Read(buf)
			log = append(log, strconv.FormatInt(pos, 10)+" err="+strconv.FormatBool(err != nil)+" "+shortHex(buf))
		}
		want := refOutput(t, hashModePlain, nil, "", data, math.MaxInt64-10, 20)
		if got := log[0]; got != strconv.FormatInt(math.MaxInt64-10, 10)+" err=false "+shortHex(want) {
			t.Errorf("read across 2^63: %s, want %s", got, shortHex(want))
		}
		results[t.Name()] = log
	})
	var first []string
	for name, log := range results {
		if first == nil {
			first = log
			continue
		}
		if !slices.Equal(log, first) {
			t.Errorf("backends disagree at the seek limits:\n%s: %q\nother: %q", name, log, first)
		}
	}
}

// TestDifferentialDigestSmallReads: the native Digest fetches output ahead
// for small reads (digest.go); every Read must still return exactly what
// the library gives at that position for that length, whatever the sizes,
// seeks, copies by value and positions near 2^64 (where the position wraps
// but the crate's output blocks do not), in every mode, for a short input
// and a long one, with the output computed by the library and in Go (each
// of outputs). Fixed sequences hit the edges every run; random ones follow.
func TestDifferentialDigestSmallReads(t *testing.T) {
	if !nativeActive(t) {
		t.Skip("native backend not active")
	}
	waitPlan()
	saved := planNow.Load()
	defer planNow.Store(saved)
	forEachOutput(t, func(t *testing.T) {
		long := vectorInput(3*bufSize + 5)
		key := []byte(vectorKey)
		// Each plan, for each way a Digest holds a short input (setShort).
		for _, im := range []impl{implNative, implZeebo, implLuke} {
			planNow.Store(planAll(im))
			for _, m := range allHashModes {
				for _, in := range [][]byte{long, long[:700], long[:64]} {
					h := newModeHasher(t, m, key, vectorContext)
					_, _ = h.Write(in)
					digestSmallReads(t, h, in)
				}
			}
		}
	})
}

// setPos moves d to pos, as Seek does, but to any position: beyond what
// Seek can set, up to 2^64-1.
func setPos(d *Digest, pos uint64) {
	d.x.Pos, d.obOK = pos, false
}

// digestSmallReads reads h's Digest (h has hashed in) as
// TestDifferentialDigestSmallReads says, against the library's output: of
// in where it is one chunk or less, else of the Digest of h as it is first
// taken (a merge, which the library gives).
func digestSmallReads(t *testing.T, h *Hasher, in []byte) {
	ref := h.Digest()
	libOutput := func(pos uint64, n int) []byte {
		t.Helper()
		out := make([]byte, n)
		switch {
		case len(in) <= chunkLen:
			must(lib.HashXOF(h.mode, h.modeKey(), false, in, pos, out))
		case ref.src == srcLib && ref.x.Flags&guts.FlagParent != 0:
			b := guts.WordsToBytes(ref.x.Block)
			must(lib.MergeRoot((*[32]byte)(b[:32]), (*[32]byte)(b[32:]), h.mode, h.modeKey(), pos, out))
		default:
			t.Fatalf("a Digest from source %d, not the library's", ref.src)
		}
		return out
	}
	read := func(d *Digest, what string, n int) {
		t.Helper()
		pos := d.x.Pos
		want := libOutput(pos, n)
		got := make([]byte, n)
		for i := range got {
			got[i] = ^want[i] // so that a byte left unwritten shows
		}
		if m, err := d.Read(got); m != n || err != nil {
			t.Fatalf("%s: Read(%d) at %d: %d, %v", what, n, pos, m, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: %d bytes at %d: %s, want %s", what, n, pos, shortHex(got), shortHex(want))
		}
		if d.x.Pos != pos+uint64(n) {
			t.Fatalf("%s: position %d after reading %d at %d", what, d.x.Pos, n, pos)
		}
	}
	at := func(pos uint64) *Digest {
		d := h.Digest()
		setPos(d, pos)
		return d
	}

	// The first read fetches the block [0, 64), which serves the next two;
	// a read of 62 at 3 runs one byte past it, into the block [64, 128),
	// which serves the read of 63 that ends at its end, not the 1 after
	// it; a read of a block or more goes around the block at hand, and
	// the read of 5 at 195 fetches the block [192, 256).
	d := at(0)
	for _, n := range []int{1, 1, 1, 62, 63, 1, 2, 0, guts.BlockSize, 5} {
		read(d, "edges", n)
	}
	// A first read away from 0 fetches the block where it is, which must
	// not serve a read at 0 after a seek back.
	d = at(100)
	read(d, "first read at 100", 16)
	_, _ = d.Seek(0, io.SeekStart)
	read(d, "at 0 after a first read at 100", 16)
	// Across 2^64 from a buffer fetched before it, then at the wrapped
	// position, which the buffer must not serve.
	d = at(math.MaxUint64 - 15)
	for _, n := range []int{1, 1, 20, 1, 7} {
		read(d, "wrap", n)
	}
	// Copies go their own way, and the original is unaffected.
	d = at(100)
	read(d, "copy", 1)
	read(d, "copy", 2)
	c := *d
	read(&c, "the copy", 30)
	_, _ = c.Seek(5000, io.SeekStart)
	read(&c, "the copy after SeekStart", 3)
	read(d, "the original after a copy read", 30)

	rng := subRand(t)
	for _, start := range []uint64{0, 1000, 1<<40 + 7, math.MaxUint64 - 700, math.MaxUint64 - 3} {
		d := at(start)
		for range 400 {
			n := rng.IntN(80)
			switch rng.IntN(10) {
			case 0:
				n = guts.BlockSize - 1 + rng.IntN(3) // around a block
			case 1:
				n = rng.IntN(guts.BlockSize)
			case 2:
				if d.x.Pos < math.MaxInt64-5000 {
					off := int64(rng.IntN(4000)) - 2000
					if int64(d.x.Pos)+off >= 0 {
						_, _ = d.Seek(off, io.SeekCurrent)
					}
				}
			case 3:
				if d.x.Pos < math.MaxInt64-5000 {
					_, _ = d.Seek(int64(d.x.Pos)+int64(rng.IntN(3000)), io.SeekStart)
				}
			case 4: // a copy by value goes its own way
				c := *d
				read(&c, "random copy", 1+rng.IntN(500))
			}
			read(d, "random", n)
		}
	}
}

// FuzzDigestSeek runs a program of Seek and Read on the Digest of an input
// (repeated to reach the native digest) and on zeebo's, comparing positions,
// errors and bytes. Each op is one script byte: even, Seek with whence
// int(int8(byte>>1)) - often invalid - and an 8-byte offset, or a small one
// when bit 1 is set; odd, Read of byte>>1 bytes.
func FuzzDigestSeek(f *testing.F) {
	nativeActive(f)
	f.Add([]byte("abc"), byte(0), []byte{0, 5, 0, 0, 0, 0, 0, 0, 0, 0x41})
	f.Add([]byte("abc"), byte(0x81), []byte{2, 0xff, 0x11, 4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x21, 2, 0x01, 0x21})
	f.Add([]byte{1, 2, 3, 4}, byte(0x82), []byte{6, 0x7f, 2, 0xf6, 0x03, 0xfe, 0x0e, 0x09})
	f.Add([]byte("seek before start"), byte(0x83), []byte{0x03, 0x02, 0xfe, 0x03, 0x0a, 0x03, 0x01})
	// Bits 4-5 of the mode: the output computed in Go, one block at a
	// time (1) and in runs (2).
	f.Add([]byte("abc"), byte(0x91), []byte{0x03, 0x81, 0x00, 0x40, 0, 0, 0, 0, 0, 0, 0, 0x21, 0x7f})
	f.Add([]byte{1, 2, 3, 4}, byte(0xa2), []byte{0xff, 0x06, 0x7f, 0x09, 0xff})
	f.Add([]byte("short"), byte(0x20), []byte{0x83, 0x02, 0x11, 0x41})
	f.Fuzz(func(t *testing.T, data []byte, mode byte, program []byte) {
		m, key, ctx := fuzzModeOf(mode)
		if mode&0x80 != 0 && len(data) > 0 {
			// Large enough for the native digest.
			data = bytes.Repeat(data, (bufSize+1)/len(data)+1)
		}
		defer setOutput(int(mode>>4) & 3)() // bits 4-5: how the output is computed
		h := newModeHasher(t, m, key, ctx)
		_, _ = h.Write(data)
		z := newRefHasher(t, m, key, ctx)
		_, _ = z.Write(data)
		d, zd := h.Digest(), z.Digest()
		s := &fuzzScript{b: program}
		for step := 0; len(s.b) > 0 && step < 64; step++ {
			op := s.byte()
			if op&1 == 1 {
				n := int(op >> 1)
				got, want := make([]byte, n), make([]byte, n)
				k, err := d.Read(got)
				_, _ = zd.Read(want)
				if k != n || err != nil || !bytes.Equal(got, want) {
					t.Fatalf("step %d: Read(%d) = %d, %v, %x; want %x", step, n, k, err, got, want)
				}
				continue
			}
			whence := int(int8(op)) >> 1
			if whence > 2 || whence < 0 {
				whence = []int{io.SeekStart, io.SeekCurrent, io.SeekEnd, 7, -1}[(op>>2)%5]
			}
			var off int64
			if op&2 != 0 {
				off = int64(int8(s.byte()))
			} else {
				off = s.int64()
			}
			pos, err := d.Seek(off, whence)
			zpos, zerr := zd.Seek(off, whence)
			if (err == nil) != (zerr == nil) || (err == nil && pos != zpos) {
				t.Fatalf("step %d: Seek(%d, %d) = %d, %v; zeebo %d, %v", step, off, whence, pos, err, zpos, zerr)
			}
		}
	})
}

// TestDigestFirstRead: the first read of a fresh Digest, of every length
// around one block and more, and after a seek back to 0, on each backend, in
// every mode, against zeebo's digest: for a short input the first 64 bytes
// come from the one-shot hash (Digest.first), the rest from the library.
func TestDigestFirstRead(t *testing.T) {
	in := vectorInput(2 * chunkLen)
	defer pinDispatch()()
	forEachBackend(t, func(t *testing.T) {
		impls := []impl{implZeebo, implLuke}
		if lib != nil {
			impls = append(impls, implNative)
		}
		for i, im := range impls {
			planNow.Store(planAll(im))
			if lib != nil {
				defer setOutput(i)() // each plan with another output
			}
			for _, byLuke := range []bool{false, true} {
				// Single blocks of output in Go by zeebo's compression, and
				// by lukechampine's (goXOF's), as measureBlocks may pick.
				blocksByLuke.Store(byLuke)
				digestFirstReads(t, in, im)
			}
		}
	})
}

// TestDigestShortSource: on the native path, where the plan picks zeebo,
// or the library while zeebo's compression is assembly (zeeboAsm), a
// Digest of a short input, a block and more, has its root node from
// zeebo's hasher in every mode; where the plan picks the library and
// zeebo's compression is not assembly, a copy of the input for the
// library (srcShort); where zeebo's layout is not known, from
// lukechampine's code in plain hashing where the plan picks zeebo, and
// else a copy for the library (setShort). Its output is zeebo's in each
// case, each way of computing output (outputs): from its start, and from
// a Seek to a position in a block, read across the block's end (fetchTwo)
// and on in small pieces.
func TestDigestShortSource(t *testing.T) {
	if lib == nil {
		t.Skip("no native library: setShort is the native path's")
	}
	waitPlan()
	defer pinDispatch()()
	savedAsm := zeeboAsm
	defer func() { zeeboAsm = savedAsm }()
	in := vectorInput(300)
	check := func(layout bool) {
		for i, im := range []impl{implZeebo, implNative, implNative, implNative} {
			defer setOutput(i)() // each way of computing output from the node or the input
			planNow.Store(planAll(im))
			for _, asm := range []bool{true, false} {
				zeeboAsm = asm
				for _, m := range marshalModes {
					h, z := m.new(), m.ref()
					_, _ = h.Write(in)
					_, _ = z.Write(in)
					want := make([]byte, 1100)
					_, _ = z.Digest().Read(want)
					d := h.Digest()
					src := srcNode
					switch {
					case im == implNative && !asm,
						!layout && (im == implNative || m.name != "hash"):
						src = srcShort
					}
					if d.src != src {
						t.Errorf("%s, plan %v, zeebo's assembly %v, layout known %v: source %d, want %d", m.name, im, asm, layout, d.src, src)
					}
					got := make([]byte, 100)
					if _, err := d.Read(got); err != nil || !bytes.Equal(got, want[:100]) {
						t.Errorf("%s, plan %v, zeebo's assembly %v, layout known %v: %x, %v; want zeebo's %x", m.name, im, asm, layout, got[:8], err, want[:8])
					}
					d = h.Digest()
					_, _ = d.Seek(1000, io.SeekStart)
					for _, k := range []int{32, 7, 1, 60} {
						at, _ := d.Seek(0, io.SeekCurrent)
						if _, err := d.Read(got[:k]); err != nil || !bytes.Equal(got[:k], want[at:at+int64(k)]) {
							t.Errorf("%s, plan %v, zeebo's assembly %v, layout known %v: %d bytes at %d: %x, %v; want zeebo's %x", m.name, im, asm, layout, k, at, got[:k], err, want[at:at+int64(k)])
						}
					}
				}
			}
		}
	}
	check(true)
	defer ffi.ForgetZeeboLayout()()
	check(false)
}

// TestDigestBlockSource: the Digest of a block or less is the block as
// its node (srcLib), from a zero Hasher too, whose first Write gathers
// without setting its path, in every mode and on both paths; its output is
// zeebo's. So is the output of a block or less written after Reset to a
// Hasher that had moved its input to the heap (zeebo's hasher on the Go
// path, the buffer on the native path), which holds it there, not in
// itself; and of a Hasher made while zeebo's hasher's layout was not
// known, which, on the Go path in derive-key mode, does not keep its
// context key.
func TestDigestBlockSource(t *testing.T) {
	in := vectorInput(guts.BlockSize)
	// Not in's bytes, which the Hasher must not read again; past halfUntil,
	// so that the native path's buffer, of bufSize then, stays after Reset.
	long := bytes.Repeat([]byte{0xa5}, halfUntil+3*firstLen)
	forEachBackend(t, func(t *testing.T) {
		for _, m := range marshalModes {
			for _, n := range []int{0, 1, guts.BlockSize} {
				for _, from := range []string{"new", "zero", "reset", "unknown layout"} {
					if from == "zero" && m.name != "hash" {
						continue
					}
					restore := func() {}
					if from == "unknown layout" {
						restore = ffi.ForgetZeeboHasherLayout()
					}
					h, z := m.new(), m.ref()
					restore()
					switch from {
					case "zero":
						h = new(Hasher)
					case "reset":
						writeSplit(h, long, 1000)
						h.Reset()
						if h.spare == nil && h.buf == nil {
							t.Fatalf("%s: %d bytes in pieces of 1000, then Reset, left nothing on the heap", m.name, len(long))
						}
					}
					_, _ = h.Write(in[:n])
					_, _ = z.Write(in[:n])
					want := make([]byte, 100)
					_, _ = z.Digest().Read(want)
					d := h.Digest()
					if d.src != srcLib && from != "reset" {
						t.Errorf("%s, %d bytes, from a %s Hasher: source %d, want srcLib", m.name, n, from, d.src)
					}
					got := make([]byte, len(want))
					if _, err := d.Read(got); err != nil || !bytes.Equal(got, want) {
						t.Errorf("%s, %d bytes, from a %s Hasher: %x, %v; want zeebo's %x", m.name, n, from, got[:8], err, want[:8])
					}
				}
			}
		}
	})
}

// TestDigestHeldSource: on the Go path, the Digest of a block to a chunk,
// gathered in the Hasher, is its root node (srcNode), computed in place
// with zeebo's compression where the plan picks zeebo (digestHeld) and
// with lukechampine's code where it picks lukechampine, and with zeebo's
// layout not known; in every mode, from a new Hasher and from one whose
// derive-key context key was not kept; its output is zeebo's, read once,
// and read again after a seek past its first block. On the native path
// the same inputs give zeebo's output too.
func TestDigestHeldSource(t *testing.T) {
	in := vectorInput(chunkLen)
	defer pinDispatch()()
	saved := planNow.Load()
	defer planNow.Store(saved)
	forEachBackend(t, func(t *testing.T) {
		for _, im := range []impl{implZeebo, implLuke} {
			planNow.Store(planAll(im))
			for _, layout := range []bool{true, false} {
				restore := func() {}
				if !layout {
					restore = ffi.ForgetZeeboLayout()
				}
				for _, m := range marshalModes {
					for _, n := range []int{guts.BlockSize + 1, 300, chunkLen} {
						h, z := m.new(), m.ref()
						_, _ = h.Write(in[:n])
						_, _ = z.Write(in[:n])
						want := make([]byte, 200)
						_, _ = z.Digest().Read(want)
						d := h.Digest()
						if lib == nil && d.src != srcNode {
							t.Errorf("%v, layout %v, %s, %d bytes: source %d, want srcNode", im, layout, m.name, n, d.src)
						}
						got := make([]byte, len(want))
						if _, err := d.Read(got); err != nil || !bytes.Equal(got, want) {
							t.Errorf("%v, layout %v, %s, %d bytes: %x, %v; want zeebo's %x", im, layout, m.name, n, got[:8], err, want[:8])
						}
						if _, err := d.Seek(70, io.SeekStart); err != nil {
							t.Fatal(err)
						}
						if _, _ = d.Read(got[:50]); !bytes.Equal(got[:50], want[70:120]) {
							t.Errorf("%v, layout %v, %s, %d bytes, from byte 70: %x; want zeebo's %x", im, layout, m.name, n, got[:8], want[70:78])
						}
					}
				}
				restore()
			}
		}
	})
}

// TestReread: a Hasher that gathered more than a block in itself hashes
// it all at each read (Sum, Digest), allocating nothing (a Go-path Digest
// of more than a chunk takes its root from a pooled zeebo hasher), until
// what the reads since Reset hashed again reaches rereadMove; from that read
// on, it holds its input on the heap (spilled: zeebo's hasher on the Go
// path, the buffer and the library's tree on the native path, which needs
// whole chunks that absorb hands over), written to between the reads or
// not; but a chunk or less read again with nothing written between the
// reads never spills, as zeebo's reads hash that chunk again too. A read
// that moves nothing marks nothing for absorb: a Sum after the input
// outgrows what the Hasher holds makes no tree ahead.
// A Reset, or a Clone, starts the count over. Every output is zeebo's, in
// every mode and from a zero Hasher, with zeebo's layouts known and not.
func TestReread(t *testing.T) {
	in := vectorInput(firstLen + 1)
	forEachBackend(t, func(t *testing.T) {
		goPath := lib == nil // a zero Hasher's path is not set until it needs one
		spilled := func(h *Hasher) bool {
			if goPath {
				return h.g != nil
			}
			return h.buf != nil
		}
		// spills reports whether a read (use) of n bytes after reads that
		// hashed waste bytes again spills, on this path, from h's state
		// before it: on the Go path, where zeebo's layout is known, a read
		// within the chunk after the chunks a fold (or goFront) hashed, a
		// quarter of a chunk or less after the read before, where the plan
		// hashes it with zeebo (readGo); no other read after them, nor one
		// of more than a chunk, which folds; at once for a Go-path Digest
		// of more than a chunk where zeebo's layout is not known (no pooled
		// root).
		spills := func(h *Hasher, layout bool, use string, n, waste int) bool {
			// The native path folds at a read after a write of less than a
			// chunk since the read before (readNative).
			folds := goPath && layout || !goPath && ffi.ArgsStay && h.rlast != 0 && h.nbuf > h.rlast && h.nbuf-h.rlast < chunkLen
			switch {
			case h.front != 0:
				return folds && goPath && h.nbuf <= chunkLen && h.nbuf != h.gnbuf && h.nbuf-h.gnbuf < chunkLen/4 &&
					implFor(h.nbuf) == implZeebo && int(h.front)*chunkLen+h.nbuf <= firstLen
			case goPath && !layout && use == "Digest" && n > chunkLen:
				return true
			case folds && n > chunkLen:
				return false
			}
			// On the native path, what absorb would leave whole (2 or 4
			// whole chunks) moves once the reads hashed rereadMove and
			// that input again (rereadNative).
			return waste >= rereadMove && (goPath || absorbLen(0, n) > 0 || n > chunkLen && waste >= rereadMove+n)
		}
		for _, layout := range []bool{true, false} {
			if !layout {
				defer ffi.ForgetZeeboLayout()()
			}
			for _, n := range []int{guts.BlockSize + 1, chunkLen, chunkLen + 1, 2 * chunkLen, 3 * chunkLen, firstLen - 1, firstLen} {
				for _, m := range marshalModes {
					for _, zero := range []bool{false, true} {
						if zero && m.name != "hash" {
							continue
						}
						for _, use := range []string{"Sum", "Digest"} {
							h, z := m.new(), m.ref()
							if zero {
								h = new(Hasher)
							}
							_, _ = h.Write(in[:n])
							_, _ = z.Write(in[:n])
							read := func(h *Hasher, z *zeebo.Hasher, what string) {
								t.Helper()
								want, got := make([]byte, 100), make([]byte, 100)
								_, _ = z.Digest().Read(want)
								if use == "Sum" {
									got = h.Sum(nil)
									want = want[:32]
								} else {
									_, _ = h.Digest().Read(got)
								}
								if !bytes.Equal(got, want) {
									t.Fatalf("%s, %s, %s, %d bytes, zero Hasher %v: %x; want zeebo's %x", use, what, m.name, n, zero, got[:8], want[:8])
								}
							}
							// Reads of the same input, until it spills (a
							// keyed Go-path Hasher past a chunk, without
							// zeebo's layout, spilled at its write).
							atWrite, waste := spilled(h), 0
							for k := 1; ; k++ {
								want := atWrite || spills(h, layout, use, n, waste)
								read(h, z, fmt.Sprintf("read %d", k))
								if !goPath && h.front != 0 {
									// The native path folds at a read after a
									// write since the read before, not again
									// of the same input (readNative).
									t.Fatalf("%s, %s, %d bytes, read %d: folded", use, m.name, n, k)
								}
								if spilled(h) != want {
									t.Fatalf("%s, %s, %d bytes, zero Hasher %v, layout known %v, read %d: spilled %v; want %v", use, m.name, n, zero, layout, k, spilled(h), want)
								}
								// The read that moved handed the tree its
								// whole chunks but a tail, or half of 2 or
								// 4 whole chunks, which absorbLen leaves
								// whole (absorb).
								if ab := absorbLen(0, n); want && !atWrite && !goPath && n > chunkLen {
									if ab == 0 {
										ab = n / 2
									}
									if h.absorbed() != ab {
										t.Fatalf("%s, %s, %d bytes, read %d: %d handed over to the tree; want %d", use, m.name, n, k, h.absorbed(), ab)
									}
								}
								if want || k > rereadMove/n+2 {
									break
								}
								if n > chunkLen {
									waste += n // a chunk or less read again is not counted
								}
							}
							// A write after: the same hash as zeebo's.
							_, _ = h.Write(in[n : n+1])
							_, _ = z.Write(in[n : n+1])
							read(h, z, "after another write")
						}
					}
				}
				// A read after each write, of a byte each: it spills once
				// what the reads hashed again reaches rereadMove; from a
				// zero Hasher too, whose Sum sets its path (Digest's too).
				for _, zero := range []bool{false, true} {
					h, use := New(), "Digest"
					if zero {
						h, use = new(Hasher), "Sum"
					}
					_, _ = h.Write(in[:n-1])
					waste, last := 0, 0
					for k := n; k <= firstLen && !spilled(h); k++ {
						_, _ = h.Write(in[k-1 : k])
						if last > 0 {
							waste += last
						}
						last = k
						want := spills(h, layout, use, k, waste)
						got, ref := make([]byte, 32), make([]byte, 32)
						if zero {
							got = h.Sum(got[:0])
						} else {
							_, _ = h.Digest().Read(got)
						}
						if spilled(h) != want {
							t.Fatalf("%d bytes and one at a time, %s, zero Hasher %v, layout known %v: spilled %v at %d; want %v", n, use, zero, layout, spilled(h), k, want)
						}
						r := zeebo.New()
						_, _ = r.Write(in[:k])
						_, _ = r.Digest().Read(ref)
						if !bytes.Equal(got, ref) {
							t.Fatalf("%d bytes and one at a time, %s, zero Hasher %v, at %d: %x; want zeebo's %x", n, use, zero, k, got[:8], ref[:8])
						}
					}
				}

				// Reads again among reads after writes, on the Go path
				// (the native path moves no chunk or less): the reads
				// again of a chunk or less are never counted, before the
				// first read after a write or after it, and the reads
				// after writes are, from the first.
				if goPath && n <= chunkLen {
					h := New()
					_, _ = h.Write(in[:n])
					for range 50 {
						h.Sum(nil)
					}
					_, _ = h.Write(in[n : n+1])
					h.Sum(nil)
					if spilled(h) {
						t.Fatalf("%d bytes read 50 times, a byte more and a read: spilled", n)
					}
					waste, last := n, n+1 // the read after the byte counted the n before it
					for k := n + 2; k <= chunkLen && !spilled(h); k++ {
						_, _ = h.Write(in[k-1 : k])
						waste += last
						last = k
						h.Sum(nil)
						h.Sum(nil)
						if want := waste >= rereadMove; spilled(h) != want {
							t.Fatalf("%d bytes, then a byte and two reads at a time, layout known %v: spilled %v at %d; want %v", n, layout, spilled(h), k, want)
						}
					}
				}

				// Reset, and a Clone, start the count over: after as many
				// reads as leave it one read short of a spill, a Clone's
				// first read, and a first read after Reset, spill nothing
				// (a Hasher reset fewer than reuseAfter times, with no
				// spare, is not reused).
				h := New()
				_, _ = h.Write(in[:n])
				for range (rereadMove + n - 1) / n {
					h.Sum(nil)
				}
				c := h.Clone()
				c.Sum(nil)
				h.Reset()
				_, _ = h.Write(in[:n])
				h.Sum(nil)
				if spilled(h) || spilled(c) {
					t.Errorf("%d bytes, layout known %v: spilled at the first read after Reset %v, at a Clone's first read %v; want neither", n, layout, spilled(h), spilled(c))
				}

				// One read that moves nothing, then the input past what the
				// Hasher holds, and one read: no tree ahead.
				h = New()
				_, _ = h.Write(in[:n])
				h.Sum(nil)
				more := vectorInput(5 * bufSize / 4)
				_, _ = h.Write(more)
				h.Sum(nil)
				if h.ahead != nil {
					t.Errorf("%d bytes, a Sum, %d more and a Sum: a tree ahead, which a single read after a hand-over does not need", n, len(more))
				}
			}
		}
	})
}

func digestFirstReads(t *testing.T, in []byte, im impl) {
	t.Helper()
	for _, m := range marshalModes {
		for _, n := range []int{0, 1, 64, 65, chunkLen, chunkLen + 1} {
			h, z := m.new(), m.ref()
			_, _ = h.Write(in[:n])
			_, _ = z.Write(in[:n])
			want := make([]byte, 130)
			_, _ = z.Digest().Read(want)
			for k := 1; k <= len(want); k++ {
				got := make([]byte, k)
				d := h.Digest()
				if _, err := d.Read(got); err != nil || !bytes.Equal(got, want[:k]) {
					t.Fatalf("plan %v, %s, %d bytes: first read of %d: %x, %v; want %x", im, m.name, n, k, got, err, want[:k])
				}
				// The read after it: on from the first's end, within the
				// first block or past it.
				rest := make([]byte, len(want)-k)
				if _, err := d.Read(rest); err != nil || !bytes.Equal(rest, want[k:]) {
					t.Fatalf("plan %v, %s, %d bytes: read of %d after a first read of %d: %x, %v; want %x", im, m.name, n, len(rest), k, rest, err, want[k:])
				}
				// A first read from a position within the first block,
				// after a Seek, of k bytes or up to the block's end, and the
				// read after it.
				if at := k % guts.BlockSize; k < 2*guts.BlockSize {
					for _, l := range []int{min(k, guts.BlockSize-at), guts.BlockSize - at} {
						e := h.Digest()
						_, _ = e.Seek(int64(at), io.SeekStart)
						two := make([]byte, l+3)
						if _, err := e.Read(two[:l]); err != nil || !bytes.Equal(two[:l], want[at:at+l]) {
							t.Fatalf("plan %v, %s, %d bytes: first read of %d at %d: %x, %v; want %x", im, m.name, n, l, at, two[:l], err, want[at:at+l])
						}
						if _, err := e.Read(two[l:]); err != nil || !bytes.Equal(two[l:], want[at+l:at+l+3]) {
							t.Fatalf("plan %v, %s, %d bytes: read of 3 after a first read of %d at %d: %x, %v; want %x", im, m.name, n, l, at, two[l:], err, want[at+l:at+l+3])
						}
					}
				}
				if _, err := d.Seek(0, io.SeekStart); err != nil {
					t.Fatal(err)
				}
				if _, err := d.Read(got); err != nil || !bytes.Equal(got, want[:k]) {
					t.Fatalf("plan %v, %s, %d bytes: read of %d after a seek to 0: %x, %v; want %x", im, m.name, n, k, got, err, want[:k])
				}
			}
		}
	}
}

// TestGoXOF: goXOF, in runs and one block at a time (by zeebo or by
// lukechampine), gives the bytes that zeebo's digest gives, at positions and
// lengths around blocks and runs and far into the output (a block counter
// past 2^32), in every mode; and across 2^64, where the position wraps,
// what the library gives (the block counter goes on).
func TestGoXOF(t *testing.T) {
	defer pinDispatch()() // blocksByLuke, set below
	saved, savedBlocks := xofRuns, zeeboBlocks
	defer func() { xofRuns, zeeboBlocks = saved, savedBlocks }()
	in := vectorInput(chunkLen)
	for _, m := range marshalModes {
		for _, n := range []int{0, 1, 64, 65, chunkLen} {
			h, z := m.new(), m.ref()
			_, _ = h.Write(in[:n])
			_, _ = z.Write(in[:n])
			key, flags := h.goModeKey()
			node := guts.CompressChunk(in[:n], &key, 0, flags)
			ref := make([]byte, 3*xofRun+200)
			_, _ = z.Digest().Read(ref)
			// Single blocks by zeebo's compression, by lukechampine's where
			// zeebo's is off, and where lukechampine's was measured faster
			// (blocksByLuke).
			for i, runs := range []bool{false, true, false, true, false, true} {
				xofRuns, zeeboBlocks = runs, i < 2 || i >= 4
				blocksByLuke.Store(i >= 4)
				for _, pos := range []int{0, 1, 63, 64, 65, 1000, xofRun, xofRun + 1, 2*xofRun - 1, 2*xofRun + 64} {
					for _, k := range []int{1, 63, 64, 65, 128, 129, 192, xofRun - 1, xofRun, xofRun + 1, 2*xofRun + 100} {
						if pos+k > len(ref) {
							continue
						}
						got := make([]byte, k)
						goXOF(refOf(&node), uint64(pos), got)
						if !bytes.Equal(got, ref[pos:pos+k]) {
							t.Fatalf("%s, %d bytes, runs=%v, zeebo's blocks=%v, measured lukechampine's %v: %d bytes at %d: %s, want %s", m.name, n, runs, zeeboBlocks, blocksByLuke.Load(), k, pos, shortHex(got), shortHex(ref[pos:pos+k]))
						}
					}
				}
				// Far into the output, where the block counter's high half
				// is not zero: against zeebo's Digest, which seeks there,
				// on either backend.
				for _, pos := range []int64{1<<38 + 5, 1<<40 - 64, 1<<50 + 65} {
					for _, k := range []int{32, 64, 200, 3*xofRun + 1} {
						got, want := make([]byte, k), make([]byte, k)
						zd := z.Digest()
						_, _ = zd.Seek(pos, io.SeekStart)
						_, _ = zd.Read(want)
						goXOF(refOf(&node), uint64(pos), got)
						if !bytes.Equal(got, want) {
							t.Fatalf("%s, %d bytes, runs=%v, zeebo's blocks=%v, measured lukechampine's %v: %d bytes at %d: %s, zeebo %s", m.name, n, runs, zeeboBlocks, blocksByLuke.Load(), k, pos, shortHex(got), shortHex(want))
						}
					}
				}
				if lib == nil {
					continue
				}
				for _, back := range []uint64{1, 64, 100, xofRun + 3} {
					pos := math.MaxUint64 - back + 1
					got, want := make([]byte, 3*xofRun), make([]byte, 3*xofRun)
					goXOF(refOf(&node), pos, got)
					must(lib.HashXOF(h.mode, h.modeKey(), false, in[:n], pos, want))
					if !bytes.Equal(got, want) {
						t.Fatalf("%s, %d bytes, runs=%v, zeebo's blocks=%v, measured lukechampine's %v: across 2^64 from %d: %s, library %s", m.name, n, runs, zeeboBlocks, blocksByLuke.Load(), pos, shortHex(got), shortHex(want))
					}
				}
			}
		}
	}
	if lib == nil {
		t.Log("no native library: output across 2^64 not compared")
	}
}

// TestOutputInGo: where a native Digest's output is computed in Go.
func TestOutputInGo(t *testing.T) {
	for _, c := range []struct {
		lib        bool
		goos, arch string
		avx2       bool
		simd       string
		want       bool
	}{
		{true, "linux", "amd64", true, "avx2", true},
		{true, "linux", "amd64", true, "avx512", false}, // the crate's xof_many
		{true, "darwin", "amd64", true, "avx512", false},
		{true, "windows", "amd64", true, "avx512", true}, // xof_many is unix only
		{true, "windows", "amd64", true, "avx2", true},
		{true, "linux", "amd64", false, "sse41", false}, // no runs in Go
		{true, "linux", "arm64", false, "neon", false},
		{true, "linux", "arm64", true, "neon", false}, // whatever the flag says
		{false, "linux", "amd64", true, "", false},    // no library: the Go path
	} {
		if got := outputInGo(c.lib, c.goos, c.arch, c.avx2, c.simd); got != c.want {
			t.Errorf("outputInGo(%v, %s, %s, avx2=%v, %s) = %v, want %v", c.lib, c.goos, c.arch, c.avx2, c.simd, got, c.want)
		}
	}
	// And the backend in use follows it.
	info := Backend()
	if want := outputInGo(lib != nil, runtime.GOOS, runtime.GOARCH, cpu.X86.HasAVX2, info.SIMD); outGo != want {
		t.Errorf("%s backend at %s: output in Go %v, want %v", info.Name, info.SIMD, outGo, want)
	}
}

// TestDigestReadAheadCopies: the output a Digest fetches ahead of its small
// reads (its block, and the run of blocks on the heap after aheadAfter of
// them) is its own, not its copies': the original and a copy by value read
// in small pieces on two goroutines at once (under the race detector, a
// shared buffer is a report) and end with runs of their own, and a copy
// written back over the original after the original read on gives the
// output at its own position, on each backend, for a short input (one
// block, more than one) and a long one.
func TestDigestReadAheadCopies(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		for _, n := range []int{64, 65, 3 * chunkLen} {
			in := vectorInput(n)
			z := zeebo.New()
			_, _ = z.Write(in)
			want := make([]byte, 8<<10)
			_, _ = z.Digest().Read(want)
			h := New()
			_, _ = h.Write(in)
			read := func(d *Digest, from, to int) error {
				got := make([]byte, 32)
				for pos := from; pos < to; pos += len(got) {
					if _, err := d.Read(got); err != nil || !bytes.Equal(got, want[pos:pos+len(got)]) {
						return fmt.Errorf("%d bytes of input: 32 bytes at %d: %x, %v; want %x", n, pos, got, err, want[pos:pos+len(got)])
					}
				}
				return nil
			}
			d := h.Digest()
			if err := read(d, 0, 96); err != nil { // the third read fills d's buffer
				t.Fatal(err)
			}
			c := *d
			var wg sync.WaitGroup
			errs := make([]error, 2)
			wg.Go(func() { errs[0] = read(d, 96, 4096) })
			wg.Go(func() { errs[1] = read(&c, 96, 4096) })
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			if c.run() != nil && c.run() == d.run() {
				t.Fatalf("%d bytes of input: a copy by value and the original share the output fetched ahead of their small reads", n)
			}
			// A copy taken once the original reads from a run makes its
			// own when it needs one.
			c2 := *d
			if err := read(&c2, 4096, 6144); err != nil {
				t.Fatal(err)
			}
			if d.run() == nil || c2.run() == d.run() {
				t.Fatalf("%d bytes of input: the original reads from no run of output ahead (%v), or a copy of it fetched its run into the original's", n, d.run() == nil)
			}
			back := *d
			if err := read(d, 4096, 6144); err != nil {
				t.Fatal(err)
			}
			*d = back // at 4096 again, with the buffer d filled beyond it
			if err := read(d, 4096, 8192); err != nil {
				t.Fatalf("after a copy was written back: %v", err)
			}
		}
	})
}

// TestDigestReadAfterPanic: a small read whose fetch panics (the library
// refuses the call, here a mode or a node no Digest has: an internal error) and is recovered leaves no block of
// output behind for the next small read to be served from; once the call
// is right again, the next read is the output.
func TestDigestReadAfterPanic(t *testing.T) {
	if lib == nil {
		t.Skip("native backend not active")
	}
	const refused = "internal error" // must's panic
	in := vectorInput(100)
	want := refOutput(t, hashModePlain, nil, "", in, 0, 16)
	// The input in the Digest, hashed by the library at each fetch
	// (srcShort), in a mode the library refuses.
	d := Digest{src: srcShort, mode: 99}
	d.x.CV = guts.IV
	d.holdInput(in)
	got := make([]byte, 8)
	panicsWith(t, "a read in a mode the library refuses", refused, func() { _, _ = d.Read(got) })
	d.mode = uint8(modeHash)
	for i := range 2 {
		if _, err := d.Read(got); err != nil || !bytes.Equal(got, want[8*i:8*i+8]) {
			t.Fatalf("read %d after a recovered panic: %x, %v; want %x", i, got, err, want[8*i:8*i+8])
		}
	}

	// A read across a block's end whose second block's fetch panics
	// leaves the position where the read started. (A block's node, whose
	// blocks past the first come from the library under this plan.)
	waitPlan()
	saved := planNow.Load()
	defer planNow.Store(saved)
	planNow.Store(planAll(implNative))
	want = refOutput(t, hashModePlain, nil, "", in[:10], 0, 68)
	var d2 Digest
	d2.setShort(modeHash, new([32]byte), in[:10])
	head := make([]byte, 60)
	if _, err := d2.Read(head); err != nil || !bytes.Equal(head, want[:60]) {
		t.Fatalf("the first 60 bytes: %x, %v; want %x", head, err, want[:60])
	}
	d2.x.BlockLen = 99
	panicsWith(t, "a read across a block's end from a node the library refuses", refused, func() { _, _ = d2.Read(got) })
	if d2.x.Pos != 60 {
		t.Fatalf("position %d after a read at 60 that panicked; want 60", d2.x.Pos)
	}
	d2.x.BlockLen = 10
	if _, err := d2.Read(got); err != nil || !bytes.Equal(got, want[60:68]) {
		t.Fatalf("read at 60 after a recovered panic: %x, %v; want %x", got, err, want[60:68])
	}

	// The same with no block at hand, where both blocks come in one fetch
	// (fetchTwo), from the library (output=library): the position stays,
	// and no block is at hand.
	defer setOutput(0)()
	var d3 Digest
	d3.setShort(modeHash, new([32]byte), in[:10])
	_, _ = d3.Seek(60, io.SeekStart)
	d3.x.BlockLen = 99
	panicsWith(t, "a read across a block's end, in one fetch, from a node the library refuses", refused, func() { _, _ = d3.Read(got) })
	if d3.x.Pos != 60 || d3.obOK {
		t.Fatalf("position %d, block at hand %v after a read at 60 that panicked; want 60, none", d3.x.Pos, d3.obOK)
	}
	d3.x.BlockLen = 10
	if _, err := d3.Read(got); err != nil || !bytes.Equal(got, want[60:68]) {
		t.Fatalf("read at 60 after a recovered panic: %x, %v; want %x", got, err, want[60:68])
	}
}

// TestDigestFetchTwo: a read of less than a block across a block's end,
// with no block at hand, keeps the second block at hand and counts two
// blocks fetched (fetchTwo), from each source a Digest of a Hasher has;
// a read across an end with the first block at hand fetches only the
// second.
func TestDigestFetchTwo(t *testing.T) {
	in := vectorInput(3000)
	forEachBackend(t, func(t *testing.T) {
		for _, n := range []int{10, 300, 3000} {
			h, z := New(), zeebo.New()
			_, _ = h.Write(in[:n])
			_, _ = z.Write(in[:n])
			want := make([]byte, 1200)
			_, _ = z.Digest().Read(want)
			d := h.Digest()
			_, _ = d.Seek(1000, io.SeekStart)
			got := make([]byte, 32)
			if _, err := d.Read(got); err != nil || !bytes.Equal(got, want[1000:1032]) {
				t.Fatalf("%d bytes: read of 32 at 1000: %x, %v; want %x", n, got, err, want[1000:1032])
			}
			if !d.obOK || !bytes.Equal(d.x.Out[:], want[1024:1088]) || d.refills != 2 {
				t.Fatalf("%d bytes, source %d: after a read across an edge, block at hand %v (%x), %d fetched; want the second (%x), 2", n, d.src, d.obOK, d.x.Out[:8], d.refills, want[1024:1032])
			}
			_, _ = d.Read(got[:30]) // to 1062, from the block at hand
			if _, err := d.Read(got); err != nil || !bytes.Equal(got, want[1062:1094]) || d.refills != 3 {
				t.Fatalf("%d bytes: read of 32 at 1062: %x, %v, %d fetched; want %x, 3", n, got, err, d.refills, want[1062:1094])
			}
		}
	})
}

// TestDigestGoPathReused: on the Go path, a Hasher that has hashed more
// than it gathers keeps zeebo's hasher through Reset (spare), so that an
// input of more than a chunk written after a Reset is in zeebo's hasher,
// and its Digest is read from zeebo's one-chunk root (ffi.ZeeboRoot), with
// goXOF's runs or without, or from a copy of zeebo's own Digest where its
// layout is not the one known (srcGo); up to a chunk, it is gathered, and
// the spare kept: against zeebo, in every mode.
func TestDigestGoPathReused(t *testing.T) {
	saved := xofRuns
	defer func() { xofRuns, zeeboRoots = saved, true }()
	big := vectorInput(1 << 20)
	withGoBackend(func() {
		for i, runs := range []bool{false, true, false} {
			xofRuns, zeeboRoots = runs, i < 2
			for _, m := range marshalModes {
				h, z := m.new(), m.ref()
				_, _ = h.Write(big[:firstLen+904]) // goFront's
				_, _ = h.Write(big[firstLen+904:]) // past its last chunk: zeebo's hasher
				for _, n := range []int{0, 1, 10, 64, 65, 1000, 1024, 1025, 5000} {
					h.Reset()
					z.Reset()
					_, _ = h.Write(big[:n])
					_, _ = z.Write(big[:n])
					if (h.g != nil) != (n > chunkLen) || (h.spare != nil) != (n <= chunkLen) {
						t.Fatalf("%s, %d bytes after a Reset: zeebo's hasher in use %v, kept %v", m.name, n, h.g != nil, h.spare != nil)
					}
					got, want := make([]byte, 200), make([]byte, 200)
					d := h.Digest()
					if h.g != nil && (d.src == srcGo) == zeeboRoots {
						t.Fatalf("%s, %d bytes after a Reset: a Digest from source %d where zeebo's roots are read is %v", m.name, n, d.src, zeeboRoots)
					}
					_, _ = d.Read(got)
					_, _ = z.Digest().Read(want)
					if !bytes.Equal(got, want) {
						t.Fatalf("runs=%v, roots=%v, %s, %d bytes after a Reset: %s, want %s", runs, zeeboRoots, m.name, n, shortHex(got), shortHex(want))
					}
				}
			}
		}
	})
}

// TestDigestZeeboLayoutUnknown: where zeebo's Digest is not laid out as
// internal/ffi knows, a Digest on the Go path reads copies of zeebo's own
// (srcGo), through the same small reads, seeks and copies as any: against
// zeebo, in every mode; and from 2^63 bytes, where zeebo's Digest cannot
// seek, it says so instead of reading the wrong bytes.
func TestDigestZeeboLayoutUnknown(t *testing.T) {
	defer func() { zeeboRoots = true }()
	zeeboRoots = false
	key := []byte(vectorKey)
	rng := subRand(t)
	withGoBackend(func() {
		for _, m := range allHashModes {
			for _, n := range []int{chunkLen + 1, 5000} {
				in := vectorInput(n)
				h := newModeHasher(t, m, key, vectorContext)
				_, _ = h.Write(in)
				z := newRefHasher(t, m, key, vectorContext)
				_, _ = z.Write(in)
				// Enough for 300 reads of up to 200 bytes from 4 KiB on,
				// without a seek between them.
				want := make([]byte, 4<<10+300*200)
				_, _ = z.Digest().Read(want)
				d := h.Digest()
				if d.src != srcGo {
					t.Fatalf("%v, %d bytes: a Digest from source %d, not zeebo's", m, n, d.src)
				}
				for range 300 {
					if rng.IntN(8) == 0 {
						_, _ = d.Seek(int64(rng.IntN(4<<10)), io.SeekStart)
					}
					d2 := d
					if rng.IntN(8) == 0 {
						c := *d
						d2 = &c
					}
					pos := int(d2.x.Pos)
					got := make([]byte, rng.IntN(200))
					if k, err := d2.Read(got); k != len(got) || err != nil || !bytes.Equal(got, want[pos:pos+k]) {
						t.Fatalf("%v, %d bytes: Read(%d) at %d: %d, %v: %s, want %s", m, n, len(got), pos, k, err, shortHex(got[:k]), shortHex(want[pos:pos+len(got)]))
					}
				}
				ref := z.Digest()
				if _, err := ref.Seek(1<<63-1000, io.SeekStart); err != nil {
					t.Fatal(err)
				}
				wantEnd := make([]byte, 1000)
				_, _ = ref.Read(wantEnd)
				// Up to 2^63, from blocks fetched one at a time (a new
				// Digest) and from runs (d, after its reads above), in
				// small reads and large; past it, an error, where zeebo's
				// Digest cannot seek.
				for i, end := range []Digest{*h.Digest(), *d, *h.Digest(), *d} {
					setPos(&end, 1<<63-1000)
					got := make([]byte, 0, 1000)
					piece := make([]byte, 1+rng.IntN(100))
					if i >= 2 {
						piece = make([]byte, 1000)
					}
					for len(got) < 1000 {
						p := piece[:min(len(piece), 1000-len(got))]
						if k, err := end.Read(p); k != len(p) || err != nil {
							t.Fatalf("%v, %d bytes: %d bytes at %d: %d, %v", m, n, len(p), end.x.Pos, k, err)
						}
						got = append(got, p...)
					}
					if !bytes.Equal(got, wantEnd) {
						t.Fatalf("%v, %d bytes: the 1000 bytes before 2^63 in pieces of %d: %s, want %s", m, n, len(piece), shortHex(got), shortHex(wantEnd))
					}
					setPos(&end, 1<<63-10)
					if k, err := end.Read(got[:11]); k != 0 || err == nil {
						t.Fatalf("%v, %d bytes: a read of 11 bytes at 2^63-10: %d, %v; want an error", m, n, k, err)
					}
					if k, err := end.Read(got[:10]); k != 10 || err != nil || !bytes.Equal(got[:10], wantEnd[990:]) {
						t.Fatalf("%v, %d bytes: the last 10 bytes before 2^63: %d, %v: %s, want %s", m, n, k, err, shortHex(got[:10]), shortHex(wantEnd[990:]))
					}
					if k, err := end.Read(got[:1]); k != 0 || err == nil {
						t.Fatalf("%v, %d bytes: a read at 2^63: %d, %v; want an error", m, n, k, err)
					}
				}
			}
		}
	})
}

// TestDigestAheadStackMove: a Digest on its caller's stack that reads a
// long run in small pieces (its run of output ahead on the heap, owned by
// its address) reads the same output after the stack grew and moved it,
// where the run is no longer its (another address): against a direct
// read, on each backend.
func TestDigestAheadStackMove(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		in := vectorInput(3 * chunkLen)
		h := New()
		_, _ = h.Write(in)
		want := make([]byte, 8<<10)
		_, _ = h.Digest().Read(want)
		d := h.Digest()
		got := make([]byte, 0, len(want))
		var piece [24]byte
		read := func(to int) {
			for len(got) < to {
				_, _ = d.Read(piece[:])
				got = append(got, piece[:]...)
			}
		}
		read(2 << 10)
		before := ffi.Addr(d)
		deepRead(64, func() { read(5 << 10) })
		read(len(want))
		if !bytes.Equal(got[:len(want)], want) {
			i := 0
			for got[i] == want[i] {
				i++
			}
			t.Fatalf("small reads differ from one read from byte %d", i)
		}
		t.Logf("the Digest was at %#x, now %#x", before, ffi.Addr(d))
	})
}

// deepRead calls fn under depth frames of 1 KiB each, which grow the
// goroutine's stack (and move what is on it).
//
//go:noinline
func deepRead(depth int, fn func()) byte {
	var pad [1 << 10]byte
	if depth == 0 {
		fn()
		return pad[0]
	}
	pad[depth%len(pad)] = byte(depth)
	return deepRead(depth-1, fn) + pad[(depth+1)%len(pad)]
}

// TestDigestAheadAllocatesOnce: a long run of small reads from one Digest
// allocates its run of output ahead once, and fetches every later run
// into it, on each backend (on darwin and windows the Digest itself
// escapes too: memory passed to the library does).
func TestDigestAheadAllocatesOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	waitPlan()
	waitParallel(t)
	forEachBackend(t, func(t *testing.T) {
		waitPlan() // the backend's plan, measured in the background, allocates
		h := New()
		_, _ = h.Write(vectorInput(3 * chunkLen))
		var piece [32]byte
		// The fewest of three counts: AllocsPerRun counts the process's
		// allocations, and another test's goroutine may be running.
		allocs := math.Inf(1)
		for range 3 {
			allocs = min(allocs, testing.AllocsPerRun(20, func() {
				d := h.Digest()
				for range (64 << 10) / len(piece) {
					_, _ = d.Read(piece[:])
				}
			}))
		}
		if allocs > 2 {
			t.Fatalf("64 KiB read in 32-byte pieces from one Digest: %v allocations, want at most 2 (the run ahead, and the Digest where it escapes)", allocs)
		}
	})
}

// TestAllocationsDigest: a Digest taken and read, in each mode, after each
// size of input the Hasher handles its own way, for a read of a block or
// less, one at an offset, one of a run, and 32 reads of 4 bytes (served
// from the block at hand: two blocks fetched, too few for a run of output
// ahead, which a Digest allocates after aheadAfter), allocates nothing on
// Linux and only itself on darwin and windows, where memory passed to the
// library escapes to the heap (ffi.ArgsStay) and the Digest with it: the
// calls' own memory there (the root's children, the tree of a gathered
// input, a node or a key copied for the library) is pooled. A Digest that
// keeps a copy of a short input for the library (srcShort, setShort)
// allocates that too. Each of the library's ways to compute the output
// (outputs) is covered.
func TestAllocationsDigest(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	if optimizationsOff() {
		t.Skip("built with -N or -l: without inlining, locals escape")
	}
	want := 0.0
	if ffi.Native && !ffi.ArgsStay {
		want = 1
	}
	waitParallel(t) // which allocates, if running
	key := make([]byte, 32)
	in := vectorInput(64 << 10)
	out := make([]byte, 2*chunkLen)
	forEachBackend(t, func(t *testing.T) {
		waitPlan()
		for _, o := range outputs {
			saved, savedRuns := outGo, xofRuns
			outGo, xofRuns = o.inGo, o.runs && savedRuns
			for _, mode := range []string{"hash", "keyed", "derive"} {
				h := New()
				switch mode {
				case "keyed":
					h, _ = NewKeyed(key)
				case "derive":
					h = NewDeriveKey(vectorContext)
				}
				for _, n := range []int{0, 64, 65, 1024, 1025, 3000, 4096, 4097, 5120, 8192, bufSize + 7, len(in)} {
					h.Reset()
					_, _ = h.Write(in[:n])
					want := want
					if h.Digest().src == srcShort {
						want++
					}
					for _, r := range []struct {
						at         int64
						len, reads int
					}{{0, 32, 1}, {0, 64, 1}, {100, 64, 1}, {0, 2 * chunkLen, 1}, {4096, chunkLen, 1}, {0, 4, 32}} {
						// The fewest of three counts: AllocsPerRun counts the
						// process's allocations, and another test's
						// goroutine (the plan's measurement) may be running.
						allocs := math.Inf(1)
						for range 3 {
							allocs = min(allocs, testing.AllocsPerRun(20, func() {
								d := h.Digest()
								_, _ = d.Seek(r.at, io.SeekStart)
								for range r.reads {
									_, _ = d.Read(out[:r.len])
								}
							}))
						}
						if allocs > want {
							t.Errorf("%s, %s, %d bytes: Digest and %d reads of %d bytes at %d: %v allocations, want at most %v", o.name, mode, n, r.reads, r.len, r.at, allocs, want)
						}
					}
				}
			}
			outGo, xofRuns = saved, savedRuns
		}
	})
}

// TestDigestFirstGoPath: a Go-path Digest of a block or less reads its
// first block in Go even under a plan that names the library (which a
// Go-path plan never does, but a test that switches backends can leave),
// whether single blocks are zeebo's (Read's first case) or lukechampine's
// (first).
func TestDigestFirstGoPath(t *testing.T) {
	waitPlan()
	withGoBackend(func() {
		defer pinDispatch()()
		planNow.Store(planAll(implNative))
		for _, byLuke := range []bool{false, true} {
			// Single blocks by zeebo's compression, which Read takes
			// first, and by lukechampine's, which first computes.
			blocksByLuke.Store(byLuke)
			h, z := New(), zeebo.New()
			_, _ = h.Write([]byte("abc"))
			_, _ = z.Write([]byte("abc"))
			got, want := make([]byte, 32), make([]byte, 32)
			_, _ = h.Digest().Read(got)
			_, _ = z.Digest().Read(want)
			if !bytes.Equal(got, want) {
				t.Fatalf("blocks by lukechampine %v: Digest %x, zeebo %x", byLuke, got, want)
			}
		}
	})
}

// TestSetTail: setTail's node is the root node of whole chunks and then a
// part of a chunk as lukechampine's code computes it (guts.CompressChunk,
// then guts.ParentNode for each subtree, from the smallest), for trees of
// none to 2^54-1 chunks and tails of none to a chunk, in each mode's
// flags, by zeebo's compression (ffi.ZeeboXOF.SetChunk and Parent) and
// lukechampine's, and by lukechampine's where zeebo's layout is unknown;
// it allocates nothing.
func TestSetTail(t *testing.T) {
	in := vectorInput(chunkLen)
	var key [32]byte
	copy(key[:], vectorInput(64)[32:])
	kw := cvWords(&key)
	var stack [64][32]byte
	for i := range stack {
		copy(stack[i][:], vectorInput(32 * (i + 2))[32*(i+1):])
	}
	cv := cvStack{lo: stack[:]}
	want := func(chunks uint64, key *[8]uint32, flags uint32, tail []byte) guts.Node {
		n := guts.CompressChunk(tail, key, chunks, flags)
		for i := range 64 {
			if chunks&(1<<i) != 0 {
				n = guts.ParentNode(cvWords(&stack[i]), guts.ChainingValue(n), key, flags)
			}
		}
		return n
	}
	check := func(what string, byZeebo bool) {
		t.Helper()
		for _, chunks := range []uint64{0, 1, 2, 3, 6, 255, 1<<40 + 0x5a5a5, 1<<54 - 1} {
			for _, n := range []int{0, 1, blockLen, blockLen + 1, 300, chunkLen - 1, chunkLen} {
				for _, c := range []struct {
					key   *[8]uint32
					flags uint32
				}{{&guts.IV, 0}, {&kw, guts.FlagKeyedHash}, {&kw, guts.FlagDeriveKeyMaterial}} {
					var x xof
					x.Pos = 77
					x.setTail(byZeebo, chunks, cv, c.key, c.flags, in[:n])
					w := want(chunks, c.key, c.flags, in[:n])
					w.Counter = 0 // the root's, which its output blocks set
					if got := x.node(); got != w || x.Pos != 77 {
						t.Fatalf("%s, %d chunks, %d bytes, flags %#x: %+v at %d; want %+v at 77", what, chunks, n, c.flags, got, x.Pos, w)
					}
				}
			}
		}
		var x xof
		if a := testing.AllocsPerRun(20, func() { x.setTail(byZeebo, 255, cv, &kw, guts.FlagKeyedHash, in[:300]) }); a != 0 && !raceEnabled {
			t.Errorf("%s: %v allocations per call, want 0", what, a)
		}
	}
	check("zeebo's compression", true)
	check("lukechampine's", false)
	defer ffi.ForgetZeeboLayout()()
	check("zeebo's layout not known", true)
}
