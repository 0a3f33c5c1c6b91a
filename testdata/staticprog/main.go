// Command staticprog is a test program for scripts/cross-test.sh and
// static_test.go: it hashes a known input and says which backend did it.
//
//	staticprog [-n N] [-stdin] [-backend]
//
// It prints "sum256 HEX", the Sum256 of N bytes of the pattern i%251 (the
// test-vector input pattern; N defaults to 1 MiB, above the multi-core
// threshold) or of standard input with -stdin, and with -backend a line
// "backend JSON" holding blake3.Backend(). It imports nothing but the
// package and the standard library, so that a build with -tags
// blake3_nonative and CGO_ENABLED=0 is a fully static binary that runs in an
// empty chroot.
package main

import (
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/purego-blake3/blake3"
)

func main() {
	n := flag.Int("n", 1<<20, "hash `N` bytes of the pattern i%251")
	stdin := flag.Bool("stdin", false, "hash standard input instead")
	backend := flag.Bool("backend", false, "also print blake3.Backend() as JSON")
	flag.Parse()

	var data []byte
	if *stdin {
		var err error
		if data, err = io.ReadAll(os.Stdin); err != nil {
			fmt.Fprintln(os.Stderr, "staticprog:", err)
			os.Exit(1)
		}
	} else {
		data = make([]byte, *n)
		for i := range data {
			data[i] = byte(i % 251)
		}
	}
	sum := blake3.Sum256(data)
	fmt.Println("sum256", hex.EncodeToString(sum[:]))
	if *backend {
		b, err := json.Marshal(blake3.Backend())
		if err != nil {
			fmt.Fprintln(os.Stderr, "staticprog:", err)
			os.Exit(1)
		}
		fmt.Println("backend", string(b))
	}
}
