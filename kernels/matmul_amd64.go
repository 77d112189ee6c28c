//go:build !purego

package kernels

import "golang.org/x/sys/cpu"

//go:noescape
func sgemmKernel6x16(k int, a, b, c *float32)

//go:noescape
func sgemmKernel6x16S(k int, a *float32, lda, kstep int, b, c *float32, ldc int, acc int)

//go:noescape
func sgemmKernel12x16S(k int, a *float32, lda, kstep int, b, c *float32, ldc int, acc int)

//go:noescape
func sgemmPackB16(dst, src *float32, ldb, kb, panels int)

//go:noescape
func fmaAccF32(acc, x, f *float32, n int)

//go:noescape
func dgemmKernel6x8(k int, a, b, c *float64)

// useAVX2 selects the assembly micro-kernels; they need AVX2 and FMA (and
// the OS saving YMM state, which cpu.X86.HasAVX includes).
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasAVX

// useAVX512 selects the float32 GEMM's 12-row AVX-512 micro-kernel
// (cpu.X86.HasAVX512F includes the OS saving ZMM state). Where AVX-512 runs
// at the AVX2 units' width (AMD Zen 4) its peak is the same, but each step
// of twelve rows takes one B load and twelve instructions where AVX2's
// two 6-row steps take sixteen loads and twenty-four instructions.
var useAVX512 = useAVX2 && cpu.X86.HasAVX512F

// gemm32AVX2 is the float32 GEMM on 6×16 AVX2 tiles.
func gemm32AVX2() gemmImpl[float32] {
	return gemmImpl[float32]{
		bl: gemmBlocking{mr: 6, nr: 16, mc: 96, kc: 256, nc: 512},
		kern: func(k int, a, b, tile []float32) {
			// Bounds are checked here once so the assembly can trust them.
			_ = a[k*6-1]
			_ = b[k*16-1]
			_ = tile[95]
			sgemmKernel6x16(k, &a[0], &b[0], &tile[0])
		},
		kernS: func(k int, a []float32, lda, kstep int, b, c []float32, ldc int, acc bool) {
			_ = a[5*lda+(k-1)*kstep]
			_ = b[k*16-1]
			_ = c[5*ldc+15]
			sgemmKernel6x16S(k, &a[0], lda, kstep, &b[0], &c[0], ldc, gemmAccFlag(acc))
		},
	}
}

// gemm32AVX512 is the float32 GEMM on 12×16 AVX-512 tiles.
func gemm32AVX512() gemmImpl[float32] {
	kernS := func(k int, a []float32, lda, kstep int, b, c []float32, ldc int, acc bool) {
		_ = a[11*lda+(k-1)*kstep]
		_ = b[k*16-1]
		_ = c[11*ldc+15]
		sgemmKernel12x16S(k, &a[0], lda, kstep, &b[0], &c[0], ldc, gemmAccFlag(acc))
	}
	return gemmImpl[float32]{
		bl: gemmBlocking{mr: 12, nr: 16, mc: 96, kc: 256, nc: 4096},
		kern: func(k int, a, b, tile []float32) {
			kernS(k, a, 1, 12, b, tile, 16, false)
		},
		kernS:    kernS,
		kernHalf: gemm32AVX2().kernS,
	}
}

func gemmAccFlag(acc bool) int {
	if acc {
		return 1
	}
	return 0
}

func init() {
	if !useAVX2 {
		return
	}
	fmaAcc32 = func(acc, x, f []float32) {
		n := len(acc)
		if n == 0 {
			return
		}
		_ = x[n-1]
		_ = f[n-1]
		fmaAccF32(&acc[0], &x[0], &f[0], n)
	}
	packB16F32 = func(dst, src []float32, ldb, kb, panels int) {
		if kb <= 0 || panels <= 0 {
			return
		}
		_ = dst[kb*16*panels-1]
		_ = src[(kb-1)*ldb+16*panels-1]
		sgemmPackB16(&dst[0], &src[0], ldb, kb, panels)
	}
	gemm32Variants["avx2"] = gemm32AVX2()
	gemm32 = gemm32Variants["avx2"]
	if useAVX512 {
		gemm32Variants["avx512"] = gemm32AVX512()
		gemm32 = gemm32Variants["avx512"]
	}
	gemm64 = gemmImpl[float64]{
		bl: gemmBlocking{mr: 6, nr: 8, mc: 96, kc: 256, nc: 512},
		kern: func(k int, a, b, tile []float64) {
			_ = a[k*6-1]
			_ = b[k*8-1]
			_ = tile[47]
			dgemmKernel6x8(k, &a[0], &b[0], &tile[0])
		},
	}
}
