package kernels

import "golang.org/x/sys/cpu"

// hasFMA is glibc's test for its *_fma builds on x86-64
// (sysdeps/x86_64/fpu/multiarch/ifunc-fma.h: FMA and AVX2).
func hasFMA() bool { return cpu.X86.HasFMA && cpu.X86.HasAVX2 }
