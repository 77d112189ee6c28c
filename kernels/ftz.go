package kernels

import "math"

// TensorFlow runs its CPU kernels with the SSE FTZ and DAZ bits set
// (tensorflow/core/platform/denormal.cc, port::ScopedFlushDenormal around
// every executor and eager kernel call): every float32 or float64 result
// that would be subnormal is written as a zero of its sign. tfscan's
// kernels keep IEEE subnormals on their inputs and outputs (a documented
// difference of the executor), but where a kernel's intermediate result is
// subnormal and what follows is not continuous at zero (a floor, which
// takes -2^-130 to -1 and -0 to -0) or lifts the tiny value into the
// result (a lerp whose step cancels a normal value down to a subnormal), the
// kernel flushes that intermediate as TensorFlow's does, so that normal
// inputs give TensorFlow's normal result.

// ftz32 is v as an FTZ register holds it: a subnormal becomes a zero of
// its sign.
func ftz32(v float32) float32 {
	if b := math.Float32bits(v); b&0x7f800000 == 0 {
		return math.Float32frombits(b & 0x80000000)
	}
	return v
}

// ftz64 is ftz32 for float64.
func ftz64(v float64) float64 {
	if b := math.Float64bits(v); b&0x7ff0000000000000 == 0 {
		return math.Float64frombits(b & 0x8000000000000000)
	}
	return v
}

// ftz is ftz32 or ftz64 by T.
func ftz[T float](v T) T {
	switch x := any(v).(type) {
	case float32:
		return T(ftz32(x))
	case float64:
		return T(ftz64(x))
	}
	return v
}
