// The fuzz targets that compare the package with zeebo/blake3:
//
//	FuzzDifferential: any input, any split, every mode.
//	FuzzHasherOps:    a program of Write, WriteString, Sum, Clone, Reset and
//	                  Digest on one Hasher, in any order and size.
//
// (FuzzDigestSeek is with the Digest's tests, FuzzUnmarshalBinary with the
// saved state's.) Run them all with scripts/fuzz.sh.

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
	"encoding/binary"
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

// fuzzModeOf is the hashing mode, key and context of a mode byte (its low
// two bits, as FuzzDifferential: 3 is derive-key with a non-UTF-8 context).
func fuzzModeOf(b byte) (hashMode, []byte, string) {
	switch b & 3 {
	case 1:
		return hashModeKeyed, []byte(vectorKey), ""
	case 2:
		return hashModeDerive, nil, vectorContext
	case 3:
		return hashModeDerive, nil, "fuzz \xff context"
	}
	return hashModePlain, nil, ""
}

// fuzzScript reads a program's bytes; past the end it reads zeros.
type fuzzScript struct{ b []byte }

// FuzzHasherOps runs a program on a package Hasher and a zeebo Hasher side by
// side. Each op is one script byte (op % 8), with its arguments after it:
//
//	0 Write n bytes (n: 2 bytes, times 1, 16 or 64 by the op's high bits)
//	1 WriteString n bytes (as 0)
//	2 Sum, compared
//	3 Clone; the original is written to and dropped, the clone goes on
//	4 Reset
//	5 Digest: Seek to a 2-byte offset and read up to 255 bytes, compared
//	6 Digest taken now, and read at the end of the program: it must not
//	  have changed
//	7 Write nil
//
// The input bytes come from a pattern, so the script alone decides sizes.
func FuzzHasherOps(f *testing.F) {
	nativeActive(f)
	f.Add(byte(0), []byte{0, 10, 0, 2, 5, 0, 0, 40})
	f.Add(byte(1), []byte{0x40, 0x00, 0x08, 2, 3, 0x80, 0x01, 0x02, 2, 4, 2})
	f.Add(byte(2), []byte{6, 0xc0, 0xff, 0x03, 6, 1, 0x20, 0x00, 2, 5, 0x10, 0x00, 0x80})
	f.Add(byte(3), []byte{0x80, 0x00, 0x08, 7, 0x81, 0x00, 0x08, 3, 0x40, 0x01, 0x00, 2})
	f.Add(byte(0), []byte{0xc0, 0x00, 0x08, 0xc0, 0x00, 0x08, 0x40, 0xff, 0xff, 2, 6, 4, 0, 1, 0, 2})
	pattern := vectorInput(4<<20 + 7)
	f.Fuzz(func(t *testing.T, mode byte, program []byte) {
		m, key, ctx := fuzzModeOf(mode)
		h := newModeHasher(t, m, key, ctx)
		z := newRefHasher(t, m, key, ctx)
		s := &fuzzScript{b: program}
		pos := 0 // the next input byte of the pattern
		type snapshot struct {
			d    *Digest
			want []byte
		}
		var snaps []snapshot
		for step := 0; len(s.b) > 0 && step < 64; step++ {
			op := s.byte()
			switch op % 8 {
			case 0, 1:
				n := s.uint16() * []int{1, 1, 16, 64}[op>>6]
				n = min(n, len(pattern)-pos)
				p := pattern[pos : pos+n]
				pos = (pos + n) % (len(pattern) - 64<<10)
				if op%8 == 0 {
					_, _ = h.Write(p)
				} else {
					_, _ = h.WriteString(string(p))
				}
				_, _ = z.Write(p)
			case 2:
				if got, want := h.Sum(nil), z.Sum(nil); !bytes.Equal(got, want) {
					t.Fatalf("step %d: Sum %x, want %x", step, got, want)
				}
			case 3:
				c := h.Clone()
				_, _ = h.Write([]byte("only in the original"))
				_ = h.Sum(nil)
				h = c
			case 4:
				h.Reset()
				z.Reset()
			case 5:
				off, n := int64(s.uint16()), int(s.byte())
				d, zd := h.Digest(), z.Digest()
				_, _ = d.Seek(off, io.SeekStart)
				_, _ = zd.Seek(off, io.SeekStart)
				got, want := make([]byte, n), make([]byte, n)
				_, _ = d.Read(got)
				_, _ = zd.Read(want)
				if !bytes.Equal(got, want) {
					t.Fatalf("step %d: Digest at %d: %x, want %x", step, off, got, want)
				}
			case 6:
				want := make([]byte, 100)
				_, _ = z.Digest().Read(want)
				snaps = append(snaps, snapshot{h.Digest(), want})
			case 7:
				_, _ = h.Write(nil)
			}
		}
		if got, want := h.Sum(nil), z.Sum(nil); !bytes.Equal(got, want) {
			t.Fatalf("end: Sum %x, want %x", got, want)
		}
		for i, sn := range snaps {
			got := make([]byte, len(sn.want))
			_, _ = sn.d.Read(got)
			if !bytes.Equal(got, sn.want) {
				t.Fatalf("Digest %d changed after the program went on: %x, want %x", i, got, sn.want)
			}
		}
	})
}

func (s *fuzzScript) byte() byte {
	if len(s.b) == 0 {
		return 0
	}
	c := s.b[0]
	s.b = s.b[1:]
	return c
}

func (s *fuzzScript) uint16() int { return int(s.byte()) | int(s.byte())<<8 }

func (s *fuzzScript) int64() int64 {
	var b [8]byte
	for i := range b {
		b[i] = s.byte()
	}
	return int64(binary.LittleEndian.Uint64(b[:]))
}
