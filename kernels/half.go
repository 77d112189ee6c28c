package kernels

import "math"

// Half-precision conversions. TensorFlow stores DT_HALF as IEEE 754 binary16
// (Eigen::half) and DT_BFLOAT16 as the top 16 bits of a float32
// (Eigen::bfloat16). Both conversions from float32 round to nearest, ties to
// even, exactly like Eigen's float_to_half_rtne and float_to_bfloat16_rtne
// (third_party/eigen3/Eigen/src/Core/arch/Default/Half.h and BFloat16.h in
// TensorFlow's Eigen), so that values computed here match TensorFlow's bits.

// Float16FromFloat32 rounds f to the nearest binary16 value, ties to even.
// Values too large for binary16 become ±Inf, tiny ones become subnormals or
// ±0, and NaN becomes the quiet NaN 0x7e00 with f's sign (as Eigen does).
// binary16's normals, most of what a float16 tensor holds, are rounded in
// place (roundNormal16) and rebiased; a carry past the largest exponent gives
// 0x7c00, Inf.
func Float16FromFloat32(f float32) Float16 {
	b := math.Float32bits(f)
	if r, ok := roundNormal16(b); ok {
		return Float16(uint16(b>>16)&0x8000 | uint16((r&0x7fffffff-112<<23)>>13))
	}
	return float16Of(f)
}

// roundNormal16 rounds the bits b of a float32 that is a binary16 normal
// (float32 exponents 113 to 142) to binary16's 10 mantissa bits, ties to
// even, the 13 it drops left 0; false for any other b. A carry past
// binary16's largest exponent leaves exponent 143, which is Inf in binary16.
func roundNormal16(b uint32) (uint32, bool) {
	if e := b >> 23 & 0xff; e-113 > 142-113 {
		return 0, false
	}
	return (b + 0xfff + b>>13&1) &^ 0x1fff, true
}

// float16Of is Float16FromFloat32 for every f, step by step.
func float16Of(f float32) Float16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	mant := b & 0x7fffff

	switch {
	case exp == 0xff: // Inf or NaN
		if mant == 0 {
			return Float16(sign | 0x7c00)
		}
		// Eigen's float_to_half_rtne maps every NaN to the quiet NaN
		// 0x7e00 with the input's sign.
		return Float16(sign | 0x7e00)
	case exp == 0 && mant == 0:
		return Float16(sign)
	}

	// Unbiased exponent; binary16 normals cover [-14, 15].
	e := exp - 127
	if exp == 0 { // float32 subnormal: far below binary16's range
		return Float16(sign)
	}
	if e > 15 {
		return Float16(sign | 0x7c00)
	}
	if e >= -14 {
		// Normal: keep 10 mantissa bits, round the dropped 13.
		h := uint32(e+15)<<10 | mant>>13
		rem := mant & 0x1fff
		if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
			h++ // may carry into the exponent, up to Inf: correct
		}
		return Float16(sign | uint16(h))
	}
	// Subnormal binary16: value = m * 2^-24 with m < 1024.
	// The full significand (with implicit 1) is 24 bits: 1.mant * 2^e.
	shift := uint32(-14-e) + 13 // bits to drop from the 24-bit significand
	if shift > 24 {
		return Float16(sign) // below half the smallest subnormal
	}
	sig := mant | 0x800000
	h := sig >> shift
	rem := sig & (1<<shift - 1)
	half := uint32(1) << (shift - 1)
	if rem > half || (rem == half && h&1 == 1) {
		h++ // may become the smallest normal: correct
	}
	return Float16(sign | uint16(h))
}

// Float32 returns h exactly as a float32 (every binary16 value is
// representable): a normal (exponent field 1 to 30) rebiased, the rest by
// float32Of.
func (h Float16) Float32() float32 {
	if e := h >> 10 & 0x1f; e-1 < 30 {
		return math.Float32frombits(uint32(h&0x8000)<<16 | (uint32(h&0x7fff)+112<<10)<<13)
	}
	return h.float32Of()
}

// float32Of is Float32 for every h, step by step.
func (h Float16) float32Of() float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0:
		if mant == 0 {
			return math.Float32frombits(sign)
		}
		// Subnormal: normalise.
		e := uint32(127 - 15 + 1)
		for mant&0x400 == 0 {
			mant <<= 1
			e--
		}
		mant &= 0x3ff
		return math.Float32frombits(sign | e<<23 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// Float64 returns h as a float64.
func (h Float16) Float64() float64 { return float64(h.Float32()) }

// IsNaN reports whether h is a NaN.
func (h Float16) IsNaN() bool { return h&0x7c00 == 0x7c00 && h&0x3ff != 0 }

// BFloat16FromFloat32 rounds f to the nearest bfloat16, ties to even. NaN
// becomes a quiet NaN with f's sign (0x7fc0 / 0xffc0), as Eigen's
// float_to_bfloat16_rtne does; overflow rounds to ±Inf.
func BFloat16FromFloat32(f float32) BFloat16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 { // NaN
		return BFloat16(uint16(b>>16)&0x8000 | 0x7fc0)
	}
	lsb := (b >> 16) & 1
	b += 0x7fff + lsb
	return BFloat16(b >> 16)
}

// BFloat16TruncFromFloat32 drops the low 16 bits of f (round toward zero), the
// conversion some accelerators use; NaN is kept a NaN.
func BFloat16TruncFromFloat32(f float32) BFloat16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return BFloat16(uint16(b>>16)&0x8000 | 0x7fc0)
	}
	return BFloat16(b >> 16)
}

// Float32 returns b exactly as a float32.
func (b BFloat16) Float32() float32 { return math.Float32frombits(uint32(b) << 16) }

// Float64 returns b as a float64.
func (b BFloat16) Float64() float64 { return float64(b.Float32()) }

// RoundFloat16 rounds f to binary16 precision and back: the value a float32
// takes after a round trip through DT_HALF storage. A float16 kernel rounds
// every product and partial sum so (matMulStorage), and most of them are
// binary16 normals, rounded here in place (roundNormal16) without the trip
// through binary16; a carry past its largest exponent is Inf, as there.
func RoundFloat16(f float32) float32 {
	if r, ok := roundNormal16(math.Float32bits(f)); ok {
		if r>>23&0xff > 142 {
			r = r&0x80000000 | 0x7f800000
		}
		return math.Float32frombits(r)
	}
	return Float16FromFloat32(f).Float32()
}

// RoundBFloat16 rounds f to bfloat16 precision and back.
func RoundBFloat16(f float32) float32 { return BFloat16FromFloat32(f).Float32() }
