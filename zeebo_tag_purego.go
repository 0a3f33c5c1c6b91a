//go:build purego

package blake3

// zeeboPurego: see zeebo_tag.go.
const zeeboPurego = true
