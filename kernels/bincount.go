package kernels

import (
	"slices"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// DenseBincount (core/kernels/bincount_op.cc, DenseBincountOp): counts of
// the values of a rank-1 or rank-2 int32/int64 input in [0, size), or the
// sums of their weights, per row for rank 2; values >= size are dropped,
// binary_output counts presence as 1. What CategoryEncoding and
// tf.math.bincount export. A negative value is TensorFlow's error for
// rank 1 (BincountFunctor); for rank 2 TensorFlow writes out of bounds
// (BincountReduceFunctor checks nothing), so tfscan refuses it too.
func init() { Register("DenseBincount", kDenseBincount) }

func kDenseBincount(c *Context) ([]*Tensor, error) {
	if err := wantInputs(c, 3); err != nil {
		return nil, err
	}
	data, sizeT, weights := c.Inputs[0], c.Inputs[1], c.Inputs[2]
	binary, err := c.AttrBool("binary_output")
	if err != nil {
		return nil, err
	}
	if len(data.Shape) > 2 {
		return nil, c.Errorf("Shape must be at most rank 2 but is rank %d", len(data.Shape))
	}
	if len(sizeT.Shape) != 0 {
		return nil, c.Errorf("Shape must be rank 0 but is rank %d", len(sizeT.Shape))
	}
	if weights.NumElements() != 0 && !slices.Equal(weights.Shape, data.Shape) {
		return nil, c.Errorf("`weights` must be the same shape as `arr` or a length-0 `Tensor`, in which case it acts as all weights equal to 1. Received %v", weights.Shape)
	}
	vals, err := indexValues(data)
	if err != nil {
		return nil, c.Unsupported("Tidx %s", dtName(data.DType))
	}
	size, err := scalarIndex(sizeT, "size")
	if err != nil {
		return nil, c.Errorf("%v", err)
	}
	if size < 0 {
		return nil, c.Errorf("size (%d) must be non-negative", size)
	}
	for _, v := range vals {
		if v < 0 {
			return nil, c.Errorf("Input arr must be non-negative!")
		}
	}
	rows, cols := 1, len(vals)
	shape := []int{int(size)}
	if len(data.Shape) == 2 {
		rows, cols = data.Shape[0], data.Shape[1]
		shape = []int{rows, int(size)}
	}
	switch weights.DType {
	case tpb.DataType_DT_FLOAT:
		return []*Tensor{bincount[float32](weights, vals, rows, cols, size, binary, shape)}, nil
	case tpb.DataType_DT_DOUBLE:
		return []*Tensor{bincount[float64](weights, vals, rows, cols, size, binary, shape)}, nil
	case tpb.DataType_DT_INT32:
		return []*Tensor{bincount[int32](weights, vals, rows, cols, size, binary, shape)}, nil
	case tpb.DataType_DT_INT64:
		return []*Tensor{bincount[int64](weights, vals, rows, cols, size, binary, shape)}, nil
	}
	return nil, c.Unsupported("T %s", dtName(weights.DType))
}

func bincount[T float32 | float64 | int32 | int64](weights *Tensor, vals []int64, rows, cols int, size int64, binary bool, shape []int) *Tensor {
	out := make([]T, rows*int(size))
	var w []T
	if weights.NumElements() != 0 {
		w = weights.Data.([]T)
	}
	for r := 0; r < rows; r++ {
		for j := 0; j < cols; j++ {
			i := r*cols + j
			v := vals[i]
			if v >= size {
				continue
			}
			o := &out[r*int(size)+int(v)]
			switch {
			case binary:
				*o = 1
			case w != nil:
				*o += w[i]
			default:
				*o++
			}
		}
	}
	return &Tensor{DType: weights.DType, Shape: shape, Data: out}
}
