package ffi

import (
	"fmt"
	"unsafe"
)

// Bind resolves every symbol with lookup before any is called, so that a
// library missing one is refused whole, then checks what the library says
// of itself: the ABI version and the Tree layout.
func Bind(lookup func(name string) (uintptr, error)) (*Symbols, error) {
	s := new(Symbols)
	var missing []string
	for _, e := range s.table() {
		addr, err := lookup(e.name)
		if err != nil || addr == 0 {
			missing = append(missing, e.name)
			continue
		}
		*e.addr = addr
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing symbols %v", missing)
	}
	if v := s.ABI(); v != ABIVersion {
		return nil, fmt.Errorf("ABI version %d, want %d", v, ABIVersion)
	}
	size := call0(s.treeSize)
	align := call0(s.treeAlign)
	if size != unsafe.Sizeof(Tree{}) || align == 0 || align > unsafe.Alignof(Tree{}) || align&(align-1) != 0 {
		return nil, fmt.Errorf("tree layout of %d bytes aligned to %d, want %d aligned to at most %d",
			size, align, unsafe.Sizeof(Tree{}), unsafe.Alignof(Tree{}))
	}
	return s, nil
}
