package kernels

import (
	"math"
	"slices"
	"unsafe"

	"github.com/tfscan/tfscan/dtype"
)

// Binary elementwise math with TensorFlow broadcasting
// (tensorflow/core/kernels/cwise_ops.h, cwise_ops_common.cc, cwise_op_*.cc).
// Dtypes are those TensorFlow 2.15 registers on CPU for each op.

// binaryFns holds an op's implementation per element type; nil (or a false
// half/bf16 flag) means TensorFlow has no CPU kernel for that dtype.
type binaryFns struct {
	f32  func(a, b float32) float32
	f64  func(a, b float64) float64
	i8   func(a, b int8) int8
	u8   func(a, b uint8) uint8
	i16  func(a, b int16) int16
	u16  func(a, b uint16) uint16
	i32  func(a, b int32) int32
	i64  func(a, b int64) int64
	u32  func(a, b uint32) uint32
	u64  func(a, b uint64) uint64
	half bool // DT_HALF through f32, one rounding at the end
	bf16 bool
	// h and bh replace f32 for half/bfloat16 where Eigen rounds an
	// intermediate value to the storage type (floor(x/y), (x-y)^2, ...).
	h, bh func(a, b float32) float32
	// intCheck names TensorFlow's integer error condition, checked on the
	// second operand before computing: "div" (a zero divisor) or "pow" (a
	// negative exponent).
	intCheck string
	cost     int
	// vec, when not vecNone, selects the closure-free fast path for the
	// float32/float64/integer cases (Add, Sub, Mul, Div).
	vec int
	// cx holds the complex functions (complex.go's complexBinary, set at
	// registration).
	cx cBinary
}

const (
	checkDiv = "div"
	checkPow = "pow"
)

// runBinary applies fns to the op's two inputs with broadcasting.
func runBinary(ctx *Context, fns binaryFns) ([]*Tensor, error) {
	if err := wantInputs(ctx, 2); err != nil {
		return nil, err
	}
	a, b := ctx.Inputs[0], ctx.Inputs[1]
	if dtype.Base(a.DType) != dtype.Base(b.DType) {
		return nil, ctx.Errorf("operands have different dtypes %s and %s", dtypeName(a.DType), dtypeName(b.DType))
	}
	p, err := newBcastPlan(a.Shape, b.Shape)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	out := &Tensor{DType: dtype.Base(a.DType), Shape: p.out}
	c := max(fns.cost, 1)
	switch ad := a.Data.(type) {
	case []float32:
		out.Data, err = binTyped(ctx, p, ad, b.Data, c, fns.f32, "", fns.vec)
	case []float64:
		out.Data, err = binTyped(ctx, p, ad, b.Data, c, fns.f64, "", fns.vec)
	case []Float16:
		f := fns.h
		if f == nil && fns.half {
			f = fns.f32
		}
		if f != nil {
			bd, ok := b.Data.([]Float16)
			if !ok {
				return nil, ctx.Errorf("operand 1 data does not match its dtype")
			}
			var r []float32
			if r, err = binTyped(ctx, p, widenHalf(ad), widenHalf(bd), c, f, "", vecNone); err == nil {
				out.Data = narrowHalf(r)
			}
		}
	case []BFloat16:
		f := fns.bh
		if f == nil && fns.bf16 {
			f = fns.f32
		}
		if f != nil {
			bd, ok := b.Data.([]BFloat16)
			if !ok {
				return nil, ctx.Errorf("operand 1 data does not match its dtype")
			}
			var r []float32
			if r, err = binTyped(ctx, p, widenBF16(ad), widenBF16(bd), c, f, "", vecNone); err == nil {
				out.Data = narrowBF16(r)
			}
		}
	case []int8:
		out.Data, err = binTyped(ctx, p, ad, b.Data, c, fns.i8, fns.intCheck, fns.vec)
	case []uint8:
		out.Data, err = binTyped(ctx, p, ad, b.Data, c, fns.u8, fns.intCheck, fns.vec)
	case []int16:
		out.Data, err = binTyped(ctx, p, ad, b.Data, c, fns.i16, fns.intCheck, fns.vec)
	case []uint16:
		out.Data, err = binTyped(ctx, p, ad, b.Data, c, fns.u16, fns.intCheck, fns.vec)
	case []int32:
		out.Data, err = binTyped(ctx, p, ad, b.Data, c, fns.i32, fns.intCheck, fns.vec)
	case []int64:
		out.Data, err = binTyped(ctx, p, ad, b.Data, c, fns.i64, fns.intCheck, fns.vec)
	case []uint32:
		out.Data, err = binTyped(ctx, p, ad, b.Data, c, fns.u32, fns.intCheck, fns.vec)
	case []uint64:
		out.Data, err = binTyped(ctx, p, ad, b.Data, c, fns.u64, fns.intCheck, fns.vec)
	case []complex64:
		out.Data, err = binComplex(ctx, p, ad, b.Data, c, fns.cx.c64, fns.cx.t64, lanes64)
	case []complex128:
		out.Data, err = binComplex(ctx, p, ad, b.Data, c, fns.cx.c128, fns.cx.t128, lanes128)
	}
	if err != nil {
		return nil, err
	}
	if out.Data == nil || isNilSlice(out.Data) {
		return nil, ctx.Unsupported("dtype %s", dtypeName(a.DType))
	}
	return []*Tensor{out}, nil
}

// isNilSlice reports a typed nil slice (binTyped's "no kernel" result).
func isNilSlice(d any) bool {
	switch s := d.(type) {
	case []float32:
		return s == nil
	case []float64:
		return s == nil
	case []int8:
		return s == nil
	case []uint8:
		return s == nil
	case []int16:
		return s == nil
	case []uint16:
		return s == nil
	case []int32:
		return s == nil
	case []int64:
		return s == nil
	case []uint32:
		return s == nil
	case []uint64:
		return s == nil
	case []bool:
		return s == nil
	case []complex64:
		return s == nil
	case []complex128:
		return s == nil
	}
	return false
}

// binComplex is binTyped for the complex dtypes: f (Eigen's packet
// function) everywhere, then tail (its scalar function, when it differs)
// on the last n mod lanes elements.
func binComplex[T complex64 | complex128](ctx *Context, p *bcastPlan, a []T, bAny any, cost int, f, tail func(T, T) T, lanes int) ([]T, error) {
	if f == nil {
		return nil, nil
	}
	b, ok := bAny.([]T)
	if !ok {
		return nil, ctx.Errorf("operand 1 data does not match its dtype")
	}
	out := make([]T, p.n)
	binaryBroadcast(p, a, b, out, cost, f)
	if tail != nil {
		_, steps := p.inner()
		p.runs(p.n-p.n%lanes, p.n, func(o int, offs []int, n int) {
			for i := 0; i < n; i++ {
				out[o+i] = tail(a[offs[0]+i*steps[0]], b[offs[1]+i*steps[1]])
			}
		})
	}
	return out, nil
}

// binTyped runs f over a and b (b given as any and checked to be []T). A nil
// f returns a nil slice: the dtype has no kernel.
func binTyped[T number](ctx *Context, p *bcastPlan, a []T, bAny any, cost int, f func(T, T) T, check string, vec int) ([]T, error) {
	if f == nil {
		return nil, nil
	}
	b, ok := bAny.([]T)
	if !ok {
		return nil, ctx.Errorf("operand 1 data does not match its dtype")
	}
	if p.n > 0 && check != "" {
		if msg := checkOperand(b, check); msg != "" {
			return nil, ctx.Errorf("%s", msg)
		}
	}
	out := binaryOut(ctx, p.n, a, b)
	if vec != vecNone {
		vecBroadcast(p, a, b, out, vec)
	} else {
		binaryBroadcast(p, a, b, out, cost, f)
	}
	return out, nil
}

// binaryOut is the output of a binary op with n elements: an owned operand
// of the output's size (Context.Owns; every output element then reads that
// operand only at its own index, before writing it), else a new slice.
func binaryOut[T number](ctx *Context, n int, a, b []T) []T {
	if n > 0 {
		if len(a) == n && ctx.Owns(0) && ownData(ctx.Inputs[0], a) {
			return a
		}
		if len(b) == n && ctx.Owns(1) && ownData(ctx.Inputs[1], b) {
			return b
		}
	}
	return newOutFull[T](ctx, n)
}

// ownData reports whether s is t's own data, not a converted copy.
func ownData[T any](t *Tensor, s []T) bool {
	d, ok := t.Data.([]T)
	return ok && len(d) > 0 && len(s) > 0 && &d[0] == &s[0]
}

// checkOperand applies TensorFlow's integer error checks to the second
// operand (cwise_ops_common.cc SetComputeError): every element of b is used
// when the output is not empty, so any bad element fails the op.
func checkOperand[T number](b []T, check string) string {
	switch bb := any(b).(type) {
	case []int8:
		return checkInts(bb, check)
	case []uint8:
		return checkInts(bb, check)
	case []int16:
		return checkInts(bb, check)
	case []uint16:
		return checkInts(bb, check)
	case []int32:
		return checkInts(bb, check)
	case []int64:
		return checkInts(bb, check)
	case []uint32:
		return checkInts(bb, check)
	case []uint64:
		return checkInts(bb, check)
	}
	return ""
}

func checkInts[T integer](b []T, check string) string {
	for _, v := range b {
		switch {
		case check == checkDiv && v == 0:
			return "Integer division by zero"
		case check == checkPow && v < 0:
			return "Integers to negative integer powers are not allowed"
		}
	}
	return ""
}

func addT[T number](a, b T) T { return a + b }
func subT[T number](a, b T) T { return a - b }
func mulT[T number](a, b T) T { return a * b }

// divT is C++ division: IEEE for floats, truncation toward zero for
// integers. The zero-divisor check happens before (safe_div_or_mod_op);
// INT_MIN / -1 wraps to INT_MIN in Go exactly as TF's "-a / 1" does.
func divT[T number](a, b T) T { return a / b }

// truncModT is C's % (sign follows the dividend).
func truncModT[T integer](a, b T) T { return a % b }

// floorDivInt is google_floor_div: subtract one when there is a remainder
// and the operands have opposite signs.
func floorDivInt[T signed](x, y T) T {
	z := x / y
	if z*y != x && (x < 0) != (y < 0) {
		return z - 1
	}
	return z
}

// floorModInt is google_floor_mod: the result has the divisor's sign.
func floorModInt[T signed](x, y T) T {
	m := x % y
	if m != 0 && (y < 0) != (m < 0) {
		return m + y
	}
	return m
}

// floorDivF floors the quotient as TensorFlow's FTZ leaves it (ftz.go): a
// subnormal quotient is a signed zero there, so -2^-130 floors to -0, not -1.
func floorDivF[T float](x, y T) T { return T(math.Floor(float64(ftz(x / y)))) }

// ftzDiv32 is floorDivF's float32 quotient, for the bfloat16 kernel,
// which divides in float32 (Eigen's bfloat16 operator/).
func ftzDiv32(x, y float32) float32 { return ftz32(x / y) }

func truncDivF[T float](x, y T) T { return T(math.Trunc(float64(x / y))) }

// floorModF is google_floor_fmod: fmod, then shifted into the divisor's sign.
func floorModF[T float](x, y T) T {
	m := T(math.Mod(float64(x), float64(y)))
	if m != 0 && (y < 0) != (m < 0) {
		return m + y
	}
	return m
}

func fmodF[T float](x, y T) T { return T(math.Mod(float64(x), float64(y))) }

// powInt is Eigen's integer pow (repeated squaring, wrapping on overflow);
// the Pow kernel rejects negative exponents first (checkPow).
func powInt[T integer](x, y T) T {
	r := T(1)
	for y > 0 {
		if y&1 == 1 {
			r *= x
		}
		x *= x
		y >>= 1
	}
	return r
}

func powF[T float](x, y T) T { return T(math.Pow(float64(x), float64(y))) }

// maxT and minT are scalar_max_op / scalar_min_op with PropagateNaN
// (cwise_ops.h functor::maximum / minimum): a NaN operand gives NaN;
// otherwise std::max / std::min ((a < b) ? b : a), so max(-0, +0) is -0.
func maxT[T number](a, b T) T {
	if a != a {
		return a
	}
	if b != b {
		return b
	}
	if a < b {
		return b
	}
	return a
}

func minT[T number](a, b T) T {
	if a != a {
		return a
	}
	if b != b {
		return b
	}
	if b < a {
		return b
	}
	return a
}

func sqDiffT[T number](a, b T) T {
	d := a - b
	return d * d
}

// divNoNanT and mulNoNanT return 0 when the divisor/multiplier is 0, even
// for an infinite or NaN other operand (cwise_ops.h no_nan_op).
func divNoNanT[T float](a, b T) T {
	if b == 0 {
		return 0
	}
	return a / b
}

func mulNoNanT[T float](a, b T) T {
	if b == 0 {
		return 0
	}
	return a * b
}

func atan2T[T float](a, b T) T { return T(math.Atan2(float64(a), float64(b))) }

// xlogy etc. (cwise_ops.h xlogy_op): 0 when x == 0, else x*log(y).
func xlogyT[T float](x, y T) T {
	if x == 0 {
		return 0
	}
	return x * T(math.Log(float64(y)))
}

func xlog1pyT[T float](x, y T) T {
	if x == 0 {
		return 0
	}
	return x * T(math.Log1p(float64(y)))
}

func xdivyT[T float](x, y T) T {
	if x == 0 {
		return 0
	}
	return x / y
}

// roundedFirst builds the half/bfloat16 variant of op(x, y) = g(q(x, y))
// where Eigen rounds the intermediate q to the storage type.
func roundedFirst(q func(a, b float32) float32, g func(float32) float32, rnd func(float32) float32) func(a, b float32) float32 {
	return func(a, b float32) float32 { return g(rnd(q(a, b))) }
}

func floatBinary(f32 func(a, b float32) float32, f64 func(a, b float64) float64, cost int) binaryFns {
	return binaryFns{f32: f32, f64: f64, half: true, bf16: true, cost: cost}
}

func init() {
	reg := func(op string, fns binaryFns) {
		fns.cx = complexBinary[op]
		Register(op, func(ctx *Context) ([]*Tensor, error) { return runBinary(ctx, fns) })
	}
	// cwise_op_add_1.cc / _2.cc. Add has no uint16/32/64 kernels; AddV2 has.
	add := binaryFns{f32: addT[float32], f64: addT[float64], i8: addT[int8], u8: addT[uint8],
		i16: addT[int16], i32: addT[int32], i64: addT[int64], half: true, bf16: true, vec: vecAdd}
	reg("Add", add)
	add.u16, add.u32, add.u64 = addT[uint16], addT[uint32], addT[uint64]
	reg("AddV2", add)
	// cwise_op_sub.cc.
	reg("Sub", binaryFns{f32: subT[float32], f64: subT[float64], i8: subT[int8], u8: subT[uint8],
		i16: subT[int16], u16: subT[uint16], i32: subT[int32], i64: subT[int64], u32: subT[uint32],
		u64: subT[uint64], half: true, bf16: true, vec: vecSub})
	// cwise_op_mul_1.cc / _2.cc.
	reg("Mul", binaryFns{f32: mulT[float32], f64: mulT[float64], i8: mulT[int8], u8: mulT[uint8],
		i16: mulT[int16], u16: mulT[uint16], i32: mulT[int32], i64: mulT[int64], u32: mulT[uint32],
		u64: mulT[uint64], half: true, bf16: true, vec: vecMul})
	// cwise_op_div.cc: floats divide, integers use safe_div (C truncation,
	// "Integer division by zero").
	intDiv := binaryFns{i8: divT[int8], u8: divT[uint8], i16: divT[int16], u16: divT[uint16],
		i32: divT[int32], i64: divT[int64], u32: divT[uint32], u64: divT[uint64], intCheck: checkDiv}
	div := intDiv
	div.f32, div.f64, div.half, div.bf16 = divT[float32], divT[float64], true, true
	div.vec = vecDiv
	reg("Div", div)
	realDiv := floatBinary(divT[float32], divT[float64], 1)
	realDiv.vec = vecDiv
	reg("RealDiv", realDiv)
	truncDiv := intDiv
	truncDiv.f32, truncDiv.f64 = truncDivF[float32], truncDivF[float64]
	truncDiv.h = roundedFirst(divT[float32], truncF32, RoundFloat16)
	truncDiv.bh = roundedFirst(divT[float32], truncF32, RoundBFloat16)
	reg("TruncateDiv", truncDiv)
	// cwise_op_floor_div.cc.
	reg("FloorDiv", binaryFns{
		i8: floorDivInt[int8], u8: divT[uint8], i16: floorDivInt[int16], u16: divT[uint16],
		i32: floorDivInt[int32], i64: floorDivInt[int64], u32: divT[uint32], u64: divT[uint64],
		f32: floorDivF[float32], f64: floorDivF[float64],
		h:        roundedFirst(divT[float32], floorF32, RoundFloat16),
		bh:       roundedFirst(ftzDiv32, floorF32, RoundBFloat16),
		intCheck: checkDiv,
	})
	// cwise_op_floor_mod.cc. fmod is exact, so one rounding suffices for
	// half/bfloat16 except for the final "+ y", which rounds once as well.
	reg("FloorMod", binaryFns{
		i8: floorModInt[int8], u8: truncModT[uint8], i16: floorModInt[int16], u16: truncModT[uint16],
		i32: floorModInt[int32], i64: floorModInt[int64], u32: truncModT[uint32], u64: truncModT[uint64],
		f32: floorModF[float32], f64: floorModF[float64], half: true, bf16: true,
		intCheck: checkDiv,
	})
	// cwise_op_mod.cc: Mod and TruncateMod are int32, int64 (safe_mod) and
	// float, double (fmod).
	mod := binaryFns{i32: truncModT[int32], i64: truncModT[int64], f32: fmodF[float32], f64: fmodF[float64], intCheck: checkDiv}
	reg("Mod", mod)
	reg("TruncateMod", mod)
	// cwise_op_pow.cc: floats, and int8..int64 with safe_pow.
	reg("Pow", binaryFns{f32: powF[float32], f64: powF[float64], i8: powInt[int8], i16: powInt[int16],
		i32: powInt[int32], i64: powInt[int64], half: true, bf16: true, intCheck: checkPow, cost: 8})
	// cwise_op_maximum.cc / _minimum.cc: 4 floats and 8 integer types.
	reg("Maximum", binaryFns{f32: maxT[float32], f64: maxT[float64], i8: maxT[int8], u8: maxT[uint8],
		i16: maxT[int16], u16: maxT[uint16], i32: maxT[int32], i64: maxT[int64], u32: maxT[uint32],
		u64: maxT[uint64], half: true, bf16: true})
	reg("Minimum", binaryFns{f32: minT[float32], f64: minT[float64], i8: minT[int8], u8: minT[uint8],
		i16: minT[int16], u16: minT[uint16], i32: minT[int32], i64: minT[int64], u32: minT[uint32],
		u64: minT[uint64], half: true, bf16: true})
	// cwise_op_squared_difference.cc: float, half, double, bfloat16, int32,
	// int64. Eigen rounds the difference before squaring.
	reg("SquaredDifference", binaryFns{f32: sqDiffT[float32], f64: sqDiffT[float64],
		i32: sqDiffT[int32], i64: sqDiffT[int64],
		h:  roundedFirst(subT[float32], squareT[float32], RoundFloat16),
		bh: roundedFirst(subT[float32], squareT[float32], RoundBFloat16)})
	// cwise_op_div.cc DivNoNan and cwise_op_mul_1.cc MulNoNan: 4 floats.
	reg("DivNoNan", floatBinary(divNoNanT[float32], divNoNanT[float64], 1))
	reg("MulNoNan", floatBinary(mulNoNanT[float32], mulNoNanT[float64], 1))
	reg("Atan2", floatBinary(atan2T[float32], atan2T[float64], 4))
	reg("Xlogy", floatBinary(xlogyT[float32], xlogyT[float64], 4))
	reg("Xlog1py", floatBinary(xlog1pyT[float32], xlog1pyT[float64], 4))
	reg("Xdivy", floatBinary(xdivyT[float32], xdivyT[float64], 2))
	Register("AddN", addN)
	// cwise_op_bitwise_*.cc, _left_shift.cc, _right_shift.cc: the 8 integer
	// types. Shift counts are clamped to [0, bits-1] (left_shift_op).
	reg("BitwiseAnd", binaryFns{i8: andT[int8], u8: andT[uint8], i16: andT[int16], u16: andT[uint16],
		i32: andT[int32], i64: andT[int64], u32: andT[uint32], u64: andT[uint64]})
	reg("BitwiseOr", binaryFns{i8: orT[int8], u8: orT[uint8], i16: orT[int16], u16: orT[uint16],
		i32: orT[int32], i64: orT[int64], u32: orT[uint32], u64: orT[uint64]})
	reg("BitwiseXor", binaryFns{i8: xorT[int8], u8: xorT[uint8], i16: xorT[int16], u16: xorT[uint16],
		i32: xorT[int32], i64: xorT[int64], u32: xorT[uint32], u64: xorT[uint64]})
	reg("LeftShift", binaryFns{i8: shlT[int8], u8: shlT[uint8], i16: shlT[int16], u16: shlT[uint16],
		i32: shlT[int32], i64: shlT[int64], u32: shlT[uint32], u64: shlT[uint64]})
	reg("RightShift", binaryFns{i8: shrT[int8], u8: shrT[uint8], i16: shrT[int16], u16: shrT[uint16],
		i32: shrT[int32], i64: shrT[int64], u32: shrT[uint32], u64: shrT[uint64]})
}

func andT[T integer](a, b T) T { return a & b }
func orT[T integer](a, b T) T  { return a | b }
func xorT[T integer](a, b T) T { return a ^ b }

// shiftCount clamps y to [0, bits-1] as left_shift_op/right_shift_op do.
func shiftCount[T integer](y T) uint {
	bits := uint(unsafe.Sizeof(y) * 8)
	if y < 0 {
		return 0
	}
	if uint64(y) > uint64(bits-1) {
		return bits - 1
	}
	return uint(y)
}

// shlT shifts as unsigned (no UB on signed overflow): Go's << on signed
// integers already wraps the same way.
func shlT[T integer](x, y T) T { return x << shiftCount(y) }

// shrT is an arithmetic shift for signed types, logical for unsigned.
func shrT[T integer](x, y T) T { return x >> shiftCount(y) }

func floorF32(x float32) float32 { return float32(math.Floor(float64(x))) }
func truncF32(x float32) float32 { return float32(math.Trunc(float64(x))) }

// addN sums n same-shaped inputs left to right (aggregate_ops.cc; all
// number types on CPU). Half and bfloat16 round after every addition, as
// Eigen's half arithmetic does.
func addN(ctx *Context) ([]*Tensor, error) {
	if len(ctx.Inputs) == 0 {
		return nil, ctx.Errorf("AddN needs at least one input")
	}
	if err := wantInputs(ctx, len(ctx.Inputs)); err != nil {
		return nil, err
	}
	first := ctx.Inputs[0]
	for i, t := range ctx.Inputs[1:] {
		if !slices.Equal(t.Shape, first.Shape) {
			return nil, ctx.Errorf("Inputs to operation AddN must have the same size and shape.  Input 0: %s != input %d: %s",
				dimsString(first.Shape), i+1, dimsString(t.Shape))
		}
		if dtype.Base(t.DType) != dtype.Base(first.DType) {
			return nil, ctx.Errorf("inputs have different dtypes")
		}
	}
	out := &Tensor{DType: dtype.Base(first.DType), Shape: cloneShape(first.Shape)}
	var err error
	switch first.Data.(type) {
	case []float32:
		out.Data, err = addNTyped[float32](ctx)
	case []float64:
		out.Data, err = addNTyped[float64](ctx)
	case []Float16:
		out.Data, err = addNHalf(ctx, true)
	case []BFloat16:
		out.Data, err = addNHalf(ctx, false)
	case []int8:
		out.Data, err = addNTyped[int8](ctx)
	case []uint8:
		out.Data, err = addNTyped[uint8](ctx)
	case []int16:
		out.Data, err = addNTyped[int16](ctx)
	case []uint16:
		out.Data, err = addNTyped[uint16](ctx)
	case []int32:
		out.Data, err = addNTyped[int32](ctx)
	case []int64:
		out.Data, err = addNTyped[int64](ctx)
	case []uint32:
		out.Data, err = addNTyped[uint32](ctx)
	case []uint64:
		out.Data, err = addNTyped[uint64](ctx)
	default:
		return nil, ctx.Unsupported("dtype %s", dtypeName(first.DType))
	}
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

func addNTyped[T number](ctx *Context) ([]T, error) {
	srcs := make([][]T, len(ctx.Inputs))
	for i, t := range ctx.Inputs {
		d, ok := t.Data.([]T)
		if !ok {
			return nil, ctx.Errorf("input %d data does not match its dtype", i)
		}
		srcs[i] = d
	}
	out := make([]T, len(srcs[0]))
	copy(out, srcs[0])
	parallelFor(len(out), len(srcs), func(lo, hi int) {
		dst := out[lo:hi]
		for _, s := range srcs[1:] {
			s = s[lo:hi]
			for i := range dst {
				dst[i] += s[i]
			}
		}
	})
	return out, nil
}

func addNHalf(ctx *Context, half bool) (any, error) {
	rnd := RoundBFloat16
	if half {
		rnd = RoundFloat16
	}
	srcs := make([][]float32, len(ctx.Inputs))
	for i, t := range ctx.Inputs {
		switch d := t.Data.(type) {
		case []Float16:
			srcs[i] = widenHalf(d)
		case []BFloat16:
			srcs[i] = widenBF16(d)
		default:
			return nil, ctx.Errorf("input %d data does not match its dtype", i)
		}
	}
	out := append([]float32(nil), srcs[0]...)
	parallelFor(len(out), len(srcs), func(lo, hi int) {
		dst := out[lo:hi]
		for _, s := range srcs[1:] {
			s = s[lo:hi]
			for i := range dst {
				dst[i] = rnd(dst[i] + s[i])
			}
		}
	})
	if half {
		return narrowHalf(out), nil
	}
	return narrowBF16(out), nil
}
