//go:build !blake3_nonative && !android && (amd64 || arm64)

// Signals and the library's threads: an asynchronous signal that Go ignores
// must not end a process whose rayon pool exists, wherever the kernel
// delivers it, and SIGQUIT must still give Go's goroutine dump. The
// library's threads are not Go's: a signal handled on one of them reaches
// Go's handler on a thread Go does not know, which re-raises it with the
// default action. So the library blocks asynchronous signals in every thread
// it creates (rust/include/blake3_purego.h, "Threads"), and the kernel gives
// process-directed ones to Go's threads.

package blake3

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	zeebo "github.com/zeebo/blake3"
	"golang.org/x/sys/unix"
)

// signalsIgnored are asynchronous signals that Go catches and ignores when
// the program did not ask for them (os/signal), and whose default action
// ends the process: the ones that killed it when they landed on a library
// thread. SIGRTMIN+6 stands for the real-time signals (glibc keeps 32 and
// 33 for itself; Go ignores the rest).
var signalsIgnored = []syscall.Signal{
	unix.SIGUSR1, unix.SIGUSR2, unix.SIGALRM, unix.SIGPIPE, unix.SIGVTALRM,
	unix.SIGIO, unix.SIGPWR, unix.SIGXCPU, unix.SIGXFSZ, syscall.Signal(34 + 6),
}

// signalThreadPrefix is how the library names its pool's threads
// (/proc/PID/task/TID/comm).
const signalThreadPrefix = "blake3-rayon-"

// signalChildEnv marks the child process of the signal tests.
const signalChildEnv = "BLAKE3_SIGNAL_CHILD"

// signalPoolThreads is the pool size the child asks for (SetMaxThreads with
// GOMAXPROCS above it), and signalInputLen what it hashes: over parallelMin,
// so that every hash runs on the pool.
const (
	signalPoolThreads = 3
	signalInputLen    = parallelMin + 12345
)

// signalReport is the child's last line on stdout.
type signalReport struct {
	Backend    BackendInfo
	Pool       int // blake3_purego_num_threads
	Hashes     int
	Mismatches int
}

// TestSignalsChild is the child process of the signal tests: it hashes on
// the library's pool until its standard input closes, checking every hash
// against zeebo's, and reports on stdout ("READY" once the pool exists, then
// the report).
func TestSignalsChild(t *testing.T) {
	if os.Getenv(signalChildEnv) == "" {
		t.Skip("runs only as a child process of the signal tests")
	}
	data := make([]byte, signalInputLen)
	for i := range data {
		data[i] = byte(i % 251)
	}
	want := zeebo.Sum256(data)
	SetMaxThreads(signalPoolThreads)
	r := signalReport{Backend: Backend()}
	if lib == nil {
		signalChildSay("REPORT", r)
		return
	}
	check := func() {
		r.Hashes++
		if Sum256(data) != want {
			r.Mismatches++
		}
	}
	check() // builds the pool
	r.Pool = lib.NumThreads()
	var done atomic.Bool
	go func() {
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // EOF or a line
		done.Store(true)
	}()
	signalChildSay("READY", r)
	for !done.Load() {
		check()
	}
	signalChildSay("REPORT", r)
}

func signalChildSay(what string, r signalReport) {
	b, _ := json.Marshal(r)
	fmt.Printf("\n%s %s\n", what, b)
}

// signalChild is a running child process.
type signalChild struct {
	cmd    *exec.Cmd
	stdin  interface{ Close() error }
	lines  chan string
	stderr *bytes.Buffer
	ready  signalReport
}

// startSignalChild starts a child and waits until its pool exists and each
// of the pool's threads has named itself.
func startSignalChild(t *testing.T) *signalChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSignalsChild$", "-test.count=1", "-test.v")
	// The parent's environment (its backend and library), the pool wider
	// than one thread whatever the machine.
	cmd.Env = append(os.Environ(), signalChildEnv+"=1", "GOMAXPROCS="+strconv.Itoa(signalPoolThreads+1))
	c := &signalChild{cmd: cmd, lines: make(chan string, 16), stderr: new(bytes.Buffer)}
	cmd.Stderr = c.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.stdin = stdin
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	go func() {
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			c.lines <- s.Text()
		}
		close(c.lines)
	}()
	line, ok := c.wait(t, "READY", "REPORT")
	if !ok {
		t.Fatalf("child: no READY line; stderr:\n%s", faultTail(c.stderr.String()))
	}
	kind, js, _ := strings.Cut(line, " ")
	if err := json.Unmarshal([]byte(js), &c.ready); err != nil {
		t.Fatalf("child line %q: %v", line, err)
	}
	if kind != "READY" {
		t.Fatalf("child did not hash on the library (%+v)", c.ready)
	}
	if c.ready.Pool != signalPoolThreads || c.ready.Mismatches != 0 {
		t.Fatalf("child: pool of %d threads, %d wrong hashes; want a pool of %d and none", c.ready.Pool, c.ready.Mismatches, signalPoolThreads)
	}
	// A pool thread names itself when it starts running, which may be after
	// the pool was built and the first hash done (seen under the race
	// detector): wait until all of them are there.
	deadline := time.Now().Add(30 * time.Second)
	for {
		n := len(libraryThreads(c.threads(t)))
		if n == signalPoolThreads {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s, %d threads named %s*, want the pool's %d", n, signalThreadPrefix, signalPoolThreads)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// wait returns the child's next line starting with one of the prefixes;
// false when its stdout closes or after a minute.
func (c *signalChild) wait(t *testing.T, prefixes ...string) (string, bool) {
	t.Helper()
	timeout := time.After(time.Minute)
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				return "", false
			}
			for _, p := range prefixes {
				if strings.HasPrefix(line, p+" ") {
					return line, true
				}
			}
		case <-timeout:
			return "", false
		}
	}
}

// signalThread is one thread of the child.
type signalThread struct {
	tid     int
	name    string
	blocked uint64 // SigBlk, signals 1 to 64
}

func (th signalThread) blocks(sig syscall.Signal) bool { return th.blocked&(1<<(sig-1)) != 0 }

// threads lists the child's threads from /proc/PID/task.
func (c *signalChild) threads(t *testing.T) []signalThread {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/task", c.cmd.Process.Pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("listing the child's threads: %v", err)
	}
	var ths []signalThread
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		th := signalThread{tid: tid}
		comm, err1 := os.ReadFile(filepath.Join(dir, e.Name(), "comm"))
		status, err2 := os.ReadFile(filepath.Join(dir, e.Name(), "status"))
		if err1 != nil || err2 != nil {
			continue // the thread ended meanwhile
		}
		th.name = strings.TrimSpace(string(comm))
		for line := range strings.Lines(string(status)) {
			if v, ok := strings.CutPrefix(line, "SigBlk:"); ok {
				if th.blocked, err = strconv.ParseUint(strings.TrimSpace(v), 16, 64); err != nil {
					t.Fatalf("thread %d: SigBlk %q: %v", tid, v, err)
				}
			}
		}
		ths = append(ths, th)
	}
	return ths
}

// libraryThreads are the threads the library named as its pool's.
func libraryThreads(ths []signalThread) []signalThread {
	var lib []signalThread
	for _, th := range ths {
		if strings.HasPrefix(th.name, signalThreadPrefix) {
			lib = append(lib, th)
		}
	}
	return lib
}

// exit waits for the child to end and describes how it did.
func (c *signalChild) exit() (code int, how string) {
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		_ = c.cmd.Process.Kill()
		<-done
		return -1, "still running after a minute (killed)"
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, "exit status 0"
	case errors.As(err, &exit):
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), fmt.Sprintf("killed by %v (%d)", ws.Signal(), 128+int(ws.Signal()))
		}
		return exit.ExitCode(), exit.Error()
	}
	return -1, err.Error()
}

// TestSignalsLibraryThreads sends each asynchronous signal that Go ignores
// to every thread of a child process whose pool exists (tgkill), while it
// hashes: the child must survive every one and hash right. The library's
// threads must block each of them (SigBlk), and be the pool's size.
func TestSignalsLibraryThreads(t *testing.T) {
	if !nativeActive(t) {
		t.Skip("no native library: the Go path makes no threads of its own")
	}
	c := startSignalChild(t)
	pid := c.cmd.Process.Pid
	ths := c.threads(t)
	sent := 0
	for round := range 5 {
		for _, sig := range signalsIgnored {
			for _, th := range ths {
				if err := unix.Tgkill(pid, th.tid, sig); err == nil {
					sent++
				} else if !errors.Is(err, unix.ESRCH) {
					t.Fatalf("tgkill(%d, %d, %v): %v", pid, th.tid, sig, err)
				}
			}
		}
		if round == 0 {
			time.Sleep(20 * time.Millisecond) // let the hashing go on between rounds
		}
	}
	// The threads as they are after the signals (the pool's are still
	// there: nothing made them exit).
	lib := libraryThreads(c.threads(t))
	_ = c.stdin.Close()
	line, ok := c.wait(t, "REPORT")
	code, how := c.exit()
	if !ok || code != 0 {
		t.Fatalf("child with a pool of %d threads, %d signals sent to its %d threads: no report, %s\nstderr:\n%s",
			c.ready.Pool, sent, len(ths), how, faultTail(c.stderr.String()))
	}
	var r signalReport
	if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "REPORT ")), &r); err != nil {
		t.Fatal(err)
	}
	if r.Mismatches != 0 || r.Hashes < 2 {
		t.Errorf("child: %d hashes, %d wrong; want at least 2, all right", r.Hashes, r.Mismatches)
	}
	if len(lib) != signalPoolThreads {
		t.Errorf("%d threads named %s*, want the pool's %d", len(lib), signalThreadPrefix, signalPoolThreads)
	}
	for _, th := range lib {
		for _, sig := range append([]syscall.Signal{unix.SIGQUIT, unix.SIGTERM, unix.SIGINT, unix.SIGHUP}, signalsIgnored...) {
			if !th.blocks(sig) {
				t.Errorf("library thread %d (%s) does not block %v (SigBlk %016x)", th.tid, th.name, sig, th.blocked)
			}
		}
		for _, sig := range []syscall.Signal{unix.SIGSEGV, unix.SIGBUS, unix.SIGFPE, unix.SIGILL} {
			if th.blocks(sig) {
				t.Errorf("library thread %d (%s) blocks %v, a fault of its own (SigBlk %016x)", th.tid, th.name, sig, th.blocked)
			}
		}
	}
	t.Logf("%d signals (%d kinds x %d threads x 5 rounds) to a child with a pool of %d: it survived, %d hashes, all right; library threads' SigBlk %016x",
		sent, len(signalsIgnored), len(ths), c.ready.Pool, r.Hashes, signalMasks(lib))
}

func signalMasks(ths []signalThread) uint64 {
	var m uint64
	for _, th := range ths {
		m |= th.blocked
	}
	return m
}

// TestSignalsQuitDump: SIGQUIT still ends a process whose pool exists with
// Go's goroutine dump and exit status 2. It is first sent to each library
// thread, where it must stay blocked (handled there, it would end the
// process without the dump), then to the process.
func TestSignalsQuitDump(t *testing.T) {
	if !nativeActive(t) {
		t.Skip("no native library: the Go path makes no threads of its own")
	}
	c := startSignalChild(t)
	pid := c.cmd.Process.Pid
	lib := libraryThreads(c.threads(t))
	if len(lib) != signalPoolThreads {
		t.Fatalf("%d threads named %s*, want the pool's %d", len(lib), signalThreadPrefix, signalPoolThreads)
	}
	for _, th := range lib {
		if err := unix.Tgkill(pid, th.tid, unix.SIGQUIT); err != nil && !errors.Is(err, unix.ESRCH) {
			t.Fatalf("tgkill(%d, %d, SIGQUIT): %v", pid, th.tid, err)
		}
	}
	time.Sleep(50 * time.Millisecond)
	if err := c.cmd.Process.Signal(unix.SIGQUIT); err != nil {
		t.Fatal(err)
	}
	code, how := c.exit()
	stderr := c.stderr.String()
	if code != 2 || !strings.Contains(stderr, "SIGQUIT: quit") || !strings.Contains(stderr, "\ngoroutine ") {
		t.Fatalf("SIGQUIT to %d library threads, then to the process: %s; want exit status 2 with Go's dump (\"SIGQUIT: quit\" and goroutine traces)\nstderr:\n%s",
			len(lib), how, faultTail(stderr))
	}
	t.Logf("SIGQUIT to %d library threads, then to the process: %s, with Go's dump (%d goroutine traces)",
		len(lib), how, strings.Count(stderr, "\ngoroutine "))
}
