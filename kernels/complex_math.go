package kernels

import (
	"math"
)

// Complex elementary functions as TensorFlow's CPU kernels compute them.
// Eigen has packet code for complex Sqrt and Sign only
// (GenericPacketMathFunctions.h psqrt_complex, psign_impl); every other
// function runs Eigen's scalar functor on each element: Eigen's own
// formulas for Log (complex_log: log|z| + i·atan2), Log1p, Expm1 and Rsqrt
// (MathFunctions.h, MathFunctionsImpl.h), which are written here step for
// step on the parts, and libstdc++'s std::exp, std::sin, ... for the rest,
// which call glibc's cexp, csin, casin, ... (C99 Annex G special values).
// Those are glibc's algorithms written step for step on the parts in the
// part's type (here, complex_hyperbolic.go and complex_inverse.go) over
// Go's real log, sin, ...: held to TensorFlow's with a tolerance
// (internal/tfgolden/rules.go).

// hypotF is glibc's hypotf (computed in double, rounded once) and hypot:
// |z| as std::abs(std::complex) gives it (cabs).
func hypotF[F part](x, y F) F {
	if _, is32 := any(x).(float32); is32 {
		xd, yd := float64(x), float64(y)
		if math.IsInf(xd, 0) || math.IsInf(yd, 0) {
			return F(math.Inf(1))
		}
		return F(math.Sqrt(xd*xd + yd*yd))
	}
	return F(hypotGlibc(float64(x), float64(y)))
}

// hypotGlibc is glibc's hypot (sysdeps/ieee754/dbl-64/e_hypot.c, 2.35 and
// later, without FMA): sqrt(ax² + ay²) corrected by one Newton step on the
// rounding error, with scaling for huge and tiny inputs; Go's math.Hypot
// is a different formula, 1 ULP off on some inputs, which log|z| turns
// into many ULPs where |z| is near 1.
func hypotGlibc(x, y float64) float64 {
	if math.IsInf(x, 0) || math.IsInf(y, 0) {
		return math.Inf(1)
	}
	if x != x || y != y {
		return x + y
	}
	const scale, large, tiny, eps = 0x1p-600, 0x1p+511, 0x1p-511, 0x1p-54
	x, y = math.Abs(x), math.Abs(y)
	ax, ay := max(x, y), min(x, y)
	if ax > large {
		if ay <= ax*eps {
			return ax + ay
		}
		return hypotKernel(ax*scale, ay*scale) / scale
	}
	if ay < tiny {
		if ax >= ay/eps {
			return ax + ay
		}
		return hypotKernel(ax/scale, ay/scale) * scale
	}
	if ay <= ax*eps {
		return ax + ay
	}
	return hypotKernel(ax, ay)
}

func hypotKernel(ax, ay float64) float64 {
	h := math.Sqrt(float64(ax*ax) + float64(ay*ay))
	var t1, t2 float64
	if h <= 2*ay {
		delta := h - ay
		t1 = ax * (float64(2*delta) - ax)
		t2 = float64(delta-float64(2*(ax-ay))) * delta
	} else {
		delta := h - ax
		t1 = float64(2*delta) * (ax - float64(2*ay))
		t2 = float64(float64(4*delta-ay)*ay) + float64(delta*delta)
	}
	return h - (t1+t2)/float64(2*h)
}

func isInfF[F part](v F) bool { return math.IsInf(float64(v), 0) }

func fabs[F part](v F) F { return F(math.Abs(float64(v))) }

func sqrtF[F part](v F) F { return F(math.Sqrt(float64(v))) }

// eigenHypot is Eigen's positive_real_hypot (MathFunctionsImpl.h), which
// numext::hypot uses: max · sqrt(1 + (min/max)²).
func eigenHypot[F part](x, y F) F {
	x, y = fabs(x), fabs(y)
	if isInfF(x) || isInfF(y) {
		return F(math.Inf(1))
	}
	if x != x || y != y {
		return F(math.NaN())
	}
	p, q := max(x, y), min(x, y)
	if p == 0 {
		return 0
	}
	qp := q / p
	return p * sqrtF(1+F(qp*qp))
}

// pminLane is Eigen's pmin(a, b) (_mm256_min_ps(b, a)): a when either is
// NaN.
func pminLane[F part](a, b F) F {
	if a != a || b != b {
		return a
	}
	if b < a {
		return b
	}
	return a
}

// packetAbs is the stable |z| of psqrt_complex and psign_impl, per lane:
// max·sqrt(1 + (min/max)²), max itself where min is zero.
func packetAbs[F part](x, y F) F {
	ax, ay := fabs(x), fabs(y)
	mx, mn := pmaxLane(ax, ay), pminLane(ax, ay)
	if mn == 0 {
		return mx
	}
	r := mn / mx
	return mx * sqrtF(1+F(r*r))
}

// signPacket is psign_impl for complex packets: z / |z|, zero where
// max(|x|, |y|) is zero. The lanes of a value see their parts in swapped
// order, so a NaN part picks each lane's own max and min.
func signPacket[F part](x, y F) (F, F) {
	ax, ay := fabs(x), fabs(y)
	l0, l1 := packetAbs(x, y), packetAbs(y, x)
	re, im := x/l0, y/l1
	if pmaxLane(ax, ay) == 0 {
		re = 0
	}
	if pmaxLane(ay, ax) == 0 {
		im = 0
	}
	return re, im
}

// signScalar is sign_impl<complex> (MathFunctions.h): 1/|z| times each
// part, |z| from cabs.
func signScalar[F part](x, y F) (F, F) {
	aa := hypotF(x, y)
	if aa == 0 {
		return 0, 0
	}
	aa = 1 / aa
	return x * aa, y * aa
}

// sqrtPacket is psqrt_complex (GenericPacketMathFunctions.h) on one value.
func sqrtPacket[F part](x, y F) (F, F) {
	ax, ay := fabs(x), fabs(y)
	inf := F(math.Inf(1))
	// l = |z| and rho = sqrt(0.5 (|x| + l)) in the real lane (the
	// imaginary lane's rho is not used).
	l0 := packetAbs(x, y)
	rho0 := sqrtF(F(0.5 * F(ax+l0)))
	// eta = 0.5 · z / flip(rho), zero where max is zero; the real lane's
	// eta is not used.
	eta1 := F(0.5 * (y / rho0))
	if pmaxLane(ay, ax) == 0 {
		eta1 = 0
	}
	// x >= 0: (rho, eta); x < 0: |flip| with y's sign on the imaginary part.
	re, im := rho0, eta1
	if x < 0 {
		re, im = fabs(eta1), F(math.Copysign(float64(fabs(rho0)), float64(y)))
	}
	// pisnan of a complex packet marks both parts of a value with a NaN
	// part, so the whole value becomes NaN.
	if re != re || im != im {
		re, im = F(math.NaN()), F(math.NaN())
	}
	switch {
	case ay == inf: // (x, ±inf) → (+inf, ±inf)
		return inf, y
	case ax == inf: // (+inf, 0·|y|), or (0·|y|, +inf) for x < 0
		if x < 0 {
			return F(ay * 0), inf
		}
		return inf, F(ay * 0)
	}
	return re, im
}

// sqrtScalar is Eigen's complex_sqrt (MathFunctionsImpl.h).
func sqrtScalar[F part](x, y F) (F, F) {
	w := sqrtF(F(0.5 * F(fabs(x)+eigenHypot(x, y))))
	switch {
	case isInfF(y):
		return F(math.Inf(1)), y
	case x == 0:
		if y < 0 {
			return w, -w
		}
		return w, w
	case x > 0:
		return w, y / F(2*w)
	}
	if y < 0 {
		return fabs(y) / F(2*w), -w
	}
	return fabs(y) / F(2*w), w
}

// rsqrtScalar is Eigen's complex_rsqrt (MathFunctionsImpl.h).
func rsqrtScalar[F part](x, y F) (F, F) {
	absZ := eigenHypot(x, y)
	w := sqrtF(F(0.5 * F(fabs(x)+absZ)))
	woz := w / absZ
	switch {
	case absZ == 0:
		return F(math.Inf(1)), F(math.NaN())
	case isInfF(x) || isInfF(y):
		return 0, 0
	case x == 0:
		if y < 0 {
			return woz, woz
		}
		return woz, -woz
	case x > 0:
		return woz, -y / F(F(2*w)*absZ)
	}
	if y < 0 {
		return fabs(y) / F(F(2*w)*absZ), woz
	}
	return fabs(y) / F(F(2*w)*absZ), -woz
}

// logEigen is Eigen's complex_log: log(cabs(z)) + i·atan2(y, x), each a
// libm call of the part's type.
func logEigen[F part](x, y F) (F, F) {
	return F(math.Log(float64(hypotF(x, y)))), F(math.Atan2(float64(y), float64(x)))
}

// cmulScalar is std::complex's operator* (GCC/Clang's complex multiply):
// the textbook product, with libgcc's __mulsc3 recovery when both parts
// come out NaN (C99 Annex G).
func cmulScalar[F part](a, b, c, d F) (F, F) {
	ac, bd, ad, bc := F(a*c), F(b*d), F(a*d), F(b*c)
	x, y := ac-bd, ad+bc
	if x == x || y == y {
		return x, y
	}
	recalc := false
	box := func(v F) F {
		if isInfF(v) {
			return F(math.Copysign(1, float64(v)))
		}
		return F(math.Copysign(0, float64(v)))
	}
	nanTo0 := func(v F) F {
		if v != v {
			return F(math.Copysign(0, float64(v)))
		}
		return v
	}
	if isInfF(a) || isInfF(b) {
		a, b = box(a), box(b)
		c, d = nanTo0(c), nanTo0(d)
		recalc = true
	}
	if isInfF(c) || isInfF(d) {
		c, d = box(c), box(d)
		a, b = nanTo0(a), nanTo0(b)
		recalc = true
	}
	if !recalc && (isInfF(ac) || isInfF(bd) || isInfF(ad) || isInfF(bc)) {
		a, b, c, d = nanTo0(a), nanTo0(b), nanTo0(c), nanTo0(d)
		recalc = true
	}
	if recalc {
		inf := F(math.Inf(1))
		x = inf * (F(a*c) - F(b*d))
		y = inf * (F(a*d) + F(b*c))
	}
	return x, y
}

// log1pEigen is Eigen's std_fallback::log1p for complex: x itself where
// 1 + x rounds to 1 or log(1 + x) equals 1 + x (an infinity), else
// x · (log(1 + x) / ((1 + x) - 1)) with std::complex arithmetic.
func log1pEigen[F part](x, y F) (F, F) {
	pr, pi := 1+x, F(0)+y
	lr, li := logEigen(pr, pi)
	if (pr == 1 && pi == 0) || (pr == lr && pi == li) {
		return x, y
	}
	qr, qi := cdivSmith(lr, li, pr-1, pi)
	return cmulScalar(x, y, qr, qi)
}

// expm1Eigen is Eigen's expm1_impl<complex> (MathFunctions.h).
func expm1Eigen[F part](x, y F) (F, F) {
	erm1 := F(math.Expm1(float64(x)))
	er := erm1 + 1
	s2 := F(math.Sin(float64(y / 2)))
	s2 = s2 * s2
	s := F(math.Sin(float64(y)))
	return erm1 - F(F(2*er)*s2), er * s
}

// cexpGlibc is glibc's cexp (s_cexp_template.c) with Go's exp, sin and cos.
func cexpGlibc[F part](x, y F) (F, F) {
	inf := F(math.Inf(1))
	nan := F(math.NaN())
	minNormal, maxF, t := 0x1p-1022, math.MaxFloat64, 709.0
	if _, is32 := any(x).(float32); is32 {
		minNormal, maxF, t = 0x1p-126, math.MaxFloat32, 88
	}
	sincos := func(v F) (F, F) {
		if float64(fabs(v)) > minNormal {
			return F(math.Sin(float64(v))), F(math.Cos(float64(v)))
		}
		return v, 1
	}
	finite := func(v F) bool { return v == v && !isInfF(v) }
	switch {
	case finite(x):
		if !finite(y) {
			return nan, nan
		}
		s, c := sincos(y)
		if float64(x) > t {
			et := F(math.Exp(t))
			x -= F(t)
			s, c = s*et, c*et
			if float64(x) > t {
				x -= F(t)
				s, c = s*et, c*et
			}
		}
		if float64(x) > t {
			return F(maxF) * c, F(maxF) * s
		}
		e := F(math.Exp(float64(x)))
		return e * c, e * s
	case isInfF(x):
		if finite(y) {
			value := inf
			if x < 0 {
				value = 0
			}
			if y == 0 {
				return value, y
			}
			s, c := sincos(y)
			return F(math.Copysign(float64(value), float64(c))), F(math.Copysign(float64(value), float64(s)))
		}
		if x > 0 {
			return inf, y - y
		}
		return 0, F(math.Copysign(0, float64(y)))
	}
	if y == 0 {
		return nan, y
	}
	return nan, nan
}

// sigmoidC is scalar_logistic_op's generic form on std::complex: e =
// exp(x), 1 where e equals NumTraits<complex>::infinity(), else
// e / (1 + e). std::numeric_limits has no complex specialisation, so that
// "infinity" is complex(0, 0): the result is 1 wherever exp(x) is zero
// (x = -inf + iy, or an underflow), and NaN for exp(x) = (+inf, 0).
func sigmoidC[F part](x, y F) (F, F) {
	er, ei := cexpGlibc(x, y)
	if er == 0 && ei == 0 {
		return 1, 0
	}
	return cdivSmith(er, ei, 1+er, F(0)+ei)
}

// xlogyC and xlog1pyC are xlogy_op and xlog1py_op's scalar operator()
// (cwise_ops.h; Eigen's complex log has no packet form): +0 where x is
// zero, else x times log(y) (log1p(y)) with std::complex's product. log(y)
// is flushed as TensorFlow's FTZ flushes it (ftz.go): atan2(1, FLT_MAX) is
// subnormal, and ±Inf times its zero is NaN there.
func xlogyC[F part](a, b, c, d F) (F, F) {
	if a == 0 && b == 0 {
		return 0, 0
	}
	lr, li := logEigen(c, d)
	return cmulScalar(a, b, ftz(lr), ftz(li))
}

func xlog1pyC[F part](a, b, c, d F) (F, F) {
	if a == 0 && b == 0 {
		return 0, 0
	}
	lr, li := log1pEigen(c, d)
	return cmulScalar(a, b, lr, li)
}

// powGlibc is std::pow of two std::complex values: libstdc++ calls glibc's
// cpow, which is cexp(y · clog(x)) with C's complex product, all in the
// part's precision (clog as glibc computes it, complex_inverse.go), with
// log(x) flushed as TensorFlow's FTZ flushes it (ftz.go).
func powGlibc[F part](a, b, c, d F) (F, F) {
	lr, li := clogGlibc(a, b)
	er, ei := cmulScalar(c, d, ftz(lr), ftz(li))
	return cexpGlibc(er, ei)
}

// unaryParts lifts a function on the parts to complex64 and complex128.
func unaryParts(f32 func(x, y float32) (float32, float32), f64 func(x, y float64) (float64, float64)) (func(complex64) complex64, func(complex128) complex128) {
	return func(z complex64) complex64 {
			r, i := f32(real(z), imag(z))
			return complex(r, i)
		}, func(z complex128) complex128 {
			r, i := f64(real(z), imag(z))
			return complex(r, i)
		}
}

// scalarOnly is a unary op Eigen runs with its scalar functor on every
// element.
func scalarOnly(f32 func(x, y float32) (float32, float32), f64 func(x, y float64) (float64, float64)) cUnaryFns {
	a, b := unaryParts(f32, f64)
	return cUnaryFns{c64: a, c128: b}
}

// packetAndScalar is a unary op with Eigen packet code: p on whole
// packets, s on the elements after them.
func packetAndScalar(p32 func(x, y float32) (float32, float32), p64 func(x, y float64) (float64, float64),
	s32 func(x, y float32) (float32, float32), s64 func(x, y float64) (float64, float64)) cUnaryFns {
	a, b := unaryParts(p32, p64)
	c, d := unaryParts(s32, s64)
	return cUnaryFns{c64: a, c128: b, t64: c, t128: d}
}

// complexMathUnary and complexMathBinary are this file's entries of
// complexUnary and complexBinary.
func complexMathUnary() map[string]cUnaryFns {
	return map[string]cUnaryFns{
		"Sign":    packetAndScalar(signPacket[float32], signPacket[float64], signScalar[float32], signScalar[float64]),
		"Sqrt":    packetAndScalar(sqrtPacket[float32], sqrtPacket[float64], sqrtScalar[float32], sqrtScalar[float64]),
		"Rsqrt":   scalarOnly(rsqrtScalar[float32], rsqrtScalar[float64]),
		"Log":     scalarOnly(logEigen[float32], logEigen[float64]),
		"Log1p":   scalarOnly(log1pEigen[float32], log1pEigen[float64]),
		"Expm1":   scalarOnly(expm1Eigen[float32], expm1Eigen[float64]),
		"Exp":     scalarOnly(cexpGlibc[float32], cexpGlibc[float64]),
		"Sigmoid": scalarOnly(sigmoidC[float32], sigmoidC[float64]),
		"Sin":     scalarOnly(csinGlibc[float32], csinGlibc[float64]),
		"Cos":     scalarOnly(ccosGlibc[float32], ccosGlibc[float64]),
		"Tan":     scalarOnly(ctanGlibc[float32], ctanGlibc[float64]),
		"Asin":    scalarOnly(casinGlibc[float32], casinGlibc[float64]),
		"Acos":    scalarOnly(cacosGlibc[float32], cacosGlibc[float64]),
		"Atan":    scalarOnly(catanGlibc[float32], catanGlibc[float64]),
		"Sinh":    scalarOnly(csinhGlibc[float32], csinhGlibc[float64]),
		"Cosh":    scalarOnly(ccoshGlibc[float32], ccoshGlibc[float64]),
		"Tanh":    scalarOnly(ctanhGlibc[float32], ctanhGlibc[float64]),
		"Asinh":   scalarOnly(casinhGlibc[float32], casinhGlibc[float64]),
		"Acosh":   scalarOnly(cacoshGlibc[float32], cacoshGlibc[float64]),
		"Atanh":   scalarOnly(catanhGlibc[float32], catanhGlibc[float64]),
	}
}

func complexMathBinary() map[string]cBinary {
	return map[string]cBinary{
		"Xlogy":   {c64: c64(xlogyC[float32]), c128: c128(xlogyC[float64])},
		"Xlog1py": {c64: c64(xlog1pyC[float32]), c128: c128(xlog1pyC[float64])},
		"Pow":     {c64: c64(powGlibc[float32]), c128: c128(powGlibc[float64])},
	}
}
