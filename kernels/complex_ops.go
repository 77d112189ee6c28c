package kernels

import (
	"math"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// The complex-only ops (cwise_op_complex.cc, cwise_op_real.cc,
// cwise_op_imag.cc, cwise_op_conj.cc, cwise_op_abs.cc's ComplexAbs,
// cwise_op_arg.cc): Complex builds values from float or double parts with
// broadcasting; Real, Imag, Conj move bits; ComplexAbs is Eigen's
// scalar_abs_op on std::complex, std::abs, glibc's cabs (hypot); Angle is
// std::arg, atan2(imag, real).

// partDType is the dtype of a complex dtype's parts.
func partDType(dt tpb.DataType) tpb.DataType {
	if dt == tpb.DataType_DT_COMPLEX128 {
		return tpb.DataType_DT_DOUBLE
	}
	return tpb.DataType_DT_FLOAT
}

// complexToPart maps a complex tensor to a tensor of its parts' dtype.
func complexToPart(ctx *Context, f32 func(complex64) float32, f64 func(complex128) float64) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	out := &Tensor{DType: partDType(dtype.Base(x.DType)), Shape: cloneShape(x.Shape)}
	switch d := x.Data.(type) {
	case []complex64:
		out.Data = mapTo(d, f32)
	case []complex128:
		out.Data = mapTo(d, f64)
	default:
		return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
	}
	return []*Tensor{out}, nil
}

func complexKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 2); err != nil {
		return nil, err
	}
	re, im := ctx.Inputs[0], ctx.Inputs[1]
	if dtype.Base(re.DType) != dtype.Base(im.DType) {
		return nil, ctx.Errorf("operands have different dtypes %s and %s", dtypeName(re.DType), dtypeName(im.DType))
	}
	p, err := newBcastPlan(re.Shape, im.Shape)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	switch rd := re.Data.(type) {
	case []float32:
		out := make([]complex64, p.n)
		binaryBroadcast(p, rd, im.Data.([]float32), out, 1, func(a, b float32) complex64 { return complex(a, b) })
		return []*Tensor{{DType: tpb.DataType_DT_COMPLEX64, Shape: p.out, Data: out}}, nil
	case []float64:
		out := make([]complex128, p.n)
		binaryBroadcast(p, rd, im.Data.([]float64), out, 1, func(a, b float64) complex128 { return complex(a, b) })
		return []*Tensor{{DType: tpb.DataType_DT_COMPLEX128, Shape: p.out, Data: out}}, nil
	}
	return nil, ctx.Unsupported("dtype %s", dtypeName(re.DType))
}

func init() {
	Register("Complex", complexKernel)
	Register("Real", func(ctx *Context) ([]*Tensor, error) {
		return complexToPart(ctx, func(v complex64) float32 { return real(v) }, func(v complex128) float64 { return real(v) })
	})
	Register("Imag", func(ctx *Context) ([]*Tensor, error) {
		return complexToPart(ctx, func(v complex64) float32 { return imag(v) }, func(v complex128) float64 { return imag(v) })
	})
	Register("ComplexAbs", func(ctx *Context) ([]*Tensor, error) {
		return complexToPart(ctx, func(v complex64) float32 { return hypotF(real(v), imag(v)) },
			func(v complex128) float64 { return hypotF(real(v), imag(v)) })
	})
	Register("Angle", func(ctx *Context) ([]*Tensor, error) {
		return complexToPart(ctx, func(v complex64) float32 { return float32(math.Atan2(float64(imag(v)), float64(real(v)))) },
			func(v complex128) float64 { return math.Atan2(imag(v), real(v)) })
	})
	Register("Conj", func(ctx *Context) ([]*Tensor, error) {
		return runUnary(ctx, unaryFns{cx: cUnaryFns{
			c64:  func(v complex64) complex64 { return complex(real(v), -imag(v)) },
			c128: func(v complex128) complex128 { return complex(real(v), -imag(v)) },
		}})
	})
}
