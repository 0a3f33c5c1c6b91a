package blake3_test

// Every Output below was checked against the reference b3sum 1.8.1, e.g.
// printf 'hello world' | b3sum --length 64.

import (
	"fmt"
	"io"
	"strings"

	"github.com/purego-blake3/blake3"
)

func ExampleSum256() {
	fmt.Printf("%x\n", blake3.Sum256([]byte("hello world")))
	// Output:
	// d74981efa70a0c880b8d8c1985d075dbcbf679b99a5f9914e5aaf96b831a9e24
}

func ExampleSum512() {
	// The first 64 bytes of the extended output; the first 32 are Sum256's.
	fmt.Printf("%x\n", blake3.Sum512([]byte("hello world")))
	// Output:
	// d74981efa70a0c880b8d8c1985d075dbcbf679b99a5f9914e5aaf96b831a9e24a020ed55aed9a6ab2eaf3fd70d2c98c949e142d8f42a10250190b699e02cf9eb
}

func ExampleNew() {
	h := blake3.New()
	_, _ = h.Write([]byte("hello "))
	_, _ = h.WriteString("world")
	fmt.Printf("%x\n", h.Sum(nil))
	// Output:
	// d74981efa70a0c880b8d8c1985d075dbcbf679b99a5f9914e5aaf96b831a9e24
}

func ExampleNewKeyed() {
	key := []byte("whats the Elvish word for friend") // exactly 32 bytes
	h, err := blake3.NewKeyed(key)
	if err != nil {
		panic(err)
	}
	_, _ = h.Write([]byte("hello world"))
	fmt.Printf("%x\n", h.Sum(nil))

	_, err = blake3.NewKeyed([]byte("too short"))
	fmt.Println(err != nil)
	// Output:
	// 546a11cf08472ee68fb83c3f28ab2dc21ef620a6f03a64b429e4bac4e454d2b2
	// true
}

func ExampleNewDeriveKey() {
	h := blake3.NewDeriveKey("example.com 2025-01-01 12:00:00 session tokens v1")
	_, _ = h.Write([]byte("hello world")) // the key material
	fmt.Printf("%x\n", h.Sum(nil))
	// Output:
	// d0d7be1d706681695cd11edf35488a8b9003164c0f71866a022cf60ba68b365f
}

func ExampleDeriveKey() {
	out := make([]byte, 32) // DeriveKey fills all of out
	blake3.DeriveKey("example.com 2025-01-01 12:00:00 session tokens v1", []byte("hello world"), out)
	fmt.Printf("%x\n", out)
	// Output:
	// d0d7be1d706681695cd11edf35488a8b9003164c0f71866a022cf60ba68b365f
}

func ExampleHasher_Digest() {
	h := blake3.New()
	_, _ = h.Write([]byte("hello world"))
	d := h.Digest()

	first := make([]byte, 16)
	_, _ = d.Read(first)
	fmt.Printf("%x\n", first)

	// The output stream is seekable: read 16 bytes from offset 100.
	if _, err := d.Seek(100, io.SeekStart); err != nil {
		panic(err)
	}
	later := make([]byte, 16)
	_, _ = d.Read(later)
	fmt.Printf("%x\n", later)
	// Output:
	// d74981efa70a0c880b8d8c1985d075db
	// 7ef9a714a47a4cdef62c5402a25d7994
}

func ExampleDigest_ReadAt() {
	h := blake3.New()
	_, _ = h.Write([]byte("hello world"))
	d := h.Digest()

	// 4 MiB of output at once: computed in parts on as many cores as
	// SetMaxThreads allows.
	stream := make([]byte, 4<<20)
	if _, err := d.ReadAt(stream, 0); err != nil {
		panic(err)
	}
	fmt.Printf("%x\n", stream[len(stream)-16:])

	// 16 bytes at offset 100, as Seek and Read give them; the Digest's
	// position does not move.
	later := make([]byte, 16)
	if _, err := d.ReadAt(later, 100); err != nil {
		panic(err)
	}
	fmt.Printf("%x\n", later)
	// Output:
	// afd85b14ad4bd868d001d573da211640
	// 7ef9a714a47a4cdef62c5402a25d7994
}

func ExampleHasher_Clone() {
	h := blake3.New()
	_, _ = h.Write([]byte("hello"))
	c := h.Clone()
	_, _ = c.Write([]byte(" world")) // does not change h
	fmt.Printf("%x\n", h.Sum(nil))
	fmt.Printf("%x\n", c.Sum(nil))
	// Output:
	// ea8f163db38682925e4491c5e58d4bb3506ef8c14eb78a86e908c5624a67200f
	// d74981efa70a0c880b8d8c1985d075dbcbf679b99a5f9914e5aaf96b831a9e24
}

func ExampleBackend() {
	b := blake3.Backend()
	// Name is "native" or "go"; Reason says why on the Go path. Which one a
	// process gets depends on the platform and the environment.
	fmt.Println(b.Name == "native" || b.Name == "go")
	fmt.Println((b.Name == "go") == (b.Reason != ""))
	// Output:
	// true
	// true
}

func ExampleSetMaxThreads() {
	blake3.SetMaxThreads(1)       // hash large inputs on one core
	defer blake3.SetMaxThreads(0) // back to the default, GOMAXPROCS

	data := make([]byte, 1<<20) // 1 MiB of zeros
	fmt.Printf("%x\n", blake3.Sum256(data))
	// Output:
	// 488de202f73bd976de4e7048f4e1f39a776d86d582b7348ff53bf432b987fca8
}

func ExampleHasher_MarshalBinary() {
	h := blake3.New()
	_, _ = h.Write([]byte("hello"))
	state, err := h.MarshalBinary() // save the hash in progress...
	if err != nil {
		panic(err)
	}

	var r blake3.Hasher // ...and resume it, later or elsewhere
	if err := r.UnmarshalBinary(state); err != nil {
		panic(err)
	}
	_, _ = r.Write([]byte(" world"))
	fmt.Printf("%x\n", r.Sum(nil))
	// Output:
	// d74981efa70a0c880b8d8c1985d075dbcbf679b99a5f9914e5aaf96b831a9e24
}

func ExampleHasher_ReadFrom() {
	// io.Copy hands the reader to Hasher.ReadFrom: an *os.File is read on
	// every core allowed, anything else in large pieces.
	h := blake3.New()
	n, err := io.Copy(h, strings.NewReader("hello world"))
	fmt.Println(n, err)
	fmt.Printf("%x\n", h.Sum(nil))
	// Output:
	// 11 <nil>
	// d74981efa70a0c880b8d8c1985d075dbcbf679b99a5f9914e5aaf96b831a9e24
}
