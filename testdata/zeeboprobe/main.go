// Command zeeboprobe is a program that uses only github.com/zeebo/blake3 (at
// the version go.mod pins): scripts/targetcheck builds it for every target Go
// lists, and this module must build wherever it does.
package main

import (
	"fmt"
	"os"

	"github.com/zeebo/blake3"
)

func main() {
	sum := blake3.Sum256([]byte(os.Args[0]))
	fmt.Printf("%x\n", sum)
}
