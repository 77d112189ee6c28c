//go:build !purego

#include "textflag.h"

// func dwPixelF32(out, x, f *float32, xoff, foff *int, taps, c int)
// One output pixel of a float32 depthwise convolution with multiplier 1:
// out[j] = sum over t < taps of x[xoff[t]+j]*f[foff[t]+j], accumulated in
// tap order with one FMA per tap from zero (what fmaAccF32 over a zeroed
// output computes), the accumulators kept in registers across the taps.
TEXT ·dwPixelF32(SB), NOSPLIT, $0-56
	MOVQ out+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ f+16(FP), DX
	MOVQ xoff+24(FP), R8
	MOVQ foff+32(FP), R9
	MOVQ taps+40(FP), R10
	MOVQ c+48(FP), CX
	XORQ R11, R11

blk32:
	MOVQ CX, AX
	SUBQ R11, AX
	CMPQ AX, $32
	JL blk8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ R12, R12

tap32:
	CMPQ R12, R10
	JGE store32
	MOVQ (R8)(R12*8), AX
	ADDQ R11, AX
	LEAQ (SI)(AX*4), AX
	MOVQ (R9)(R12*8), BX
	ADDQ R11, BX
	LEAQ (DX)(BX*4), BX
	VMOVUPS (AX), Y4
	VFMADD231PS (BX), Y4, Y0
	VMOVUPS 32(AX), Y5
	VFMADD231PS 32(BX), Y5, Y1
	VMOVUPS 64(AX), Y6
	VFMADD231PS 64(BX), Y6, Y2
	VMOVUPS 96(AX), Y7
	VFMADD231PS 96(BX), Y7, Y3
	INCQ R12
	JMP tap32

store32:
	VMOVUPS Y0, (DI)(R11*4)
	VMOVUPS Y1, 32(DI)(R11*4)
	VMOVUPS Y2, 64(DI)(R11*4)
	VMOVUPS Y3, 96(DI)(R11*4)
	ADDQ $32, R11
	JMP blk32

blk8:
	MOVQ CX, AX
	SUBQ R11, AX
	CMPQ AX, $8
	JL blk1
	VXORPS Y0, Y0, Y0
	XORQ R12, R12

tap8:
	CMPQ R12, R10
	JGE store8
	MOVQ (R8)(R12*8), AX
	ADDQ R11, AX
	LEAQ (SI)(AX*4), AX
	MOVQ (R9)(R12*8), BX
	ADDQ R11, BX
	LEAQ (DX)(BX*4), BX
	VMOVUPS (AX), Y4
	VFMADD231PS (BX), Y4, Y0
	INCQ R12
	JMP tap8

store8:
	VMOVUPS Y0, (DI)(R11*4)
	ADDQ $8, R11
	JMP blk8

blk1:
	CMPQ R11, CX
	JGE done
	VXORPS X0, X0, X0
	XORQ R12, R12

tap1:
	CMPQ R12, R10
	JGE store1
	MOVQ (R8)(R12*8), AX
	ADDQ R11, AX
	LEAQ (SI)(AX*4), AX
	MOVQ (R9)(R12*8), BX
	ADDQ R11, BX
	LEAQ (DX)(BX*4), BX
	VMOVSS (AX), X4
	VFMADD231SS (BX), X4, X0
	INCQ R12
	JMP tap1

store1:
	VMOVSS X0, (DI)(R11*4)
	INCQ R11
	JMP blk1

done:
	VZEROUPPER
	RET
