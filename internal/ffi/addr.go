package ffi

import "unsafe"

// Addr is the address of *p, as a number: for telling one variable from
// another (a Digest from its copies), never turned back into a pointer. A
// variable on a goroutine's stack moves when the stack grows, and then has
// another address; its caller must take a changed address for another
// variable's, which costs it only what it would have shared.
func Addr[T any](p *T) uintptr { return uintptr(unsafe.Pointer(p)) }

// Bytes is the n bytes from p, as a slice: for a caller that holds a copy
// of a short input by its first byte alone (a Digest's source), where a
// slice would take two more words of it. p must be the first byte of a
// slice of at least n bytes, which p keeps alive.
func Bytes(p *byte, n int) []byte { return unsafe.Slice(p, n) }
