package precision

import (
	"math"

	"github.com/tfscan/tfscan/kernels"
)

// RoundTF32 rounds f to TensorFloat-32 precision: the 8-bit exponent of a
// float32 with a 10-bit mantissa, round to nearest, ties to even, as cuBLAS
// and cuDNN round float32 operands for tensor-core math on Ampere and later
// GPUs. The 13 low mantissa bits of the result are zero. Overflow rounds to
// ±Inf; NaN and ±Inf are returned unchanged.
func RoundTF32(f float32) float32 {
	b := math.Float32bits(f)
	if b&0x7f800000 == 0x7f800000 { // Inf or NaN
		return f
	}
	lsb := (b >> 13) & 1
	b += 0xfff + lsb
	b &^= 0x1fff
	return math.Float32frombits(b)
}

// Smallest normal values of the storage formats. A flush-to-zero device
// replaces every value of smaller magnitude (the subnormals) by a zero of
// the same sign.
const (
	MinNormalFloat32 = 0x1p-126
	MinNormalFloat16 = 0x1p-14
	MinNormalBF16    = 0x1p-126
)

// Largest finite values of the storage formats.
const (
	MaxFloat32 = math.MaxFloat32
	MaxFloat16 = 65504
	// MaxBFloat16 is (2 − 2⁻⁷)·2¹²⁷.
	MaxBFloat16 = 0x1.fep127
)

// flushBelow returns a function that flushes values smaller in magnitude
// than min to a signed zero.
func flushBelow(min float32) func(float32) float32 {
	return func(f float32) float32 {
		if f != 0 && f > -min && f < min {
			return float32(math.Copysign(0, float64(f)))
		}
		return f
	}
}

// FlushFloat32 flushes float32 subnormals to a signed zero.
func FlushFloat32(f float32) float32 { return flushBelow(MinNormalFloat32)(f) }

// FlushFloat16 flushes values below binary16's smallest normal (2⁻¹⁴) to a
// signed zero: what a half-precision FTZ device stores for them.
func FlushFloat16(f float32) float32 { return flushBelow(MinNormalFloat16)(f) }

// RoundFloat16 rounds f to binary16 and back (round to nearest even).
func RoundFloat16(f float32) float32 { return kernels.RoundFloat16(f) }

// RoundBFloat16 rounds f to bfloat16 and back (round to nearest even).
func RoundBFloat16(f float32) float32 { return kernels.RoundBFloat16(f) }

// compose applies f then g; either may be nil.
func compose(f, g func(float32) float32) func(float32) float32 {
	switch {
	case f == nil:
		return g
	case g == nil:
		return f
	}
	return func(v float32) float32 { return g(f(v)) }
}
