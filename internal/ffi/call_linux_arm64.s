//go:build !blake3_nonative && !android

#include "textflag.h"
#include "go_asm.h"

GLOBL ·trampolineABI0(SB), NOPTR|RODATA, $8
DATA ·trampolineABI0(SB)/8, $trampoline<>(SB)

// ARG(i, reg) loads argument i of the cArgs at R9 into reg: its pointer
// plus its integer (one of them is zero). R11 is scratch.
#define ARG(i, reg) MOVD (cArgs_a+(i)*arg__size+arg_p)(R9), reg; MOVD (cArgs_a+(i)*arg__size+arg_v)(R9), R11; ADD R11, reg

// trampoline(args *cArgs), called by the runtime's asmcgocall with the C
// calling convention (AAPCS64): R0 holds args. The assembler's prologue
// saves LR, and FP just below the frame, which the SUB below makes 8(RSP):
// so args is kept at 0(RSP). SP stays 16-byte aligned; only caller-saved
// registers are used.
TEXT trampoline<>(SB), NOSPLIT, $0
	SUB  $16, RSP
	MOVD R0, 0(RSP)            // keep args across the call
	MOVD R0, R9
	ARG(0, R0)
	ARG(1, R1)
	ARG(2, R2)
	ARG(3, R3)
	ARG(4, R4)
	ARG(5, R5)
	ARG(6, R6)
	MOVD cArgs_fn(R9), R10
	BL   (R10)
	MOVD 0(RSP), R2
	ADD  $16, RSP
	MOVD R0, cArgs_r(R2)
	RET
