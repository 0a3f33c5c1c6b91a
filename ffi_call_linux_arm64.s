//go:build !blake3_nonative && !android

#include "textflag.h"
#include "go_asm.h"

GLOBL ·trampolineABI0(SB), NOPTR|RODATA, $8
DATA ·trampolineABI0(SB)/8, $trampoline<>(SB)

// trampoline(args *cArgs), called by the runtime's asmcgocall with the C
// calling convention (AAPCS64): R0 holds args. The assembler's prologue
// saves LR, and FP just below the frame, which the SUB below makes 8(RSP):
// so args is kept at 0(RSP). SP stays 16-byte aligned; only caller-saved
// registers are used.
TEXT trampoline<>(SB), NOSPLIT, $0
	SUB  $16, RSP
	MOVD R0, 0(RSP)            // keep args across the call
	MOVD R0, R9
	MOVD cArgs_a1(R9), R0
	MOVD cArgs_a2(R9), R1
	MOVD cArgs_a3(R9), R2
	MOVD cArgs_a4(R9), R3
	MOVD cArgs_a5(R9), R4
	MOVD cArgs_a6(R9), R5
	MOVD cArgs_a7(R9), R6
	MOVD cArgs_fn(R9), R10
	BL   (R10)
	MOVD 0(RSP), R2
	ADD  $16, RSP
	MOVD R0, cArgs_r(R2)
	RET
