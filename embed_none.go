//go:build !blake3_nonative && (blake3_noembed || (darwin && !ios && (amd64 || arm64)))

package blake3

// embeddedLibrary is empty: the blake3_noembed tag left the library out, or
// none has been built for this platform yet (darwin: see rust/README.md).
// BLAKE3_LIBRARY can still name one.
var embeddedLibrary []byte
