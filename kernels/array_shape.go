package kernels

import (
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// Shape ops (shape_ops.cc, reshape_op.h, bcast_ops.cc, transpose_op.cc
// InvertPermutation). Reshape, ExpandDims and Squeeze return a tensor that
// shares the input's data: kernels never mutate their inputs.

// shapeTensor returns dims as an int32 or int64 vector.
func shapeTensor(dims []int, dt tpb.DataType) (*Tensor, error) {
	switch dt {
	case tpb.DataType_DT_INT32:
		d := make([]int32, len(dims))
		for i, v := range dims {
			if v > 1<<31-1 {
				return nil, errorf("shape dimension %d does not fit out_type int32", v)
			}
			d[i] = int32(v)
		}
		return &Tensor{DType: dt, Shape: []int{len(dims)}, Data: d}, nil
	case tpb.DataType_DT_INT64:
		d := make([]int64, len(dims))
		for i, v := range dims {
			d[i] = int64(v)
		}
		return &Tensor{DType: dt, Shape: []int{len(dims)}, Data: d}, nil
	}
	return nil, errorf("out_type %s is not int32 or int64", dtypeName(dt))
}

func outType(ctx *Context, attr string) tpb.DataType {
	if ctx.HasAttr(attr) {
		if t, err := ctx.AttrType(attr); err == nil {
			return t
		}
	}
	return tpb.DataType_DT_INT32
}

func scalarOf(v int64, dt tpb.DataType) (*Tensor, error) {
	switch dt {
	case tpb.DataType_DT_INT32:
		if v > 1<<31-1 {
			return nil, errorf("value %d does not fit out_type int32", v)
		}
		return ScalarInt32(int32(v)), nil
	case tpb.DataType_DT_INT64:
		return ScalarInt64(v), nil
	}
	return nil, errorf("out_type %s is not int32 or int64", dtypeName(dt))
}

func shapeKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	t, err := shapeTensor(ctx.Inputs[0].Shape, outType(ctx, "out_type"))
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{t}, nil
}

func shapeNKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, len(ctx.Inputs)); err != nil {
		return nil, err
	}
	var outs []*Tensor
	for _, in := range ctx.Inputs {
		t, err := shapeTensor(in.Shape, outType(ctx, "out_type"))
		if err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		outs = append(outs, t)
	}
	return outs, nil
}

func sizeKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	t, err := scalarOf(int64(ctx.Inputs[0].NumElements()), outType(ctx, "out_type"))
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{t}, nil
}

func rankKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	return []*Tensor{ScalarInt32(int32(len(ctx.Inputs[0].Shape)))}, nil
}

// reshapeDims resolves a Reshape shape argument (with at most one -1)
// against n elements (reshape_op.h ValidateSizes).
func reshapeDims(n int, spec []int64) ([]int, error) {
	dims := make([]int, len(spec))
	unknown := -1
	known := 1
	for i, v := range spec {
		switch {
		case v == -1:
			if unknown >= 0 {
				return nil, errorf("Only one input size may be -1, not both %d and %d", unknown, i)
			}
			unknown = i
		case v < 0:
			return nil, errorf("Size %d must be non-negative, not %d", i, v)
		default:
			if v > int64(MaxElements) {
				return nil, errorf("Size %d (%d) is too large", i, v)
			}
			dims[i] = int(v)
			known *= int(v)
			if known > MaxElements {
				return nil, errorf("requested shape has too many elements")
			}
		}
	}
	if unknown >= 0 {
		if known == 0 {
			return nil, errorf("Reshape cannot infer the missing input size for an empty tensor unless all specified input sizes are non-zero")
		}
		if n%known != 0 {
			return nil, errorf("Input to reshape is a tensor with %d values, but the requested shape requires a multiple of %d", n, known)
		}
		dims[unknown] = n / known
		known = n
	}
	if known != n {
		return nil, errorf("Input to reshape is a tensor with %d values, but the requested shape has %d", n, known)
	}
	return dims, nil
}

func reshapeKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 2); err != nil {
		return nil, err
	}
	spec, err := indexValues(ctx.Inputs[1])
	if err != nil {
		return nil, ctx.Errorf("shape: %v", err)
	}
	if len(ctx.Inputs[1].Shape) != 1 {
		return nil, ctx.Errorf("sizes input must be 1-D, not %s", dimsString(ctx.Inputs[1].Shape))
	}
	x := ctx.Inputs[0]
	dims, err := reshapeDims(x.NumElements(), spec)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{{DType: dtype.Base(x.DType), Shape: dims, Data: x.Data}}, nil
}

func expandDimsKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 2); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	a, err := scalarIndex(ctx.Inputs[1], "dim")
	if err != nil {
		return nil, ctx.Errorf("'dim' must be a tensor with a single value: %v", err)
	}
	rank := len(x.Shape)
	if a < -1-int64(rank) || a > int64(rank) {
		return nil, ctx.Errorf("Tried to expand dim index %d for tensor with %d dimensions.", a, rank)
	}
	if a < 0 {
		a += int64(rank) + 1
	}
	shape := append(append(append([]int{}, x.Shape[:a]...), 1), x.Shape[a:]...)
	return []*Tensor{{DType: dtype.Base(x.DType), Shape: shape, Data: x.Data}}, nil
}

func squeezeKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	rank := len(x.Shape)
	var dims []int64
	if ctx.HasAttr("squeeze_dims") {
		dims, _ = ctx.AttrInts("squeeze_dims")
	}
	drop := make([]bool, rank)
	for _, a := range dims {
		if a < -int64(rank) || a >= int64(rank) {
			return nil, ctx.Errorf("Tried to squeeze dim index %d for tensor with %d dimensions.", a, rank)
		}
		if a < 0 {
			a += int64(rank)
		}
		if x.Shape[a] != 1 {
			return nil, ctx.Errorf("Can not squeeze dim[%d], expected a dimension of 1, got %d", a, x.Shape[a])
		}
		drop[a] = true
	}
	shape := []int{}
	for i, d := range x.Shape {
		if len(dims) == 0 && d == 1 || drop[i] {
			continue
		}
		shape = append(shape, d)
	}
	return []*Tensor{{DType: dtype.Base(x.DType), Shape: shape, Data: x.Data}}, nil
}

// broadcastArgsKernel is BroadcastArgs: the broadcast shape of two shape
// vectors, in their dtype.
func broadcastArgsKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 2); err != nil {
		return nil, err
	}
	var shapes [][]int
	for _, in := range ctx.Inputs[:2] {
		v, err := indexValues(in)
		if err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		s := make([]int, len(v))
		for i, d := range v {
			if d < 0 || d > int64(MaxElements) {
				return nil, ctx.Errorf("invalid dimension %d", d)
			}
			s[i] = int(d)
		}
		shapes = append(shapes, s)
	}
	out, err := broadcastShapes(shapes...)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	t, err := shapeTensor(out, dtype.Base(ctx.Inputs[0].DType))
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{t}, nil
}

func invertPermutationKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	if len(x.Shape) != 1 {
		return nil, ctx.Errorf("invert_permutation expects a 1D vector.")
	}
	v, err := indexValues(x)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	n := len(v)
	inv := make([]int64, n)
	seen := make([]bool, n)
	for i, d := range v {
		if d < 0 || d >= int64(n) {
			return nil, ctx.Errorf("%d is not between 0 and %d", d, n)
		}
		if seen[d] {
			return nil, ctx.Errorf("%d is duplicated in the input.", d)
		}
		seen[d] = true
		inv[d] = int64(i)
	}
	out := &Tensor{DType: dtype.Base(x.DType), Shape: []int{n}}
	if _, ok := x.Data.([]int32); ok {
		out.Data = mapTo(inv, func(v int64) int32 { return int32(v) })
	} else {
		out.Data = inv
	}
	return []*Tensor{out}, nil
}

func init() {
	Register("Shape", shapeKernel)
	Register("ShapeN", shapeNKernel)
	Register("Size", sizeKernel)
	Register("Rank", rankKernel)
	Register("Reshape", reshapeKernel)
	Register("ExpandDims", expandDimsKernel)
	Register("Squeeze", squeezeKernel)
	Register("BroadcastArgs", broadcastArgsKernel)
	Register("InvertPermutation", invertPermutationKernel)
}
