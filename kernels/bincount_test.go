package kernels

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
)

// DenseBincount as TensorFlow's bincount_op.cc computes it: counts or
// weight sums per row, values past size dropped, negatives refused.
func TestDenseBincount(t *testing.T) {
	attrs := func(binary bool) map[string]*attrpb.AttrValue {
		return map[string]*attrpb.AttrValue{"binary_output": {Value: &attrpb.AttrValue_B{B: binary}}}
	}
	noWeights := FloatTensor([]int{0}, []float32{})
	for _, tc := range []struct {
		name   string
		binary bool
		data   *Tensor
		w      *Tensor
		shape  []int
		want   []float32
	}{
		{"rank 1 counts", false, Int32Tensor([]int{5}, []int32{1, 3, 1, 9, 0}), noWeights, []int{4}, []float32{1, 2, 0, 1}},
		{"rank 1 binary", true, Int32Tensor([]int{5}, []int32{1, 3, 1, 9, 0}), noWeights, []int{4}, []float32{1, 1, 0, 1}},
		{"rank 1 weights", false, Int32Tensor([]int{3}, []int32{2, 2, 0}), FloatTensor([]int{3}, []float32{0.5, 2, 3}), []int{4}, []float32{3, 0, 2.5, 0}},
		{"rank 2 per row", false, Int32Tensor([]int{2, 3}, []int32{0, 0, 3, 1, 2, 5}), noWeights, []int{2, 4}, []float32{2, 0, 0, 1, 0, 1, 1, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := runKernel(t, "DenseBincount", attrs(tc.binary), tc.data, ScalarInt32(4), tc.w)[0]
			assert.Equal(t, tc.shape, out.Shape)
			assert.Equal(t, tc.want, out.Data)
		})
	}
	_, err := Lookup("DenseBincount")(&Context{Op: "DenseBincount", Path: "test/bincount", Attrs: attrs(false),
		Inputs: []*Tensor{Int32Tensor([]int{2}, []int32{1, -1}), ScalarInt32(4), noWeights}})
	require.ErrorContains(t, err, "non-negative")
}
