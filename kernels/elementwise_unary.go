package kernels

import (
	"math"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// Unary elementwise math (tensorflow/core/kernels/cwise_op_*.cc and
// cwise_ops.h). Each op lists the dtypes TensorFlow 2.15 registers on CPU;
// any other dtype is an UnsupportedError, never a guessed result.
//
// float16 and bfloat16 are computed the way Eigen computes them: the value is
// widened to float32, the function is evaluated, and the result is rounded
// back to the storage type (round to nearest even). For single-rounding ops
// this is bit-exact with Eigen::half / Eigen::bfloat16 arithmetic.

// unaryFns holds an op's implementation per element type; a nil entry (or a
// false half/bf16 flag) means TensorFlow has no CPU kernel for that dtype.
type unaryFns struct {
	f32 func(float32) float32
	// f32s, when set, is f32 over a slice (dst may be src), for float32
	// tensors: vector code, and the output from ctx's Buffers or over an
	// owned input.
	f32s func(dst, src []float32)
	f64  func(float64) float64
	i8   func(int8) int8
	u8   func(uint8) uint8
	i16  func(int16) int16
	u16  func(uint16) uint16
	i32  func(int32) int32
	i64  func(int64) int64
	u32  func(uint32) uint32
	u64  func(uint64) uint64
	half bool // DT_HALF via f32
	bf16 bool // DT_BFLOAT16 via f32
	// h and bh, when set, replace f32 for DT_HALF / DT_BFLOAT16 (ops whose
	// intermediate values Eigen rounds to the storage type).
	h, bh func(float32) float32
	// cx holds the complex functions (complex.go's complexUnary, set at
	// registration).
	cx   cUnaryFns
	cost int // rough per-element cost relative to an add, for parallelism
}

// mapUnary computes out[i] = f(in[i]) in parallel chunks.
func mapUnary[T, R any](in []T, out []R, cost int, f func(T) R) {
	parallelFor(len(in), cost, func(lo, hi int) {
		src, dst := in[lo:hi], out[lo:hi]
		for i := range dst {
			dst[i] = f(src[i])
		}
	})
}

func unaryApply[T any](in []T, cost int, f func(T) T) []T {
	out := make([]T, len(in))
	mapUnary(in, out, cost, f)
	return out
}

// widenHalf converts binary16 values to float32 (exact).
func widenHalf(d []Float16) []float32 {
	out := make([]float32, len(d))
	mapUnary(d, out, 1, Float16.Float32)
	return out
}

// widenBF16 converts bfloat16 values to float32 (exact).
func widenBF16(d []BFloat16) []float32 {
	out := make([]float32, len(d))
	mapUnary(d, out, 1, BFloat16.Float32)
	return out
}

// narrowHalf rounds float32 values to binary16, ties to even.
func narrowHalf(d []float32) []Float16 {
	out := make([]Float16, len(d))
	mapUnary(d, out, 1, Float16FromFloat32)
	return out
}

// narrowBF16 rounds float32 values to bfloat16, ties to even.
func narrowBF16(d []float32) []BFloat16 {
	out := make([]BFloat16, len(d))
	mapUnary(d, out, 1, BFloat16FromFloat32)
	return out
}

// dtypeName returns TensorFlow's name of a dtype for messages.
func dtypeName(dt tpb.DataType) string { return dt.String() }

func cloneShape(s []int) []int { return append(make([]int, 0, len(s)), s...) }

// runUnary applies fns to the op's single input.
func runUnary(ctx *Context, fns unaryFns) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	out := &Tensor{DType: dtype.Base(x.DType), Shape: cloneShape(x.Shape)}
	c := max(fns.cost, 1)
	switch d := x.Data.(type) {
	case []float32:
		switch {
		case fns.f32s != nil:
			o := d
			if !ctx.Owns(0) {
				o = newOutFull[float32](ctx, len(d))
			}
			parallelFor(len(d), c, func(lo, hi int) { fns.f32s(o[lo:hi], d[lo:hi]) })
			out.Data = o
		case fns.f32 != nil:
			out.Data = unaryApply(d, c, fns.f32)
		}
	case []float64:
		if fns.f64 != nil {
			out.Data = unaryApply(d, c, fns.f64)
		}
	case []Float16:
		if f := fns.h; f != nil || fns.half {
			if f == nil {
				f = fns.f32
			}
			out.Data = narrowHalf(unaryApply(widenHalf(d), c, f))
		}
	case []BFloat16:
		if f := fns.bh; f != nil || fns.bf16 {
			if f == nil {
				f = fns.f32
			}
			out.Data = narrowBF16(unaryApply(widenBF16(d), c, f))
		}
	case []int8:
		if fns.i8 != nil {
			out.Data = unaryApply(d, c, fns.i8)
		}
	case []uint8:
		if fns.u8 != nil {
			out.Data = unaryApply(d, c, fns.u8)
		}
	case []int16:
		if fns.i16 != nil {
			out.Data = unaryApply(d, c, fns.i16)
		}
	case []uint16:
		if fns.u16 != nil {
			out.Data = unaryApply(d, c, fns.u16)
		}
	case []int32:
		if fns.i32 != nil {
			out.Data = unaryApply(d, c, fns.i32)
		}
	case []int64:
		if fns.i64 != nil {
			out.Data = unaryApply(d, c, fns.i64)
		}
	case []uint32:
		if fns.u32 != nil {
			out.Data = unaryApply(d, c, fns.u32)
		}
	case []uint64:
		if fns.u64 != nil {
			out.Data = unaryApply(d, c, fns.u64)
		}
	case []complex64:
		if fns.cx.c64 != nil {
			out.Data = unaryTail(unaryApply(d, c, fns.cx.c64), d, fns.cx.t64, lanes64)
		}
	case []complex128:
		if fns.cx.c128 != nil {
			out.Data = unaryTail(unaryApply(d, c, fns.cx.c128), d, fns.cx.t128, lanes128)
		}
	}
	if out.Data == nil {
		return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
	}
	return []*Tensor{out}, nil
}

// predFns is a float predicate (IsNan, IsInf, IsFinite) with a bool output.
type predFns struct {
	f32 func(float32) bool
	f64 func(float64) bool
}

func runPredicate(ctx *Context, fns predFns) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	out := &Tensor{DType: tpb.DataType_DT_BOOL, Shape: cloneShape(x.Shape)}
	res := make([]bool, x.NumElements())
	switch d := x.Data.(type) {
	case []float32:
		mapUnary(d, res, 1, fns.f32)
	case []float64:
		mapUnary(d, res, 1, fns.f64)
	case []Float16: // exact widening keeps NaN/Inf classification
		mapUnary(d, res, 1, func(h Float16) bool { return fns.f32(h.Float32()) })
	case []BFloat16:
		mapUnary(d, res, 1, func(h BFloat16) bool { return fns.f32(h.Float32()) })
	default:
		return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
	}
	out.Data = res
	return []*Tensor{out}, nil
}

// wantInputs checks the input count so that a malformed node is an error
// naming it, not an index panic.
func wantInputs(ctx *Context, n int) error {
	if len(ctx.Inputs) < n {
		return ctx.Errorf("expected %d inputs, got %d", n, len(ctx.Inputs))
	}
	for i := 0; i < n; i++ {
		if ctx.Inputs[i] == nil {
			return ctx.Errorf("input %d is missing", i)
		}
	}
	return nil
}

// f32 lifts a float64 math function to float32: evaluate in double and round
// once, which is at least as accurate as Eigen's float32 polynomials.
func f32(g func(float64) float64) func(float32) float32 {
	return func(x float32) float32 { return float32(g(float64(x))) }
}

type signed interface {
	~int8 | ~int16 | ~int32 | ~int64
}

type unsigned interface {
	~uint8 | ~uint16 | ~uint32 | ~uint64
}

type integer interface{ signed | unsigned }

type float interface{ ~float32 | ~float64 }

type number interface{ integer | float }

// Integer arithmetic wraps on overflow (two's complement), as TensorFlow's
// C++ kernels do in practice (abs(INT_MIN) == INT_MIN, -INT_MIN == INT_MIN).
func absT[T signed | float](x T) T {
	if x < 0 {
		return -x
	}
	if x == 0 {
		return 0 // abs(-0.0) is +0.0
	}
	return x
}

func negT[T signed | float](x T) T { return -x }

func squareT[T number](x T) T { return x * x }

// signT is Eigen's scalar_sign_op: -1, 0 or 1. For NaN we return NaN, as
// NumPy does; TensorFlow 2.15's tests never exercise Sign(NaN) and the
// result depends on Eigen's packet path, so this one case is unverified.
func signT[T signed | float](x T) T {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	case x == 0:
		return 0
	}
	return x // NaN
}

// roundHalfEven is TensorFlow's Round: half to even
// (cwise_ops.h scalar_round_half_to_even_op; rint for float and double).
func roundHalfEven(x float64) float64 { return math.RoundToEven(x) }

func identityT[T any](x T) T { return x }

// softplus64 follows tensorflow/core/kernels/softplus_op.h:30-57:
// thresholds at log(epsilon)+2 so that large inputs pass through and small
// ones use exp. The kernel computes in the op's dtype: the threshold is a
// static const T (log(epsilon) rounded to T, plus 2 rounded to T), and
// exp(x) is rounded to T before log1p; rnd (nil for double) reproduces
// both, so that Softplus equals its decomposition into Greater, Less, Exp,
// Log1p and SelectV2 (rewrite's decompose-softplus) bit for bit.
func softplusFor(eps float64, rnd func(float32) float32) func(float64) float64 {
	threshold := math.Log(eps) + 2
	if rnd != nil {
		threshold = float64(rnd(rnd(float32(math.Log(eps))) + 2))
	}
	return func(x float64) float64 {
		switch {
		case x > -threshold:
			return x
		case x < threshold:
			return math.Exp(x)
		}
		e := math.Exp(x)
		if rnd != nil {
			e = float64(rnd(float32(e)))
		}
		return math.Log1p(e)
	}
}

func softsign(x float64) float64 { return x / (1 + math.Abs(x)) }

func rsqrt(x float64) float64 { return 1 / math.Sqrt(x) }

func reciprocal(x float64) float64 { return 1 / x }

// floatMath registers a float-only op for half, bfloat16, float and double.
func floatMath(g func(float64) float64, cost int) unaryFns {
	return unaryFns{f32: f32(g), f64: g, half: true, bf16: true, cost: cost}
}

func init() {
	reg := func(op string, fns unaryFns) {
		fns.cx = complexUnary[op]
		Register(op, func(ctx *Context) ([]*Tensor, error) { return runUnary(ctx, fns) })
	}
	// cwise_op_abs.cc: half, bfloat16, float, double, int8, int16, int32, int64.
	reg("Abs", unaryFns{f32: absT[float32], f64: absT[float64], i8: absT[int8], i16: absT[int16],
		i32: absT[int32], i64: absT[int64], half: true, bf16: true})
	// cwise_op_neg_1.cc / _2.cc.
	reg("Neg", unaryFns{f32: negT[float32], f64: negT[float64], i8: negT[int8], i16: negT[int16],
		i32: negT[int32], i64: negT[int64], half: true, bf16: true})
	// cwise_op_sign.cc.
	reg("Sign", unaryFns{f32: signT[float32], f64: signT[float64], i8: signT[int8], i16: signT[int16],
		i32: signT[int32], i64: signT[int64], half: true, bf16: true})
	// cwise_op_square.cc.
	reg("Square", unaryFns{f32: squareT[float32], f64: squareT[float64], i8: squareT[int8], u8: squareT[uint8],
		i16: squareT[int16], u16: squareT[uint16], i32: squareT[int32], i64: squareT[int64],
		u32: squareT[uint32], u64: squareT[uint64], half: true, bf16: true})
	reg("Sqrt", floatMath(math.Sqrt, 2))
	reg("Rsqrt", floatMath(rsqrt, 2))
	reg("Exp", floatMath(math.Exp, 4))
	reg("Expm1", floatMath(math.Expm1, 4))
	reg("Log", floatMath(math.Log, 4))
	reg("Log1p", floatMath(math.Log1p, 4))
	reg("Sin", floatMath(math.Sin, 4))
	reg("Cos", floatMath(math.Cos, 4))
	reg("Tan", floatMath(math.Tan, 4))
	reg("Asin", floatMath(math.Asin, 4))
	// Acos is also registered for int8..int64 (cwise_op_acos.cc), where the
	// result is a truncated double (and NaN → int is undefined); those
	// dtypes are not implemented here and report UnsupportedError.
	reg("Acos", floatMath(math.Acos, 4))
	reg("Atan", floatMath(math.Atan, 4))
	reg("Sinh", floatMath(math.Sinh, 4))
	reg("Cosh", floatMath(math.Cosh, 4))
	reg("Asinh", floatMath(math.Asinh, 4))
	reg("Acosh", floatMath(math.Acosh, 4))
	reg("Atanh", floatMath(math.Atanh, 4))
	reg("Floor", floatMath(math.Floor, 1))
	reg("Ceil", floatMath(math.Ceil, 1))
	// cwise_op_round.cc: half, float, double, bfloat16, int32, int64 (ints unchanged).
	round := floatMath(roundHalfEven, 1)
	round.i32, round.i64 = identityT[int32], identityT[int64]
	reg("Round", round)
	// cwise_op_rint.cc: float and double only.
	reg("Rint", unaryFns{f32: f32(math.RoundToEven), f64: math.RoundToEven})
	reg("Reciprocal", floatMath(reciprocal, 2))
	reg("Inv", floatMath(reciprocal, 2))
	// cwise_op_erf.cc: float32 (and half, bfloat16 through it) is Eigen's
	// rational approximation (erf.go), float64 libm's erf.
	erf := floatMath(math.Erf, 4)
	erf.f32, erf.f32s = erf32, erf32s
	reg("Erf", erf)
	reg("Erfc", floatMath(math.Erfc, 4))
	// softplus_op.cc and softsign_op.cc: TF_CALL_FLOAT_TYPES (half, bfloat16,
	// float, double). The threshold uses the dtype's own epsilon.
	reg("Softplus", unaryFns{
		f32:  f32(softplusFor(float64(math.Nextafter32(1, 2)-1), func(v float32) float32 { return v })),
		f64:  softplusFor(math.Nextafter(1, 2)-1, nil),
		h:    f32(softplusFor(1.0/1024, RoundFloat16)),
		bh:   f32(softplusFor(1.0/128, RoundBFloat16)),
		cost: 6,
	})
	// Eigen computes x / (1 + |x|) in the tensor's type (softsign_op.h:
	// features / (features.abs() + features.constant(T(1)))): 1 + |x| is
	// rounded to float32 (float16, bfloat16) before the division, which
	// pdiv does exactly (divps), so float32 is two float32 roundings.
	softsignFns := floatMath(softsign, 2)
	softsignFns.f32 = func(x float32) float32 {
		return x / (float32(math.Abs(float64(x))) + 1)
	}
	softsignFns.h = func(x float32) float32 {
		return x / RoundFloat16(1+float32(math.Abs(float64(x))))
	}
	softsignFns.bh = func(x float32) float32 {
		return x / RoundBFloat16(1+float32(math.Abs(float64(x))))
	}
	reg("Softsign", softsignFns)
	// LogicalNot is in logical.go; ZerosLike/OnesLike in array_fill.go.
	pred := func(op string, fns predFns) {
		Register(op, func(ctx *Context) ([]*Tensor, error) { return runPredicate(ctx, fns) })
	}
	// cwise_op_isnan.cc, _isinf.cc, _isfinite.cc: half, bfloat16, float, double.
	pred("IsNan", predFns{
		f32: func(x float32) bool { return x != x },
		f64: math.IsNaN,
	})
	pred("IsInf", predFns{
		f32: func(x float32) bool { return math.IsInf(float64(x), 0) },
		f64: func(x float64) bool { return math.IsInf(x, 0) },
	})
	pred("IsFinite", predFns{
		f32: func(x float32) bool { return !math.IsInf(float64(x), 0) && x == x },
		f64: func(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) },
	})
}

func invertT[T integer](x T) T { return ^x }

func init() {
	// cwise_op_invert.cc: bitwise NOT for the 8 integer types.
	Register("Invert", func(ctx *Context) ([]*Tensor, error) {
		return runUnary(ctx, unaryFns{i8: invertT[int8], u8: invertT[uint8], i16: invertT[int16],
			u16: invertT[uint16], i32: invertT[int32], i64: invertT[int64], u32: invertT[uint32], u64: invertT[uint64]})
	})
}
