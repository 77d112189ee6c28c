package kernels

// gemmImpl is a micro-kernel with its blocking.
type gemmImpl[T nnFloat] struct {
	bl   gemmBlocking
	kern gemmKernel[T]
	// kernC, when set, computes a full mr×nr tile straight into C (row
	// stride ldc), adding to C's values when acc is set.
	kernC gemmKernelC[T]
}

// gemmKernelC is a micro-kernel that writes its tile into C directly.
type gemmKernelC[T nnFloat] func(k int, a, b, c []T, ldc int, acc bool)

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
	gemmRunC(jobs, g.bl, g.kern, g.kernC)
}

// fmaAcc32 computes acc[i] += x[i]*f[i] over len(acc) elements (x and f at
// least as long); assembly replaces it where the CPU supports AVX2/FMA.
var fmaAcc32 = func(acc, x, f []float32) {
	x = x[:len(acc)]
	f = f[:len(acc)]
	for i := range acc {
		acc[i] += x[i] * f[i]
	}
}
