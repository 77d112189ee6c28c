package kernels

import (
	"fmt"
	"math"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// Cast between the real number types and bool (tensorflow/core/kernels/
// cast_op.cc, cast_op.h, cast_op_impl_*.cc). TensorFlow casts with C++
// static_cast through Eigen, so:
//
//   - integer → integer keeps the low bits (wraps), as two's complement does;
//   - anything → bool is x != 0 (NaN is true); bool → number is 0 or 1;
//   - float → float rounds to nearest even; double → half and double →
//     bfloat16 go through float first, as Eigen's half(double) does;
//   - integer → half/bfloat16 goes through float;
//   - float → integer truncates toward zero. Out-of-range values and NaN are
//     undefined behaviour in C++ (cast_op_impl.h logs "IMPORTANT! ... out of
//     range"); tfscan gives what TensorFlow's x86-64 CPU build gives, which
//     depends on the element's position in the tensor: the vectorised loop
//     saturates narrow integers, its scalar remainder keeps the low bits of
//     a 32-bit conversion (100000.0 → int16 is -31072, as reported in
//     tensorflow/tensorflow#12235) (cast_x86.go);
//   - complex → real (bool included) casts the real part and drops the
//     imaginary one; real → complex casts to the part's type with a zero
//     imaginary part; complex → complex casts each part (cast_op.h,
//     Eigen::internal::scalar_cast_op specialisations, NumPy's rules).
//   - With Truncate=true, the input's extra mantissa bits are zeroed before a
//     narrowing float cast (LSBZeroSetter in cast_op.h), for exactly the pairs
//     cast_op.h lists: double→float, double→half, float→half, float→bfloat16.

// CastTensor converts x to dtype dst with TensorFlow's Cast semantics
// (Truncate=false). The executor and other kernels use it for implicit
// conversions.
func CastTensor(x *Tensor, dst tpb.DataType) (*Tensor, error) {
	return castTensor(x, dtype.Base(dst), false)
}

func castKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	dst, err := ctx.AttrType("DstT")
	if err != nil {
		return nil, err
	}
	truncate := false
	if ctx.HasAttr("Truncate") {
		truncate, _ = ctx.AttrBool("Truncate")
	}
	out, err := castTensor(ctx.Inputs[0], dtype.Base(dst), truncate)
	if err != nil {
		var ue *castUnsupported
		if asCastUnsupported(err, &ue) {
			return nil, ctx.Unsupported("%s", ue.what)
		}
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{out}, nil
}

type castUnsupported struct{ what string }

func (e *castUnsupported) Error() string { return "cannot cast " + e.what }

func asCastUnsupported(err error, target **castUnsupported) bool {
	ue, ok := err.(*castUnsupported)
	if ok {
		*target = ue
	}
	return ok
}

// castTensor performs the cast; it returns a *castUnsupported for dtype
// pairs without a kernel here.
func castTensor(x *Tensor, dst tpb.DataType, truncate bool) (*Tensor, error) {
	src := dtype.Base(x.DType)
	out := &Tensor{DType: dst, Shape: cloneShape(x.Shape)}
	if src == dst {
		c := x.Clone()
		c.DType = dst
		return c, nil
	}
	if isComplex(src) || isComplex(dst) {
		if truncate {
			// cast_op.h's LSBZeroSetter for the complex pairs (including
			// double → complex64, whose std::complex "mantissa width" is 0)
			// is not modelled: refused rather than cast without it.
			return nil, &castUnsupported{fmt.Sprintf("%s to %s with Truncate=true", dtypeName(src), dtypeName(dst))}
		}
		return castComplex(x, dst)
	}
	if !castable(dst) {
		return nil, &castUnsupported{fmt.Sprintf("%s to %s", dtypeName(src), dtypeName(dst))}
	}
	switch d := x.Data.(type) {
	case []float32:
		f := make([]float64, len(d))
		mapUnary(d, f, 1, func(v float32) float64 { return float64(v) })
		if truncate {
			switch dst {
			case tpb.DataType_DT_HALF:
				truncBits32(f, 24-11)
			case tpb.DataType_DT_BFLOAT16:
				truncBits32(f, 24-8)
			}
		}
		out.Data = fromFloats(f, src, dst)
	case []float64:
		f := d
		if truncate {
			switch dst {
			case tpb.DataType_DT_FLOAT:
				f = truncBits64(d, 53-24)
			case tpb.DataType_DT_HALF:
				f = truncBits64(d, 53-11)
			}
		}
		out.Data = fromFloats(f, src, dst)
	case []Float16:
		f := make([]float64, len(d))
		mapUnary(d, f, 1, Float16.Float64)
		out.Data = fromFloats(f, src, dst)
	case []BFloat16:
		f := make([]float64, len(d))
		mapUnary(d, f, 1, BFloat16.Float64)
		out.Data = fromFloats(f, src, dst)
	case []int8:
		out.Data = fromInts(d, dst)
	case []uint8:
		out.Data = fromInts(d, dst)
	case []int16:
		out.Data = fromInts(d, dst)
	case []uint16:
		out.Data = fromInts(d, dst)
	case []int32:
		out.Data = fromInts(d, dst)
	case []int64:
		out.Data = fromInts(d, dst)
	case []uint32:
		out.Data = fromInts(d, dst)
	case []uint64:
		out.Data = fromInts(d, dst)
	case []bool:
		u := make([]uint8, len(d))
		for i, v := range d {
			if v {
				u[i] = 1
			}
		}
		out.Data = fromInts(u, dst)
	}
	if out.Data == nil {
		return nil, &castUnsupported{fmt.Sprintf("%s to %s", dtypeName(src), dtypeName(dst))}
	}
	return out, nil
}

func castable(dt tpb.DataType) bool {
	switch dt {
	case tpb.DataType_DT_FLOAT, tpb.DataType_DT_DOUBLE, tpb.DataType_DT_HALF, tpb.DataType_DT_BFLOAT16,
		tpb.DataType_DT_INT8, tpb.DataType_DT_UINT8, tpb.DataType_DT_INT16, tpb.DataType_DT_UINT16,
		tpb.DataType_DT_INT32, tpb.DataType_DT_INT64, tpb.DataType_DT_UINT32, tpb.DataType_DT_UINT64,
		tpb.DataType_DT_BOOL:
		return true
	}
	return false
}

// truncBits32 zeroes the n low mantissa bits of float32 values (held in
// float64, exactly); NaN is left alone.
func truncBits32(f []float64, n uint) {
	for i, v := range f {
		if v != v {
			continue
		}
		b := math.Float32bits(float32(v)) &^ (1<<n - 1)
		f[i] = float64(math.Float32frombits(b))
	}
}

func truncBits64(d []float64, n uint) []float64 {
	f := make([]float64, len(d))
	for i, v := range d {
		if v != v {
			f[i] = v
			continue
		}
		f[i] = math.Float64frombits(math.Float64bits(v) &^ (1<<n - 1))
	}
	return f
}

const (
	two31 = 1 << 31
	two63 = 1 << 63
)

// cvtt32 is x86 cvttsd2si with a 32-bit destination: truncation, and
// INT32_MIN ("integer indefinite") for NaN and out-of-range values.
func cvtt32(x float64) int32 {
	t := math.Trunc(x)
	if !(t >= -two31 && t < two31) {
		return math.MinInt32
	}
	return int32(t)
}

// cvtt64 is cvttsd2si with a 64-bit destination.
func cvtt64(x float64) int64 {
	t := math.Trunc(x)
	if !(t >= -two63 && t < two63) {
		return math.MinInt64
	}
	return int64(t)
}

// cvttU64 is clang's float → uint64 sequence without AVX-512: small |
// (big & small>>63), small the conversion of x and big that of x - 2^63, so
// values in [2^63, 2^64) take big's bits under the top bit, negatives keep
// small's two's complement bits, and NaN and out of range give 2^63.
func cvttU64(x float64) uint64 {
	small, big := cvtt64(x), cvtt64(x-two63)
	return uint64(small | (big & (small >> 63)))
}

// fromFloats converts float values of dtype src (held exactly in float64)
// to dst.
func fromFloats(f []float64, src, dst tpb.DataType) any {
	if out, ok := castFloatToInt(f, src, dst); ok {
		return out
	}
	switch dst {
	case tpb.DataType_DT_FLOAT:
		return mapTo(f, func(v float64) float32 { return float32(v) })
	case tpb.DataType_DT_DOUBLE:
		return append([]float64(nil), f...)
	case tpb.DataType_DT_HALF:
		return mapTo(f, func(v float64) Float16 { return Float16FromFloat32(float32(v)) })
	case tpb.DataType_DT_BFLOAT16:
		return mapTo(f, func(v float64) BFloat16 { return BFloat16FromFloat32(float32(v)) })
	case tpb.DataType_DT_BOOL:
		return mapTo(f, func(v float64) bool { return v != 0 })
	}
	return nil
}

func fromInts[T integer](d []T, dst tpb.DataType) any {
	switch dst {
	case tpb.DataType_DT_FLOAT:
		return mapTo(d, func(v T) float32 { return float32(v) })
	case tpb.DataType_DT_DOUBLE:
		return mapTo(d, func(v T) float64 { return float64(v) })
	case tpb.DataType_DT_HALF:
		return mapTo(d, func(v T) Float16 { return Float16FromFloat32(float32(v)) })
	case tpb.DataType_DT_BFLOAT16:
		return mapTo(d, func(v T) BFloat16 { return BFloat16FromFloat32(float32(v)) })
	case tpb.DataType_DT_INT8:
		return mapTo(d, func(v T) int8 { return int8(v) })
	case tpb.DataType_DT_UINT8:
		return mapTo(d, func(v T) uint8 { return uint8(v) })
	case tpb.DataType_DT_INT16:
		return mapTo(d, func(v T) int16 { return int16(v) })
	case tpb.DataType_DT_UINT16:
		return mapTo(d, func(v T) uint16 { return uint16(v) })
	case tpb.DataType_DT_INT32:
		return mapTo(d, func(v T) int32 { return int32(v) })
	case tpb.DataType_DT_INT64:
		return mapTo(d, func(v T) int64 { return int64(v) })
	case tpb.DataType_DT_UINT32:
		return mapTo(d, func(v T) uint32 { return uint32(v) })
	case tpb.DataType_DT_UINT64:
		return mapTo(d, func(v T) uint64 { return uint64(v) })
	case tpb.DataType_DT_BOOL:
		return mapTo(d, func(v T) bool { return v != 0 })
	}
	return nil
}

func mapTo[T, R any](d []T, f func(T) R) []R {
	out := make([]R, len(d))
	mapUnary(d, out, 1, f)
	return out
}

func init() {
	Register("Cast", castKernel)
}

func isComplex(dt tpb.DataType) bool {
	return dt == tpb.DataType_DT_COMPLEX64 || dt == tpb.DataType_DT_COMPLEX128
}

// castComplex casts to or from a complex dtype by way of the part's dtype
// (cast_op.h's scalar_cast_op specialisations): static_cast of the real
// part, or of the value to the part's type.
func castComplex(x *Tensor, dst tpb.DataType) (*Tensor, error) {
	var re, im *Tensor
	switch d := x.Data.(type) {
	case []complex64:
		re = &Tensor{DType: tpb.DataType_DT_FLOAT, Shape: x.Shape, Data: mapTo(d, func(v complex64) float32 { return real(v) })}
		im = &Tensor{DType: tpb.DataType_DT_FLOAT, Shape: x.Shape, Data: mapTo(d, func(v complex64) float32 { return imag(v) })}
	case []complex128:
		re = &Tensor{DType: tpb.DataType_DT_DOUBLE, Shape: x.Shape, Data: mapTo(d, func(v complex128) float64 { return real(v) })}
		im = &Tensor{DType: tpb.DataType_DT_DOUBLE, Shape: x.Shape, Data: mapTo(d, func(v complex128) float64 { return imag(v) })}
	default:
		re = x
	}
	if !isComplex(dst) && isComplex(x.DType) {
		if out, ok := castComplexToInt(realParts(x.Data), x.DType, dst); ok {
			return &Tensor{DType: dst, Shape: cloneShape(x.Shape), Data: out}, nil
		}
	}
	if !isComplex(dst) {
		return castTensor(re, dst, false)
	}
	part := tpb.DataType_DT_FLOAT
	if dst == tpb.DataType_DT_COMPLEX128 {
		part = tpb.DataType_DT_DOUBLE
	}
	r, err := castTensor(re, part, false)
	if err != nil {
		return nil, &castUnsupported{fmt.Sprintf("%s to %s", dtypeName(x.DType), dtypeName(dst))}
	}
	out := &Tensor{DType: dst, Shape: cloneShape(x.Shape)}
	var i *Tensor
	if im != nil {
		if i, err = castTensor(im, part, false); err != nil {
			return nil, err
		}
	} else {
		i = MustTensor(part, x.Shape)
	}
	if part == tpb.DataType_DT_FLOAT {
		rd, id := r.Data.([]float32), i.Data.([]float32)
		c := make([]complex64, len(rd))
		for k := range c {
			c[k] = complex(rd[k], id[k])
		}
		out.Data = c
	} else {
		rd, id := r.Data.([]float64), i.Data.([]float64)
		c := make([]complex128, len(rd))
		for k := range c {
			c[k] = complex(rd[k], id[k])
		}
		out.Data = c
	}
	return out, nil
}

// realParts returns the real parts of complex values, exactly, as float64.
func realParts(data any) []float64 {
	switch d := data.(type) {
	case []complex64:
		return mapTo(d, func(v complex64) float64 { return float64(real(v)) })
	case []complex128:
		return mapTo(d, func(v complex128) float64 { return real(v) })
	}
	return nil
}
