//go:build !blake3_nonative

package blake3

const nonativeTag = false
