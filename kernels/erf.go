package kernels

// Float32 Erf as TensorFlow's CPU kernel computes it. cwise_op_erf.cc runs
// Eigen's scalar_erf_op<float>, whose scalar and packet paths are both
// generic_fast_erf_float (unsupported/Eigen/src/SpecialFunctions/
// SpecialFunctionsImpl.h, in the wheel's headers): an odd degree-9 over an
// even degree-12 polynomial in x, ±1 from |x| ≥ 3.8325 on, NaN through the
// quotient. In float32 with each pmadd a multiply then an add (the wheel is
// built without FMA), it gives TensorFlow's bits (the kernel goldens) at a
// fraction of a float64 math.Erf's cost; half and bfloat16 Erf widen to it
// as Eigen's do. Keras's exact GELU is an Erf per element, most of a
// ConvNeXt's elementwise work.
func erf32(x float32) float32 {
	const clamp = float32(3.832506856900711)
	switch {
	case x >= clamp:
		return 1
	case x <= -clamp:
		return -1
	}
	x2 := x * x
	p := madd32(x2, 0.00022905065861350646, 0.0034082910107109506)
	p = madd32(x2, p, 0.050955695062380861)
	p = madd32(x2, p, 0.18520832239976145)
	p = madd32(x2, p, 1.128379143519084)
	p = x * p
	q := madd32(x2, -1.1791602954361697e-7, 0.000023547966471313185)
	q = madd32(x2, q, 0.0010179625278914885)
	q = madd32(x2, q, 0.014070470171167667)
	q = madd32(x2, q, 0.11098505178285362)
	q = madd32(x2, q, 0.49746925110067538)
	q = madd32(x2, q, 1)
	return p / q
}

// erfPackets32 sets dst[i] = erf32(src[i]) over len(src) rounded down to
// whole 8-float packets; erf_amd64.go replaces it with AVX code on CPUs
// with AVX2. dst may be src.
var erfPackets32 = func(dst, src []float32) {
	for i, v := range src[:len(src)/8*8] {
		dst[i] = erf32(v)
	}
}

// erf32s sets dst[i] = erf32(src[i]); dst may be src. Scalar and packet
// paths compute the same bits, so any split of a tensor gives TensorFlow's.
func erf32s(dst, src []float32) {
	n := len(src) / 8 * 8
	erfPackets32(dst[:n], src[:n])
	for i := n; i < len(src); i++ {
		dst[i] = erf32(src[i])
	}
}
