//go:build !purego

#include "textflag.h"

// AVX2 loops of the memory-bound float32 kernels: batch normalisation's
// per-channel affine map and the Relu/Relu6 clamps. They compute exactly
// what the Go loops do (separate subtract, multiply and add, no FMA; the
// clamps keep NaN and -0 as the comparisons x < 0 and x > 6 do: MAXPS and
// MINPS return their second operand when the first comparison fails).

// func bnRowsF32(y, x, m, f, o *float32, rows, c, relu int)
// y[r*c+j] = (x[r*c+j]-m[j])*f[j] + o[j], then max(0, ·) when relu != 0.
TEXT ·bnRowsF32(SB), NOSPLIT, $0-64
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ rows+40(FP), R8
	MOVQ c+48(FP), R9
	MOVQ relu+56(FP), R10
	VXORPS Y15, Y15, Y15

brow:
	TESTQ R8, R8
	JE bdone
	MOVQ m+16(FP), AX
	MOVQ f+24(FP), BX
	MOVQ o+32(FP), DX
	MOVQ R9, CX

bloop8:
	CMPQ CX, $8
	JL btail
	VMOVUPS (SI), Y0
	VSUBPS (AX), Y0, Y0
	VMULPS (BX), Y0, Y0
	VADDPS (DX), Y0, Y0
	TESTQ R10, R10
	JE bstore8
	VMAXPS Y0, Y15, Y0

bstore8:
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, AX
	ADDQ $32, BX
	ADDQ $32, DX
	SUBQ $8, CX
	JMP bloop8

btail:
	TESTQ CX, CX
	JE bnext
	VMOVSS (SI), X0
	VSUBSS (AX), X0, X0
	VMULSS (BX), X0, X0
	VADDSS (DX), X0, X0
	TESTQ R10, R10
	JE bstore1
	VMAXSS X0, X15, X0

bstore1:
	VMOVSS X0, (DI)
	ADDQ $4, SI
	ADDQ $4, DI
	ADDQ $4, AX
	ADDQ $4, BX
	ADDQ $4, DX
	DECQ CX
	JMP btail

bnext:
	DECQ R8
	JMP brow

bdone:
	VZEROUPPER
	RET

// func clampF32(dst, src *float32, n int, six int)
// dst[i] = max(0, src[i]), then min(6, ·) when six != 0.
TEXT ·clampF32(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ six+24(FP), R10
	VXORPS Y15, Y15, Y15
	MOVL $0x40c00000, AX
	MOVL AX, X14
	VBROADCASTSS X14, Y14

cloop32:
	CMPQ CX, $32
	JL cloop8
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS 64(SI), Y2
	VMOVUPS 96(SI), Y3
	VMAXPS Y0, Y15, Y0
	VMAXPS Y1, Y15, Y1
	VMAXPS Y2, Y15, Y2
	VMAXPS Y3, Y15, Y3
	TESTQ R10, R10
	JE cstore32
	VMINPS Y0, Y14, Y0
	VMINPS Y1, Y14, Y1
	VMINPS Y2, Y14, Y2
	VMINPS Y3, Y14, Y3

cstore32:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP cloop32

cloop8:
	CMPQ CX, $8
	JL ctail
	VMOVUPS (SI), Y0
	VMAXPS Y0, Y15, Y0
	TESTQ R10, R10
	JE cstore8
	VMINPS Y0, Y14, Y0

cstore8:
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP cloop8

ctail:
	TESTQ CX, CX
	JE cdone
	VMOVSS (SI), X0
	VMAXSS X0, X15, X0
	TESTQ R10, R10
	JE cstore1
	VMINSS X0, X14, X0

cstore1:
	VMOVSS X0, (DI)
	ADDQ $4, SI
	ADDQ $4, DI
	DECQ CX
	JMP ctail

cdone:
	VZEROUPPER
	RET
