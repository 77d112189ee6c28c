//go:build !purego

#include "textflag.h"

// LOADROW loads eight floats from row n of src (SI, an array of row
// pointers) at byte offset DX into reg.
#define LOADROW(n, reg) \
	MOVQ (n*8)(SI), AX; \
	VMOVUPS (AX)(DX*1), reg

// TRANSPOSE4 transposes rows r0-r3 of eight floats into o0-o3 through
// t0-t3: o0 holds k-steps 0 and 4 of the four rows (k0 | k4), o1 k1 | k5,
// o2 k2 | k6, o3 k3 | k7.
#define TRANSPOSE4(r0, r1, r2, r3, t0, t1, t2, t3, o0, o1, o2, o3) \
	VUNPCKLPS r1, r0, t0; \
	VUNPCKHPS r1, r0, t1; \
	VUNPCKLPS r3, r2, t2; \
	VUNPCKHPS r3, r2, t3; \
	VSHUFPS $0x44, t2, t0, o0; \
	VSHUFPS $0xEE, t2, t0, o1; \
	VSHUFPS $0x44, t3, t1, o2; \
	VSHUFPS $0xEE, t3, t1, o3

// func panel12F32(dst *float32, src **float32, blocks int)
// Writes blocks×8 k-steps of a 12-row GEMM panel: for each k, the k-th
// float of each of the 12 rows side by side (dst[k*12+i] = src[i][k]),
// eight channels at a time: rows 0-7 as an 8×8 transpose, rows 8-11 as a
// 4×8 one. Data movement only.
TEXT ·panel12F32(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ blocks+16(FP), CX
	XORQ DX, DX

ploop:
	TESTQ CX, CX
	JE pdone
	LOADROW(0, Y0)
	LOADROW(1, Y1)
	LOADROW(2, Y2)
	LOADROW(3, Y3)
	LOADROW(4, Y4)
	LOADROW(5, Y5)
	LOADROW(6, Y6)
	LOADROW(7, Y7)
	TRANSPOSE4(Y0, Y1, Y2, Y3, Y8, Y9, Y10, Y11, Y0, Y1, Y2, Y3)
	TRANSPOSE4(Y4, Y5, Y6, Y7, Y12, Y13, Y14, Y15, Y4, Y5, Y6, Y7)
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15
	VMOVUPS Y8, 0(DI)
	VMOVUPS Y9, 48(DI)
	VMOVUPS Y10, 96(DI)
	VMOVUPS Y11, 144(DI)
	VMOVUPS Y12, 192(DI)
	VMOVUPS Y13, 240(DI)
	VMOVUPS Y14, 288(DI)
	VMOVUPS Y15, 336(DI)
	LOADROW(8, Y0)
	LOADROW(9, Y1)
	LOADROW(10, Y2)
	LOADROW(11, Y3)
	TRANSPOSE4(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11)
	VMOVUPS X8, 32(DI)
	VMOVUPS X9, 80(DI)
	VMOVUPS X10, 128(DI)
	VMOVUPS X11, 176(DI)
	VEXTRACTF128 $1, Y8, X8
	VEXTRACTF128 $1, Y9, X9
	VEXTRACTF128 $1, Y10, X10
	VEXTRACTF128 $1, Y11, X11
	VMOVUPS X8, 224(DI)
	VMOVUPS X9, 272(DI)
	VMOVUPS X10, 320(DI)
	VMOVUPS X11, 368(DI)
	ADDQ $32, DX
	ADDQ $384, DI
	DECQ CX
	JMP ploop

pdone:
	VZEROUPPER
	RET

// func panel6F32(dst *float32, src **float32, blocks int)
// Writes blocks×8 k-steps of a 6-row GEMM panel (dst[k*6+i] = src[i][k]),
// eight channels at a time: rows 0-3 as a 4×8 transpose, rows 4-5 as
// interleaved pairs. Data movement only.
TEXT ·panel6F32(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ blocks+16(FP), CX
	XORQ DX, DX

sloop:
	TESTQ CX, CX
	JE sdone
	LOADROW(0, Y0)
	LOADROW(1, Y1)
	LOADROW(2, Y2)
	LOADROW(3, Y3)
	LOADROW(4, Y4)
	LOADROW(5, Y5)
	TRANSPOSE4(Y0, Y1, Y2, Y3, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13)
	VUNPCKLPS Y5, Y4, Y14      // k0 k1 | k4 k5, rows 4-5 side by side
	VUNPCKHPS Y5, Y4, Y15      // k2 k3 | k6 k7
	VMOVUPS X10, 0(DI)
	VMOVUPS X11, 24(DI)
	VMOVUPS X12, 48(DI)
	VMOVUPS X13, 72(DI)
	VMOVLPS X14, 16(DI)
	VMOVHPS X14, 40(DI)
	VMOVLPS X15, 64(DI)
	VMOVHPS X15, 88(DI)
	VEXTRACTF128 $1, Y10, X10
	VEXTRACTF128 $1, Y11, X11
	VEXTRACTF128 $1, Y12, X12
	VEXTRACTF128 $1, Y13, X13
	VEXTRACTF128 $1, Y14, X14
	VEXTRACTF128 $1, Y15, X15
	VMOVUPS X10, 96(DI)
	VMOVUPS X11, 120(DI)
	VMOVUPS X12, 144(DI)
	VMOVUPS X13, 168(DI)
	VMOVLPS X14, 112(DI)
	VMOVHPS X14, 136(DI)
	VMOVLPS X15, 160(DI)
	VMOVHPS X15, 184(DI)
	ADDQ $32, DX
	ADDQ $192, DI
	DECQ CX
	JMP sloop

sdone:
	VZEROUPPER
	RET
