//go:build !blake3_nonative && ((linux && !android && (amd64 || arm64)) || (darwin && !ios && (amd64 || arm64)) || (windows && amd64))

// Glue between the subtree API and the FFI boundary.

package blake3

func nativeSetInputOffset(st []uint64, offset uint64) int32 {
	return ffiSetInputOffset(lib, st, offset)
}

// nativeUpdate1 adds p on the calling thread, never on rayon's pool: for
// callers that run one subtree per core themselves.
func nativeUpdate1(st []uint64, p []byte) int32 { return ffiUpdate(lib, st, p) }

func nativeFinalizeNonRoot(st []uint64, cv *[32]byte) int32 {
	return ffiFinalizeNonRoot(lib, st, cv)
}

func nativeMergeNonRoot(left, right *[32]byte, mode uint32, key, cv *[32]byte) int32 {
	return ffiMergeNonRoot(lib, left, right, mode, key, cv)
}

func nativeMergeRoot(left, right *[32]byte, mode uint32, key *[32]byte, seek uint64, out []byte) int32 {
	return ffiMergeRoot(lib, left, right, mode, key, seek, out)
}

// For tests: the library's answers, to compare with the Go ones.
func nativeMaxSubtreeLen(offset uint64, n *uint64) int32 { return ffiMaxSubtreeLen(lib, offset, n) }
func nativeLeftSubtreeLen(total uint64, n *uint64) int32 {
	return ffiLeftSubtreeLen(lib, total, n)
}
