//go:build blake3_nonative || !((linux && !android && (amd64 || arm64)) || (darwin && !ios) || (windows && amd64))

// Builds without a native library (internal/ffi/call_none.go says which and
// why): the package is the Go path, and nothing here imports purego, so
// such a binary built with CGO_ENABLED=0 is fully static.

package blake3

import (
	"fmt"
	"runtime"
)

func init() {
	reason := fmt.Sprintf("no native library for %s/%s", runtime.GOOS, runtime.GOARCH)
	switch runtime.GOOS + "/" + runtime.GOARCH {
	case "linux/amd64", "linux/arm64", "windows/amd64", "darwin/amd64", "darwin/arm64":
		reason = "built with the blake3_nonative tag"
	}
	loadBackend = func() backendState { return goBackend(reason) }
}
