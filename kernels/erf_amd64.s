//go:build !purego

#include "textflag.h"

// The packet path of float32 Erf (erf.go's erf32) on 8 lanes, the width of
// Eigen's AVX packets: the same float32 operations in the same order
// (separate multiply and add, no FMA), the clamp as a blend.

DATA erfc<>+0(SB)/4, $0x39702d51  // alpha_9
DATA erfc<>+4(SB)/4, $0x3b5f5da2  // alpha_7
DATA erfc<>+8(SB)/4, $0x3d50b6eb  // alpha_5
DATA erfc<>+12(SB)/4, $0x3e3da740 // alpha_3
DATA erfc<>+16(SB)/4, $0x3f906eba // alpha_1
DATA erfc<>+20(SB)/4, $0xb3fd3906 // beta_12
DATA erfc<>+24(SB)/4, $0x37c588df // beta_10
DATA erfc<>+28(SB)/4, $0x3a856d28 // beta_8
DATA erfc<>+32(SB)/4, $0x3c6687d4 // beta_6
DATA erfc<>+36(SB)/4, $0x3de34c21 // beta_4
DATA erfc<>+40(SB)/4, $0x3efeb44a // beta_2
DATA erfc<>+44(SB)/4, $0x3f800000 // 1
DATA erfc<>+48(SB)/4, $0x407547cb // clamp, erfinv(1 - 2^-24) rounded
DATA erfc<>+52(SB)/4, $0x7fffffff // |x| mask
DATA erfc<>+56(SB)/4, $0x80000000 // sign mask
GLOBL erfc<>(SB), RODATA|NOPTR, $60

// func erfF32(dst, src *float32, n int)
// dst[i] = erf32(src[i]) for i < n, n a multiple of 8; dst may be src.
TEXT ·erfF32(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $3, CX
	VBROADCASTSS erfc<>+44(SB), Y14 // 1
	VBROADCASTSS erfc<>+48(SB), Y13 // clamp
	VBROADCASTSS erfc<>+52(SB), Y12 // |x| mask
	VBROADCASTSS erfc<>+56(SB), Y11 // sign mask

eloop:
	TESTQ CX, CX
	JE edone
	VMOVUPS (SI), Y0                 // x
	VMULPS Y0, Y0, Y1                // x2
	VBROADCASTSS erfc<>+0(SB), Y15
	VMULPS Y15, Y1, Y2
	VBROADCASTSS erfc<>+4(SB), Y15
	VADDPS Y15, Y2, Y2               // p = x2*a9 + a7
	VMULPS Y2, Y1, Y2
	VBROADCASTSS erfc<>+8(SB), Y15
	VADDPS Y15, Y2, Y2               // p = x2*p + a5
	VMULPS Y2, Y1, Y2
	VBROADCASTSS erfc<>+12(SB), Y15
	VADDPS Y15, Y2, Y2               // p = x2*p + a3
	VMULPS Y2, Y1, Y2
	VBROADCASTSS erfc<>+16(SB), Y15
	VADDPS Y15, Y2, Y2               // p = x2*p + a1
	VMULPS Y2, Y0, Y2                // p = x*p
	VBROADCASTSS erfc<>+20(SB), Y15
	VMULPS Y15, Y1, Y3
	VBROADCASTSS erfc<>+24(SB), Y15
	VADDPS Y15, Y3, Y3               // q = x2*b12 + b10
	VMULPS Y3, Y1, Y3
	VBROADCASTSS erfc<>+28(SB), Y15
	VADDPS Y15, Y3, Y3               // q = x2*q + b8
	VMULPS Y3, Y1, Y3
	VBROADCASTSS erfc<>+32(SB), Y15
	VADDPS Y15, Y3, Y3               // q = x2*q + b6
	VMULPS Y3, Y1, Y3
	VBROADCASTSS erfc<>+36(SB), Y15
	VADDPS Y15, Y3, Y3               // q = x2*q + b4
	VMULPS Y3, Y1, Y3
	VBROADCASTSS erfc<>+40(SB), Y15
	VADDPS Y15, Y3, Y3               // q = x2*q + b2
	VMULPS Y3, Y1, Y3
	VADDPS Y14, Y3, Y3               // q = x2*q + 1
	VDIVPS Y3, Y2, Y4                // p / q
	VANDPS Y12, Y0, Y5               // |x|
	VCMPPS $2, Y5, Y13, Y6           // clamp <= |x| (false for NaN)
	VANDPS Y11, Y0, Y7
	VORPS Y14, Y7, Y7                // ±1 with x's sign
	VBLENDVPS Y6, Y7, Y4, Y8         // clamped ? ±1 : p/q
	VMOVUPS Y8, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JMP eloop

edone:
	VZEROUPPER
	RET
