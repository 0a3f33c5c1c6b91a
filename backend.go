package blake3

import (
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/cpu"

	"github.com/purego-blake3/blake3/internal/ffi"
)

// BackendInfo describes the implementation this process hashes with.
type BackendInfo struct {
	// Name is "native" (the Rust blake3 crate, loaded at first use) or "go"
	// (github.com/zeebo/blake3).
	Name string
	// Library is where the native library came from: a path, or
	// "embedded (memfd)" / "embedded (cached at PATH)". Empty on the Go path.
	Library string
	// Version is the version of the implementation: the blake3 crate's
	// version on the native path, the zeebo module's on the Go path.
	Version string
	// SIMD is the instruction set level detected at run time, as the native
	// library reports it ("avx512", "avx2", "sse41", "sse2", "neon",
	// "portable"); on the Go path, the level zeebo/blake3 uses
	// (lukechampine.com/blake3, which the Go path uses where it is
	// measured faster, detects its own, AVX-512 included).
	SIMD string
	// Reason says, on the Go path, why the native library is not used. It is
	// empty on the native path.
	Reason string
}

// backendState is the outcome of loading: the bound library (nil on the Go
// path) and its description.
type backendState struct {
	sym  *ffi.Symbols
	info BackendInfo
}

var (
	active backendState
	// lib is the bound library, nil on the Go path. It is set once, by
	// native, and read-only afterwards (tests switch it with setBackend).
	lib *ffi.Symbols
)

// setBackend makes b the process's backend, with the size dispatch that
// goes with it. It runs once, through native (tests call it again to switch
// backends).
func setBackend(b backendState) {
	active = b
	lib = b.sym
	outGo = outputInGo(lib != nil, runtime.GOOS, runtime.GOARCH, cpu.X86.HasAVX2, b.info.SIMD)
	startDispatch(lib)
}

// loadBackend decides the backend: set at init by loader.go from the
// environment, run once, at the first use of the package.
var (
	loadBackend func() backendState
	loadOnce    sync.Once
)

// native returns the bound library, or nil on the Go path, loading it at the
// first call. The library is loaded on first use rather than during package
// initialization, so that a program pays for dlopen and the self-test only
// if it hashes, and process start stays fast (BenchmarkInit,
// TestLoaderInitTime); BLAKE3_BACKEND=native loads (or panics) at init.
func native() *ffi.Symbols {
	loadOnce.Do(func() { setBackend(loadBackend()) })
	return lib
}

// Backend reports which implementation this process uses, and why. It loads
// the native library if that has not happened yet.
func Backend() BackendInfo {
	native()
	return active.info
}

// goBackend is the Go path, for the given reason.
func goBackend(reason string) backendState {
	return backendState{info: BackendInfo{
		Name:    "go",
		Version: zeeboVersion,
		SIMD:    goSIMD(),
		Reason:  reason,
	}}
}

// maxThreads is the SetMaxThreads cap; 0 means GOMAXPROCS.
var maxThreads atomic.Int64

// SetMaxThreads caps the number of threads a single large hash, or a
// single large Digest.ReadAt, may use. n <= 0 means GOMAXPROCS (the
// default); 1 turns multi-core hashing and output off. The cap never
// exceeds GOMAXPROCS at the time of the call that hashes or reads.
//
// On the native path the threads of a hash are those of the library's own
// rayon pool, sized to the cap in force at each multi-core hash (rebuilt
// when it changes). Where threads cannot be started, large hashes run on
// the calling goroutine's thread instead. ReadAt's are goroutines, on
// either path.
func SetMaxThreads(n int) {
	if n < 0 {
		n = 0
	}
	maxThreads.Store(int64(n))
}

// threads is the number of threads a large hash may use now.
func threads() int {
	n := runtime.GOMAXPROCS(0)
	if m := int(maxThreads.Load()); m > 0 && m < n {
		n = m
	}
	return n
}
