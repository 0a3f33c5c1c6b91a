package blake3

// More fuzz targets, against zeebo/blake3 as FuzzDifferential:
//
//	FuzzHasherOps:  a program of Write, WriteString, Sum, Clone, Reset and
//	                Digest on one Hasher, in any order and size.
//	FuzzDigestSeek: a program of Seek (any offset, any whence, valid or not)
//	                and Read on one Digest.
//
// Run one with, for example,
//
//	go test -run '^$' -fuzz '^FuzzDigestSeek$' -fuzztime 60s .
//
// or all of them with scripts/fuzz.sh.

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"
)

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
	f.Fuzz(func(t *testing.T, data []byte, mode byte, program []byte) {
		m, key, ctx := fuzzModeOf(mode)
		if mode&0x80 != 0 && len(data) > 0 {
			// Large enough for the native digest.
			data = bytes.Repeat(data, (bufSize+1)/len(data)+1)
		}
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
