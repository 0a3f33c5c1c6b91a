//go:build !blake3_nonative && ((linux && !android && (amd64 || arm64)) || (darwin && !ios && (amd64 || arm64)) || (windows && amd64))

// Glue between the hashing code and the FFI boundary: which native call a
// hasher in a given mode makes.

package blake3

import "unsafe"

// stInit initializes st in h's mode.
func stInit(st []uint64, h *Hasher) int32 {
	switch h.mode {
	case modeKeyed:
		return ffiInitKeyed(lib, st, &h.key)
	case modeDeriveKey:
		return ffiInitContextKey(lib, st, &h.key)
	}
	return ffiInit(lib, st)
}

// stUpdate adds p, on every allowed core when p is large enough to gain.
func stUpdate(st []uint64, p []byte) int32 {
	if len(p) >= parallelMin {
		if n := threads(); n > 1 && startThreads(lib, n) {
			return ffiUpdateRayon(lib, st, p)
		}
	}
	return ffiUpdate(lib, st, p)
}

func stFinalize(st []uint64, seek uint64, out []byte) int32 {
	return ffiFinalize(lib, st, seek, out)
}

func nativeHash(in, out []byte) int32 { return ffiHash(lib, in, out) }

// nativeDeriveKey passes the context's bytes without a copy: the library
// only reads them during the call.
func nativeDeriveKey(context string, in, out []byte) int32 {
	return ffiDeriveKey(lib, unsafe.Slice(unsafe.StringData(context), len(context)), in, out)
}

func nativeContextKey(context string, out *[32]byte) int32 {
	return ffiContextKey(lib, unsafe.Slice(unsafe.StringData(context), len(context)), out)
}
