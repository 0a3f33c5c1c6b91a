package blake3

import (
	"bytes"
	"encoding"
	"encoding/binary"
	"errors"
	"github.com/purego-blake3/blake3/internal/ffi"
	"math/bits"
	"math/rand/v2"
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
		saveResume(t, rng, m.new, m.name, from, to, in[:n], cut, func(h *Hasher) {
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

// TestMarshalOracle: random inputs cut at random points, saved on one
// backend and resumed on the other, in every mode, finish to the Rust
// b3sum's output for the whole input (64 bytes, the root and past it).
func TestMarshalOracle(t *testing.T) {
	b3sumBinary(t)
	rng := newTestRand(testSeed(t))
	backends := []string{"native", "go"}
	if lib == nil {
		backends = []string{"go"}
	}
	const perMode = 8
	for mi, m := range marshalModes {
		var inputs, got [][]byte
		for i := range perMode {
			in := make([]byte, []int{0, 1, 1024, 1025, bufSize + 1, 3*bufSize + 7, rng.IntN(4 * bufSize), rng.IntN(70000)}[i])
			for j := range in {
				in[j] = byte(rng.Uint32())
			}
			cut := rng.IntN(len(in) + 1)
			from, to := backends[i%len(backends)], backends[(i+1)%len(backends)]
			saveResume(t, rng, m.new, m.name, from, to, in, cut, func(h *Hasher) {
				out := make([]byte, 64)
				_, _ = h.Digest().Read(out)
				got = append(got, out)
			})
			inputs = append(inputs, in)
		}
		want := b3sumOutputs(t, hashMode(mi), []byte(vectorKey), vectorContext, 0, 64, inputs...)
		for i := range inputs {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("%s: %d bytes, saved and resumed: %x, b3sum says %x", m.name, len(inputs[i]), got[i], want[i])
			}
		}
	}
}

// saveResume writes in[:cut] in random pieces to a hasher from newHasher
// on backend from and saves it, resumes the state into a zero Hasher on
// backend to, writes in[cut:] to it there, and runs check on it.
func saveResume(t *testing.T, rng *rand.Rand, newHasher func() *Hasher, name, from, to string, in []byte, cut int, check func(h *Hasher)) {
	t.Helper()
	var state []byte
	onBackend(t, from, func() {
		h := newHasher()
		writeInPieces(rng, h, in[:cut])
		var err error
		if state, err = h.MarshalBinary(); err != nil {
			t.Fatalf("%s: MarshalBinary on %s after %d bytes: %v", name, from, cut, err)
		}
	})
	onBackend(t, to, func() {
		var h Hasher
		if err := h.UnmarshalBinary(state); err != nil {
			t.Fatalf("%s: UnmarshalBinary on %s of a state saved on %s after %d bytes: %v", name, to, from, cut, err)
		}
		writeInPieces(rng, &h, in[cut:])
		check(&h)
	})
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

// marshalState builds a state by hand: every field as given, the stack's
// length following chunks, filled with chaining values of nothing.
func marshalState(mode, flags byte, key [32]byte, offset, chunks uint64, tail int) []byte {
	b := append([]byte(stateMagic), stateVersion, mode, flags, 0)
	b = append(b, key[:]...)
	b = binary.BigEndian.AppendUint64(b, offset)
	b = binary.BigEndian.AppendUint64(b, chunks)
	b = binary.BigEndian.AppendUint16(b, uint16(tail))
	b = append(b, make([]byte, 32*bits.OnesCount64(chunks))...)
	return append(b, vectorInput(tail)...)
}

// TestMarshalRefusals: anything that is not a state MarshalBinary writes is
// refused with an error, and the hasher is left as it was. Each bad state
// differs from a good one in one way.
func TestMarshalRefusals(t *testing.T) {
	var none, key [32]byte
	key[0] = 1
	good := map[string][]byte{
		"plain":        marshalState(0, 0, none, 0, 48, 7),
		"keyed":        marshalState(1, 0, key, 0, 3, 1024),
		"subtree":      marshalState(0, 1, none, 16<<10, 8, 8<<10),
		"empty":        marshalState(2, 0, key, 0, 0, 0),
		"tail only":    marshalState(0, 0, none, 0, 0, stateMaxTail),
		"whole groups": marshalState(0, 0, none, 0, 1<<40, stateMaxTail),
	}
	set := func(b []byte, i int, v byte) []byte { b = bytes.Clone(b); b[i] = v; return b }
	bad := map[string][]byte{
		"nothing":                    nil,
		"a header cut short":         good["plain"][:stateHeader-1],
		"magic":                      set(good["plain"], 0, 'x'),
		"version 0":                  set(good["plain"], 4, 0),
		"version 2":                  set(good["plain"], 4, 2),
		"one byte short":             good["plain"][:len(good["plain"])-1],
		"one byte more":              append(bytes.Clone(good["plain"]), 0),
		"mode 3":                     marshalState(3, 0, key, 0, 48, 7),
		"an unknown flag":            marshalState(0, 2, none, 0, 48, 7),
		"a key in a plain state":     marshalState(0, 0, key, 0, 48, 7),
		"an unaligned offset":        marshalState(0, 1, none, 1000, 0, 7),
		"an offset, not a subtree":   marshalState(0, 0, none, 16<<10, 8, 7),
		"no tail after chunks":       marshalState(0, 0, none, 0, 48, 0),
		"a tail too long":            marshalState(0, 0, none, 0, 0, stateMaxTail+1),
		"a tail past the stack":      marshalState(0, 0, none, 0, 3, 1025),
		"more than 2^64 bytes":       marshalState(0, 0, none, 0, 1<<54, 1),
		"exactly 2^64 bytes":         marshalState(0, 0, none, 0, 1<<54-1, 1024),
		"chunks past 2^64 bytes":     marshalState(0, 0, none, 0, 1<<54+1, 1),
		"a subtree past its max len": marshalState(0, 1, none, 16<<10, 16, 1),
	}
	bad["reserved byte"] = set(good["plain"], 7, 1)
	for _, backend := range []string{"native", "go"} {
		if backend == "native" && lib == nil {
			continue
		}
		onBackend(t, backend, func() {
			for name, data := range good {
				var h Hasher
				if err := h.UnmarshalBinary(data); err != nil {
					t.Errorf("good state %s on %s: %v", name, backend, err)
				}
			}
			for name, data := range bad {
				r, _ := NewKeyed(make([]byte, 32))
				_, _ = r.Write([]byte("unchanged"))
				want := r.Sum(nil)
				if err := r.UnmarshalBinary(data); !errors.Is(err, errState) {
					t.Errorf("%s on %s: UnmarshalBinary returned %v, want errState", name, backend, err)
				}
				if got := r.Sum(nil); !bytes.Equal(got, want) {
					t.Errorf("%s on %s: the hasher changed", name, backend)
				}
			}
		})
	}
}

// TestMarshalSubtrees: subtree hashers saved and resumed across backends
// give the same chaining values, and merge into the whole hash.
func TestMarshalSubtrees(t *testing.T) {
	in := vectorInput(3 << 20)
	backends := []string{"go", "native"}
	if lib == nil {
		backends = backends[:1]
	}
	rng := newTestRand(testSeed(t))
	for _, from := range backends {
		for _, to := range backends {
			var left, right Subtree
			for i, sub := range []*Subtree{&left, &right} {
				off := uint64(i) << 21 // two subtrees: 2 MiB, then 1 MiB
				end := min(off+2<<20, uint64(len(in)))
				cut := off + uint64(rng.IntN(int(end-off)))
				var state []byte
				onBackend(t, from, func() {
					h := New()
					if err := h.SetInputOffset(off); err != nil {
						t.Fatal(err)
					}
					writeInPieces(rng, h, in[off:cut])
					var err error
					if state, err = h.MarshalBinary(); err != nil {
						t.Fatal(err)
					}
				})
				onBackend(t, to, func() {
					var h Hasher
					if err := h.UnmarshalBinary(state); err != nil {
						t.Fatal(err)
					}
					writeInPieces(rng, &h, in[cut:end])
					var err error
					if *sub, err = h.FinalizeNonRoot(); err != nil {
						t.Fatal(err)
					}
				})
			}
			root, err := New().MergeRoot(left, right)
			if want := zeebo.Sum256(in); err != nil || root != want {
				t.Fatalf("subtrees saved on %s, resumed on %s: %x, %v; want %x", from, to, root, err, want)
			}
		}
	}
}

// TestMarshalUnalignedSubtree: a subtree hasher resumed with a stack that
// ends off a group's alignment (a plain hasher's state with the subtree flag
// set: the same input, offset 0) gathers its next groups aligned, on either
// backend, and gives the hash of the whole input: written in random pieces,
// and in one Write, whatever the pieces drawn. That Write fills the
// unaligned groups first; were the rest taken straight from p after the
// first of them, the last group kept would start at a smaller alignment
// than its length (after 5 chunks and a byte: 15 KiB at chunk 38, aligned
// to 2 KiB). The cuts past what first holds end in zeebo's hasher's stack
// on the Go path, as the shorter ones did when first held 4 KiB.
func TestMarshalUnalignedSubtree(t *testing.T) {
	backends := []string{"go", "native"}
	if lib == nil {
		backends = backends[:1]
	}
	rng := newTestRand(testSeed(t))
	in := vectorInput(3*bufSize + 5000)
	for _, to := range backends {
		for _, cut := range []int{3*chunkLen + 100, 5*chunkLen + 1, 17 * chunkLen, firstLen + 3*chunkLen + 100, firstLen + 5*chunkLen + 1} {
			var state []byte
			withGoBackend(func() { // zeebo's states end anywhere
				h := New()
				_, _ = h.Write(in[:cut])
				var err error
				if state, err = h.MarshalBinary(); err != nil {
					t.Fatal(err)
				}
			})
			state[6] = stateSubtree
			onBackend(t, to, func() {
				var h Hasher
				if err := h.UnmarshalBinary(state); err != nil {
					t.Fatal(err)
				}
				h2 := h.Clone()
				_, _ = h.Write(in[cut:])
				writeInPieces(rng, h2, in[cut:])
				for _, w := range []struct {
					how string
					h   *Hasher
				}{{"in one piece", &h}, {"in pieces", h2}} {
					if got, want := w.h.Sum(nil), zeebo.Sum256(in); !bytes.Equal(got, want[:]) {
						t.Fatalf("resumed on %s after %d bytes, the rest written %s: %x, want %x", to, cut, w.how, got, want)
					}
				}
			})
		}
	}
}

// TestMarshalRejectedWrite: a subtree hasher whose Write was rejected has
// no state to save: its input is not the one it was given.
func TestMarshalRejectedWrite(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		h := New()
		if err := h.SetInputOffset(1024); err != nil {
			t.Fatal(err)
		}
		if _, err := h.Write(make([]byte, 1025)); !errors.Is(err, ErrSubtreeTooLarge) {
			t.Fatalf("Write past the subtree: %v", err)
		}
		if s, err := h.MarshalBinary(); !errors.Is(err, ErrSubtreeTooLarge) {
			t.Fatalf("MarshalBinary after a rejected Write: %x, %v", s, err)
		}
	})
}

// TestMarshalResumedReset: a subtree hasher resumed from a state, reset,
// is a new hasher in its mode on either backend (on the Go path it never
// had the zeebo hasher a plain one writes to).
func TestMarshalResumedReset(t *testing.T) {
	forEachBackend(t, func(t *testing.T) {
		for _, m := range marshalModes {
			h := m.new()
			if err := h.SetInputOffset(0); err != nil {
				t.Fatal(err)
			}
			_, _ = h.Write(vectorInput(3000))
			state, err := h.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var r Hasher
			if err := r.UnmarshalBinary(state); err != nil {
				t.Fatal(err)
			}
			r.Reset()
			_, _ = r.Write([]byte("abc"))
			z := m.ref()
			_, _ = z.Write([]byte("abc"))
			if got, want := r.Sum(nil), z.Sum(nil); !bytes.Equal(got, want) {
				t.Fatalf("%s: a resumed subtree hasher, reset, hashes \"abc\" to %x, want %x", m.name, got, want)
			}
		}
	})
}

// TestMarshalResumedDeriveKey: a derive-key hasher resumed from a state has
// its context key, not its context; the hashers SumReaderAt starts from it
// (several workers, on either backend) hash under that key.
func TestMarshalResumedDeriveKey(t *testing.T) {
	backends := []string{"go", "native"}
	if lib == nil {
		backends = backends[:1]
	}
	data := vectorInput(3 << 20) // above readerAtDirect: in subtrees
	want := make([]byte, 32)
	zeebo.DeriveKey(vectorContext, data, want)
	for _, from := range backends {
		for _, to := range backends {
			var state []byte
			onBackend(t, from, func() {
				var err error
				if state, err = NewDeriveKey(vectorContext).MarshalBinary(); err != nil {
					t.Fatal(err)
				}
			})
			onBackend(t, to, func() {
				var h Hasher
				if err := h.UnmarshalBinary(state); err != nil {
					t.Fatal(err)
				}
				got, err := h.SumReaderAt(bytes.NewReader(data), int64(len(data)), 2)
				if err != nil || !bytes.Equal(got[:], want) {
					t.Fatalf("saved on %s, resumed on %s: SumReaderAt gives %x, %v; want %x", from, to, got, err, want)
				}
			})
		}
	}
}

// TestMarshalDeriveKeyLayoutUnknown: on the Go path, where zeebo's layout
// is not the one known, a derive-key state, a subtree one included, is
// refused with an error, and leaves the hasher as it was: a derive-key
// hasher that has only the context key needs that layout for zeebo's
// hasher, and a subtree hasher becomes one at Reset, whose write past
// what is gathered then panicked.
func TestMarshalDeriveKeyLayoutUnknown(t *testing.T) {
	withGoBackend(func() {
		h := NewDeriveKey(vectorContext)
		if err := h.SetInputOffset(0); err != nil {
			t.Fatal(err)
		}
		sub, err := h.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		whole, err := NewDeriveKey(vectorContext).MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		defer pinDispatch()() // no snapshot of the plan reads zeebo's layout meanwhile
		defer ffi.ForgetZeeboLayout()()
		for name, state := range map[string][]byte{"subtree": sub, "whole input": whole} {
			r := New()
			_, _ = r.Write([]byte("unchanged"))
			want := r.Sum(nil)
			if err := r.UnmarshalBinary(state); err == nil {
				r.Reset()
				_, _ = r.Write(make([]byte, 5000))
				t.Errorf("%s: a derive-key state resumed without zeebo's layout", name)
				continue
			}
			if got := r.Sum(nil); !bytes.Equal(got, want) {
				t.Errorf("%s: the refused state changed the hasher", name)
			}
		}
	})
}

// FuzzUnmarshalBinary: no input makes UnmarshalBinary panic; a refused one
// leaves the hasher as it was; an accepted one gives a hasher that hashes,
// saves, and saves the same state again on the native path.
func FuzzUnmarshalBinary(f *testing.F) {
	var key [32]byte
	key[5] = 9
	f.Add(marshalState(0, 0, [32]byte{}, 0, 48, 7))
	f.Add(marshalState(1, 0, key, 0, 3, 1024))
	f.Add(marshalState(2, 1, key, 16<<10, 8, 100))
	f.Add(marshalState(0, 0, [32]byte{}, 0, 0, 0))
	h := New()
	_, _ = h.Write(vectorInput(5 << 10))
	s, _ := h.MarshalBinary()
	f.Add(s)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, _ := NewKeyed(key[:])
		_, _ = r.Write([]byte("before"))
		before := r.Sum(nil)
		if err := r.UnmarshalBinary(data); err != nil {
			if !bytes.Equal(r.Sum(nil), before) {
				t.Fatal("a refused state changed the hasher")
			}
			return
		}
		again, err := r.MarshalBinary()
		if err != nil {
			t.Fatalf("an accepted state does not save: %v", err)
		}
		if lib != nil && !bytes.Equal(again, data) {
			t.Fatalf("an accepted state saves as another:\n%x\n%x", data, again)
		}
		_, _ = r.Write([]byte("more"))
		_ = r.Sum(nil)
		_, _ = r.Digest().Read(make([]byte, 70))
	})
}

// TestMarshalInputEnd: a state resumed near 2^64-1 bytes, the most an input
// has, takes input up to that and refuses more (ErrSubtreeTooLarge, nothing
// written) through Write, WriteString and ReadFrom, on both backends alike;
// Sum and Digest go on working (the library refuses a tree past 2^64, which
// made them panic).
func TestMarshalInputEnd(t *testing.T) {
	resume := func(t *testing.T, chunks uint64, tail int) *Hasher {
		t.Helper()
		var h Hasher
		if err := h.UnmarshalBinary(marshalState(0, 0, [32]byte{}, 0, chunks, tail)); err != nil {
			t.Fatal(err)
		}
		return &h
	}
	sums := map[string][]byte{}
	forEachBackend(t, func(t *testing.T) {
		var all []byte
		// 2^64-1 bytes: not one more.
		h := resume(t, 1<<54-16, 16383)
		if n, err := h.Write([]byte{1}); n != 0 || !errors.Is(err, ErrSubtreeTooLarge) {
			t.Fatalf("Write at 2^64-1 bytes: %d, %v; want ErrSubtreeTooLarge", n, err)
		}
		if n, err := h.WriteString("x"); n != 0 || !errors.Is(err, ErrSubtreeTooLarge) {
			t.Fatalf("WriteString at 2^64-1 bytes: %d, %v; want ErrSubtreeTooLarge", n, err)
		}
		if n, err := h.ReadFrom(bytes.NewReader([]byte{1})); n != 0 || !errors.Is(err, ErrSubtreeTooLarge) {
			t.Fatalf("ReadFrom at 2^64-1 bytes: %d, %v; want ErrSubtreeTooLarge", n, err)
		}
		all = h.Sum(all)
		out := make([]byte, 70)
		_, _ = h.Digest().Read(out)
		all = append(all, out...)
		// 2^64-1 bytes whose last chunk, less than a whole one, the
		// Hasher holds in itself (Write's first-chunk case): not one more
		// either.
		h = resume(t, 1<<54-1, 1023)
		if n, err := h.Write([]byte{1}); n != 0 || !errors.Is(err, ErrSubtreeTooLarge) {
			t.Fatalf("Write at 2^64-1 bytes, a part of a chunk held: %d, %v; want ErrSubtreeTooLarge", n, err)
		}
		all = h.Sum(all)
		// Short of it: small writes up to the end.
		h = resume(t, 1<<54-16, 16000)
		if _, err := h.Write(make([]byte, 383)); err != nil {
			t.Fatal(err)
		}
		if _, err := h.Write([]byte{1}); !errors.Is(err, ErrSubtreeTooLarge) {
			t.Fatalf("Write past 2^64-1 bytes: %v; want ErrSubtreeTooLarge", err)
		}
		all = h.Sum(all)
		// A stream that does not fit: the pieces that do, counted.
		h = resume(t, 1<<54-1024, 16384)
		// 2^20-16385 bytes fit: the pieces that do, the next one
		// refused whole.
		in := vectorInput(2 << 20)
		want := (1<<20 - 16385) / streamPiece * streamPiece
		n, err := h.ReadFrom(bytes.NewReader(in))
		if n != int64(want) || !errors.Is(err, ErrSubtreeTooLarge) {
			t.Fatalf("ReadFrom past 2^64-1 bytes: %d, %v; want %d, ErrSubtreeTooLarge", n, err, want)
		}
		r := resume(t, 1<<54-1024, 16384)
		_, _ = r.Write(in[:n])
		if !bytes.Equal(h.Sum(nil), r.Sum(nil)) {
			t.Fatal("ReadFrom past 2^64-1 bytes: the hasher does not hold the bytes counted")
		}
		// The same at input offset 0 (a subtree hasher's state): the
		// write refused, nothing kept of it, as without the offset.
		var o Hasher
		if err := o.UnmarshalBinary(marshalState(0, stateSubtree, [32]byte{}, 0, 1<<54-1, 1023)); err != nil {
			t.Fatal(err)
		}
		if n, err := o.Write([]byte{1}); n != 0 || !errors.Is(err, ErrSubtreeTooLarge) {
			t.Fatalf("Write at 2^64-1 bytes, input offset 0: %d, %v; want ErrSubtreeTooLarge", n, err)
		}
		if err := o.Err(); err != nil {
			t.Fatalf("Err after a write refused at input offset 0: %v; want nil, as without the offset", err)
		}
		if got, want := o.Sum(nil), resume(t, 1<<54-1, 1023).Sum(nil); !bytes.Equal(got, want) {
			t.Fatalf("Sum after a write refused at input offset 0: %x; want %x, as without the offset", got, want)
		}
		sums[t.Name()] = h.Sum(all)
	})
	if len(sums) == 2 && !bytes.Equal(sums["TestMarshalInputEnd/native"], sums["TestMarshalInputEnd/go"]) {
		t.Fatal("the backends differ")
	}
}
