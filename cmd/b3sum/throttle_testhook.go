//go:build b3sum_testhook

package main

// Built only with -tags b3sum_testhook, as the terminal tests build the
// command: B3SUM_TEST_THROTTLE=N slows metered hashing to about N bytes per
// second per reading goroutine, so that a progress line stays on screen.

import (
	"os"
	"strconv"
	"time"
)

func init() {
	rate, err := strconv.ParseFloat(os.Getenv("B3SUM_TEST_THROTTLE"), 64)
	if err != nil || rate <= 0 {
		return
	}
	testThrottle = func(n int) {
		time.Sleep(time.Duration(float64(n) / rate * float64(time.Second)))
	}
}
