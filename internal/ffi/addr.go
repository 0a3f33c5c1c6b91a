package ffi

import "unsafe"

// Addr is the address of *p, as a number: for telling one variable from
// another (a Digest from its copies), never turned back into a pointer. A
// variable on a goroutine's stack moves when the stack grows, and then has
// another address; its caller must take a changed address for another
// variable's, which costs it only what it would have shared.
func Addr[T any](p *T) uintptr { return uintptr(unsafe.Pointer(p)) }
