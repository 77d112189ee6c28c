package kernels

import (
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// Bucketize (core/kernels/bucketize_op.cc): output[i] is the index of the
// first boundary greater than input[i] (std::upper_bound), as int32.
// TensorFlow registers it on CPU for int32, int64, float and double. The
// boundaries attr is list(float), so, as in C++'s usual arithmetic
// conversions, int32/int64/float inputs are compared as float32 and double
// inputs compare against the boundaries widened to double. A NaN input
// compares false with every boundary and lands past the last one.

// upperBound returns the first index i with x < b[i], or len(b).
func upperBound[T float32 | float64](b []T, x T) int32 {
	lo, hi := 0, len(b)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if x < b[mid] {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return int32(lo)
}

func bucketizeKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	bounds, err := ctx.AttrFloats("boundaries")
	if err != nil {
		return nil, err
	}
	for i := 1; i < len(bounds); i++ {
		if bounds[i] < bounds[i-1] { // std::is_sorted
			return nil, ctx.Errorf("Expected sorted boundaries")
		}
	}
	x := ctx.Inputs[0]
	out := make([]int32, x.NumElements())
	var f32 func(i int) float32
	switch d := x.Data.(type) {
	case []float32:
		f32 = func(i int) float32 { return d[i] }
	case []int32:
		f32 = func(i int) float32 { return float32(d[i]) }
	case []int64:
		f32 = func(i int) float32 { return float32(d[i]) }
	case []float64:
		b64 := make([]float64, len(bounds))
		for i, b := range bounds {
			b64[i] = float64(b)
		}
		parallelFor(len(d), 8, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				out[i] = upperBound(b64, d[i])
			}
		})
		return []*Tensor{{DType: tpb.DataType_DT_INT32, Shape: cloneShape(x.Shape), Data: out}}, nil
	default:
		return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
	}
	parallelFor(len(out), 8, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = upperBound(bounds, f32(i))
		}
	})
	return []*Tensor{{DType: tpb.DataType_DT_INT32, Shape: cloneShape(x.Shape), Data: out}}, nil
}

func init() {
	Register("Bucketize", bucketizeKernel)
}
