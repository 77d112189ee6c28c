//go:build !purego

#include "textflag.h"

// AVX2 loops of the float32 binary elementwise ops (Add, Sub, Mul and Div
// and their broadcasts): each lane is the one IEEE operation the Go loop
// does per element (no FMA), with x the first operand, so that they give
// its bits.

// func vecF32AVX2(op int, dst, x, y *float32, n, xstep, ystep int)
// dst[i] = x[i] op y[i] for i < n; an operand whose step is 0 is one value
// repeated in eight lanes (x[0..7] or y[0..7]), a vector's step is 32.
TEXT ·vecF32AVX2(SB), NOSPLIT, $0-56
	MOVQ op+0(FP), AX
	MOVQ dst+8(FP), DI
	MOVQ x+16(FP), SI
	MOVQ y+24(FP), DX
	MOVQ n+32(FP), CX
	MOVQ xstep+40(FP), R8
	MOVQ ystep+48(FP), R9
	MOVQ R8, R10
	SHRQ $3, R10
	MOVQ R9, R11
	SHRQ $3, R11
	CMPQ AX, $1
	JEQ add8
	CMPQ AX, $2
	JEQ sub8
	CMPQ AX, $3
	JEQ mul8

div8:
	CMPQ CX, $8
	JLT div1
	VMOVUPS (SI), Y0
	VMOVUPS (DX), Y1
	VDIVPS Y1, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ R8, SI
	ADDQ R9, DX
	ADDQ $32, DI
	SUBQ $8, CX
	JMP div8

div1:
	TESTQ CX, CX
	JEQ done
	VMOVSS (SI), X0
	VMOVSS (DX), X1
	VDIVSS X1, X0, X0
	VMOVSS X0, (DI)
	ADDQ R10, SI
	ADDQ R11, DX
	ADDQ $4, DI
	DECQ CX
	JMP div1

add8:
	CMPQ CX, $8
	JLT add1
	VMOVUPS (SI), Y0
	VMOVUPS (DX), Y1
	VADDPS Y1, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ R8, SI
	ADDQ R9, DX
	ADDQ $32, DI
	SUBQ $8, CX
	JMP add8

add1:
	TESTQ CX, CX
	JEQ done
	VMOVSS (SI), X0
	VMOVSS (DX), X1
	VADDSS X1, X0, X0
	VMOVSS X0, (DI)
	ADDQ R10, SI
	ADDQ R11, DX
	ADDQ $4, DI
	DECQ CX
	JMP add1

sub8:
	CMPQ CX, $8
	JLT sub1
	VMOVUPS (SI), Y0
	VMOVUPS (DX), Y1
	VSUBPS Y1, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ R8, SI
	ADDQ R9, DX
	ADDQ $32, DI
	SUBQ $8, CX
	JMP sub8

sub1:
	TESTQ CX, CX
	JEQ done
	VMOVSS (SI), X0
	VMOVSS (DX), X1
	VSUBSS X1, X0, X0
	VMOVSS X0, (DI)
	ADDQ R10, SI
	ADDQ R11, DX
	ADDQ $4, DI
	DECQ CX
	JMP sub1

mul8:
	CMPQ CX, $8
	JLT mul1
	VMOVUPS (SI), Y0
	VMOVUPS (DX), Y1
	VMULPS Y1, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ R8, SI
	ADDQ R9, DX
	ADDQ $32, DI
	SUBQ $8, CX
	JMP mul8

mul1:
	TESTQ CX, CX
	JEQ done
	VMOVSS (SI), X0
	VMOVSS (DX), X1
	VMULSS X1, X0, X0
	VMOVSS X0, (DI)
	ADDQ R10, SI
	ADDQ R11, DX
	ADDQ $4, DI
	DECQ CX
	JMP mul1

done:
	VZEROUPPER
	RET
