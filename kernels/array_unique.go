package kernels

import (
	"math"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// Unique (unique_op.cc): the distinct values of a 1-D tensor in order of
// first occurrence, and for every input element the index of its value in
// that list (out_idx int32 or int64).

// uniqueT returns the distinct values and the index list. key maps a value
// to a comparable key; isNaN marks values that equal nothing, not even
// themselves: TensorFlow's hash map compares keys with ==, so every NaN
// becomes a distinct output value.
func uniqueT[T any, K comparable](d []T, key func(T) K, isNaN func(T) bool) ([]T, []int64) {
	seen := make(map[K]int64, len(d))
	var vals []T
	idx := make([]int64, len(d))
	for i, v := range d {
		if isNaN != nil && isNaN(v) {
			idx[i] = int64(len(vals))
			vals = append(vals, v)
			continue
		}
		k := key(v)
		j, ok := seen[k]
		if !ok {
			j = int64(len(vals))
			seen[k] = j
			vals = append(vals, v)
		}
		idx[i] = j
	}
	if vals == nil {
		vals = []T{}
	}
	return vals, idx
}

func same[T comparable](v T) T { return v }

// floatKey keys floats by value: +0 and -0 compare equal, so they are one
// value (the first one seen is output).
func floatKey(v float64) float64 {
	if v == 0 {
		return 0
	}
	return v
}

func uniqueKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	if len(x.Shape) != 1 {
		return nil, ctx.Errorf("unique expects a 1D vector.")
	}
	var vals any
	var idx []int64
	switch d := x.Data.(type) {
	case []float32:
		vals, idx = uniqueT(d, func(v float32) float64 { return floatKey(float64(v)) }, func(v float32) bool { return v != v })
	case []float64:
		vals, idx = uniqueT(d, floatKey, math.IsNaN)
	case []Float16:
		vals, idx = uniqueT(d, func(v Float16) float64 { return floatKey(v.Float64()) }, Float16.IsNaN)
	case []BFloat16:
		vals, idx = uniqueT(d, func(v BFloat16) float64 { return floatKey(v.Float64()) }, func(v BFloat16) bool { return v.Float32() != v.Float32() })
	case []int8:
		vals, idx = uniqueT(d, same[int8], nil)
	case []uint8:
		vals, idx = uniqueT(d, same[uint8], nil)
	case []int16:
		vals, idx = uniqueT(d, same[int16], nil)
	case []uint16:
		vals, idx = uniqueT(d, same[uint16], nil)
	case []int32:
		vals, idx = uniqueT(d, same[int32], nil)
	case []int64:
		vals, idx = uniqueT(d, same[int64], nil)
	case []uint32:
		vals, idx = uniqueT(d, same[uint32], nil)
	case []uint64:
		vals, idx = uniqueT(d, same[uint64], nil)
	case []bool:
		vals, idx = uniqueT(d, same[bool], nil)
	case [][]byte:
		vals, idx = uniqueT(d, func(v []byte) string { return string(v) }, nil)
	default:
		return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
	}
	y := &Tensor{DType: dtype.Base(x.DType), Data: vals}
	y.Shape = []int{y.DataLen()}
	ot := outType(ctx, "out_idx")
	idxT := &Tensor{DType: ot, Shape: []int{len(idx)}}
	switch ot {
	case tpb.DataType_DT_INT32:
		idxT.Data = mapTo(idx, func(v int64) int32 { return int32(v) })
	case tpb.DataType_DT_INT64:
		idxT.Data = idx
	default:
		return nil, ctx.Unsupported("out_idx %s", dtypeName(ot))
	}
	return []*Tensor{y, idxT}, nil
}

func init() {
	Register("Unique", uniqueKernel)
}
