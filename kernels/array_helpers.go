package kernels

import (
	"fmt"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// Helpers shared by the array and reduction kernels: reading index tensors
// and normalising axes.

// indexValues returns the values of an int32 or int64 tensor (shape
// arguments, axes, indices).
func indexValues(t *Tensor) ([]int64, error) {
	switch d := t.Data.(type) {
	case []int32:
		out := make([]int64, len(d))
		for i, v := range d {
			out[i] = int64(v)
		}
		return out, nil
	case []int64:
		return append([]int64(nil), d...), nil
	}
	return nil, fmt.Errorf("expected an int32 or int64 tensor, got %s", dtypeName(t.DType))
}

// scalarIndex returns the single value of an int32/int64 scalar (or
// one-element) tensor.
func scalarIndex(t *Tensor, what string) (int64, error) {
	v, err := indexValues(t)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", what, err)
	}
	if len(v) != 1 {
		return 0, fmt.Errorf("%s must be a scalar, got shape %s", what, dimsString(t.Shape))
	}
	return v[0], nil
}

// normAxis maps a possibly negative axis into [0, rank), or errors with
// TensorFlow's wording.
func normAxis(axis int64, rank int) (int, error) {
	if axis < -int64(rank) || axis >= int64(rank) {
		return 0, fmt.Errorf("axis %d is out of range [%d, %d)", axis, -rank, rank)
	}
	if axis < 0 {
		axis += int64(rank)
	}
	return int(axis), nil
}

// product returns the product of dims.
func product(dims []int) int {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return n
}

// rowMajorStrides returns the element strides of a row-major shape.
func rowMajorStrides(shape []int) []int {
	st := make([]int, len(shape))
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= shape[i]
	}
	return st
}

// newOutput allocates an output tensor, turning an impossible shape into an
// error naming the node (never a huge allocation).
func newOutput(ctx *Context, dt tpb.DataType, shape []int) (*Tensor, error) {
	t, err := NewTensor(dt, shape)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return t, nil
}

// errorf is fmt.Errorf; kernels wrap it with ctx.Errorf to name the node.
func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
