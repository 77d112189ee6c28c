package kernels

import "math"

// glibc's csinh, ccosh and ctanh (sysdeps/ieee754/s_csinh_template.c,
// s_ccosh_template.c, s_ctanh_template.c) step for step: the real
// functions of the part's type (Go's, evaluated in float64 and rounded for
// complex64), the overflow scaling for a large real part, and C99 Annex
// G's special values. csin, ccos and ctan are the same functions of iz
// (s_ccos_template.c is ccosh(iz); csin and ctan mirror csinh and ctanh).

// limits returns the part type's overflow threshold t ((MAX_EXP-1)·ln 2),
// its largest finite value, its smallest normal and its epsilon.
func limits[F part]() (t, maxF, minNormal, eps float64) {
	var z F
	if _, is32 := any(z).(float32); is32 {
		return 88, math.MaxFloat32, 0x1p-126, 0x1p-23
	}
	return 709, math.MaxFloat64, 0x1p-1022, 0x1p-52
}

func finiteF[F part](v F) bool { return v == v && !isInfF(v) }

func copysignF[F part](m, s F) F { return F(math.Copysign(float64(m), float64(s))) }

func realFn[F part](f func(float64) float64, v F) F { return F(f(float64(v))) }

// sincosMin is glibc's sincos of a part, (v, 1) for |v| at most the
// smallest normal.
func sincosMin[F part](v F) (s, c F) {
	_, _, minNormal, _ := limits[F]()
	if float64(fabs(v)) > minNormal {
		return realFn(math.Sin, v), realFn(math.Cos, v)
	}
	return v, 1
}

// scaleExp is the shared overflow branch of csinh and ccosh: |x| > t,
// returns exp(|x|)/2 times (cosix, sinix) without overflowing early.
func scaleExp[F part](rx, sinix, cosix F) (F, F) {
	t, maxF, _, _ := limits[F]()
	expT := F(math.Exp(t))
	rx -= F(t)
	sinix *= expT / 2
	cosix *= expT / 2
	if float64(rx) > t {
		rx -= F(t)
		sinix *= expT
		cosix *= expT
	}
	if float64(rx) > t {
		return F(maxF) * cosix, F(maxF) * sinix
	}
	ev := realFn(math.Exp, rx)
	return ev * cosix, ev * sinix
}

func csinhGlibc[F part](x, y F) (F, F) {
	inf, nan := F(math.Inf(1)), F(math.NaN())
	negate := math.Signbit(float64(x))
	rx := fabs(x)
	switch {
	case finiteF(x):
		if !finiteF(y) {
			if x == 0 {
				if negate {
					return F(math.Copysign(0, -1)), y - y
				}
				return 0, y - y
			}
			return nan, nan
		}
		t, _, _, _ := limits[F]()
		sinix, cosix := sincosMin(y)
		if negate {
			cosix = -cosix
		}
		if float64(rx) > t {
			return scaleExp(rx, sinix, cosix)
		}
		_, _, minNormal, _ := limits[F]()
		if float64(rx) > minNormal {
			return realFn(math.Sinh, rx) * cosix, realFn(math.Cosh, rx) * sinix
		}
		return rx * cosix, sinix // sinh(x) = x, cosh(x) = 1 for a tiny x
	case isInfF(x):
		switch {
		case finiteF(y) && y != 0:
			sinix, cosix := sincosMin(y)
			re, im := copysignF(inf, cosix), copysignF(inf, sinix)
			if negate {
				re = -re
			}
			return re, im
		case y == 0:
			if negate {
				return -inf, y
			}
			return inf, y
		}
		return inf, y - y
	}
	if y == 0 {
		return nan, y
	}
	return nan, nan
}

func ccoshGlibc[F part](x, y F) (F, F) {
	inf, nan := F(math.Inf(1)), F(math.NaN())
	switch {
	case finiteF(x):
		if !finiteF(y) {
			if x == 0 {
				return y - y, 0
			}
			return y - y, nan
		}
		t, _, minNormal, _ := limits[F]()
		sinix, cosix := sincosMin(y)
		if float64(fabs(x)) > t {
			if math.Signbit(float64(x)) {
				sinix = -sinix
			}
			return scaleExp(fabs(x), sinix, cosix)
		}
		if float64(fabs(x)) > minNormal {
			return realFn(math.Cosh, x) * cosix, realFn(math.Sinh, x) * sinix
		}
		return cosix, x * sinix
	case isInfF(x):
		switch {
		case finiteF(y) && y != 0:
			sinix, cosix := sincosMin(y)
			return copysignF(inf, cosix), copysignF(inf, sinix) * copysignF(1, x)
		case y == 0:
			return inf, y * copysignF(1, x)
		}
		return inf, y - y
	}
	if y == 0 {
		return nan, y
	}
	return nan, nan
}

func ctanhGlibc[F part](x, y F) (F, F) {
	nan := F(math.NaN())
	if !finiteF(x) || !finiteF(y) {
		switch {
		case isInfF(x):
			if finiteF(y) && fabs(y) > 1 {
				s, c := sincosMin(y)
				return copysignF(1, x), copysignF(0, s*c)
			}
			return copysignF(1, x), copysignF(0, y)
		case y == 0:
			return x, y
		case x == 0:
			return x, y - y
		}
		return nan, nan
	}
	t2, _, minNormal, eps := limits[F]()
	t := math.Floor(t2 / 2)
	sinix, cosix := sincosMin(y)
	if float64(fabs(x)) > t {
		exp2t := F(math.Exp(2 * t))
		re := copysignF(1, x)
		im := F(4*sinix) * cosix
		rx := fabs(x) - F(t)
		im /= exp2t
		if float64(rx) > t {
			im /= exp2t
		} else {
			im /= realFn(math.Exp, F(2*rx))
		}
		return re, im
	}
	sinhrx, coshrx := x, F(1)
	if float64(fabs(x)) > minNormal {
		sinhrx, coshrx = realFn(math.Sinh, x), realFn(math.Cosh, x)
	}
	var den F
	if float64(fabs(sinhrx)) > float64(fabs(cosix))*eps {
		den = F(sinhrx*sinhrx) + F(cosix*cosix)
	} else {
		den = cosix * cosix
	}
	return F(sinhrx*coshrx) / den, F(sinix*cosix) / den
}

// csin(z) = -i·csinh(iz), ccos(z) = ccosh(iz), ctan(z) = -i·ctanh(iz),
// with iz = (-y, x).
func csinGlibc[F part](x, y F) (F, F) {
	u, v := csinhGlibc(-y, x)
	return v, -u
}

func ccosGlibc[F part](x, y F) (F, F) { return ccoshGlibc(-y, x) }

func ctanGlibc[F part](x, y F) (F, F) {
	u, v := ctanhGlibc(-y, x)
	return v, -u
}
