// Command b3sum prints or checks BLAKE3 checksums. It is a drop-in
// replacement for the Rust b3sum 1.8.1 command-line tool (same options,
// output, error messages and exit statuses), built on the
// github.com/purego-blake3/blake3 package, which uses the native BLAKE3
// library through purego when available and pure Go otherwise.
//
// Usage:
//
//	b3sum [OPTIONS] [FILE]...
//
// Run "b3sum --help" for the options. In addition to b3sum's options,
// --no-progress disables the progress line that is otherwise shown on
// stderr, when it is a terminal, for inputs taking more than a second (as
// wide as the terminal, and erased on Ctrl-C), and --backend prints the
// hashing backend: the native library or the Go path, and why. --version
// prints what b3sum 1.8.1 prints, and the backend on stderr when stderr is
// a terminal.
//
// Exit status: 0 on success, 1 if an input could not be read, a check
// failed or another runtime error occurred, 2 for command-line errors.
//
// Known differences from b3sum 1.8.1, none in the output of a successful
// run: large files are read with positional reads on every core rather
// than memory-mapped (faster where measured; see the README), so a file
// that shrinks while it is hashed is reported as an error for that file,
// where b3sum dies of SIGBUS, and a file that cannot be mapped (some in
// /sys) is hashed, where b3sum fails; --seek above 2^63-1 is refused; a
// closed stdout pipe ends the command by SIGPIPE, where b3sum panics with
// exit status 101; the clap usage lines of some errors are approximated.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"sync"

	"github.com/purego-blake3/blake3"
)

// version is the b3sum version this command mirrors.
const version = "1.8.1"

// maxThreads caps --num-threads; b3sum itself falls over on absurd values.
const maxThreads = 4096

// runner carries the state of one invocation.
type runner struct {
	opts   *options
	base   *blake3.Hasher
	stdin  io.Reader
	stdout *bufio.Writer
	stderr io.Writer
	errMu  sync.Mutex
	prog   *progress

	// threads is how many threads a hash or an output read may use
	// (setThreads).
	threads int
}

func main() {
	fd := os.Stderr.Fd()
	tty := isTerminal(fd)
	var width func() int
	if tty {
		width = func() int { return termWidth(fd) }
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, tty, width))
}

// run executes b3sum with the given arguments and streams and returns the
// exit status. stderrTTY enables the progress line (and the backend on
// stderr after --version); width, if not nil, reports the terminal's width.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, stderrTTY bool, width func() int) int {
	opts, act, err := parseArgs(args)
	if err != nil {
		if ue, ok := err.(*usageError); ok {
			fmt.Fprint(stderr, ue.text())
			return 2
		}
		fmt.Fprintf(stderr, "Error: %s\n", err)
		return 1
	}
	switch act {
	case actionShortHelp:
		fmt.Fprint(stdout, shortHelp)
		return 0
	case actionLongHelp:
		fmt.Fprint(stdout, longHelp)
		return 0
	case actionVersion:
		// stdout is exactly the Rust b3sum's, for scripts that compare it;
		// a person at a terminal also sees the backend, on stderr.
		fmt.Fprintf(stdout, "b3sum %s\n", version)
		if stderrTTY {
			fmt.Fprintln(stderr, backendLine(blake3.Backend()))
		}
		return 0
	case actionBackend:
		fmt.Fprintln(stdout, backendLine(blake3.Backend()))
		return 0
	}

	files := opts.files
	if len(files) == 0 {
		files = []string{"-"}
	}
	if opts.raw && len(files) > 1 {
		fmt.Fprintln(stderr, "Error: Only one filename can be provided when using --raw")
		return 1
	}
	r := &runner{
		opts:   opts,
		stdin:  stdin,
		stdout: bufio.NewWriterSize(stdout, 64*1024),
		stderr: stderr,
	}
	r.prog = &progress{enabled: stderrTTY && !opts.noProgress, w: stderr, mu: &r.errMu, width: width}
	defer r.prog.watchInterrupts()()
	switch {
	case opts.keyed:
		key, err := readKey(stdin)
		if err != nil {
			fmt.Fprintf(stderr, "Error: %s\n", err)
			return 1
		}
		if r.base, err = blake3.NewKeyed(key); err != nil {
			fmt.Fprintf(stderr, "Error: %s\n", err)
			return 1
		}
	case opts.deriveKey:
		r.base = blake3.NewDeriveKey(opts.context)
	default:
		r.base = blake3.New()
	}
	r.threads = setThreads(opts)

	var failed uint64
	for _, path := range files {
		if opts.check {
			if err := r.checkFile(path, &failed); err != nil {
				r.stdout.Flush()
				r.warn("Error: " + errText(err))
				return 1
			}
			continue
		}
		// Errors are reported and hashing goes on with the next input,
		// but the exit status will be 1.
		if err := r.hashOne(path); err != nil {
			if failed < ^uint64(0) {
				failed++
			}
			r.warn(fmt.Sprintf("b3sum: %s: %s", lossyUTF8(path), errText(err)))
		}
		r.stdout.Flush()
	}
	if opts.check && failed > 0 {
		s := "s"
		if failed == 1 {
			s = ""
		}
		r.warn(fmt.Sprintf("b3sum: WARNING: %d computed checksum%s did NOT match", failed, s))
	}
	if err := r.stdout.Flush(); err != nil {
		return 1
	}
	if failed > 0 {
		return 1
	}
	return 0
}

// warn flushes stdout (to keep the two streams in order on a terminal) and
// prints one line on stderr.
func (r *runner) warn(line string) {
	r.stdout.Flush()
	r.errMu.Lock()
	fmt.Fprintln(r.stderr, line)
	r.errMu.Unlock()
}

// readKey reads the 32-byte key for --keyed from stdin; anything other than
// exactly 32 bytes is an error, with b3sum's messages.
func readKey(stdin io.Reader) ([]byte, error) {
	key, err := io.ReadAll(io.LimitReader(stdin, 33))
	if err != nil {
		return nil, fmt.Errorf("%s", errText(err))
	}
	switch {
	case len(key) < 32:
		return nil, fmt.Errorf("expected 32 key bytes from stdin, found %d", len(key))
	case len(key) > 32:
		return nil, fmt.Errorf("read more than 32 key bytes from stdin")
	}
	return key, nil
}

// setThreads applies --num-threads, or like b3sum (rayon) the
// RAYON_NUM_THREADS environment variable when the flag is absent or 0, and
// returns the threads a hash or an output read may then use: that count,
// or GOMAXPROCS where it is lower or none is given (SetMaxThreads).
func setThreads(opts *options) int {
	n := uint64(0)
	if opts.threadsSet {
		n = opts.numThreads
	}
	if n == 0 {
		if v, err := strconv.ParseUint(os.Getenv("RAYON_NUM_THREADS"), 10, 32); err == nil {
			n = v
		}
	}
	procs := runtime.GOMAXPROCS(0)
	if n == 0 {
		if opts.threadsSet {
			blake3.SetMaxThreads(0)
		}
		return procs
	}
	blake3.SetMaxThreads(int(min(n, maxThreads)))
	return int(min(n, uint64(procs)))
}

// backendLine describes the active hashing backend for --backend, e.g.
// "backend: native blake3 1.8.1 (avx512), library embedded (memfd)" or
// "backend: go github.com/zeebo/blake3 v0.2.4 (avx2); native library not
// used: REASON" (on the Go path Version already names the module).
func backendLine(b blake3.BackendInfo) string {
	s := "backend: " + b.Name
	if b.Version != "" {
		if b.Name == "native" {
			s += " blake3" // the crate; Version is only its number
		}
		s += " " + b.Version
	}
	if b.SIMD != "" {
		s += " (" + b.SIMD + ")"
	}
	if b.Library != "" {
		s += ", library " + b.Library
	}
	if b.Name != "native" && b.Reason != "" {
		s += "; native library not used: " + b.Reason
	}
	return s
}
