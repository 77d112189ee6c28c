package kernels

import (
	"math"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// Complex arithmetic as TensorFlow's CPU kernels compute it for complex64
// and complex128. The elementwise kernels run Eigen's packet functions for
// std::complex (Eigen/src/Core/arch/SSE/Complex.h and
// arch/Default/GenericPacketMathFunctions.h): a product is the textbook
// (ac - bd) + (ad + bc)i with each product rounded (SSE3 addsub, no fused
// multiply-add and no C99 Annex G recovery of NaN results), a quotient is
// Eigen's pdiv_complex, which scales the divisor by its larger part before
// dividing. Each helper is written on the parts with explicit rounding to
// the part's type, so that Go's compiler cannot fuse a multiply and an add.

// part is the type of a complex value's parts.
type part interface{ ~float32 | ~float64 }

// cmulParts is pmul<Packet2cf>/pmul<Packet1cd>: (a+bi)(c+di).
func cmulParts[F part](a, b, c, d F) (F, F) {
	ac, bd := F(a*c), F(b*d)
	ad, bc := F(a*d), F(b*c)
	return ac - bd, ad + bc
}

// pmaxLane is Eigen's SSE pmax(a, b) (_mm_max_ps(b, a)): a when either is
// NaN.
func pmaxLane[F part](a, b F) F {
	if a != a || b != b {
		return a
	}
	if b > a {
		return b
	}
	return a
}

// cdivParts is pdiv_complex (GenericPacketMathFunctions.h): the divisor
// scaled by max(|c|, |d|) (per lane, NaN picking the lane's own part), the
// numerator times the scaled divisor's conjugate, divided by the scaled
// squared modulus, then by the scale. Every step is flushed as
// TensorFlow's FTZ flushes it (ftz.go): a divisor with one part at the
// largest finite value scales the other to a subnormal, which TensorFlow
// reads as zero.
func cdivParts[F part](a, b, c, d F) (F, F) {
	ac, ad := F(math.Abs(float64(c))), F(math.Abs(float64(d)))
	m0, m1 := pmaxLane(ac, ad), pmaxLane(ad, ac)
	cs, ds := ftz(c/m0), ftz(d/m1)
	cs2, ds2 := ftz(F(cs*cs)), ftz(F(ds*ds))
	den0, den1 := ftz(cs2+ds2), ftz(ds2+cs2)
	// pmul(x, pconj(y_scaled)) with addsub: lane 0 subtracts b*(-d').
	nd := -ds
	p0, q0 := ftz(F(a*cs)), ftz(F(b*nd))
	p1, q1 := ftz(F(a*nd)), ftz(F(b*cs))
	re, im := ftz(p0-q0), ftz(p1+q1)
	return ftz(F(re/den0)) / m0, ftz(F(im/den1)) / m1
}

// Eigen runs a packet function over whole packets and its scalar function
// over the last elements that do not fill one (TensorExecutor's EvalRange):
// TensorFlow's x86 wheel is built with AVX, so a packet holds 4 complex64
// or 2 complex128 values (Eigen/src/Core/arch/AVX/Complex.h). Where the
// two functions differ (a quotient: the scalar one is std::complex's
// operator/, libgcc's __divsc3, Smith's algorithm), the last n mod 4
// (complex64) or n mod 2 (complex128) elements take the scalar one.
const (
	lanes64  = 4
	lanes128 = 2
)

// cdivSmith is libgcc's __divsc3/__divdc3 (libgcc2.c) on finite inputs:
// Smith's algorithm, the ratio of the divisor's smaller part to its larger.
// Results that come out NaN in both parts are recovered as C99 Annex G
// asks: a zero divisor gives an infinity of the numerator's signs, an
// infinite numerator over a finite divisor an infinity, a finite numerator
// over an infinite divisor a zero. The intermediates are flushed as
// TensorFlow's FTZ flushes them (ftz.go).
func cdivSmith[F part](a, b, c, d F) (F, F) {
	var x, y F
	if math.Abs(float64(c)) < math.Abs(float64(d)) {
		r := ftz(c / d)
		den := ftz(ftz(F(c*r)) + d)
		x = ftz(ftz(F(a*r))+b) / den
		y = ftz(ftz(F(b*r))-a) / den
	} else {
		r := ftz(d / c)
		den := ftz(ftz(F(d*r)) + c)
		x = ftz(ftz(F(b*r))+a) / den
		y = ftz(b-ftz(F(a*r))) / den
	}
	if x == x || y == y {
		return x, y
	}
	isInf := func(v F) bool { return math.IsInf(float64(v), 0) }
	isFinite := func(v F) bool { return !isInf(v) && v == v }
	inf := F(math.Inf(1))
	copysign := func(m, s F) F { return F(math.Copysign(float64(m), float64(s))) }
	box := func(v F) F { // 1 or 0 with v's sign, as copysign(isinf(v) ? 1 : 0, v)
		if isInf(v) {
			return copysign(1, v)
		}
		return copysign(0, v)
	}
	switch {
	case c == 0 && d == 0 && (a == a || b == b):
		x, y = copysign(inf, c)*a, copysign(inf, c)*b
	case (isInf(a) || isInf(b)) && isFinite(c) && isFinite(d):
		a, b = box(a), box(b)
		x, y = inf*(a*c+b*d), inf*(b*c-a*d)
	case (isInf(c) || isInf(d)) && isFinite(a) && isFinite(b):
		c, d = box(c), box(d)
		x, y = 0*(a*c+b*d), 0*(b*c-a*d)
	}
	return x, y
}

func c64(f func(a, b, c, d float32) (float32, float32)) func(x, y complex64) complex64 {
	return func(x, y complex64) complex64 {
		r, i := f(real(x), imag(x), real(y), imag(y))
		return complex(r, i)
	}
}

func c128(f func(a, b, c, d float64) (float64, float64)) func(x, y complex128) complex128 {
	return func(x, y complex128) complex128 {
		r, i := f(real(x), imag(x), real(y), imag(y))
		return complex(r, i)
	}
}

// cBinary and cUnaryFns are a complex op's functions per dtype: c64 and
// c128 Eigen's packet function (or the only one), t64 and t128 its scalar
// function for the elements after the last whole packet where it differs.
type cBinary struct {
	c64  func(x, y complex64) complex64
	c128 func(x, y complex128) complex128
	t64  func(x, y complex64) complex64
	t128 func(x, y complex128) complex128
}

type cUnaryFns struct {
	c64  func(complex64) complex64
	c128 func(complex128) complex128
	t64  func(complex64) complex64
	t128 func(complex128) complex128
}

// unaryTail recomputes the last len(in) mod lanes elements of out with
// the scalar function tail, when there is one.
func unaryTail[T any](out, in []T, tail func(T) T, lanes int) []T {
	if tail != nil {
		for i := len(in) - len(in)%lanes; i < len(in); i++ {
			out[i] = tail(in[i])
		}
	}
	return out
}

// complexBinary lists the binary ops TensorFlow registers for complex64
// and complex128 on CPU (cwise_op_*.cc), by op.
var complexBinary = merge(complexMathBinary(), map[string]cBinary{
	"Add":               {c64: func(x, y complex64) complex64 { return x + y }, c128: func(x, y complex128) complex128 { return x + y }},
	"AddV2":             {c64: func(x, y complex64) complex64 { return x + y }, c128: func(x, y complex128) complex128 { return x + y }},
	"Sub":               {c64: func(x, y complex64) complex64 { return x - y }, c128: func(x, y complex128) complex128 { return x - y }},
	"Mul":               quotient(cmulParts[float32], cmulParts[float64], cmulScalar[float32], cmulScalar[float64]),
	"Div":               quotient(cdivParts[float32], cdivParts[float64], cdivSmith[float32], cdivSmith[float64]),
	"RealDiv":           quotient(cdivParts[float32], cdivParts[float64], cdivSmith[float32], cdivSmith[float64]),
	"DivNoNan":          quotient(divNoNanParts[float32], divNoNanParts[float64], divNoNanScalar[float32], divNoNanScalar[float64]),
	"MulNoNan":          quotient(mulNoNanParts[float32], mulNoNanParts[float64], mulNoNanScalar[float32], mulNoNanScalar[float64]),
	"SquaredDifference": quotient(sqDiffParts[float32], sqDiffParts[float64], sqDiffScalar[float32], sqDiffScalar[float64]),
	"Xdivy":             quotient(xdivyParts[float32], xdivyParts[float64], xdivyScalar[float32], xdivyScalar[float64]),
})

// merge returns a with b's entries added.
func merge[V any](a, b map[string]V) map[string]V {
	for k, v := range b {
		a[k] = v
	}
	return a
}

// quotient is a complex op with packet and scalar functions on the parts
// (a quotient, or a product: the scalar product is std::complex's, with
// C99 Annex G's recovery of a NaN result).
func quotient(p64 func(a, b, c, d float32) (float32, float32), p128 func(a, b, c, d float64) (float64, float64),
	s64 func(a, b, c, d float32) (float32, float32), s128 func(a, b, c, d float64) (float64, float64)) cBinary {
	return cBinary{c64: c64(p64), c128: c128(p128), t64: c64(s64), t128: c128(s128)}
}

// reciprocal is scalar_inverse_op: 1/x, through pdiv and the scalar
// division.
func reciprocalC() cUnaryFns {
	q := complexBinary["Div"]
	return cUnaryFns{
		c64: func(x complex64) complex64 { return q.c64(1, x) }, c128: func(x complex128) complex128 { return q.c128(1, x) },
		t64: func(x complex64) complex64 { return q.t64(1, x) }, t128: func(x complex128) complex128 { return q.t128(1, x) },
	}
}

// complexUnary lists the unary ops TensorFlow registers for complex64 and
// complex128 on CPU, by op.
var complexUnary = merge(complexMathUnary(), map[string]cUnaryFns{
	"Neg":        {c64: func(x complex64) complex64 { return -x }, c128: func(x complex128) complex128 { return -x }},
	"Square":     squareC(),
	"Reciprocal": reciprocalC(),
	"Inv":        reciprocalC(),
})

// isZeroParts is Eigen's pcmp_eq of a complex packet with zero: both
// parts compare equal to zero.
func isZeroParts[F part](a, b F) bool { return a == 0 && b == 0 }

// divNoNanParts is div_no_nan_op<T, true>'s packetOp (cwise_ops.h): zero
// where the divisor is zero or the numerator a·conj(b) is, else the
// quotient.
func divNoNanParts[F part](a, b, c, d F) (F, F) {
	nr, ni := cmulParts(a, b, c, -d)
	if isZeroParts(c, d) || isZeroParts(nr, ni) {
		return 0, 0
	}
	return cdivParts(a, b, c, d)
}

// divNoNanScalar is div_no_nan_op<T, true>'s scalar operator(): the same
// tests with std::complex's product and quotient.
func divNoNanScalar[F part](a, b, c, d F) (F, F) {
	nr, ni := cmulParts(a, b, c, -d)
	if isZeroParts(c, d) || isZeroParts(nr, ni) {
		return 0, 0
	}
	return cdivSmith(a, b, c, d)
}

// xdivyScalar is xdivy_op's scalar operator(): +0 where x is zero.
func xdivyScalar[F part](a, b, c, d F) (F, F) {
	if isZeroParts(a, b) {
		return 0, 0
	}
	return cdivSmith(a, b, c, d)
}

// squareC is scalar_square_op: pmul(x, x), std::complex's x*x after the
// last packet.
func squareC() cUnaryFns {
	m := complexBinary["Mul"]
	return cUnaryFns{
		c64: func(x complex64) complex64 { return m.c64(x, x) }, c128: func(x complex128) complex128 { return m.c128(x, x) },
		t64: func(x complex64) complex64 { return m.t64(x, x) }, t128: func(x complex128) complex128 { return m.t128(x, x) },
	}
}

// mulNoNanScalar and sqDiffScalar are the scalar operator()s of
// no_nan_op<scalar_product_op> and scalar_squared_difference_op.
func mulNoNanScalar[F part](a, b, c, d F) (F, F) {
	if isZeroParts(c, d) {
		return 0, 0
	}
	return cmulScalar(a, b, c, d)
}

func sqDiffScalar[F part](a, b, c, d F) (F, F) {
	r, i := a-c, b-d
	return cmulScalar(r, i, r, -i)
}

// mulNoNanParts is no_nan_op's packetOp: zero where the multiplier is.
func mulNoNanParts[F part](a, b, c, d F) (F, F) {
	if isZeroParts(c, d) {
		return 0, 0
	}
	return cmulParts(a, b, c, d)
}

// sqDiffParts is scalar_squared_difference_op (cwise_ops.h): v = x - y
// times its conjugate, so the imaginary part is v.re·(-v.im) + v.im·v.re.
func sqDiffParts[F part](a, b, c, d F) (F, F) {
	r, i := a-c, b-d
	return cmulParts(r, i, r, -i)
}

// xdivyParts is xdivy_op's packetOp: x itself where x is zero (its signed
// zeros kept), else x / y.
func xdivyParts[F part](a, b, c, d F) (F, F) {
	if isZeroParts(a, b) {
		return a, b
	}
	return cdivParts(a, b, c, d)
}

// widenC64 converts complex64 values to complex128 (exact).
func widenC64(d []complex64) []complex128 {
	return mapTo(d, func(v complex64) complex128 { return complex128(v) })
}

// reduceComplex is Sum, Mean and Prod of complex values, accumulated in
// complex128 (as reduceFloats accumulates floats in float64) in tfscan's
// order; Eigen's reducers add and multiply in packets, so the results are
// held to TensorFlow's with the summation tolerance. A product is the
// textbook one, as pmul computes it; Mean divides each part by the count
// (TensorFlow's MeanReducer scales the sum by 1/n, a real number).
func reduceComplex(kind string, src []complex128, shape []int, g *reduceGeom) []complex128 {
	switch kind {
	case "Sum":
		return reduceWith(src, shape, g, complex128(0), func(a, v complex128) complex128 { return a + v })
	case "Mean":
		n := float64(g.r)
		sum := reduceWith(src, shape, g, complex128(0), func(a, v complex128) complex128 { return a + v })
		return mapTo(sum, func(v complex128) complex128 { return complex(real(v)/n, imag(v)/n) })
	case "Prod":
		return reduceWith(src, shape, g, complex128(1), c128(cmulParts[float64]))
	}
	return nil
}

// complexMatMul is a (batched) complex matmul accumulated in complex128
// and rounded once (TensorFlow's contraction sums in Eigen's blocked
// order: held with the summation tolerance); conj conjugates an adjointed
// operand.
func complexMatMul(ctx *Context, p *matMulPlan, x, y *Tensor, conj bool) (*Tensor, error) {
	var xd, yd []complex128
	switch d := x.Data.(type) {
	case []complex64:
		xd = widenC64(d)
	case []complex128:
		xd = d
	}
	switch d := y.Data.(type) {
	case []complex64:
		yd = widenC64(d)
	case []complex128:
		yd = d
	}
	if xd == nil || yd == nil {
		return nil, ctx.Errorf("%s tensors hold %T and %T", x.DType, x.Data, y.Data)
	}
	mul := c128(cmulParts[float64])
	cj := func(v complex128, adj bool) complex128 {
		if adj && conj {
			return complex(real(v), -imag(v))
		}
		return v
	}
	out := make([]complex128, p.m*p.n*len(p.xOff))
	nnParallel(len(p.xOff), p.m*p.n*p.k, func(b int) {
		c := out[b*p.m*p.n : (b+1)*p.m*p.n]
		xo, yo := p.xOff[b], p.yOff[b]
		for i := 0; i < p.m; i++ {
			row := c[i*p.n : (i+1)*p.n]
			for q := 0; q < p.k; q++ {
				var av complex128
				if p.adjX {
					av = xd[xo+q*p.m+i]
				} else {
					av = xd[xo+i*p.k+q]
				}
				av = cj(av, p.adjX)
				for j := range row {
					var bv complex128
					if p.adjY {
						bv = yd[yo+j*p.k+q]
					} else {
						bv = yd[yo+q*p.n+j]
					}
					row[j] += mul(av, cj(bv, p.adjY))
				}
			}
		}
	})
	if x.DType == tpb.DataType_DT_COMPLEX64 {
		return &Tensor{DType: x.DType, Shape: p.outShape, Data: mapTo(out, func(v complex128) complex64 { return complex64(v) })}, nil
	}
	return &Tensor{DType: x.DType, Shape: p.outShape, Data: out}, nil
}
