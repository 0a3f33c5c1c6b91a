// The discovery of the native library: where it comes from, how it is
// checked, and how it is bound. Platform files say how to open one:
// loader_linux.go, loader_darwin.go and loader_windows.go, loader_unix.go
// for what Linux and macOS share (BLAKE3_LIBRARY's file), cache_unix.go and
// cache_windows.go for the cache folder; native_none.go stands in for them
// in builds without a library.

package blake3

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/purego-blake3/blake3/internal/ffi"
	"github.com/purego-blake3/blake3/libs"
)

// loadConfig says where to look for the library; init fills it from the
// environment, and tests fill it by hand.
type loadConfig struct {
	library  string // BLAKE3_LIBRARY: an explicit file, tried first
	embedded []byte // the library embedded for this GOOS/GOARCH, if any
	cacheDir string // where an embedded library may be written ("" = default)
	noMemfd  bool   // skip loading from memory (tests simulate its absence)
	noCache  bool   // never load from the cache folder (privileged processes)
}

// loaded is a library that passed every check.
type loaded struct {
	sym    *ffi.Symbols
	source string // the path, or a description of the embedded copy
}

func init() {
	mode, cfg := os.Getenv("BLAKE3_BACKEND"), loadConfig{
		library:  os.Getenv("BLAKE3_LIBRARY"),
		embedded: libs.Library,
	}
	if privileged() {
		// setuid and the like: the environment is the invoking user's, so it
		// chooses nothing, and no file the user could swap is loaded.
		mode, cfg = "", loadConfig{embedded: libs.Library, noCache: true}
	}
	loadBackend = func() backendState { return selectBackend(mode, cfg) }
	if mode == "native" {
		native() // a deployment that requires native learns at start, by a panic
	}
}

// selectBackend applies BLAKE3_BACKEND to the outcome of loading.
func selectBackend(mode string, cfg loadConfig) backendState {
	switch mode {
	case "go":
		return goBackend("BLAKE3_BACKEND=go")
	case "", "auto", "native":
	default:
		return goBackend(fmt.Sprintf("BLAKE3_BACKEND=%q is not one of auto, native, go", mode))
	}
	l, err := load(cfg)
	if err != nil {
		if mode == "native" {
			panic("blake3: BLAKE3_BACKEND=native, but the native library cannot be used: " + err.Error())
		}
		return goBackend(err.Error())
	}
	return nativeBackend(l)
}

// load finds, opens, checks and binds a library, in the order the package
// documents: BLAKE3_LIBRARY, then the embedded copy.
func load(cfg loadConfig) (*loaded, error) {
	if !ffi.Native {
		return nil, errors.New(ffi.Unavailable)
	}
	if cfg.library != "" {
		if !filepath.IsAbs(cfg.library) {
			return nil, fmt.Errorf("BLAKE3_LIBRARY=%q is not an absolute path", cfg.library)
		}
		return openUserLibrary(cfg.library)
	}
	if len(cfg.embedded) == 0 {
		return nil, fmt.Errorf("no native library is embedded for %s/%s in this build", runtime.GOOS, runtime.GOARCH)
	}
	return openEmbedded(cfg)
}

// openByPath dlopens a file the caller has checked, binds it and runs the
// checks of the library itself; on any failure the library is closed again.
func openByPath(path, source string) (*loaded, error) {
	h, err := openLibrary(path)
	if err != nil {
		return nil, fmt.Errorf("native library %s: %w", source, err)
	}
	sym, err := ffi.Bind(func(name string) (uintptr, error) { return lookupSymbol(h, name) })
	if err == nil {
		err = check(sym)
	}
	if err != nil {
		closeLibrary(h)
		return nil, fmt.Errorf("native library %s: %w", source, err)
	}
	return &loaded{sym: sym, source: source}, nil
}

// check runs the known-answer self-test of a bound library.
func check(s *ffi.Symbols) error {
	if err := selfTest(s); err != nil {
		return fmt.Errorf("self-test failed: %w", err)
	}
	return nil
}

// openEmbedded loads the embedded library: from memory where the platform
// allows it, otherwise from a content-addressed file in the cache folder.
func openEmbedded(cfg loadConfig) (*loaded, error) {
	var memErr error
	if !cfg.noMemfd {
		l, err := openFromMemory(cfg.embedded)
		if err == nil {
			return l, nil
		}
		memErr = err
	}
	if cfg.noCache {
		return nil, fmt.Errorf("%w (the cache folder is not used by a privileged process)", memErr)
	}
	l, err := openCached(cfg.cacheDir, cfg.embedded)
	if err != nil && memErr != nil {
		return nil, errors.Join(memErr, err)
	}
	return l, err
}

// nativeBackend describes a loaded library.
func nativeBackend(l *loaded) backendState {
	return backendState{
		sym: l.sym,
		info: BackendInfo{
			Name:    "native",
			Library: l.source,
			Version: l.sym.CrateVersion(),
			SIMD:    l.sym.SIMD(),
		},
	}
}
