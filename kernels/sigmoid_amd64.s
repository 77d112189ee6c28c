//go:build !purego

#include "textflag.h"

// The packet path of float32 Sigmoid (sigmoid.go's sigmoidPacket32) on 8
// lanes, the width of Eigen's AVX packets: the same float32 operations in
// the same order (separate multiply and add, no FMA), with masks where the
// Go code returns early.

DATA sigc<>+0(SB)/4, $0x3fb8aa3b  // log2(e)
DATA sigc<>+4(SB)/4, $0x3f000000  // 0.5
DATA sigc<>+8(SB)/4, $0xbf318000  // C1 = -0.693359375
DATA sigc<>+12(SB)/4, $0x395e8083 // C2 = 2.12194440e-4
DATA sigc<>+16(SB)/4, $0x3ab42872 // p6
DATA sigc<>+20(SB)/4, $0x3c091de6 // p5
DATA sigc<>+24(SB)/4, $0x3d2aadcc // p4
DATA sigc<>+28(SB)/4, $0x3e2aaa47 // p3
DATA sigc<>+32(SB)/4, $0x3efffffc // p2
DATA sigc<>+36(SB)/4, $0x3f800000 // 1
DATA sigc<>+40(SB)/4, $0x41900000 // 18
DATA sigc<>+44(SB)/4, $0xc2fc0000 // -126
DATA sigc<>+48(SB)/4, $0x00800000 // 2^-126
DATA sigc<>+52(SB)/4, $127        // exponent bias
GLOBL sigc<>(SB), RODATA|NOPTR, $56

// func sigmoidF32(d *float32, n int)
// d[i] = sigmoidPacket32(d[i]) for i < n, n a multiple of 8.
TEXT ·sigmoidF32(SB), NOSPLIT, $0-16
	MOVQ d+0(FP), SI
	MOVQ n+8(FP), CX
	SHRQ $3, CX
	VBROADCASTSS sigc<>+36(SB), Y14 // 1
	VPBROADCASTD sigc<>+52(SB), Y13 // 127

sloop:
	TESTQ CX, CX
	JE sdone
	VMOVUPS (SI), Y0                  // x
	VBROADCASTSS sigc<>+0(SB), Y15
	VMULPS Y15, Y0, Y1
	VBROADCASTSS sigc<>+4(SB), Y15
	VADDPS Y15, Y1, Y1                // t = x*log2e + 0.5
	VROUNDPS $1, Y1, Y2               // m = floor(t)
	VCVTTPS2DQ Y2, Y3                 // mi
	VBROADCASTSS sigc<>+8(SB), Y15
	VMULPS Y15, Y2, Y4
	VADDPS Y0, Y4, Y4                 // r = m*C1 + x
	VBROADCASTSS sigc<>+12(SB), Y15
	VMULPS Y15, Y2, Y5
	VADDPS Y4, Y5, Y4                 // r = m*C2 + r
	VMULPS Y4, Y4, Y5                 // r2
	VBROADCASTSS sigc<>+16(SB), Y15
	VMULPS Y15, Y5, Y6
	VBROADCASTSS sigc<>+24(SB), Y15
	VADDPS Y15, Y6, Y6                // pEven = r2*p6 + p4
	VBROADCASTSS sigc<>+20(SB), Y15
	VMULPS Y15, Y5, Y7
	VBROADCASTSS sigc<>+28(SB), Y15
	VADDPS Y15, Y7, Y7                // pOdd = r2*p5 + p3
	VMULPS Y6, Y5, Y6
	VBROADCASTSS sigc<>+32(SB), Y15
	VADDPS Y15, Y6, Y6                // pEven = r2*pEven + p2
	VADDPS Y14, Y4, Y8                // pLow = r + 1
	VMULPS Y7, Y4, Y7
	VADDPS Y6, Y7, Y7                 // y = r*pOdd + pEven
	VMULPS Y7, Y5, Y7
	VADDPS Y8, Y7, Y7                 // y = r2*y + pLow
	VPADDD Y13, Y3, Y3
	VPSLLD $23, Y3, Y3                // 2^m
	VMULPS Y3, Y7, Y7                 // e
	VBROADCASTSS sigc<>+48(SB), Y15
	VCMPPS $1, Y15, Y7, Y8            // e < 2^-126
	VANDNPS Y7, Y8, Y7                // FTZ
	VADDPS Y14, Y7, Y9
	VDIVPS Y9, Y7, Y9                 // e / (1+e)
	VBROADCASTSS sigc<>+44(SB), Y15
	VCMPPS $1, Y15, Y1, Y8            // t < -126
	VANDNPS Y9, Y8, Y9                // 0 there
	VBROADCASTSS sigc<>+40(SB), Y15
	VCMPPS $1, Y15, Y0, Y10           // x < 18 (false for NaN)
	VCMPPS $3, Y0, Y0, Y11            // x is NaN
	VBLENDVPS Y11, Y0, Y14, Y12       // NaN ? x : 1
	VBLENDVPS Y10, Y9, Y12, Y9        // x < 18 ? e/(1+e) : that
	VMOVUPS Y9, (SI)
	ADDQ $32, SI
	DECQ CX
	JMP sloop

sdone:
	VZEROUPPER
	RET
