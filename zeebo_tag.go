//go:build !purego

package blake3

// zeeboPurego reports whether the build has the purego tag, with which
// zeebo's compression is portable Go (its internal/consts); zeeboAsm reads
// it.
const zeeboPurego = false
