package kernels

import (
	"fmt"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// Float I/O shared by the NN kernels (matmul, conv, pooling, ...). They
// compute float32, float16 and bfloat16 tensors in float32 and float64 in
// float64: a float16/bfloat16 input is widened exactly, and the output is
// rounded to its dtype once, when the result tensor is built (tensorFrom).
// TensorFlow's CPU kernels for half types mostly do the same through Eigen
// (which evaluates half arithmetic in float); where TF rounds intermediate
// values the results can differ by one ulp of the half type.

const (
	nnF32  = tpb.DataType_DT_FLOAT
	nnF64  = tpb.DataType_DT_DOUBLE
	nnF16  = tpb.DataType_DT_HALF
	nnBF16 = tpb.DataType_DT_BFLOAT16
	nnI32  = tpb.DataType_DT_INT32
	nnI64  = tpb.DataType_DT_INT64
)

// floatsOf returns t's values as T. For T = float32 a DT_FLOAT tensor's data
// is returned without a copy (callers must not write to it); float16 and
// bfloat16 are widened into a new slice. For T = float64 only DT_DOUBLE is
// accepted.
func floatsOf[T nnFloat](t *Tensor) ([]T, error) {
	var z T
	switch any(z).(type) {
	case float32:
		switch d := t.Data.(type) {
		case []float32:
			return any(d).([]T), nil
		case []Float16:
			out := make([]float32, len(d))
			for i, v := range d {
				out[i] = v.Float32()
			}
			return any(out).([]T), nil
		case []BFloat16:
			out := make([]float32, len(d))
			for i, v := range d {
				out[i] = v.Float32()
			}
			return any(out).([]T), nil
		}
	case float64:
		if d, ok := t.Data.([]float64); ok {
			return any(d).([]T), nil
		}
	}
	return nil, fmt.Errorf("%s tensor holds %T", t.DType, t.Data)
}

// tensorFrom builds a tensor of dtype dt from values computed in T, rounding
// to float16/bfloat16 (to nearest, ties to even) when dt is a half type.
func tensorFrom[T nnFloat](dt tpb.DataType, shape []int, data []T) *Tensor {
	switch d := any(data).(type) {
	case []float32:
		switch dt {
		case nnF16:
			out := make([]Float16, len(d))
			for i, v := range d {
				out[i] = Float16FromFloat32(v)
			}
			return &Tensor{DType: dt, Shape: shape, Data: out}
		case nnBF16:
			out := make([]BFloat16, len(d))
			for i, v := range d {
				out[i] = BFloat16FromFloat32(v)
			}
			return &Tensor{DType: dt, Shape: shape, Data: out}
		}
		return &Tensor{DType: nnF32, Shape: shape, Data: d}
	case []float64:
		return &Tensor{DType: nnF64, Shape: shape, Data: d}
	}
	panic("unreachable")
}

// floatDTypes lists the dtypes a kernel accepts; byFloat dispatches on them.
type floatDTypes struct {
	half, bf16 bool // float and double are always accepted
}

var (
	allFloats  = floatDTypes{half: true, bf16: true}
	onlyF32F64 = floatDTypes{}
)

// byFloat runs f32 for float32 (and, when allowed, float16/bfloat16) and
// f64 for float64 tensors of dtype dt; other dtypes are unsupported.
func byFloat(ctx *Context, dt tpb.DataType, ok floatDTypes, f32, f64 KernelFunc) ([]*Tensor, error) {
	switch {
	case dt == nnF32, dt == nnF16 && ok.half, dt == nnBF16 && ok.bf16:
		return f32(ctx)
	case dt == nnF64:
		return f64(ctx)
	}
	return nil, ctx.Unsupported("dtype %s", dt)
}

// roundOperand returns the emulation's operand rounding as a func on T, or
// nil when there is none.
func roundOperand[T nnFloat](e *Emulation) func(T) T {
	if e == nil || e.RoundOperand == nil {
		return nil
	}
	r := e.RoundOperand
	return func(v T) T { return T(r(float32(v))) }
}

// roundAccum returns the emulation's accumulator rounding as a func on T,
// or nil.
func roundAccum[T nnFloat](e *Emulation) func(T) T {
	if e == nil || e.RoundAccum == nil {
		return nil
	}
	r := e.RoundAccum
	return func(v T) T { return T(r(float32(v))) }
}

// nnInputs checks the input count and that each input's data matches its
// dtype and shape, so kernels can index without further checks.
func nnInputs(ctx *Context, n int) error {
	if len(ctx.Inputs) < n {
		return ctx.Errorf("expects %d inputs, got %d", n, len(ctx.Inputs))
	}
	for i := 0; i < n; i++ {
		if ctx.Inputs[i] == nil {
			return ctx.Errorf("input %d is missing", i)
		}
		if err := ctx.Inputs[i].Validate(); err != nil {
			return ctx.Errorf("input %d: %v", i, err)
		}
	}
	return nil
}

// nnInts returns the values of an int32/int64 tensor.
func nnInts(t *Tensor) ([]int64, bool) {
	switch d := t.Data.(type) {
	case []int32:
		out := make([]int64, len(d))
		for i, v := range d {
			out[i] = int64(v)
		}
		return out, true
	case []int64:
		return append([]int64(nil), d...), true
	}
	return nil, false
}

// nnCloneShape returns a copy of s.
func nnCloneShape(s []int) []int { return append([]int{}, s...) }
