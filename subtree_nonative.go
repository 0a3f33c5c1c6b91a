//go:build blake3_nonative || !((linux && !android && (amd64 || arm64)) || (darwin && !ios && (amd64 || arm64)) || (windows && amd64))

// Builds without a native library: the subtree API's native glue is never
// called (lib is nil, so every subtree runs on the Go path).

package blake3

func nativeSetInputOffset([]uint64, uint64) int32                       { return errNoLibrary }
func nativeUpdate1([]uint64, []byte) int32                              { return errNoLibrary }
func nativeFinalizeNonRoot([]uint64, *[32]byte) int32                   { return errNoLibrary }
func nativeMergeNonRoot(_, _ *[32]byte, _ uint32, _, _ *[32]byte) int32 { return errNoLibrary }
func nativeMergeRoot(_, _ *[32]byte, _ uint32, _ *[32]byte, _ uint64, _ []byte) int32 {
	return errNoLibrary
}
func nativeMaxSubtreeLen(uint64, *uint64) int32  { return errNoLibrary }
func nativeLeftSubtreeLen(uint64, *uint64) int32 { return errNoLibrary }
