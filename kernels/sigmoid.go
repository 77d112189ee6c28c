package kernels

import "math"

// Float32 Sigmoid as TensorFlow's CPU kernel computes it. cwise_op_sigmoid.cc
// runs Eigen's scalar_logistic_op<float> (Eigen 66e8f388, the commit
// third_party/eigen3/workspace.bzl pins): e = exp(x), then e/(1+e), or 1
// where e is +Inf. Eigen's tensor executor evaluates whole packets of 8
// floats (AVX; TensorFlow's wheel is built without FMA, so pmadd is a
// multiply then an add, two roundings) with pexp_float, Eigen's polynomial
// exp, and the last len%8 elements with the scalar functor, whose exp is
// libm's expf. The packet exp's denormal results are flushed to zero, as
// TensorFlow's threads run with FTZ. In float32 arithmetic, and on AVX2
// eight lanes at a time (sigmoid_amd64.s), this is both bit-identical to
// TensorFlow (the kernel goldens) and several times faster than a float64
// exp per element.

// sigmoidPacket32 is scalar_logistic_op's packet path for one lane:
// e/(1+e) with e = pexp_float(x), 1 where e is +Inf.
//
// pexp_float (GenericPacketMathFunctions.h) without FMA: exp(x) = 2^m·exp(r),
// m = floor(x·log2(e) + 1/2), r = x − m·ln2 in two parts (Cephes' C1, C2),
// exp(r) a degree-6 polynomial split in even and odd terms, then pldexp,
// whose powers of two are exact, so y·2^m rounds once. Shortcuts that give
// Eigen's result: from x = 18 on e exceeds 2^25, so 1+e rounds to e and the
// quotient is 1 (above 88.723 Eigen clamps x, +Inf gives e = +Inf: 1 too);
// where m < −126 the result is below 2^−126 and FTZ makes it 0 (as it does
// for x < −104, Eigen's zero mask); NaN propagates.
func sigmoidPacket32(x float32) float32 {
	if !(x < 18) {
		if x != x {
			return x
		}
		return 1
	}
	t := madd32(x, 1.44269504088896341, 0.5)
	if t < -126 {
		return 0 // m ≤ −127
	}
	// floor(t) by truncating t + 256 (> 0), exact in float64; no branch on
	// the sign of t.
	mi := int32(float64(t)+256) - 256
	if mi < -126 {
		return 0
	}
	m := float32(mi)
	r := madd32(m, -0.693359375, x)
	r = madd32(m, 2.12194440e-4, r)
	r2 := r * r
	pEven := madd32(r2, 1.37449637986719608306884765625e-3, 4.166965186595916748046875e-2)
	pOdd := madd32(r2, 8.36894474923610687255859375e-3, 0.16666518151760101318359375)
	pEven = madd32(r2, pEven, 0.49999988079071044921875)
	pLow := r + 1
	y := madd32(r, pOdd, pEven)
	y = madd32(r2, y, pLow)
	e := y * math.Float32frombits(uint32(mi+127)<<23)
	if e < 0x1p-126 {
		return 0 // FTZ
	}
	return e / (1 + e)
}

// sigmoidScalar32 is scalar_logistic_op's scalar path (the tail after the
// last whole packet): std::exp of a float is glibc's expf, correctly
// rounded but in rare cases, which float32(math.Exp) reproduces; from 18 on
// the result is 1 as in the packet path (expf's +Inf included).
func sigmoidScalar32(x float32) float32 {
	if !(x < 18) {
		if x != x {
			return x
		}
		return 1
	}
	e := float32(math.Exp(float64(x)))
	if e < 0x1p-126 {
		e = 0 // FTZ
	}
	return e / (1 + e)
}

// sigmoidPackets32 applies sigmoidPacket32 to d, whose length is a
// multiple of 8; sigmoid_amd64.s replaces it with the same operations on
// AVX2 registers, 8 lanes at a time.
var sigmoidPackets32 = func(d []float32) {
	for i, v := range d {
		d[i] = sigmoidPacket32(v)
	}
}

// madd32 is Eigen's pmadd on an AVX build without FMA: a·b rounded, then + c
// (the conversion keeps Go from fusing the two into one FMA).
func madd32(a, b, c float32) float32 {
	return float32(a*b) + c
}

// sigmoid32 applies Sigmoid to data in place; data[tail:] are the elements
// after the tensor's last whole 8-float packet.
func sigmoid32(data []float32, tail int) {
	sigmoidPackets32(data[:tail])
	for i, v := range data[tail:] {
		data[tail+i] = sigmoidScalar32(v)
	}
}
