package kernels

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

func TestBucketizeHistogramSparseErrors(t *testing.T) {
	xRunErrors(t, []xErrCase{
		{"unsorted boundaries", "Bucketize", xattrs("boundaries", []float32{1, 0}), []*Tensor{xf32([]int{1}, 1)}, "Expected sorted boundaries"},
		{"range shape", "HistogramFixedWidth", xattrs("dtype", tpb.DataType_DT_INT32), []*Tensor{xf32([]int{2}, 1, 2), xf32([]int{3}, 0, 1, 2), xi32([]int{}, 2)}, "value_range should be a vector of 2 elements."},
		{"range order", "HistogramFixedWidth", xattrs("dtype", tpb.DataType_DT_INT32), []*Tensor{xf32([]int{2}, 1, 2), xf32([]int{2}, 1, 1), xi32([]int{}, 2)}, "value_range should satisfy value_range[0] < value_range[1], but got '[1, 1]'"},
		{"nbins", "HistogramFixedWidth", xattrs("dtype", tpb.DataType_DT_INT32), []*Tensor{xf32([]int{2}, 1, 2), xf32([]int{2}, 0, 1), xi32([]int{}, 0)}, "nbins should be a positive number, but got '0'"},
		{"nan", "HistogramFixedWidth", xattrs("dtype", tpb.DataType_DT_INT32), []*Tensor{xf32([]int{2}, 1, float32(math.NaN())), xf32([]int{2}, 0, 1), xi32([]int{}, 2)}, "Histogram values must not contain NaN"},
		{"s2d out of bounds", "SparseToDense", xattrs("validate_indices", true), []*Tensor{xi64([]int{2, 1}, 0, 5), xi64([]int{1}, 4), xf32([]int{2}, 1, 2), xf32([]int{}, 0)}, "indices[1] = [5] is out of bounds: need 0 <= index < [4]"},
		{"s2d order", "SparseToDense", xattrs("validate_indices", true), []*Tensor{xi64([]int{2, 2}, 1, 0, 0, 3), xi64([]int{2}, 2, 4), xf32([]int{2}, 1, 2), xf32([]int{}, 0)}, "indices[1] = [0,3] is out of order."},
		{"s2d repeated", "SparseToDense", xattrs("validate_indices", true), []*Tensor{xi32([]int{2}, 1, 1), xi32([]int{1}, 4), xf32([]int{}, 1), xf32([]int{}, 0)}, "indices[1] = [1] is repeated"},
		{"s2d oob unvalidated", "SparseToDense", xattrs("validate_indices", false), []*Tensor{xi32([]int{1}, 9), xi32([]int{1}, 4), xf32([]int{}, 1), xf32([]int{}, 0)}, "Indices are not valid (out of bounds).  Shape: [4]"},
		{"s2d values shape", "SparseToDense", nil, []*Tensor{xi32([]int{2}, 0, 1), xi32([]int{1}, 4), xf32([]int{3}, 1, 2, 3), xf32([]int{}, 0)}, "sparse_values has incorrect shape [3], should be [] or [2]"},
		{"s2d output shape", "SparseToDense", nil, []*Tensor{xi32([]int{2}, 0, 1), xi32([]int{2}, 4, 4), xf32([]int{}, 1), xf32([]int{}, 0)}, "output_shape has incorrect number of elements: 2 should be: 1"},
		{"s2d huge", "SparseToDense", nil, []*Tensor{xi64([]int{1, 2}, 0, 0), xi64([]int{2}, 1<<20, 1<<20), xf32([]int{}, 1), xf32([]int{}, 0)}, "more than"},
	})
}

func TestBucketizeHistogramSparseEdges(t *testing.T) {
	// Empty boundaries put everything in bucket 0; empty input works.
	out, err := xRun("Bucketize", xattrs("boundaries", []float32{}), xf32([]int{2}, -1, 1))
	require.NoError(t, err)
	assert.Equal(t, []int32{0, 0}, out[0].Data)
	out, err = xRun("Bucketize", xattrs("boundaries", []float32{0}), xf32([]int{0}))
	require.NoError(t, err)
	assert.Equal(t, []int{0}, out[0].Shape)
	// nbins == 1 counts NaNs too (the functor returns before checking).
	out, err = xRun("HistogramFixedWidth", xattrs("dtype", tpb.DataType_DT_INT64),
		xf32([]int{2}, 1, float32(math.NaN())), xf32([]int{2}, 0, 1), xi32([]int{}, 1))
	require.NoError(t, err)
	assert.Equal(t, []int64{2}, out[0].Data)
	// Unvalidated duplicates: the last write wins; strings work.
	out, err = xRun("SparseToDense", xattrs("validate_indices", false),
		xi32([]int{2}, 1, 1), xi32([]int{1}, 3), xstr([]int{2}, "a", "b"), xstr([]int{}, "-"))
	require.NoError(t, err)
	assert.Equal(t, [][]byte{[]byte("-"), []byte("b"), []byte("-")}, out[0].Data)
}
