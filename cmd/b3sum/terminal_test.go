//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// TestTerminalProgress runs the command as a person sees it: in a tmux pane
// 40 and then 120 columns wide, on a file with a long name, hashing slowly
// (the b3sum_testhook build throttles it), and reads the screen back:
//
//   - one progress line, no wrapped or stale ones after several redraws;
//   - the line fits the pane (with the margin for an echoed ^C), at 120
//     columns it uses more than the 79 it was once fixed at, and it follows
//     the pane when it narrows from 120 to 50;
//   - after Ctrl-C no progress text is left, and the process died of SIGINT,
//     as the Rust b3sum does (a shell reports 130); after a SIGTERM (at 80
//     columns) likewise, dead of SIGTERM.
//
// Without tmux it skips, or fails under BLAKE3_STRICT=1.
func TestTerminalProgress(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		strictSkip(t, "no tmux on PATH (apt-get install tmux): the progress line is not checked on a terminal")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "b3sum-testhook")
	if out, err := exec.Command("go", "build", "-tags", "b3sum_testhook", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -tags b3sum_testhook: %v\n%s", err, out)
	}
	const file = "a-file-with-a-rather-long-name-that-does-not-fit-in-narrow-terminals.bin"
	if err := os.WriteFile(filepath.Join(dir, file), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(dir, file), 1<<30); err != nil { // sparse
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "tmux.conf")
	// A dead pane stays, so that its screen and its end can be read.
	if err := os.WriteFile(conf, []byte("set -g remain-on-exit on\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// Each case in a pane of its own, ended by Ctrl-C or by a SIGTERM; the
	// resize case is not ended that way: tmux reflows a line that no longer
	// fits into the pane's history, where the check after the end would
	// find it.
	for _, c := range []struct {
		cols, resizeTo int
		term           bool // end with SIGTERM rather than Ctrl-C
	}{{40, 0, false}, {120, 0, false}, {120, 50, false}, {80, 0, true}} {
		cols := c.cols
		name := strconv.Itoa(cols) + "cols"
		if c.resizeTo != 0 {
			name += "-resized-to-" + strconv.Itoa(c.resizeTo)
		}
		if c.term {
			name += "-SIGTERM"
		}
		t.Run(name, func(t *testing.T) {
			// A server of its own (-L), ended with the test.
			sock := "b3sum-test-" + strconv.Itoa(os.Getpid()) + "-" + name
			tm := func(args ...string) string {
				t.Helper()
				out, err := exec.Command(tmux, append([]string{"-u", "-L", sock, "-f", conf}, args...)...).CombinedOutput()
				if err != nil {
					t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
				}
				return string(out)
			}
			t.Cleanup(func() { _ = exec.Command(tmux, "-L", sock, "kill-server").Run() })
			tm("new-session", "-d", "-s", "t", "-x", strconv.Itoa(cols), "-y", "10", "-c", dir,
				"-e", "B3SUM_TEST_THROTTLE=4000000", bin, file)
			// tmux 3.3a closes a pane's terminal as soon as it reaps the
			// pane's process, and drops what the process wrote that it had
			// not read yet (the erase, under load), unless the pane's output
			// is piped: then it reads the terminal dry first
			// (window_pane_destroy_ready). Later versions always do.
			tm("pipe-pane", "-t", "t", "cat >/dev/null")
			// The visible pane, and the last history row if hist: the message
			// of a dead pane scrolls the screen up by one row. (The history
			// holds more after a resize: tmux reflows what was on screen.)
			screen := func(hist bool) []string {
				args := []string{"capture-pane", "-p", "-t", "t"}
				if hist {
					args = append(args, "-S", "-1")
				}
				return strings.Split(strings.TrimRight(tm(args...), "\n"), "\n")
			}

			deadline := time.Now().Add(20 * time.Second)
			for !strings.Contains(strings.Join(screen(false), "\n"), "ETA") {
				if time.Now().After(deadline) {
					t.Fatalf("no progress line after 20 s; screen:\n%s", strings.Join(screen(false), "\n"))
				}
				time.Sleep(100 * time.Millisecond)
			}
			checkLine := func(cols int) {
				t.Helper()
				time.Sleep(4 * progressInterval) // several redraws
				rows := screen(false)
				t.Logf("%d columns:\n%s", cols, strings.Join(rows, "\n"))
				var shown []string
				for _, r := range rows {
					if strings.TrimSpace(r) != "" {
						shown = append(shown, strings.TrimRight(r, " "))
					}
				}
				if len(shown) != 1 {
					t.Fatalf("%d non-blank rows, want the progress line alone (wrapped or stale lines):\n%s", len(shown), strings.Join(rows, "\n"))
				}
				line := shown[0]
				n := utf8.RuneCountInString(line)
				if n > cols-progressMargin || !strings.Contains(line, "ETA") || !strings.Contains(line, "minals.bin") {
					t.Errorf("progress line of %d characters at %d columns, want at most %d, with the name's end and the ETA: %q", n, cols, cols-progressMargin, line)
				}
				if cols == 120 && (n <= 79 || !strings.HasPrefix(line, "b3sum: ")) {
					t.Errorf("at 120 columns the line has %d characters, want the full form wider than 79: %q", n, line)
				}
			}
			checkLine(cols)
			if c.resizeTo != 0 {
				// The line follows a resize: the next redraws fit the new width.
				tm("resize-window", "-t", "t", "-x", strconv.Itoa(c.resizeTo))
				checkLine(c.resizeTo)
				return
			}

			pid := strings.TrimSpace(tm("display-message", "-p", "-t", "t", "#{pane_pid}"))
			how, want := "Ctrl-C", "signal 2" // SIGINT
			if c.term {
				how, want = "SIGTERM", "signal 15"
				n, err := strconv.Atoi(pid)
				if err != nil {
					t.Fatalf("pane_pid %q: %v", pid, err)
				}
				if err := syscall.Kill(n, syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			} else {
				tm("send-keys", "-t", "t", "C-c")
			}
			deadline = time.Now().Add(10 * time.Second)
			var end string
			for end = paneEnd(tm, pid); end == ""; end = paneEnd(tm, pid) {
				if time.Now().After(deadline) {
					t.Fatalf("still running 10 s after %s", how)
				}
				time.Sleep(100 * time.Millisecond)
			}
			// The end read from /proc can come before tmux has read the
			// erase: the screen is looked at again until it is blank, for
			// up to 5 s.
			var rows, left []string
			for deadline = time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
				rows, left = screen(true), nil
				for _, r := range rows {
					if strings.TrimSpace(r) != "" && !strings.HasPrefix(r, "Pane is dead") {
						left = append(left, r)
					}
				}
				if len(left) == 0 || time.Now().After(deadline) {
					break
				}
			}
			t.Logf("after %s (%s):\n%s", how, end, strings.Join(rows, "\n"))
			for _, r := range left {
				t.Errorf("after %s, left on screen: %q", how, r)
			}
			if end != want {
				t.Errorf("after %s: %s, want death by %s, as the Rust b3sum", how, end, want)
			}
		})
	}
}

// paneEnd is how the pane's process ended: "signal N" or "status N", or ""
// while it runs. tmux says so once it has reaped the process; it sometimes
// misses the exit (the process stays a zombie, tmux 3.3a), and then, on
// Linux, /proc/PID/stat holds the wait status.
func paneEnd(tm func(args ...string) string, pid string) string {
	dead, rest, _ := strings.Cut(strings.TrimSpace(tm("display-message", "-p", "-t", "t", "#{pane_dead}:#{pane_dead_signal}:#{pane_dead_status}")), ":")
	sig, status, _ := strings.Cut(rest, ":")
	switch {
	case dead == "1" && sig != "":
		return "signal " + sig
	case dead == "1" && status != "":
		return "status " + status
	}
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return ""
	}
	_, after, _ := strings.Cut(string(stat), ") ") // after the command name
	f := strings.Fields(after)
	if len(f) < 50 || f[0] != "Z" {
		return ""
	}
	ws, err := strconv.Atoi(f[49]) // field 52, exit_code: the wait status
	if err != nil {
		return ""
	}
	if ws&0x7f != 0 {
		return "signal " + strconv.Itoa(ws&0x7f)
	}
	return "status " + strconv.Itoa(ws>>8)
}
