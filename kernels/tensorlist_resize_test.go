package kernels

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// A dynamic-size TensorArray's write past the end grows the list
// (resize_if_index_out_of_bounds); without the attr it is TensorFlow's
// out-of-range error.
func TestTensorListSetItemResize(t *testing.T) {
	attrs := func(resize bool) map[string]*attrpb.AttrValue {
		return map[string]*attrpb.AttrValue{
			"element_dtype":                 typeAttr(tpb.DataType_DT_FLOAT),
			"shape_type":                    typeAttr(tpb.DataType_DT_INT32),
			"resize_if_index_out_of_bounds": {Value: &attrpb.AttrValue_B{B: resize}},
		}
	}
	shape := Int32Tensor([]int{1}, []int32{2})
	l := runKernel(t, "TensorListReserve", attrs(false), shape, ScalarInt32(0))[0]
	item := FloatTensor([]int{2}, []float32{5, 6})

	_, err := Lookup("TensorListSetItem")(&Context{Op: "TensorListSetItem", Path: "test/set", Attrs: attrs(false),
		Inputs: []*Tensor{l, ScalarInt32(2), item}})
	require.Error(t, err)

	l2 := runKernel(t, "TensorListSetItem", attrs(true), l, ScalarInt32(2), item)[0]
	assert.Equal(t, []int32{3}, runKernel(t, "TensorListLength", nil, l2)[0].Data)
	st := runKernel(t, "TensorListStack", attrs(true), l2, shape)[0]
	assert.Equal(t, []float32{0, 0, 0, 0, 5, 6}, st.Data)
}
