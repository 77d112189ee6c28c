//go:build !purego

#include "textflag.h"

// Pooling's per-tap accumulations over a run of channels, eight float32
// lanes at a time: the same operation per element as pool3's Go loops.

// func addToF32(dst, src *float32, n int)
// dst[i] += src[i] for i < n, n a multiple of 8.
TEXT ·addToF32(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $3, CX

aloop:
	TESTQ CX, CX
	JE adone
	VMOVUPS (SI), Y0
	VADDPS (DI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JMP aloop

adone:
	VZEROUPPER
	RET

// func maxToF32(dst, src *float32, n int)
// dst[i] = src[i] if src[i] > dst[i] (else dst[i], NaN in either keeping
// dst[i]) for i < n, n a multiple of 8: VMAXPS returns its second source
// unless its first is greater.
TEXT ·maxToF32(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $3, CX

mloop:
	TESTQ CX, CX
	JE mdone
	VMOVUPS (SI), Y0
	VMAXPS (DI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JMP mloop

mdone:
	VZEROUPPER
	RET
