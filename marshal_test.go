package blake3

import (
	"bytes"
	"encoding"
	"testing"

	zeebo "github.com/zeebo/blake3"
)

var (
	_ encoding.BinaryMarshaler   = (*Hasher)(nil)
	_ encoding.BinaryAppender    = (*Hasher)(nil)
	_ encoding.BinaryUnmarshaler = (*Hasher)(nil)
)

// marshalModes are the three modes, as constructors and as zeebo's.
var marshalModes = []struct {
	name string
	new  func() *Hasher
	ref  func() *zeebo.Hasher
}{
	{"hash", New, zeebo.New},
	{"keyed", func() *Hasher { h, _ := NewKeyed([]byte(vectorKey)); return h }, func() *zeebo.Hasher { h, _ := zeebo.NewKeyed([]byte(vectorKey)); return h }},
	{"derive-key", func() *Hasher { return NewDeriveKey(vectorContext) }, func() *zeebo.Hasher { return zeebo.NewDeriveKey(vectorContext) }},
}

// TestMarshalAcrossBackends: random inputs cut at random points, saved on
// one backend and resumed on the other (and on the same), in every mode,
// give the uninterrupted hash, as zeebo computes it.
func TestMarshalAcrossBackends(t *testing.T) {
	rng := newTestRand(testSeed(t))
	in := vectorInput(3*bufSize + 5000)
	backends := []string{"native", "go"}
	if lib == nil {
		backends = []string{"go"}
	}
	for round := range 300 {
		n := rng.IntN(len(in))
		if round < 40 {
			n = []int{0, 1, 1023, 1024, 1025, bufSize - 1, bufSize, bufSize + 1, 2 * bufSize, 3*bufSize + 5000}[round%10]
		}
		cut := rng.IntN(n + 1)
		m := marshalModes[round%3]
		from, to := backends[rng.IntN(len(backends))], backends[rng.IntN(len(backends))]
		var state []byte
		onBackend(t, from, func() {
			h := m.new()
			writeInPieces(rng, h, in[:cut])
			var err error
			if state, err = h.MarshalBinary(); err != nil {
				t.Fatalf("%s: MarshalBinary on %s after %d bytes: %v", m.name, from, cut, err)
			}
		})
		onBackend(t, to, func() {
			var h Hasher
			if err := h.UnmarshalBinary(state); err != nil {
				t.Fatalf("%s: UnmarshalBinary on %s of a state saved on %s after %d bytes: %v", m.name, to, from, cut, err)
			}
			writeInPieces(rng, &h, in[cut:n])
			z := m.ref()
			_, _ = z.Write(in[:n])
			if got, want := h.Sum(nil), z.Sum(nil); !bytes.Equal(got, want) {
				t.Fatalf("%s: %d bytes, saved after %d on %s, resumed on %s: %x, want %x", m.name, n, cut, from, to, got, want)
			}
			d, zd := h.Digest(), z.Digest()
			_, _ = d.Seek(1<<33, 0)
			_, _ = zd.Seek(1<<33, 0)
			got, want := make([]byte, 100), make([]byte, 100)
			_, _ = d.Read(got)
			_, _ = zd.Read(want)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: %d bytes, saved after %d on %s, resumed on %s: Digest differs", m.name, n, cut, from, to)
			}
		})
	}
}

// onBackend runs f with the package on the named backend.
func onBackend(t *testing.T, name string, f func()) {
	t.Helper()
	if name == "go" {
		withGoBackend(f)
		return
	}
	f()
}

// writeInPieces writes p to h in random pieces.
func writeInPieces(rng interface{ IntN(int) int }, h *Hasher, p []byte) {
	for len(p) > 0 {
		k := min(len(p), 1+rng.IntN(1<<uint(rng.IntN(16))))
		_, _ = h.Write(p[:k])
		p = p[k:]
	}
}
