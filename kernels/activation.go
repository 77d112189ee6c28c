package kernels

import (
	"math"

	"github.com/tfscan/tfscan/dtype"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// Activations, after TensorFlow's relu_op_functor.h (Relu, Relu6 propagate
// NaN; LeakyRelu is x > 0 ? x : x*alpha; Elu and Selu use exp(x)-1, not
// expm1), cwise_op_sigmoid.cc and cwise_op_tanh.cc, plus the TF.js pseudo-op
// Prelu (tfjs-backend-cpu's prelu: x < 0 ? alpha*x : x, alpha broadcast
// against x). Float16/bfloat16 are computed in float32 and rounded once,
// except where Eigen's half arithmetic rounds a step TensorFlow's functor
// takes in the tensor's type (Elu's and Selu's exp(x), LeakyRelu's alpha):
// those are rounded too, which the kernel goldens hold bit-identical.

// actKind names an activation applied in place by activate.
type actKind int

const (
	actIdentity actKind = iota
	actRelu
	actRelu6
	actElu
	actSelu
	actLeakyRelu
	actSigmoid
	actTanh
	actGeluApprox // 0.5x(1+tanh(√(2/π)(x+0.044715x³))), _FusedMatMul "GeluApproximate"
	actGeluExact  // 0.5x(1+erf(x/√2)), _FusedMatMul "GeluExact"
)

var actByName = map[string]actKind{
	"Identity": actIdentity, "Relu": actRelu, "Relu6": actRelu6, "Elu": actElu, "Selu": actSelu,
	"LeakyRelu": actLeakyRelu, "Sigmoid": actSigmoid, "Tanh": actTanh,
}

// activate applies the activation to data in place; alpha is LeakyRelu's.
func activate[T nnFloat](k actKind, data []T, alpha T) {
	activateIn(k, data, alpha, func(v T) T { return v })
}

// storageRounder rounds a value computed in float32 to the tensor's
// float16 or bfloat16, as Eigen's half arithmetic rounds each step; other
// dtypes are left as they are.
func storageRounder[T nnFloat](dt tpb.DataType) func(T) T {
	switch dt {
	case tpb.DataType_DT_HALF:
		return func(v T) T { return T(RoundFloat16(float32(v))) }
	case tpb.DataType_DT_BFLOAT16:
		return func(v T) T { return T(RoundBFloat16(float32(v))) }
	}
	return func(v T) T { return v }
}

// activateIn is activate for a tensor whose dtype rounds intermediate
// results with rs (storageRounder).
func activateIn[T nnFloat](k actKind, data []T, alpha T, rs func(T) T) {
	nnParallel(nnCeilDiv(len(data), 4096), 4096*4, func(ch int) {
		d := data[ch*4096 : min(len(data), (ch+1)*4096)]
		switch k {
		case actRelu:
			for i, v := range d {
				if v < 0 {
					d[i] = 0
				}
			}
		case actRelu6:
			for i, v := range d {
				if v < 0 {
					d[i] = 0
				} else if v > 6 {
					d[i] = 6
				}
			}
		case actElu:
			// Eigen's elu: exp(x) - 1 in the tensor's type, so for
			// float16/bfloat16 exp(x) is rounded to it before the
			// subtraction (rs), as Eigen::half arithmetic rounds each step.
			for i, v := range d {
				if v < 0 {
					d[i] = rs(rs(T(math.Exp(float64(v)))) - 1)
				}
			}
		case actSelu:
			const scale, scaleAlpha = 1.0507009873554804934193349852946, 1.7580993408473768599402175208123
			for i, v := range d {
				if v < 0 {
					d[i] = rs(rs(T(scaleAlpha)) * rs(rs(T(math.Exp(float64(v))))-1))
				} else {
					d[i] = rs(rs(T(scale)) * v)
				}
			}
		case actLeakyRelu:
			for i, v := range d {
				if !(v > 0) {
					d[i] = v * alpha
				}
			}
		case actSigmoid:
			for i, v := range d {
				d[i] = T(1 / (1 + math.Exp(-float64(v))))
			}
		case actTanh:
			for i, v := range d {
				d[i] = T(math.Tanh(float64(v)))
			}
		case actGeluApprox:
			for i, v := range d {
				x := float64(v)
				d[i] = T(0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x))))
			}
		case actGeluExact:
			for i, v := range d {
				x := float64(v)
				d[i] = T(0.5 * x * (1 + math.Erf(x/math.Sqrt2)))
			}
		}
	})
}

func init() {
	for name, k := range actByName {
		if k == actIdentity {
			continue
		}
		k := k
		dts := allFloats
		if k == actLeakyRelu {
			dts = floatDTypes{half: true, bf16: true}
		}
		Register(name, func(ctx *Context) ([]*Tensor, error) {
			if err := nnInputs(ctx, 1); err != nil {
				return nil, err
			}
			x := ctx.Inputs[0]
			if (k == actRelu || k == actRelu6) && !dtype.IsFloat(x.DType) {
				return reluInt(ctx, k)
			}
			if cx, ok := complexUnary[name]; ok && cx.c64 != nil {
				if isComplex(dtype.Base(x.DType)) {
					// Sigmoid and Tanh of complex64/complex128 (cwise_op_sigmoid.cc,
					// cwise_op_tanh.cc): complex.go's elementwise functions.
					return runUnary(ctx, unaryFns{cx: cx})
				}
			}
			return byFloat(ctx, x.DType, dts,
				func(c *Context) ([]*Tensor, error) { return activationOp[float32](c, k) },
				func(c *Context) ([]*Tensor, error) { return activationOp[float64](c, k) })
		})
	}
	Register("Prelu", func(ctx *Context) ([]*Tensor, error) {
		if err := nnInputs(ctx, 2); err != nil {
			return nil, err
		}
		return byFloat(ctx, ctx.Inputs[0].DType, allFloats, preluOp[float32], preluOp[float64])
	})
}

func activationOp[T nnFloat](ctx *Context, k actKind) ([]*Tensor, error) {
	x := ctx.Inputs[0]
	xd, err := floatsOf[T](x)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	var alpha T
	if k == actLeakyRelu {
		a, err := ctx.AttrFloat("alpha")
		if err != nil {
			return nil, err
		}
		alpha = T(a)
	}
	rs := storageRounder[T](x.DType)
	if k == actLeakyRelu {
		alpha = rs(alpha) // T(alpha) * x in TensorFlow's relu_op_functor.h
	}
	if x32, ok := any(xd).([]float32); ok && (k == actRelu || k == actRelu6) {
		// One pass from x to the output, no copy first.
		out := x32
		if _, direct := x.Data.([]float32); !direct || !ctx.Owns(0) {
			out = newOutFull[float32](ctx, len(x32))
		}
		nnParallel(nnCeilDiv(len(x32), 4096), 4096*4, func(ch int) {
			lo, hi := ch*4096, min(len(x32), (ch+1)*4096)
			clamp32(out[lo:hi], x32[lo:hi], k == actRelu6)
		})
		return []*Tensor{tensorFrom(x.DType, nnCloneShape(x.Shape), out)}, nil
	}
	if x32, ok := any(xd).([]float32); ok && k == actSigmoid && x.DType == tpb.DataType_DT_FLOAT {
		out := x32
		if _, direct := x.Data.([]float32); !direct || !ctx.Owns(0) {
			out = newOutFull[float32](ctx, len(x32))
		}
		tail := len(x32) / 8 * 8 // Eigen's last whole AVX packet (sigmoid.go)
		nnParallel(nnCeilDiv(len(x32), 4096), 4096*4, func(ch int) {
			lo, hi := ch*4096, min(len(x32), (ch+1)*4096)
			copy(out[lo:hi], x32[lo:hi])
			sigmoid32(out[lo:hi], min(hi, max(lo, tail))-lo)
		})
		return []*Tensor{tensorFrom(x.DType, nnCloneShape(x.Shape), out)}, nil
	}
	out := newOutFull[T](ctx, len(xd))
	copy(out, xd)
	activateIn(k, out, alpha, rs)
	return []*Tensor{tensorFrom(x.DType, nnCloneShape(x.Shape), out)}, nil
}

// reluInt is Relu/Relu6 on integer tensors (TF_CALL_REAL_NUMBER_TYPES).
func reluInt(ctx *Context, k actKind) ([]*Tensor, error) {
	x := ctx.Inputs[0]
	switch d := x.Data.(type) {
	case []int32:
		return []*Tensor{{DType: x.DType, Shape: nnCloneShape(x.Shape), Data: reluInts(d, k)}}, nil
	case []int64:
		return []*Tensor{{DType: x.DType, Shape: nnCloneShape(x.Shape), Data: reluInts(d, k)}}, nil
	case []int8:
		return []*Tensor{{DType: x.DType, Shape: nnCloneShape(x.Shape), Data: reluInts(d, k)}}, nil
	case []int16:
		return []*Tensor{{DType: x.DType, Shape: nnCloneShape(x.Shape), Data: reluInts(d, k)}}, nil
	case []uint8:
		return []*Tensor{{DType: x.DType, Shape: nnCloneShape(x.Shape), Data: reluInts(d, k)}}, nil
	}
	return nil, ctx.Unsupported("dtype %s", x.DType)
}

func reluInts[T int8 | int16 | int32 | int64 | uint8](d []T, k actKind) []T {
	out := make([]T, len(d))
	for i, v := range d {
		if v < 0 {
			v = 0
		}
		if k == actRelu6 && v > 6 {
			v = 6
		}
		out[i] = v
	}
	return out
}

// broadcastTo expands src of shape ss to shape dst (NumPy rules, src rank
// ≤ dst rank, and src must not need to grow dst).
func broadcastTo[T any](src []T, ss, dst []int) ([]T, bool) {
	if len(ss) > len(dst) {
		return nil, false
	}
	off := len(dst) - len(ss)
	strides := make([]int, len(dst))
	st := 1
	for i := len(ss) - 1; i >= 0; i-- {
		switch ss[i] {
		case dst[off+i]:
			strides[off+i] = st
		case 1:
		default:
			return nil, false
		}
		st *= ss[i]
	}
	n := 1
	for _, d := range dst {
		n *= d
	}
	out := make([]T, n)
	idx := make([]int, len(dst))
	o := 0
	for i := 0; i < n; i++ {
		out[i] = src[o]
		for a := len(dst) - 1; a >= 0; a-- {
			idx[a]++
			o += strides[a]
			if idx[a] < dst[a] {
				break
			}
			o -= strides[a] * dst[a]
			idx[a] = 0
		}
	}
	return out, true
}

func preluOp[T nnFloat](ctx *Context) ([]*Tensor, error) {
	x, a := ctx.Inputs[0], ctx.Inputs[1]
	xd, err := floatsOf[T](x)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	ad, err := floatsOf[T](a)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	out := append([]T(nil), xd...)
	if err := applyPrelu(ctx, out, x.Shape, ad, a.Shape); err != nil {
		return nil, err
	}
	return []*Tensor{tensorFrom(x.DType, nnCloneShape(x.Shape), out)}, nil
}

// applyPrelu computes x < 0 ? alpha*x : x in place, alpha broadcast to x.
func applyPrelu[T nnFloat](ctx *Context, x []T, xs []int, alpha []T, as []int) error {
	ab, ok := broadcastTo(alpha, as, xs)
	if !ok {
		return ctx.Errorf("alpha shape %v does not broadcast to input shape %v", as, xs)
	}
	for i, v := range x {
		if v < 0 {
			x[i] = ab[i] * v
		}
	}
	return nil
}
