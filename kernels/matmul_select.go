package kernels

// gemmImpl is a micro-kernel with its blocking.
type gemmImpl[T nnFloat] struct {
	bl   gemmBlocking
	kern gemmKernel[T]
	// kernS, when set, is kern reading A strided and writing its tile
	// straight into C.
	kernS gemmKernelS[T]
	// kernHalf, when set, is kernS for the first mr/2 rows of the panel
	// only (a last panel of at most mr/2 rows).
	kernHalf gemmKernelS[T]
}

// gemmKernelS computes the mr×nr tile of the product of an A panel whose
// element (i, p) is a[i*lda+p*kstep] (packed: lda 1, kstep mr; a row-major
// A read in place: lda its row stride, kstep 1) and one packed B panel into
// c (row stride ldc), adding to c's values when acc is set. Each output is
// the same chain of multiply-adds as kern's.
type gemmKernelS[T nnFloat] func(k int, a []T, lda, kstep int, b, c []T, ldc int, acc bool)

// gemm32 and gemm64 are the GEMMs in use: the portable Go micro-kernels by
// default, replaced by assembly in init where the CPU supports it
// (matmul_amd64.go).
var (
	gemm32 = gemmImpl[float32]{
		bl:   gemmBlocking{mr: 4, nr: 8, mc: 64, kc: 256, nc: 512},
		kern: gemmKernelGo[float32](4, 8),
	}
	gemm64 = gemmImpl[float64]{
		bl:   gemmBlocking{mr: 4, nr: 8, mc: 64, kc: 256, nc: 512},
		kern: gemmKernelGo[float64](4, 8),
	}
)

// gemm32Variants are the float32 GEMMs this CPU can run, by name: "go"
// everywhere, "avx2" and "avx512" where the CPU has them (added in init);
// tests run each.
var gemm32Variants = map[string]gemmImpl[float32]{"go": gemm32}

// gemmFor returns the GEMM for T.
func gemmFor[T nnFloat]() gemmImpl[T] {
	var z T
	switch any(z).(type) {
	case float32:
		return any(gemm32).(gemmImpl[T])
	default:
		return any(gemm64).(gemmImpl[T])
	}
}

// runGemm computes every job with the GEMM for T.
func runGemm[T nnFloat](jobs []gemmJob[T]) {
	g := gemmFor[T]()
	gemmRunC(jobs, g)
}

// fmaAcc32 computes acc[i] += x[i]*f[i] over len(acc) elements (x and f at
// least as long), fused as gemmKernelGo's; assembly replaces it where the
// CPU supports AVX2/FMA.
var fmaAcc32 = func(acc, x, f []float32) {
	x = x[:len(acc)]
	f = f[:len(acc)]
	if goFMA {
		for i := range acc {
			acc[i] = fusedMulAdd(x[i], f[i], acc[i])
		}
		return
	}
	for i := range acc {
		acc[i] += x[i] * f[i]
	}
}
