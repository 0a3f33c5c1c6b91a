package ffi

import "testing"

func TestZeeboOK(t *testing.T) {
	if !ZeeboOK() {
		t.Fatal("the layout of zeebo's hasher is not the one zeebo.go expects")
	}
}
