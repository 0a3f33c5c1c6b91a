//go:build !blake3_nonative && !android

#include "textflag.h"
#include "go_asm.h"

GLOBL ·trampolineABI0(SB), NOPTR|RODATA, $8
DATA ·trampolineABI0(SB)/8, $trampoline<>(SB)

// trampoline(args *cArgs), called by the runtime's asmcgocall with the C
// calling convention (System V AMD64): DI holds args and SP is 16-byte
// aligned before the call. The 16-byte frame plus the saved BP keeps it
// aligned for fn; only caller-saved registers are used.
TEXT trampoline<>(SB), NOSPLIT, $16
	MOVQ DI, 8(SP)            // keep args across the call
	MOVQ DI, R11
	MOVQ cArgs_a7(R11), R10
	MOVQ R10, 0(SP)           // seventh integer argument: on the stack
	MOVQ cArgs_a1(R11), DI
	MOVQ cArgs_a2(R11), SI
	MOVQ cArgs_a3(R11), DX
	MOVQ cArgs_a4(R11), CX
	MOVQ cArgs_a5(R11), R8
	MOVQ cArgs_a6(R11), R9
	MOVQ cArgs_fn(R11), R10
	XORL AX, AX               // no vector registers used by a variadic callee
	CALL R10
	MOVQ 8(SP), DI
	MOVQ AX, cArgs_r(DI)
	RET
