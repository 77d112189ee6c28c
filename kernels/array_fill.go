package kernels

import (
	"math"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// Fill, ZerosLike, OnesLike, Empty, Range, LinSpace (constant_op.cc,
// sequence_ops.cc, inplace_ops.cc Empty).

// dimsFrom reads a shape vector, rejecting negative or oversized dims.
func dimsFrom(ctx *Context, t *Tensor, what string) ([]int, error) {
	if len(t.Shape) > 1 {
		return nil, ctx.Errorf("%s must be a vector, got shape %s", what, dimsString(t.Shape))
	}
	v, err := indexValues(t)
	if err != nil {
		return nil, ctx.Errorf("%s: %v", what, err)
	}
	dims := make([]int, len(v))
	for i, d := range v {
		if d < 0 || d > int64(MaxElements) {
			return nil, ctx.Errorf("%s[%d] = %d is not a valid dimension", what, i, d)
		}
		dims[i] = int(d)
	}
	if _, err := CheckShape(dims); err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return dims, nil
}

func fillKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 2); err != nil {
		return nil, err
	}
	dims, err := dimsFrom(ctx, ctx.Inputs[0], "dims")
	if err != nil {
		return nil, err
	}
	v := ctx.Inputs[1]
	if len(v.Shape) != 0 {
		return nil, ctx.Errorf("value must be a scalar, got shape %s", dimsString(v.Shape))
	}
	out, err := BroadcastToTensor(v, dims)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{out}, nil
}

func zerosLikeKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	switch dtype.Base(x.DType) {
	case tpb.DataType_DT_RESOURCE, tpb.DataType_DT_VARIANT:
		return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
	}
	out, err := NewTensor(dtype.Base(x.DType), cloneShape(x.Shape))
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{out}, nil
}

// setOnes fills a numeric or bool tensor with ones.
func setOnes(t *Tensor) bool {
	switch d := t.Data.(type) {
	case []float32:
		fillSlice(d, 1)
	case []float64:
		fillSlice(d, 1)
	case []Float16:
		fillSlice(d, Float16FromFloat32(1))
	case []BFloat16:
		fillSlice(d, BFloat16FromFloat32(1))
	case []int8:
		fillSlice(d, 1)
	case []uint8:
		fillSlice(d, 1)
	case []int16:
		fillSlice(d, 1)
	case []uint16:
		fillSlice(d, 1)
	case []int32:
		fillSlice(d, 1)
	case []int64:
		fillSlice(d, 1)
	case []uint32:
		fillSlice(d, 1)
	case []uint64:
		fillSlice(d, 1)
	case []bool:
		fillSlice(d, true)
	case []complex64:
		fillSlice(d, 1)
	case []complex128:
		fillSlice(d, 1)
	default:
		return false
	}
	return true
}

func fillSlice[T any](d []T, v T) {
	for i := range d {
		d[i] = v
	}
}

func onesLikeKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	out, err := NewTensor(dtype.Base(x.DType), cloneShape(x.Shape))
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	if !setOnes(out) {
		return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
	}
	return []*Tensor{out}, nil
}

func emptyKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	dims, err := dimsFrom(ctx, ctx.Inputs[0], "shape")
	if err != nil {
		return nil, err
	}
	dt, err := ctx.AttrType("dtype")
	if err != nil {
		return nil, err
	}
	// Uninitialised memory in TensorFlow unless init=true; zeros here either
	// way, which is one of the values TF may return.
	out, err := NewTensor(dt, dims)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{out}, nil
}

func scalarValue[T any](t *Tensor, what string) (T, error) {
	var zero T
	d, ok := t.Data.([]T)
	if !ok || len(d) != 1 || len(t.Shape) > 1 {
		return zero, errorf("%s must be a scalar, not shape %s", what, dimsString(t.Shape))
	}
	return d[0], nil
}

func rangeT[T int32 | int64 | float32 | float64](ctx *Context) (*Tensor, error) {
	start, err := scalarValue[T](ctx.Inputs[0], "start")
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	limit, err := scalarValue[T](ctx.Inputs[1], "limit")
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	delta, err := scalarValue[T](ctx.Inputs[2], "delta")
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	if delta == 0 {
		return nil, ctx.Errorf("Requires delta != 0: %v", delta)
	}
	if delta > 0 && start > limit {
		return nil, ctx.Errorf("Requires start <= limit when delta > 0: %v/%v", start, limit)
	}
	if delta < 0 && start < limit {
		return nil, ctx.Errorf("Requires start >= limit when delta < 0: %v/%v", start, limit)
	}
	var size float64
	switch any(start).(type) {
	case int32, int64:
		// Eigen::divup(|limit - start|, |delta|), in int64 to avoid overflow.
		span := math.Abs(float64(int64(limit) - int64(start)))
		ad := math.Abs(float64(int64(delta)))
		size = math.Ceil(span / ad)
		if size < 1e15 { // exact integer arithmetic when it matters
			s, a := absI64(int64(limit)-int64(start)), absI64(int64(delta))
			size = float64((s + a - 1) / a)
		}
	default:
		// ceil(|(limit - start) / delta|) evaluated in T, as sequence_ops.cc does.
		size = math.Ceil(math.Abs(float64((limit - start) / delta)))
	}
	if !(size <= float64(MaxElements)) {
		return nil, ctx.Errorf("Requires ((limit - start) / delta) <= %d", MaxElements)
	}
	n := int(size)
	d := make([]T, n)
	for i := range d {
		d[i] = start + T(T(i)*delta) // explicit rounding: no fused multiply-add
	}
	return &Tensor{DType: dtype.Base(ctx.Inputs[0].DType), Shape: []int{n}, Data: d}, nil
}

func absI64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func rangeKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 3); err != nil {
		return nil, err
	}
	var out *Tensor
	var err error
	switch ctx.Inputs[0].Data.(type) {
	case []int32:
		out, err = rangeT[int32](ctx)
	case []int64:
		out, err = rangeT[int64](ctx)
	case []float32:
		out, err = rangeT[float32](ctx)
	case []float64:
		out, err = rangeT[float64](ctx)
	default:
		return nil, ctx.Unsupported("dtype %s", dtypeName(ctx.Inputs[0].DType))
	}
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

func linSpaceT[T float32 | float64](ctx *Context) (*Tensor, error) {
	start, err := scalarValue[T](ctx.Inputs[0], "start")
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	stop, err := scalarValue[T](ctx.Inputs[1], "stop")
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	num, err := scalarIndex(ctx.Inputs[2], "num")
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	if num <= 0 {
		return nil, ctx.Errorf("Requires num > 0: %d", num)
	}
	if num > int64(MaxElements) {
		return nil, ctx.Errorf("num %d is too large", num)
	}
	d := make([]T, num)
	d[0] = start
	if num > 1 {
		step := (stop - start) / T(num-1)
		for i := int64(1); i < num-1; i++ {
			d[i] = start + T(step*T(i))
		}
		d[num-1] = stop
	}
	return &Tensor{DType: dtype.Base(ctx.Inputs[0].DType), Shape: []int{int(num)}, Data: d}, nil
}

func linSpaceKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 3); err != nil {
		return nil, err
	}
	var out *Tensor
	var err error
	switch ctx.Inputs[0].Data.(type) {
	case []float32:
		out, err = linSpaceT[float32](ctx)
	case []float64:
		out, err = linSpaceT[float64](ctx)
	default:
		return nil, ctx.Unsupported("dtype %s", dtypeName(ctx.Inputs[0].DType))
	}
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

func init() {
	Register("Fill", fillKernel)
	Register("ZerosLike", zerosLikeKernel)
	Register("OnesLike", onesLikeKernel)
	Register("Empty", emptyKernel)
	Register("Range", rangeKernel)
	Register("LinSpace", linSpaceKernel)
}
