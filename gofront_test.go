package blake3

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/purego-blake3/blake3/internal/ffi"
)

// TestGoFront: on the Go path, a first write past goGather (goFront) keeps
// the chunks before the last as chaining values (bits 4 and up in first),
// the last chunk and the root node, with the whole groups hashed in
// lukechampine's tree or not (bigByTree). Against zeebo, in every mode,
// after one write and after a gathered start: Sum, a Digest, a saved state
// (a Hasher resumed from it, and written on), a Clone written on, and
// writes after it within the last chunk (the root computed again) and past
// it (zeebo's hasher, resumed from those values, though goGather would
// still gather).
func TestGoFront(t *testing.T) {
	key := []byte(vectorKey)
	in := vectorInput(600 << 10)
	forEachTree(func(tree bool) {
		for _, m := range allHashModes {
			for _, n := range []int{
				chunkLen + 1, 2*chunkLen - 1, firstLen + 1, 5000, 8191, 8192, 8193, 12345, 15 * chunkLen,
				groupLen - 1, groupLen, groupLen + 1, groupLen + chunkLen, groupLen + chunkLen + 1,
				2*groupLen - 1, 2*groupLen + 1, 3*groupLen + 9*chunkLen + 7, 31 * groupLen, 32 * groupLen, 32*groupLen + 1,
			} {
				testGoFront(t, m, key, in, n, tree)
			}
		}
	})
}

// testGoFront is TestGoFront for first writes that end at byte n.
func testGoFront(t *testing.T, m hashMode, key, in []byte, n int, tree bool) {
	for _, head := range []int{0, 1, chunkLen, firstLen} {
		if head >= n {
			continue
		}
		h := newModeHasher(t, m, key, vectorContext)
		_, _ = h.Write(in[:head])
		_, _ = h.Write(in[head:n])
		name := func() string {
			return fmt.Sprintf("tree %v, %s, %s then %s", tree, m, sizeName(head), sizeName(n-head))
		}
		// As goGather's doc says: a first write goes to goFront past 4
		// KiB in plain hashing and past a chunk in the keyed modes, and a
		// later one past 4 KiB; a gathered head and then one write is no
		// stream in pieces.
		first := firstLen
		if m != hashModePlain {
			first = chunkLen
		}
		if fronted := head == 0 && n > first || head > 0 && head <= first && n > firstLen; fronted != (h.front != 0 && h.g == nil) {
			t.Fatalf("%s: goFront %v, want %v (front %d)", name(), !fronted, fronted, h.front)
		}
		check := func(what string, h *Hasher, end int) {
			t.Helper()
			if bad := refMismatch(t, m, key, h, in[:end], 300); bad != "" {
				t.Fatalf("%s, %s: %s", name(), what, bad)
			}
		}
		check("as written", h, n)
		checkCopies(t, name(), h, in, n, check)
		check("the original after its clone", h, n)
		end := n
		if room := chunkLen - (n-1)%chunkLen - 1; room > 0 {
			_, _ = h.Write(in[end : end+room/2+1])
			end += room/2 + 1
			check("written within the last chunk", h, end)
		}
		_, _ = h.Write(in[end : end+1500])
		check("written past the last chunk", h, end+1500)
		_, _ = h.Write(in[end+1500 : end+6500])
		check("written on", h, end+6500)
	}
}

// TestGoFrontPieces: on the Go path, in every mode, a write past goGather
// (4 KiB, in a Hasher written to) that follows 3 writes gathered or more,
// each no longer than a chunk, after the last longer one (a body), and is
// no longer than a chunk itself, hands the input to zeebo's hasher at once
// (inPieces), not to goFront. goFront takes it after fewer such writes
// (empty ones not counted), as before; a read between the pieces that
// folds nothing changes nothing, and a Clone keeps the count. Against
// zeebo, with lukechampine's tree and without: the hash as written, a
// saved state resumed and written on, a Clone written on, and writes
// within the next chunk and past it.
func TestGoFrontPieces(t *testing.T) {
	key := []byte(vectorKey)
	in := vectorInput(40 << 10)
	forEachTree(func(tree bool) {
		for _, m := range allHashModes {
			gather := goGather(newModeHasher(t, m, key, vectorContext).mode, true)
			for _, c := range piecesCases(gather, m == hashModePlain) {
				if m != hashModePlain && c.sizes[0] > goGather(modeKeyed, false) {
					continue // goFront's, at the first write (goGather)
				}
				for _, last := range []int{1, 64, chunkLen, chunkLen + 1, 3000} {
					name := fmt.Sprintf("tree %v, %s, %s, then %d bytes", tree, m, c.name, last)
					testGoFrontPieces(t, name, m, key, in, c, last)
				}
			}
		}
	})
}

// piecesCase is a way to write gather bytes before a write past them:
// sizes are the writes (0 an empty one), read is a read after the write
// at index at ("Sum" or "Digest") or "Reset" (of a Hasher written 3
// pieces before), and counted how many writes the rule counts before the
// write past them.
type piecesCase struct {
	name    string
	sizes   []int
	read    string
	at      int
	counted int
}

// piecesCases are TestGoFrontPieces's ways to write gather bytes, in plain
// hashing (plain) or a keyed mode, whose first Sum of more than a chunk
// folds.
func piecesCases(gather int, plain bool) []piecesCase {
	even := func(k int) []int { // k pieces, the last taking the rest
		s := make([]int, k)
		for i := range s {
			s[i] = gather / k
		}
		s[k-1] += gather % k
		return s
	}
	// counted is the count of the writes of a chunk or less, not empty,
	// after the last longer one.
	counted := func(sizes []int) int {
		n := 0
		for _, size := range sizes {
			switch {
			case size > chunkLen:
				n = 0
			case size > 0:
				n++
			}
		}
		return n
	}
	var cs []piecesCase
	for _, k := range []int{1, 2, 3, 4, 16, 64, 257} {
		s := even(k)
		cs = append(cs, piecesCase{fmt.Sprintf("%d pieces", k), s, "", 0, counted(s)})
		cs = append(cs, piecesCase{fmt.Sprintf("%d pieces after a Reset", k), s, "Reset", 0, counted(s)})
		if k >= 3 {
			s := append([]int{1}, even(k-1)...)
			s[1]-- // gather in all
			for _, read := range []string{"Sum", "Digest"} {
				cs = append(cs, piecesCase{fmt.Sprintf("1 byte, %s, %d pieces", read, k-1), s, read, 0, counted(s)})
			}
		}
	}
	if gather == firstLen {
		// Where the count decides, for plain hashing: after a body (4 KiB
		// in pieces of a chunk or less are 4 or more); and a Sum between
		// pieces, which folds nothing here, counts nothing.
		for _, c := range []piecesCase{
			{"a body, 3 empty writes, 2 pieces", []int{firstLen - 1100, 0, 0, 0, 1000, 100}, "", 0, 2},
			{"a body, 3 pieces", []int{firstLen - 3000, 1000, 1000, 1000}, "", 0, 3},
			{"a body, 2 pieces, Sum, a piece", []int{firstLen - 3000, 1000, 1000, 1000}, "Sum", 2, 3},
		} {
			if c.read != "" && !plain {
				continue
			}
			if c.counted != counted(c.sizes) {
				panic(c.name + ": miscounted")
			}
			cs = append(cs, c)
		}
	}
	s := []int{16, 16, 16, gather - 48} // a header in 3 pieces and a body
	cs = append(cs, piecesCase{"3 pieces of 16 bytes, the rest", s, "", 0, counted(s)})
	return cs
}

// testGoFrontPieces is TestGoFrontPieces for one way to write goGather's
// bytes, then a write of last bytes.
func testGoFrontPieces(t *testing.T, name string, m hashMode, key, in []byte, c piecesCase, last int) {
	h := newModeHasher(t, m, key, vectorContext)
	gather := goGather(h.mode, true)
	if c.read == "Reset" {
		for i := range 3 {
			_, _ = h.Write(in[i : i+1])
		}
		h.Reset()
	}
	end := 0
	for i, n := range c.sizes {
		_, _ = h.Write(in[end : end+n])
		end += n
		if i == c.at && c.read == "Sum" {
			h.Sum(nil)
		} else if i == c.at && c.read == "Digest" {
			_, _ = h.Digest().Read(make([]byte, 100))
		}
	}
	if end != gather || h.g != nil || h.front != 0 {
		t.Fatalf("%s: %d bytes gathered, zeebo's hasher %v, front %d: not what the pieces should leave", name, end, h.g != nil, h.front)
	}
	clone := h.Clone()
	_, _ = h.Write(in[end : end+last])
	_, _ = clone.Write(in[end : end+last])
	end += last
	// 3 is streamPieces, written here as the doc of inPieces says it.
	pieces := c.counted >= 3 && last <= chunkLen
	for _, x := range []struct {
		what string
		h    *Hasher
	}{{"", h}, {"a Clone made before it: ", clone}} {
		if got := x.h.g != nil && x.h.front == 0; got != pieces {
			t.Fatalf("%s: %szeebo's hasher at once %v, want %v (front %d)", name, x.what, got, pieces, x.h.front)
		}
		if !pieces && (x.h.g != nil || x.h.front == 0) {
			t.Fatalf("%s: %snot goFront's state (zeebo's hasher %v, front %d)", name, x.what, x.h.g != nil, x.h.front)
		}
	}
	check := func(what string, h *Hasher, end int) {
		t.Helper()
		if bad := refMismatch(t, m, key, h, in[:end], 300); bad != "" {
			t.Fatalf("%s, %s: %s", name, what, bad)
		}
	}
	check("as written", h, end)
	check("a Clone made before the last write", clone, end)
	checkCopies(t, name, h, in, end, check)
	for _, n := range []int{10, chunkLen, 9000} {
		_, _ = h.Write(in[end : end+n])
		end += n
		check(fmt.Sprintf("written on %d bytes", n), h, end)
	}
}

// TestGoKeyedGather: on the Go path, a keyed or derive-key Hasher written
// to before gathers up to 4 KiB (goGather), and its reads of more than a
// chunk gathered fold it, the first Sum too (readGo), or, where zeebo's
// layout is not known and they cannot, move it to zeebo's hasher: the
// keyed modes' Sum of what is gathered takes a chunk at most. A state
// saved with it gathered is resumed gathered. Against zeebo, for Sum first
// and for Digest first, then the other, and a write after.
func TestGoKeyedGather(t *testing.T) {
	key := []byte(vectorKey)
	in := vectorInput(firstLen + 4<<10)
	withGoBackend(func() {
		for _, layout := range []bool{true, false} {
			if !layout {
				defer ffi.ForgetZeeboLayout()()
			}
			for _, m := range []hashMode{hashModeKeyed, hashModeDerive} {
				for _, n := range []int{chunkLen + 1, 2 * chunkLen, 3000, firstLen} {
					for _, first := range []string{"Sum", "Digest"} {
						name := fmt.Sprintf("layout %v, %s, %d bytes, %s first", layout, m, n, first)
						h := newModeHasher(t, m, key, vectorContext)
						_, _ = h.Write(in[:1])
						_, _ = h.Write(in[1:n])
						if h.nbuf != n || h.front != 0 || h.g != nil {
							t.Fatalf("%s: %d bytes gathered, front %d, zeebo's hasher %v: not all gathered", name, h.nbuf, h.front, h.g != nil)
						}
						z := newRefHasher(t, m, key, vectorContext)
						_, _ = z.Write(in[:n])
						if first == "Sum" {
							if got, want := h.Sum(nil), z.Sum(nil); !bytes.Equal(got, want) {
								t.Fatalf("%s: Sum %x, want %x", name, got, want)
							}
						} else {
							got, want := make([]byte, 200), make([]byte, 200)
							_, _ = h.Digest().Read(got)
							_, _ = z.Digest().Read(want)
							if !bytes.Equal(got, want) {
								t.Fatalf("%s: Digest %s, want %s", name, shortHex(got), shortHex(want))
							}
						}
						if moved := h.front != 0 || h.g != nil; !moved || layout != (h.g == nil) {
							t.Fatalf("%s: after the read, front %d, zeebo's hasher %v: want it folded where zeebo's layout is known, else moved", name, h.front, h.g != nil)
						}
						if bad := refMismatch(t, m, key, h, in[:n], 200); bad != "" {
							t.Fatalf("%s: %s", name, bad)
						}
						// A state saved with the input gathered is
						// resumed gathered, as writes would leave it
						// (goGather), not in zeebo's hasher (without
						// zeebo's layout, a derive-key state is refused:
						// TestGoPathLayoutUnknown).
						if layout {
							testKeyedResumed(t, name, m, key, in, n)
						}
						_, _ = h.Write(in[n : n+3000])
						if bad := refMismatch(t, m, key, h, in[:n+3000], 200); bad != "" {
							t.Fatalf("%s, written on: %s", name, bad)
						}
					}
				}
			}
		}
	})
}

// testKeyedResumed is TestGoKeyedGather's check of a state saved with n
// bytes gathered in mode m: resumed, they are gathered, and read zeebo's
// output.
func testKeyedResumed(t *testing.T, name string, m hashMode, key, in []byte, n int) {
	t.Helper()
	r := newModeHasher(t, m, key, vectorContext)
	_, _ = r.Write(in[:1])
	_, _ = r.Write(in[1:n])
	state, err := r.MarshalBinary()
	if err != nil {
		t.Fatalf("%s: MarshalBinary: %v", name, err)
	}
	var u Hasher
	if err := u.UnmarshalBinary(state); err != nil {
		t.Fatalf("%s: UnmarshalBinary: %v", name, err)
	}
	if u.nbuf != n || u.front != 0 || u.g != nil {
		t.Fatalf("%s: resumed with %d bytes gathered, front %d, zeebo's hasher %v: not all gathered", name, u.nbuf, u.front, u.g != nil)
	}
	if bad := refMismatch(t, m, key, &u, in[:n], 200); bad != "" {
		t.Fatalf("%s, resumed: %s", name, bad)
	}
}

// checkCopies checks, with check, a state of h saved and resumed, then
// written on, and a Clone of h written on, where h has hashed in[:n].
func checkCopies(t *testing.T, name string, h *Hasher, in []byte, n int, check func(what string, h *Hasher, end int)) {
	t.Helper()
	state, err := h.MarshalBinary()
	if err != nil {
		t.Fatalf("%s: MarshalBinary: %v", name, err)
	}
	r := new(Hasher)
	if err := r.UnmarshalBinary(state); err != nil {
		t.Fatalf("%s: UnmarshalBinary: %v", name, err)
	}
	check("resumed", r, n)
	_, _ = r.Write(in[n : n+3000])
	check("resumed, written on", r, n+3000)
	c := h.Clone()
	_, _ = c.Write(in[n : n+100])
	check("clone written on", c, n+100)
}

// TestAllocationsGoFront: on the Go path, New, a first write past 4 KiB and
// Sum, with the Hasher on the stack, allocate only the count of changes (8
// bytes), where zeebo's hasher (10 KiB) was allocated before goFront, with
// the whole groups hashed in lukechampine's tree or not (bigByTree).
func TestAllocationsGoFront(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	if optimizationsOff() {
		t.Skip("built with -N or -l: without inlining, locals escape")
	}
	in := vectorInput(1 << 20)
	var sum [32]byte
	forEachTree(func(tree bool) {
		for _, n := range []int{firstLen + 1, 8 << 10, 16 << 10, 16<<10 + 1, 100 << 10, 1 << 20} {
			if a := testing.AllocsPerRun(20, func() {
				h := New()
				_, _ = h.Write(in[:n])
				h.Sum(sum[:0])
			}); a > 1 {
				t.Errorf("tree %v, %d bytes: %v allocations a hash, want at most 1", tree, n, a)
			}
		}
	})
}

// TestGoFrontLarge: a first write whose count of chunks before the last
// has bits 0 to 12 set (8 MiB less a chunk, and more), every value kept in
// first past bit 3: a Sum, a write within the last chunk (the root
// computed again from every value), a saved state resumed, and a write
// past the last chunk (zeebo's hasher resumed from them), against zeebo,
// with the tree and without.
func TestGoFrontLarge(t *testing.T) {
	const n = (1<<13-1)*chunkLen + 5
	in := vectorInput(n + 3000)
	key := []byte(vectorKey)
	forEachTree(func(tree bool) {
		for _, m := range allHashModes {
			h := newModeHasher(t, m, key, vectorContext)
			_, _ = h.Write(in[:n])
			if h.front != 1<<13-1 || h.g != nil {
				t.Fatalf("tree %v, %s: front %d, zeebo's hasher %v: not goFront's state", tree, m, h.front, h.g != nil)
			}
			check := func(what string, h *Hasher, end int) {
				t.Helper()
				z := newRefHasher(t, m, key, vectorContext)
				_, _ = z.Write(in[:end])
				if got, want := h.Sum(nil), z.Sum(nil); !bytes.Equal(got, want) {
					t.Fatalf("tree %v, %s, %s: Sum %x, want %x", tree, m, what, got, want)
				}
			}
			check("as written", h, n)
			state, err := h.MarshalBinary()
			if err != nil {
				t.Fatalf("tree %v, %s: MarshalBinary: %v", tree, m, err)
			}
			_, _ = h.Write(in[n : n+10])
			check("written within the last chunk", h, n+10)
			var r Hasher
			if err := r.UnmarshalBinary(state); err != nil {
				t.Fatalf("tree %v, %s: UnmarshalBinary: %v", tree, m, err)
			}
			check("resumed", &r, n)
			_, _ = h.Write(in[n+10 : n+3000])
			check("written past the last chunk", h, n+3000)
		}
	})
}

// TestGoPathWrittenSpilled: SetInputOffset refuses a Go-path Hasher whose
// input is in zeebo's hasher (a second write past the first's last chunk),
// and takes one Reset since, which keeps that hasher, empty, for the next
// write past a chunk (spare); that Hasher then hashes its subtree as a new
// one given the offset does, not through zeebo's hasher.
func TestGoPathWrittenSpilled(t *testing.T) {
	in := vectorInput(40 << 10)
	key := []byte(vectorKey)
	withGoBackend(func() {
		for _, m := range allHashModes {
			h := newModeHasher(t, m, key, vectorContext)
			_, _ = h.Write(in[:20<<10])
			_, _ = h.Write(in[20<<10:])
			if h.g == nil {
				t.Fatalf("%s: no zeebo hasher after a write past the first's last chunk", m)
			}
			if err := h.SetInputOffset(0); err == nil {
				t.Errorf("%s: SetInputOffset after 40 KiB accepted", m)
			}
			h.Reset()
			if h.spare == nil {
				t.Fatalf("%s: Reset let go of zeebo's hasher, which this test is for", m)
			}
			if err := h.SetInputOffset(1 << 20); err != nil {
				t.Errorf("%s: SetInputOffset after a Reset: %v", m, err)
			}
			// It hashes a subtree, as a new Hasher given the offset does:
			// not through zeebo's hasher, which Write must no longer take.
			s := newModeHasher(t, m, key, vectorContext)
			_ = s.SetInputOffset(1 << 20)
			_, _ = h.Write(in[:3000])
			_, _ = s.Write(in[:3000])
			got, err := h.FinalizeNonRoot()
			want, wantErr := s.FinalizeNonRoot()
			if err != nil || wantErr != nil || got != want {
				t.Errorf("%s: the subtree after a Reset and SetInputOffset: %+v, %v; a new Hasher's %+v, %v", m, got, err, want, wantErr)
			}
		}
	})
}

// TestGoPathLayoutUnknown: where zeebo's hasher is not laid out as
// internal/ffi knows (another version of zeebo), the Go path hashes a first
// write of any size with zeebo's own hasher, not goFront, and resumes the
// states it can without the layout; it refuses a derive-key state, whose
// context key zeebo's API cannot take, with an error, not a panic at a
// later write. Against zeebo, in every mode.
func TestGoPathLayoutUnknown(t *testing.T) {
	in := vectorInput(100 << 10)
	key := []byte(vectorKey)
	withGoBackend(func() {
		states := map[hashMode][]byte{}
		for _, m := range allHashModes {
			h := newModeHasher(t, m, key, vectorContext)
			_, _ = h.Write(in[:3])
			var err error
			if states[m], err = h.MarshalBinary(); err != nil {
				t.Fatalf("%s: MarshalBinary: %v", m, err)
			}
		}
		defer pinDispatch()() // no snapshot of the plan reads zeebo's layout meanwhile
		defer ffi.ForgetZeeboLayout()()
		for _, m := range allHashModes {
			for _, n := range []int{firstLen + 1, 20 << 10, 100 << 10} {
				h := newModeHasher(t, m, key, vectorContext)
				_, _ = h.Write(in[:n])
				if h.front != 0 {
					t.Fatalf("%s, %d bytes: goFront without zeebo's layout", m, n)
				}
				z := newRefHasher(t, m, key, vectorContext)
				_, _ = z.Write(in[:n])
				if got, want := h.Sum(nil), z.Sum(nil); !bytes.Equal(got, want) {
					t.Fatalf("%s, %d bytes: Sum %x, want %x", m, n, got, want)
				}
			}
			var r Hasher
			err := r.UnmarshalBinary(states[m])
			if m == hashModeDerive {
				if err == nil {
					t.Errorf("%s: a state resumed without zeebo's layout", m)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s: UnmarshalBinary: %v", m, err)
			}
			_, _ = r.Write(in[3:5000])
			z := newRefHasher(t, m, key, vectorContext)
			_, _ = z.Write(in[:5000])
			if got, want := r.Sum(nil), z.Sum(nil); !bytes.Equal(got, want) {
				t.Fatalf("%s: resumed, 5000 bytes: Sum %x, want %x", m, got, want)
			}
		}
	})
}

// forEachTree runs f on the Go path, with bigByTree set (tree) and not, as
// the Go path's measurement would leave it, and restores it after.
func forEachTree(f func(tree bool)) {
	withGoBackend(func() {
		defer pinDispatch()()
		for _, tree := range []bool{false, true} {
			bigByTree.Store(tree)
			f(tree)
		}
	})
}
