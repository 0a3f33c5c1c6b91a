//go:build !blake3_nonative && !android

#include "textflag.h"
#include "go_asm.h"

GLOBL ·trampolineABI0(SB), NOPTR|RODATA, $8
DATA ·trampolineABI0(SB)/8, $trampoline<>(SB)

// ARG(i, reg) loads argument i of the cArgs at R11 into reg: its pointer
// plus its integer (one of them is zero).
#define ARG(i, reg) MOVQ (cArgs_a+(i)*arg__size+arg_p)(R11), reg; ADDQ (cArgs_a+(i)*arg__size+arg_v)(R11), reg

// trampoline(args *cArgs), called by the runtime's asmcgocall with the C
// calling convention (System V AMD64): DI holds args and SP is 16-byte
// aligned before the call. The 16-byte frame plus the saved BP keeps it
// aligned for fn; only caller-saved registers are used.
TEXT trampoline<>(SB), NOSPLIT, $16
	MOVQ DI, 8(SP)            // keep args across the call
	MOVQ DI, R11
	ARG(6, R10)
	MOVQ R10, 0(SP)           // seventh integer argument: on the stack
	ARG(0, DI)
	ARG(1, SI)
	ARG(2, DX)
	ARG(3, CX)
	ARG(4, R8)
	ARG(5, R9)
	MOVQ cArgs_fn(R11), R10
	XORL AX, AX               // no vector registers used by a variadic callee
	CALL R10
	MOVQ 8(SP), DI
	MOVQ AX, cArgs_r(DI)
	RET
