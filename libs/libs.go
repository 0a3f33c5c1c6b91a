// Package libs holds the native libraries built by rust/build.sh from the
// sources pinned in rust/deps.list, one per platform in a folder of its
// own, and embeds the one for the platform being built.
//
// It is the package github.com/purego-blake3/blake3 loads them from; it has
// nothing else to offer.
package libs

// Library is the library for this GOOS/GOARCH: empty where none is built
// (darwin for now: rust/README.md says how), or where the blake3_noembed
// tag leaves it out (BLAKE3_LIBRARY can name one), or the blake3_nonative
// tag leaves out the native path.
var Library []byte
