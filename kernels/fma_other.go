//go:build !amd64

package kernels

// goFMA is false off amd64: there the compiler fuses the portable loops'
// a*b+c itself where the architecture has the instruction (arm64, ppc64x,
// s390x, riscv64), and fusedMulAdd is never called.
const goFMA = false

func fusedMulAdd[T nnFloat](a, b, c T) T { return a*b + c }
