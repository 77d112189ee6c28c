package kernels

import (
	"math"

	"golang.org/x/sys/cpu"
)

// goFMA: the portable loops that stand in for the FMA assembly (the GEMM's
// micro-kernel, fmaAcc32) round each multiply-add once, as the assembly
// and TensorFlow's kernels do. Go does not fuse a*b+c on amd64, so they
// call fusedMulAdd where the CPU has FMA: in purego builds, and on CPUs
// without AVX2 that have it. Without FMA, math.FMA would be a software
// routine many times slower than the unfused loop, which those CPUs run.
var goFMA = cpu.X86.HasFMA

// fusedMulAdd is a*b+c rounded once. For float32 the product is exact in
// float64 and the sum rounds twice (to float64, then float32), which
// differs from one rounding only where the float64 sum falls on a float32
// halfway point.
func fusedMulAdd[T nnFloat](a, b, c T) T {
	return T(math.FMA(float64(a), float64(b), float64(c)))
}
