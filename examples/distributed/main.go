// Command distributed hashes one file on several machines (or processes) and
// combines their results into the file's BLAKE3 hash, the same as b3sum's,
// with the subtree API of github.com/purego-blake3/blake3.
//
//	distributed plan [-n N] FILE|-size BYTES  print the byte ranges for N workers
//	distributed worker -offset O -len L FILE  hash one range: "O L CV"
//	distributed combine [-file FILE | -size BYTES] [-name NAME] [LINES...]
//	                                           merge the workers' lines (from the
//	                                           files LINES, or stdin) into the hash
//
// See README.md.
package main

import (
	"bufio"
	"container/heap"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/purego-blake3/blake3"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "plan":
		err = plan(os.Args[2:])
	case "worker":
		err = worker(os.Args[2:])
	case "combine":
		err = combine(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "distributed:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, `usage:
  distributed plan [-n N] FILE | plan [-n N] -size BYTES
  distributed worker -offset O -len L FILE
  distributed combine [-file FILE | -size BYTES] [-name NAME] [LINES-FILE...]`)
	os.Exit(2)
}

// fileSize is the size flag, or the size of the named file.
func fileSize(size int64, path string) (uint64, error) {
	if size >= 0 {
		return uint64(size), nil
	}
	if path == "" {
		return 0, errors.New("give a file or -size")
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return uint64(fi.Size()), nil
}

// span is a range of the input; a heap of them, largest first.
type span struct{ off, len uint64 }
type spans []span

func (s spans) Len() int           { return len(s) }
func (s spans) Less(i, j int) bool { return s[i].len > s[j].len }
func (s spans) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }
func (s *spans) Push(x any)        { *s = append(*s, x.(span)) }
func (s *spans) Pop() any          { x := (*s)[len(*s)-1]; *s = (*s)[:len(*s)-1]; return x }

// plan cuts the input into at least two and about n ranges by splitting the
// largest range in two, as the BLAKE3 tree does (LeftSubtreeLen), until there
// are n: each range is then a subtree, which a worker can hash alone.
func plan(args []string) error {
	fs := flag.NewFlagSet("plan", flag.ExitOnError)
	n := fs.Int("n", 4, "number of ranges (workers)")
	size := fs.Int64("size", -1, "input size in bytes, instead of a file")
	_ = fs.Parse(args)
	total, err := fileSize(*size, fs.Arg(0))
	if err != nil {
		return err
	}
	if total <= 1024 {
		return fmt.Errorf("an input of %d bytes is one chunk: hash it directly (b3sum)", total)
	}
	h := &spans{{0, total}}
	for h.Len() < max(*n, 2) {
		s := heap.Pop(h).(span)
		if s.len <= 1024 { // no range left to split
			heap.Push(h, s)
			break
		}
		l, _ := blake3.LeftSubtreeLen(s.len)
		heap.Push(h, span{s.off, l})
		heap.Push(h, span{s.off + l, s.len - l})
	}
	sort.Slice(*h, func(i, j int) bool { return (*h)[i].off < (*h)[j].off })
	w := bufio.NewWriter(os.Stdout)
	for _, s := range *h {
		fmt.Fprintf(w, "%d %d\n", s.off, s.len)
	}
	return w.Flush()
}

// worker hashes [offset, offset+len) of the file as a subtree.
func worker(args []string) error {
	fs := flag.NewFlagSet("worker", flag.ExitOnError)
	off := fs.Uint64("offset", 0, "first byte of the range (a multiple of 1024)")
	n := fs.Uint64("len", 0, "length of the range")
	_ = fs.Parse(args)
	if fs.NArg() != 1 {
		usage()
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer f.Close()
	h := blake3.New()
	if err := h.SetInputOffset(*off); err != nil {
		return err
	}
	got, err := io.CopyBuffer(h, io.NewSectionReader(f, int64(*off), int64(*n)), make([]byte, 1<<20))
	if err != nil {
		return err
	}
	if uint64(got) != *n {
		return fmt.Errorf("range [%d, +%d): the file ends after %d bytes of it", *off, *n, got)
	}
	s, err := h.FinalizeNonRoot()
	if err != nil {
		return err
	}
	_, err = fmt.Printf("%d %d %x\n", s.Offset, s.Len, s.CV)
	return err
}

// combine reads the workers' lines, checks that they tile the input, and
// merges them up the BLAKE3 tree into its hash.
func combine(args []string) error {
	fs := flag.NewFlagSet("combine", flag.ExitOnError)
	file := fs.String("file", "", "the file hashed (for its size and name)")
	size := fs.Int64("size", -1, "input size in bytes, instead of -file")
	name := fs.String("name", "", "name printed after the hash (default: -file)")
	_ = fs.Parse(args)
	total, err := fileSize(*size, *file)
	if err != nil {
		return err
	}
	if *name == "" {
		*name = *file
	}

	parts := map[uint64]blake3.Subtree{}
	read := func(r io.Reader, src string) error {
		sc := bufio.NewScanner(r)
		for line := 1; sc.Scan(); line++ {
			s, err := parseLine(sc.Text())
			if err != nil {
				return fmt.Errorf("%s:%d: %v", src, line, err)
			}
			if s.Len == 0 {
				continue
			}
			if _, dup := parts[s.Offset]; dup {
				return fmt.Errorf("%s:%d: a second range at offset %d", src, line, s.Offset)
			}
			parts[s.Offset] = s
		}
		return sc.Err()
	}
	if fs.NArg() == 0 {
		err = read(os.Stdin, "stdin")
	}
	for _, p := range fs.Args() {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		err = read(f, p)
		f.Close()
		if err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}

	// The ranges must tile [0, total).
	offs := make([]uint64, 0, len(parts))
	for o := range parts {
		offs = append(offs, o)
	}
	sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
	var end uint64
	for _, o := range offs {
		if o != end {
			return fmt.Errorf("ranges do not tile the input: a gap or an overlap at byte %d", min(o, end))
		}
		end = o + parts[o].Len
	}
	if end != total {
		return fmt.Errorf("ranges cover %d bytes of %d", end, total)
	}
	if len(parts) < 2 {
		return errors.New("one range is the whole input: its chaining value is not the hash (plan at least two)")
	}

	// Rebuild the tree: a node is a given range, or the parent of its two
	// subtrees.
	h := blake3.New()
	used := 0
	var node func(off, n uint64) (blake3.Subtree, error)
	node = func(off, n uint64) (blake3.Subtree, error) {
		if s, ok := parts[off]; ok && s.Len == n {
			used++
			return s, nil
		}
		l, err := blake3.LeftSubtreeLen(n)
		if err != nil {
			return blake3.Subtree{}, fmt.Errorf("range [%d, +%d) is not a subtree of the input (use plan's ranges)", off, n)
		}
		a, err := node(off, l)
		if err != nil {
			return a, err
		}
		b, err := node(off+l, n-l)
		if err != nil {
			return b, err
		}
		return h.MergeNonRoot(a, b)
	}
	l, _ := blake3.LeftSubtreeLen(total)
	a, err := node(0, l)
	if err != nil {
		return err
	}
	b, err := node(l, total-l)
	if err != nil {
		return err
	}
	if used != len(parts) {
		return errors.New("ranges are not subtrees of the input (use plan's ranges)")
	}
	sum, err := h.MergeRoot(a, b)
	if err != nil {
		return err
	}
	if *name != "" {
		_, err = fmt.Printf("%x  %s\n", sum, *name)
	} else {
		_, err = fmt.Printf("%x\n", sum)
	}
	return err
}

// parseLine parses "offset len cvhex"; blank lines are zero Subtrees.
func parseLine(line string) (blake3.Subtree, error) {
	var s blake3.Subtree
	f := strings.Fields(line)
	if len(f) == 0 {
		return s, nil
	}
	if len(f) != 3 {
		return s, errors.New(`want "offset len cvhex"`)
	}
	var err error
	if s.Offset, err = strconv.ParseUint(f[0], 10, 64); err != nil {
		return s, err
	}
	if s.Len, err = strconv.ParseUint(f[1], 10, 64); err != nil {
		return s, err
	}
	if s.Len == 0 {
		return s, errors.New("empty range")
	}
	cv, err := hex.DecodeString(f[2])
	if err != nil || len(cv) != 32 {
		return s, errors.New("the chaining value is not 64 hex digits")
	}
	copy(s.CV[:], cv)
	return s, nil
}
