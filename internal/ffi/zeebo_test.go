package ffi

import (
	"testing"

	zeebo "github.com/zeebo/blake3"
)

func TestZeeboOK(t *testing.T) {
	if !ZeeboOK() {
		t.Fatal("the layout of zeebo's hasher is not the one zeebo.go expects")
	}
}

func TestZeeboDigestOK(t *testing.T) {
	if !ZeeboDigestOK() {
		t.Fatal("the layout of zeebo's Digest is not the one zeebo.go expects")
	}
}

// TestZeeboDigestGuard: where the Digest's layout check fails, the mirror
// neither reads a zeebo Digest nor writes output.
func TestZeeboDigestGuard(t *testing.T) {
	saved := zeeboDigestOK
	defer func() { zeeboDigestOK = saved }()
	zeeboDigestOK = func() bool { return false }
	h := zeebo.New()
	if _, ok := ZeeboRoot(h.Digest()); ok {
		t.Error("ZeeboRoot without the layout check: a node")
	}
	p := []byte{7}
	if ZeeboOutput(new([8]uint32), new([16]uint32), 0, 0, 0, 0, p) || p[0] != 7 {
		t.Error("ZeeboOutput without the layout check: output")
	}
}

// TestZeeboGuard: where the layout check fails, the mirror refuses to read
// or write a zeebo hasher (a panic, not writes through the wrong layout),
// whatever its caller checked.
func TestZeeboGuard(t *testing.T) {
	saved := zeeboOK
	defer func() { zeeboOK = saved }()
	zeeboOK = func() bool { return false }
	for name, f := range map[string]func(){
		"ZeeboImport": func() { ZeeboImport(&ZeeboState{Flags: 1 << 4}) },
		"ZeeboExport": func() { ZeeboExport(zeebo.New()) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s without the layout check: no panic", name)
				}
			}()
			f()
		}()
	}
	if _, ok := ZeeboLen(zeebo.New()); ok {
		t.Error("ZeeboLen without the layout check: ok")
	}
}
