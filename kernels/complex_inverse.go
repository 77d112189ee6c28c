package kernels

import (
	"math"
	"sort"
)

// The inverse trigonometric and hyperbolic functions of complex values as
// TensorFlow's CPU kernels compute them: Eigen's scalar functors call
// std::asin, std::acosh, ... of std::complex, which libstdc++ hands to
// glibc's casinf/casin, cacoshf/cacosh, ... Those follow C99 Annex G for
// infinite, NaN and zero parts and evaluate finite values by region
// (glibc math/s_casinh_template.c, k_casinh_template.c, s_casin_template.c,
// s_cacos_template.c, s_cacosh_template.c, s_catan_template.c,
// s_catanh_template.c, with s_clog_template.c, s_csqrt_template.c and
// x2y2m1.c), so that huge parts take log(2|z|) instead of overflowing and
// tiny parts beside unit ones are not lost. They are written here step for
// step on the parts in the part's type (complex64 in float32, as glibc's
// float template is), with Go's libm functions rounded to the part's type
// for glibc's logf, log1pf, atan2f.

// glibc's fpclassify classes, in glibc's order (NaN < Inf < zero <
// subnormal < normal), so that "c <= fpInf" is "not finite" and
// "c >= fpZero" is "finite".
const (
	fpNaN = iota
	fpInf
	fpZero
	fpSubnormal
	fpNormal
)

func fpclass[F part](v F) int {
	switch {
	case v != v:
		return fpNaN
	case isInfF(v):
		return fpInf
	case v == 0:
		return fpZero
	}
	if _, is32 := any(v).(float32); is32 {
		if fabs(v) < 0x1p-126 {
			return fpSubnormal
		}
	} else if fabs(v) < 0x1p-1022 {
		return fpSubnormal
	}
	return fpNormal
}

// partLimits are the <float.h> constants of the part's type: epsilon, the
// largest finite value, the smallest normal one and the mantissa digits.
func partLimits[F part]() (eps, maxv, minv F, mant int) {
	var z F
	if _, is32 := any(z).(float32); is32 {
		return F(0x1p-23), F(math.MaxFloat32), F(0x1p-126), 24
	}
	maxf := math.MaxFloat64
	return F(0x1p-52), F(maxf), F(0x1p-1022), 53
}

func logP[F part](v F) F           { return F(math.Log(float64(v))) }
func log1pP[F part](v F) F         { return F(math.Log1p(float64(v))) }
func atan2P[F part](y, x F) F      { return F(math.Atan2(float64(y), float64(x))) }
func copysignP[F part](m, s F) F   { return F(math.Copysign(float64(m), float64(s))) }
func scalbnP[F part](v F, n int) F { return F(math.Ldexp(float64(v), n)) }
func signbitP[F part](v F) bool    { return math.Signbit(float64(v)) }

// x2y2m1 is glibc's __x2y2m1f (in double, rounded once) and __x2y2m1
// (the exact squares' parts summed with Dekker's algorithm): x² + y² - 1
// without cancellation, for 1 > x >= y and x² + y² >= 0.5.
func x2y2m1[F part](x, y F) F {
	if _, is32 := any(x).(float32); is32 {
		dx, dy := float64(x), float64(y)
		return F(float64((dx-1)*(dx+1)) + float64(dy*dy))
	}
	xd, yd := float64(x), float64(y)
	var vals [5]float64
	vals[1] = xd * xd
	vals[0] = math.FMA(xd, xd, -vals[1])
	vals[3] = yd * yd
	vals[2] = math.FMA(yd, yd, -vals[3])
	vals[4] = -1
	byAbs := func(s []float64) { sort.SliceStable(s, func(i, j int) bool { return math.Abs(s[i]) < math.Abs(s[j]) }) }
	byAbs(vals[:])
	for i := 0; i <= 3; i++ {
		a, b := vals[i+1], vals[i]
		hi := a + b
		vals[i+1], vals[i] = hi, (a-hi)+b
		byAbs(vals[i+1:])
	}
	return F(vals[4] + vals[3] + vals[2] + vals[1] + vals[0])
}

// clogGlibc is glibc's clog: log|z| by region (log1p near |z| = 1, scaled
// for huge and tiny parts) and atan2 for the argument.
func clogGlibc[F part](x, y F) (F, F) {
	eps, maxv, minv, mant := partLimits[F]()
	rc, ic := fpclass(x), fpclass(y)
	nan := F(math.NaN())
	switch {
	case rc == fpZero && ic == fpZero:
		im := F(0)
		if signbitP(x) {
			im = F(math.Pi)
		}
		return -1 / fabs(x), copysignP(im, y)
	case rc == fpNaN || ic == fpNaN:
		if rc == fpInf || ic == fpInf {
			return F(math.Inf(1)), nan
		}
		return nan, nan
	}
	absx, absy := fabs(x), fabs(y)
	if absx < absy {
		absx, absy = absy, absx
	}
	scale := 0
	if absx > maxv/2 {
		scale = -1
		absx = scalbnP(absx, scale)
		if absy >= minv*2 {
			absy = scalbnP(absy, scale)
		} else {
			absy = 0
		}
	} else if absx < minv && absy < minv {
		scale = mant
		absx, absy = scalbnP(absx, scale), scalbnP(absy, scale)
	}
	var re F
	switch {
	case absx == 1 && scale == 0:
		re = log1pP(F(absy*absy)) / 2
	case absx > 1 && absx < 2 && absy < 1 && scale == 0:
		d2m1 := F(F(absx-1) * F(absx+1))
		if absy >= eps {
			d2m1 += F(absy * absy)
		}
		re = log1pP(d2m1) / 2
	case absx < 1 && absx >= 0.5 && absy < eps/2 && scale == 0:
		re = log1pP(F(F(absx-1)*F(absx+1))) / 2
	case absx < 1 && absx >= 0.5 && scale == 0 && F(absx*absx)+F(absy*absy) >= 0.5:
		re = log1pP(x2y2m1(absx, absy)) / 2
	default:
		re = logP(hypotF(absx, absy)) - F(F(scale)*F(math.Ln2))
	}
	return re, atan2P(y, x)
}

// csqrtGlibc is glibc's csqrt.
func csqrtGlibc[F part](x, y F) (F, F) {
	_, maxv, minv, mant := partLimits[F]()
	rc, ic := fpclass(x), fpclass(y)
	inf, nan := F(math.Inf(1)), F(math.NaN())
	if rc <= fpInf || ic <= fpInf {
		switch {
		case ic == fpInf:
			return inf, y
		case rc == fpInf:
			if x < 0 {
				if ic == fpNaN {
					return nan, copysignP(inf, y)
				}
				return 0, copysignP(inf, y)
			}
			if ic == fpNaN {
				return x, nan
			}
			return x, copysignP(0, y)
		}
		return nan, nan
	}
	if ic == fpZero {
		if x < 0 {
			return 0, copysignP(sqrtF(-x), y)
		}
		return fabs(sqrtF(x)), copysignP(0, y)
	}
	if rc == fpZero {
		var r F
		if fabs(y) >= 2*minv {
			r = sqrtF(F(0.5 * fabs(y)))
		} else {
			r = 0.5 * sqrtF(F(2*fabs(y)))
		}
		return r, copysignP(r, y)
	}
	scale := 0
	switch {
	case fabs(x) > maxv/4:
		scale = 1
		x, y = scalbnP(x, -2*scale), scalbnP(y, -2*scale)
	case fabs(y) > maxv/4:
		scale = 1
		if fabs(x) >= 4*minv {
			x = scalbnP(x, -2*scale)
		} else {
			x = 0
		}
		y = scalbnP(y, -2*scale)
	case fabs(x) < 2*minv && fabs(y) < 2*minv:
		scale = -((mant + 1) / 2)
		x, y = scalbnP(x, -2*scale), scalbnP(y, -2*scale)
	}
	d := hypotF(x, y)
	var r, s F
	if x > 0 {
		r = sqrtF(F(0.5 * F(d+x)))
		if scale == 1 && fabs(y) < 1 {
			s = y / r
			r = scalbnP(r, scale)
			scale = 0
		} else {
			s = F(0.5 * (y / r))
		}
	} else {
		s = sqrtF(F(0.5 * F(d-x)))
		if scale == 1 && fabs(y) < 1 {
			r = fabs(y / s)
			s = scalbnP(s, scale)
			scale = 0
		} else {
			r = fabs(F(0.5 * (y / s)))
		}
	}
	if scale != 0 {
		r, s = scalbnP(r, scale), scalbnP(s, scale)
	}
	return r, copysignP(s, y)
}

// kernelCasinh is glibc's __kernel_casinh: asinh of a finite nonzero z,
// by region, with the imaginary part subtracted from π/2 when adj is set
// (for cacos and cacosh).
func kernelCasinh[F part](x, y F, adj bool) (F, F) {
	eps, _, _, _ := partLimits[F]()
	rx, ix := fabs(x), fabs(y)
	var re, im F
	switch {
	case rx >= 1/eps || ix >= 1/eps:
		// x + sqrt(1 + x²) is 2x to the part's precision: log(2|z|).
		yr, yi := rx, ix
		if adj {
			yr, yi = copysignP(yi, y), yr
		}
		re, im = clogGlibc(yr, yi)
		re += F(math.Ln2)
	case rx >= 0.5 && ix < eps/8:
		s := hypotF(1, rx)
		re = logP(rx + s)
		if adj {
			im = atan2P(s, y)
		} else {
			im = atan2P(ix, s)
		}
	case rx < eps/8 && ix >= 1.5:
		s := sqrtF(F(F(ix+1) * F(ix-1)))
		re = logP(ix + s)
		if adj {
			im = atan2P(rx, copysignP(s, y))
		} else {
			im = atan2P(s, rx)
		}
	case ix > 1 && ix < 1.5 && rx < 0.5:
		if rx < eps*eps {
			ix2m1 := F(F(ix+1) * F(ix-1))
			s := sqrtF(ix2m1)
			re = log1pP(F(2*F(ix2m1+F(ix*s)))) / 2
			if adj {
				im = atan2P(rx, copysignP(s, y))
			} else {
				im = atan2P(s, rx)
			}
		} else {
			ix2m1 := F(F(ix+1) * F(ix-1))
			rx2 := F(rx * rx)
			f := F(rx2 * F(F(2+rx2)+F(F(2*ix)*ix)))
			d := sqrtF(F(ix2m1*ix2m1) + f)
			dp := d + ix2m1
			dm := f / dp
			r1 := sqrtF(F(dm+rx2) / 2)
			r2 := F(rx*ix) / r1
			re = log1pP(F(rx2+dp)+F(2*F(F(rx*r1)+F(ix*r2)))) / 2
			if adj {
				im = atan2P(rx+r1, copysignP(ix+r2, y))
			} else {
				im = atan2P(ix+r2, rx+r1)
			}
		}
	case ix == 1 && rx < 0.5:
		if rx < eps/8 {
			re = log1pP(F(2*F(rx+sqrtF(rx)))) / 2
			if adj {
				im = atan2P(sqrtF(rx), copysignP(1, y))
			} else {
				im = atan2P(1, sqrtF(rx))
			}
		} else {
			d := F(rx * sqrtF(F(4+F(rx*rx))))
			s1 := sqrtF(F(d+F(rx*rx)) / 2)
			s2 := sqrtF(F(d-F(rx*rx)) / 2)
			re = log1pP(F(F(rx*rx)+d)+F(2*F(F(rx*s1)+s2))) / 2
			if adj {
				im = atan2P(rx+s1, copysignP(1+s2, y))
			} else {
				im = atan2P(1+s2, rx+s1)
			}
		}
	case ix < 1 && rx < 0.5:
		switch {
		case ix >= eps && rx < eps*eps:
			onemix2 := F(F(1+ix) * F(1-ix))
			s := sqrtF(onemix2)
			re = log1pP(F(2*rx)/s) / 2
			if adj {
				im = atan2P(s, y)
			} else {
				im = atan2P(ix, s)
			}
		case ix >= eps:
			onemix2 := F(F(1+ix) * F(1-ix))
			rx2 := F(rx * rx)
			f := F(rx2 * F(F(2+rx2)+F(F(2*ix)*ix)))
			d := sqrtF(F(onemix2*onemix2) + f)
			dp := d + onemix2
			dm := f / dp
			r1 := sqrtF(F(dp+rx2) / 2)
			r2 := F(rx*ix) / r1
			re = log1pP(F(rx2+dm)+F(2*F(F(rx*r1)+F(ix*r2)))) / 2
			if adj {
				im = atan2P(rx+r1, copysignP(ix+r2, y))
			} else {
				im = atan2P(ix+r2, rx+r1)
			}
		default:
			s := hypotF(1, rx)
			re = log1pP(F(F(2*rx)*F(rx+s))) / 2
			if adj {
				im = atan2P(s, y)
			} else {
				im = atan2P(ix, s)
			}
		}
	default:
		wr, wi := csqrtGlibc(F(F(rx-ix)*F(rx+ix))+1, F(F(2*rx)*ix))
		wr += rx
		wi += ix
		if adj {
			wr, wi = copysignP(wi, y), wr
		}
		re, im = clogGlibc(wr, wi)
	}
	re = copysignP(re, x)
	if adj {
		im = copysignP(im, 1)
	} else {
		im = copysignP(im, y)
	}
	return re, im
}

// casinhGlibc is glibc's casinh.
func casinhGlibc[F part](x, y F) (F, F) {
	rc, ic := fpclass(x), fpclass(y)
	inf, nan := F(math.Inf(1)), F(math.NaN())
	if rc <= fpInf || ic <= fpInf {
		switch {
		case ic == fpInf:
			if rc == fpNaN {
				return copysignP(inf, x), nan
			}
			if rc >= fpZero {
				return copysignP(inf, x), copysignP(F(math.Pi/2), y)
			}
			return copysignP(inf, x), copysignP(F(math.Pi/4), y)
		case rc <= fpInf:
			if (rc == fpInf && ic >= fpZero) || (rc == fpNaN && ic == fpZero) {
				return x, copysignP(0, y)
			}
			return x, nan
		}
		return nan, nan
	}
	if rc == fpZero && ic == fpZero {
		return x, y
	}
	return kernelCasinh(x, y, false)
}

// casinGlibc is glibc's casin: -i·casinh(iz).
func casinGlibc[F part](x, y F) (F, F) {
	nan := F(math.NaN())
	if x != x || y != y {
		switch {
		case x == 0:
			return x, y
		case isInfF(x) || isInfF(y):
			return nan, copysignP(F(math.Inf(1)), y)
		}
		return nan, nan
	}
	r, i := casinhGlibc(-y, x)
	return i, -r
}

// cacosGlibc is glibc's cacos: π/2 - casin(z) on special values, the
// adjusted casinh kernel on the others.
func cacosGlibc[F part](x, y F) (F, F) {
	rc, ic := fpclass(x), fpclass(y)
	if rc <= fpInf || ic <= fpInf || (rc == fpZero && ic == fpZero) {
		r, i := casinGlibc(x, y)
		re := F(math.Pi/2) - r
		if re == 0 {
			re = 0
		}
		return re, -i
	}
	r, i := kernelCasinh(-y, x, true)
	return i, r
}

// cacoshGlibc is glibc's cacosh.
func cacoshGlibc[F part](x, y F) (F, F) {
	rc, ic := fpclass(x), fpclass(y)
	inf, nan := F(math.Inf(1)), F(math.NaN())
	if rc <= fpInf || ic <= fpInf {
		switch {
		case ic == fpInf:
			switch {
			case rc == fpNaN:
				return inf, nan
			case rc == fpInf && x < 0:
				return inf, copysignP(F(math.Pi)-F(math.Pi/4), y)
			case rc == fpInf:
				return inf, copysignP(F(math.Pi/4), y)
			}
			return inf, copysignP(F(math.Pi/2), y)
		case rc == fpInf:
			if ic >= fpZero {
				v := F(0)
				if signbitP(x) {
					v = F(math.Pi)
				}
				return inf, copysignP(v, y)
			}
			return inf, nan
		case rc == fpZero:
			return nan, F(math.Pi / 2)
		}
		return nan, nan
	}
	if rc == fpZero && ic == fpZero {
		return 0, copysignP(F(math.Pi/2), y)
	}
	r, i := kernelCasinh(-y, x, true)
	if signbitP(y) {
		return r, -i
	}
	return -r, i
}

// catanGlibc is glibc's catan.
func catanGlibc[F part](x, y F) (F, F) {
	eps, _, _, _ := partLimits[F]()
	rc, ic := fpclass(x), fpclass(y)
	nan := F(math.NaN())
	if rc <= fpInf || ic <= fpInf {
		switch {
		case rc == fpInf:
			return copysignP(F(math.Pi/2), x), copysignP(0, y)
		case ic == fpInf:
			if rc >= fpZero {
				return copysignP(F(math.Pi/2), x), copysignP(0, y)
			}
			return nan, copysignP(0, y)
		case ic == fpZero:
			return nan, copysignP(0, y)
		}
		return nan, nan
	}
	if rc == fpZero && ic == fpZero {
		return x, y
	}
	var re, im F
	if fabs(x) >= 16/eps || fabs(y) >= 16/eps {
		re = copysignP(F(math.Pi/2), x)
		switch {
		case fabs(x) <= 1:
			im = 1 / y
		case fabs(y) <= 1:
			im = y / x / x
		default:
			h := hypotF(x/2, y/2)
			im = y / h / h / 4
		}
		return re, im
	}
	re = F(0.5 * atan2P(F(2*x), atanDen(x, y)))
	if fabs(y) == 1 && fabs(x) < eps*eps {
		im = F(copysignP(0.5, y) * F(F(math.Ln2)-logP(fabs(x))))
	} else {
		r2 := F(0)
		if fabs(x) >= eps*eps {
			r2 = F(x * x)
		}
		num := y + 1
		num = r2 + F(num*num)
		den := y - 1
		den = r2 + F(den*den)
		if f := num / den; f < 0.5 {
			im = F(0.25 * logP(f))
		} else {
			im = F(0.25 * log1pP(F(4*y)/den))
		}
	}
	return re, im
}

// atanDen is the denominator 1 - |z|² that catan and catanh share,
// computed without cancellation.
func atanDen[F part](x, y F) F {
	eps, _, _, _ := partLimits[F]()
	absx, absy := fabs(x), fabs(y)
	if absx < absy {
		absx, absy = absy, absx
	}
	switch {
	case absy < eps/2:
		den := F(F(1-absx) * F(1+absx))
		if den == 0 {
			den = 0
		}
		return den
	case absx >= 1:
		return F(F(1-absx)*F(1+absx)) - F(absy*absy)
	case absx >= 0.75 || absy >= 0.5:
		return -x2y2m1(absx, absy)
	}
	return F(F(1-absx)*F(1+absx)) - F(absy*absy)
}

// catanhGlibc is glibc's catanh.
func catanhGlibc[F part](x, y F) (F, F) {
	eps, _, _, _ := partLimits[F]()
	rc, ic := fpclass(x), fpclass(y)
	nan := F(math.NaN())
	if rc <= fpInf || ic <= fpInf {
		switch {
		case ic == fpInf:
			return copysignP(0, x), copysignP(F(math.Pi/2), y)
		case rc == fpInf || rc == fpZero:
			if ic >= fpZero {
				return copysignP(0, x), copysignP(F(math.Pi/2), y)
			}
			return copysignP(0, x), nan
		}
		return nan, nan
	}
	if rc == fpZero && ic == fpZero {
		return x, y
	}
	var re, im F
	if fabs(x) >= 16/eps || fabs(y) >= 16/eps {
		im = copysignP(F(math.Pi/2), y)
		switch {
		case fabs(y) <= 1:
			re = 1 / x
		case fabs(x) <= 1:
			re = x / y / y
		default:
			h := hypotF(x/2, y/2)
			re = x / h / h / 4
		}
		return re, im
	}
	if fabs(x) == 1 && fabs(y) < eps*eps {
		re = F(copysignP(0.5, x) * F(F(math.Ln2)-logP(fabs(y))))
	} else {
		i2 := F(0)
		if fabs(y) >= eps*eps {
			i2 = F(y * y)
		}
		num := 1 + x
		num = i2 + F(num*num)
		den := 1 - x
		den = i2 + F(den*den)
		if f := num / den; f < 0.5 {
			re = F(0.25 * logP(f))
		} else {
			re = F(0.25 * log1pP(F(4*x)/den))
		}
	}
	im = F(0.5 * atan2P(F(2*y), atanDen(x, y)))
	return re, im
}
