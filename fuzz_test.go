package blake3

// FuzzDifferential: the package (native when loaded) against zeebo/blake3
// directly. Run with
//
//	go test -run '^$' -fuzz FuzzDifferential -fuzztime 60s -fuzzminimizetime 50x .
//
// (The repeated inputs make minimization slow; the cap keeps the fuzzer busy.)
//
// Without the native library it still runs, comparing the package's Go path
// (its Hasher, Digest and Clone around zeebo) with zeebo.

import (
	"bytes"
	"io"
	"math"
	"testing"

	zeebo "github.com/zeebo/blake3"
)

// The fuzz mode byte:
//
//	bits 0-1: 0 hash, 1 keyed, 2 derive-key, 3 derive-key with a non-UTF-8 context
//	bit 2:    SetMaxThreads(1)
//	bit 3:    WriteString instead of Write
//	bit 4:    Clone at the split point and go on with the clone
//	bits 5-7: repeat the data (k*97+1 times, capped at 300 KiB) to reach the
//	          buffered, direct and multi-core native paths
const (
	fuzzModeMask    = 3
	fuzzOneThread   = 1 << 2
	fuzzWriteString = 1 << 3
	fuzzClone       = 1 << 4
	fuzzRepeatShift = 5
	fuzzMaxInput    = 300 << 10
)

func FuzzDifferential(f *testing.F) {
	nativeActive(f) // under BLAKE3_STRICT=1, the native library must be there
	f.Add([]byte(""), uint32(0), uint64(0), byte(0))
	f.Add([]byte("abc"), uint32(1), uint64(1), byte(1))
	f.Add(vectorInput(1023), uint32(512), uint64(63), byte(2))
	f.Add(vectorInput(1025), uint32(1024), uint64(64), byte(3))
	f.Add(vectorInput(64), uint32(32), uint64(1<<40), byte(4|1<<5))
	f.Add(vectorInput(1000), uint32(999), uint64(math.MaxInt64-10), byte(8|16|2<<5))
	f.Add(vectorInput(4097), uint32(4000), uint64(7), byte(16|1|7<<5))
	f.Add(vectorInput(251), uint32(100), uint64(math.MaxUint64), byte(2|4|16|6<<5))
	f.Add([]byte{0xff, 0xfe, 0x00}, uint32(2), uint64(130), byte(3|8|3<<5))
	f.Fuzz(func(t *testing.T, data []byte, split uint32, seek uint64, mode byte) {
		if reps := int(mode>>fuzzRepeatShift)*97 + 1; reps > 1 && len(data) > 0 {
			data = bytes.Repeat(data, min(reps, fuzzMaxInput/len(data)+1))
			data = data[:min(len(data), fuzzMaxInput)]
		}
		cut := 0
		if len(data) > 0 {
			cut = int(split % uint32(len(data)+1))
		}
		pos := int64(seek & math.MaxInt64)
		if mode&fuzzOneThread != 0 {
			SetMaxThreads(1)
			defer SetMaxThreads(0)
		}
		key := make([]byte, 32)
		copy(key, data)
		m := hashMode(mode & fuzzModeMask)
		ctx := "fuzz context " + string(data[:min(len(data), 8)])
		if mode&fuzzModeMask == 3 {
			m, ctx = hashModeDerive, "fuzz \xff context"
		}

		write := func(h *Hasher, p []byte) {
			if mode&fuzzWriteString != 0 {
				_, _ = h.WriteString(string(p))
			} else {
				_, _ = h.Write(p)
			}
		}
		h := newModeHasher(t, m, key, ctx)
		write(h, data[:cut])
		if mode&fuzzClone != 0 {
			c := h.Clone()
			write(h, []byte("not in the clone"))
			h = c
		}
		write(h, data[cut:])

		ref := newRefHasher(t, m, key, ctx)
		_, _ = ref.Write(data)
		if got, want := h.Sum(nil), ref.Sum(nil); !bytes.Equal(got, want) {
			t.Fatalf("%s len=%d cut=%d: Sum = %x, want %x (zeebo)", m, len(data), cut, got, want)
		}
		n := int(split%200) + 1
		got, want := make([]byte, n), make([]byte, n)
		d, rd := h.Digest(), ref.Digest()
		if _, err := d.Seek(pos, io.SeekStart); err != nil {
			t.Fatalf("Seek(%d): %v", pos, err)
		}
		_, _ = rd.Seek(pos, io.SeekStart)
		_, _ = d.Read(got[:n/2])
		_, _ = d.Read(got[n/2:])
		_, _ = rd.Read(want)
		if !bytes.Equal(got, want) {
			t.Fatalf("%s len=%d cut=%d: Digest at %d = %x, want %x (zeebo)", m, len(data), cut, pos, got, want)
		}

		switch m {
		case hashModePlain:
			if got, want := Sum256(data), zeebo.Sum256(data); got != want {
				t.Fatalf("Sum256 len=%d = %x, want %x", len(data), got, want)
			}
			if got, want := Sum512(data), zeebo.Sum512(data); got != want {
				t.Fatalf("Sum512 len=%d = %x, want %x", len(data), got, want)
			}
		case hashModeDerive:
			got, want := make([]byte, n), make([]byte, n)
			DeriveKey(ctx, data, got)
			zeebo.DeriveKey(ctx, data, want)
			if !bytes.Equal(got, want) {
				t.Fatalf("DeriveKey(%q) len=%d = %x, want %x", ctx, len(data), got, want)
			}
		}
	})
}
