package blake3

import (
	"bytes"
	"fmt"
	"hash"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	zeebo "github.com/zeebo/blake3"
)

// apiEnv turns on TestAPITable, which scripts/api-check.sh runs.
const apiEnv = "BLAKE3_MEASURE_API"

// apiCall is one use of zeebo's API, made the way a user makes it, as
// this package and as zeebo: each returns what the use outputs (a hash, a
// digest's bytes), for the check that the two agree before they are timed.
type apiCall struct {
	name string
	min  int   // the smallest input the use is measured at
	more []int // sizes between apiSizes where the use changes course
	// prep makes the two uses for input in; each call of one may reuse
	// out for its output.
	prep func(in []byte) (ours, zeebos func(out []byte) []byte)
}

// hashers is a pair of Hashers in one mode, this package's and zeebo's.
type hashers struct {
	ours  *Hasher
	zeebo *zeebo.Hasher
}

var apiKey = vectorInput(32)

const apiContext = "TestAPITable context"

func newPlain() hashers { return hashers{New(), zeebo.New()} }

func newKeyed() hashers { return hashers{keyedOurs(), keyedZeebo()} }

func newDerive() hashers { return hashers{NewDeriveKey(apiContext), zeebo.NewDeriveKey(apiContext)} }

// written is the pair of hashers made by mk, both written in.
func written(mk func() hashers, in []byte) hashers {
	p := mk()
	p.ours.Write(in)
	p.zeebo.Write(in)
	return p
}

// onNew is a use of a new Hasher of each, made by newOurs and newZeebo,
// that use gives in and out to.
func onNew(newOurs func() *Hasher, newZeebo func() *zeebo.Hasher, use func(h hash.Hash, in, out []byte) []byte) func(in []byte) (func([]byte) []byte, func([]byte) []byte) {
	return func(in []byte) (func([]byte) []byte, func([]byte) []byte) {
		return func(out []byte) []byte { return use(newOurs(), in, out) },
			func(out []byte) []byte { return use(newZeebo(), in, out) }
	}
}

// onReused is a use of one Hasher of each, made by mk, again at each call.
func onReused(mk func() hashers, use func(h hash.Hash, in, out []byte) []byte) func(in []byte) (func([]byte) []byte, func([]byte) []byte) {
	return func(in []byte) (func([]byte) []byte, func([]byte) []byte) {
		p := mk()
		return func(out []byte) []byte { return use(p.ours, in, out) },
			func(out []byte) []byte { return use(p.zeebo, in, out) }
	}
}

// onWritten is a read of one Hasher of each, made by mk and written in once.
func onWritten(mk func() hashers, readOurs func(h *Hasher, out []byte) []byte, readZeebo func(h *zeebo.Hasher, out []byte) []byte) func(in []byte) (func([]byte) []byte, func([]byte) []byte) {
	return func(in []byte) (func([]byte) []byte, func([]byte) []byte) {
		p := written(mk, in)
		return func(out []byte) []byte { return readOurs(p.ours, out) },
			func(out []byte) []byte { return readZeebo(p.zeebo, out) }
	}
}

func writeSum(h hash.Hash, in, out []byte) []byte { h.Write(in); return h.Sum(out[:0]) }

func resetWriteSum(h hash.Hash, in, out []byte) []byte { h.Reset(); return writeSum(h, in, out) }

// pieces writes in to h in 64-byte pieces and returns its Sum.
func pieces(h hash.Hash, in, out []byte) []byte {
	for len(in) > 64 {
		h.Write(in[:64])
		in = in[64:]
	}
	return writeSum(h, in, out)
}

// streamSizes are the sizes between apiSizes where a new Hasher's stream
// in small pieces takes another course: past what the Hasher holds in
// itself (first, 8 KiB; 4 KiB until stop 58, whose sizes past it stay),
// on the Go path past the chunk after it, and the first whole batch of
// zeebo's hasher; on the native path, within the groups of first after
// bufSize, past halfUntil, and past first's group there, where the
// buffer is allocated.
var streamSizes = []int{4<<10 + 64, 5 << 10, 6 << 10, 8 << 10, 8<<10 + 64, 24 << 10, 64<<10 + 64, 72<<10 + 64}

// keyedStreamSizes are streamSizes for the keyed modes, which gather a
// chunk on the Go path (goGather).
var keyedStreamSizes = []int{1<<10 + 64, 2 << 10, 3 << 10, 5 << 10, 8 << 10}

// stackPieces is pieces through a new Hasher that the caller's frame
// holds (no interface, no escape), as zeebo's New allows too.
func stackPieces(in, out []byte) []byte {
	h := New()
	for len(in) > 64 {
		h.Write(in[:64])
		in = in[64:]
	}
	h.Write(in)
	return h.Sum(out[:0])
}

// stackPiecesZeebo is stackPieces with zeebo's hasher.
func stackPiecesZeebo(in, out []byte) []byte {
	h := zeebo.New()
	for len(in) > 64 {
		h.Write(in[:64])
		in = in[64:]
	}
	h.Write(in)
	return h.Sum(out[:0])
}

// readCopied hashes in through io.Copy from a reader without WriteTo, as a
// file is read: this package's Hasher has ReadFrom, zeebo's does not.
func readCopied(h hash.Hash, in, out []byte) []byte {
	if _, err := io.Copy(h, struct{ io.Reader }{bytes.NewReader(in)}); err != nil {
		panic(err)
	}
	return h.Sum(out[:0])
}

// digestRead is a Digest of a Hasher read for n bytes.
func digestRead(n int) (func(h *Hasher, out []byte) []byte, func(h *zeebo.Hasher, out []byte) []byte) {
	return func(h *Hasher, out []byte) []byte {
			_, _ = h.Digest().Read(out[:n])
			return out[:n]
		}, func(h *zeebo.Hasher, out []byte) []byte {
			_, _ = h.Digest().Read(out[:n])
			return out[:n]
		}
}

func sumOurs(h *Hasher, out []byte) []byte          { return h.Sum(out[:0]) }
func sumZeebo(h *zeebo.Hasher, out []byte) []byte   { return h.Sum(out[:0]) }
func cloneOurs(h *Hasher, out []byte) []byte        { return h.Clone().Sum(out[:0]) }
func cloneZeebo(h *zeebo.Hasher, out []byte) []byte { return h.Clone().Sum(out[:0]) }

// oneShot is a one-shot function of each.
func oneShot(ours, zeebos func(in, out []byte) []byte) func(in []byte) (func([]byte) []byte, func([]byte) []byte) {
	return func(in []byte) (func([]byte) []byte, func([]byte) []byte) {
		return func(out []byte) []byte { return ours(in, out) }, func(out []byte) []byte { return zeebos(in, out) }
	}
}

func newOurs() *Hasher        { return New() }
func newZeebo() *zeebo.Hasher { return zeebo.New() }
func keyedOurs() *Hasher {
	h, err := NewKeyed(apiKey)
	if err != nil {
		panic(err)
	}
	return h
}

func keyedZeebo() *zeebo.Hasher {
	h, err := zeebo.NewKeyed(apiKey)
	if err != nil {
		panic(err)
	}
	return h
}

// apiCalls are the uses TestAPITable times: each call of zeebo's API that
// docs/zeebo-api.md's pass made, at each size.
var apiCalls = []apiCall{
	{"New,Write,Sum", 0, nil, onNew(newOurs, newZeebo, writeSum)},
	{"NewKeyed,Write,Sum", 0, nil, onNew(keyedOurs, keyedZeebo, writeSum)},
	{"NewDeriveKey,Write,Sum", 0, nil, onNew(func() *Hasher { return NewDeriveKey(apiContext) }, func() *zeebo.Hasher { return zeebo.NewDeriveKey(apiContext) }, writeSum)},
	{"WriteString,Sum", 0, nil, func(in []byte) (func([]byte) []byte, func([]byte) []byte) {
		s := string(in)
		return func(out []byte) []byte { h := New(); h.WriteString(s); return h.Sum(out[:0]) },
			func(out []byte) []byte { h := zeebo.New(); h.WriteString(s); return h.Sum(out[:0]) }
	}},
	{"Reset,Write,Sum", 0, nil, onReused(newPlain, resetWriteSum)},
	{"keyed Reset,Write,Sum", 0, nil, onReused(newKeyed, resetWriteSum)},
	{"derive-key Reset,Write,Sum", 0, nil, onReused(newDerive, resetWriteSum)},
	{"Sum again", 0, nil, onWritten(newPlain, sumOurs, sumZeebo)},
	{"keyed Sum again", 0, nil, onWritten(newKeyed, sumOurs, sumZeebo)},
	{"Digest,Read 32B", 0, nil, func(in []byte) (func([]byte) []byte, func([]byte) []byte) {
		o, z := digestRead(32)
		return onWritten(newPlain, o, z)(in)
	}},
	{"Digest,Read 1KiB", 0, nil, func(in []byte) (func([]byte) []byte, func([]byte) []byte) {
		o, z := digestRead(1 << 10)
		return onWritten(newPlain, o, z)(in)
	}},
	{"Clone,Sum", 0, nil, onWritten(newPlain, cloneOurs, cloneZeebo)},
	{"64B pieces,Sum", 128, streamSizes, onNew(newOurs, newZeebo, pieces)},
	{"stack: 64B pieces,Sum", 128, streamSizes, func(in []byte) (func([]byte) []byte, func([]byte) []byte) {
		return func(out []byte) []byte { return stackPieces(in, out) }, func(out []byte) []byte { return stackPiecesZeebo(in, out) }
	}},
	{"keyed 64B pieces,Sum", 128, keyedStreamSizes, onNew(keyedOurs, keyedZeebo, pieces)},
	{"io.Copy,Sum", 0, nil, onNew(newOurs, newZeebo, readCopied)},
	{"Sum256", 0, nil, oneShot(func(in, out []byte) []byte { s := Sum256(in); return append(out[:0], s[:]...) },
		func(in, out []byte) []byte { s := zeebo.Sum256(in); return append(out[:0], s[:]...) })},
	{"Sum512", 0, nil, oneShot(func(in, out []byte) []byte { s := Sum512(in); return append(out[:0], s[:]...) },
		func(in, out []byte) []byte { s := zeebo.Sum512(in); return append(out[:0], s[:]...) })},
	{"DeriveKey", 0, nil, oneShot(func(in, out []byte) []byte { DeriveKey(apiContext, in, out[:32]); return out[:32] },
		func(in, out []byte) []byte { zeebo.DeriveKey(apiContext, in, out[:32]); return out[:32] })},
}

// apiSizes are the input sizes TestAPITable measures each use at.
var apiSizes = []int{0, 1, 64, 65, 256, 1 << 10, 1<<10 + 1, 4 << 10, 16 << 10, 64 << 10, 1 << 20}

// TestAPITable times each use of apiCalls at each of apiSizes as this
// package and as zeebo, in one process, taking turns in short batches (of
// about 100 µs each; 101 pairs, in an order drawn again for each pair), on
// the native path where the library is loaded and on the Go path, forced,
// and prints one line per use and size: the median over the pairs of
// zeebo's time over this package's (above 1, this package is faster), for
// scripts/api-check.sh, which runs it in several processes and makes the
// tables. It first checks that each use gives zeebo's output. The
// package runs with its defaults (threads included), as a user's program
// would; zeebo's calls run on one goroutine, as they do.
// BLAKE3_API_CALL=s times only the uses whose names contain s.
func TestAPITable(t *testing.T) {
	if os.Getenv(apiEnv) == "" {
		t.Skip("a measurement: scripts/api-check.sh runs it (" + apiEnv + "=1)")
	}
	waitPlan()
	if nativeActive(t) {
		timeAPI(t, "native")
	} else {
		fmt.Printf("api: no native library: %s\n", active.info.Reason)
	}
	withGoBackend(func() { timeAPI(t, "go") })
}

// timeAPI times apiCalls at apiSizes on the backend in use, and prints a
// line per use and size that starts with "api: path=" and path.
func timeAPI(t *testing.T, path string) {
	buf := vectorInput(apiSizes[len(apiSizes)-1])
	out := make([]byte, 1<<10)
	var sink byte
	only := os.Getenv("BLAKE3_API_CALL")
	for _, c := range apiCalls {
		if !strings.Contains(c.name, only) {
			continue
		}
		for _, n := range slices.Sorted(slices.Values(append(slices.Clone(apiSizes), c.more...))) {
			if n < c.min {
				continue
			}
			in := buf[:n]
			ours, zeebos := c.prep(in)
			if got, want := ours(make([]byte, len(out))), zeebos(make([]byte, len(out))); !bytes.Equal(got, want) {
				t.Fatalf("%s, %s, %d bytes: %x, zeebo %x", path, c.name, n, got, want)
			}
			per := calls(zeebos, out, 100*time.Microsecond)
			ratios := make([]float64, 0, 101)
			for range cap(ratios) {
				var d [2]time.Duration
				for _, k := range rand.Perm(2) {
					f := ours
					if k == 1 {
						f = zeebos
					}
					t0 := time.Now()
					for range per {
						sink ^= f(out)[0]
					}
					d[k] = time.Since(t0)
				}
				ratios = append(ratios, float64(d[1])/float64(d[0]))
			}
			fmt.Printf("api: path=%s size=%s ratio=%.3f call=%s\n", path, sizeName(n), median(ratios), c.name)
		}
	}
	runtime.KeepAlive(sink)
}

// calls is how many calls of f, at least one, take about d.
func calls(f func([]byte) []byte, out []byte, d time.Duration) int {
	n := 1
	for {
		t0 := time.Now()
		for range n {
			f(out)
		}
		if el := time.Since(t0); el >= d/4 {
			return max(1, int(float64(n)*float64(d)/float64(el)))
		}
		n *= 4
	}
}
