package kernels

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

func runKernel(t *testing.T, op string, attrs map[string]*attrpb.AttrValue, in ...*Tensor) []*Tensor {
	t.Helper()
	k := Lookup(op)
	require.NotNil(t, k, op)
	out, err := k(&Context{Op: op, Path: "test/" + op, Attrs: attrs, Inputs: in})
	require.NoError(t, err, op)
	return out
}

func typeAttr(dt tpb.DataType) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_Type{Type: dt}}
}

func TestTensorList(t *testing.T) {
	f32 := map[string]*attrpb.AttrValue{"element_dtype": typeAttr(tpb.DataType_DT_FLOAT), "shape_type": typeAttr(tpb.DataType_DT_INT32)}
	shape := Int32Tensor([]int{1}, []int32{2})
	l := runKernel(t, "TensorListReserve", f32, shape, ScalarInt32(3))[0]
	assert.Equal(t, []int32{3}, runKernel(t, "TensorListLength", nil, l)[0].Data)
	l2 := runKernel(t, "TensorListSetItem", f32, l, ScalarInt32(1), FloatTensor([]int{2}, []float32{5, 6}))[0]
	// Lists are values: the input list is unchanged.
	assert.Nil(t, l.Data.([]any)[0].(*TensorList).Items[1])
	got := runKernel(t, "TensorListGetItem", f32, l2, ScalarInt32(1), shape)[0]
	assert.Equal(t, []float32{5, 6}, got.Data)
	st := runKernel(t, "TensorListStack", f32, l2, shape)[0]
	assert.Equal(t, []int{3, 2}, st.Shape)
	assert.Equal(t, []float32{0, 0, 5, 6, 0, 0}, st.Data)

	from := runKernel(t, "TensorListFromTensor", f32, FloatTensor([]int{2, 2}, []float32{1, 2, 3, 4}), shape)[0]
	pushed := runKernel(t, "TensorListPushBack", f32, from, FloatTensor([]int{2}, []float32{7, 8}))[0]
	popped := runKernel(t, "TensorListPopBack", f32, pushed, shape)
	assert.Equal(t, []float32{7, 8}, popped[1].Data)
	st = runKernel(t, "TensorListStack", f32, popped[0], shape)[0]
	assert.Equal(t, []float32{1, 2, 3, 4}, st.Data)
	assert.Equal(t, []int32{2}, runKernel(t, "TensorListElementShape", f32, from)[0].Data)

	empty := runKernel(t, "EmptyTensorList", f32, shape, ScalarInt32(-1))[0]
	st = runKernel(t, "TensorListStack", f32, empty, shape)[0]
	assert.Equal(t, []int{0, 2}, st.Shape)
	_, err := Lookup("TensorListPopBack")(&Context{Op: "TensorListPopBack", Path: "p", Attrs: f32, Inputs: []*Tensor{empty, shape}})
	assert.ErrorContains(t, err, "empty list")
	_, err = Lookup("TensorListGetItem")(&Context{Op: "TensorListGetItem", Path: "p", Attrs: f32, Inputs: []*Tensor{l, ScalarInt32(9), shape}})
	assert.ErrorContains(t, err, "out of range")
}

func TestTensorArray(t *testing.T) {
	// Kept after a read: the test reads element 1 twice.
	attrs := map[string]*attrpb.AttrValue{"dtype": typeAttr(tpb.DataType_DT_INT32),
		"clear_after_read": {Value: &attrpb.AttrValue_B{B: false}}}
	out := runKernel(t, "TensorArrayV3", attrs, ScalarInt32(2))
	h, fl := out[0], out[1]
	runKernel(t, "TensorArrayWriteV3", attrs, h, ScalarInt32(1), Int32Tensor([]int{2}, []int32{3, 4}), fl)
	runKernel(t, "TensorArrayScatterV3", attrs, h, Int32Tensor([]int{1}, []int32{0}), Int32Tensor([]int{1, 2}, []int32{1, 2}), fl)
	assert.Equal(t, []int32{3, 4}, runKernel(t, "TensorArrayReadV3", attrs, h, ScalarInt32(1), fl)[0].Data)
	g := runKernel(t, "TensorArrayGatherV3", attrs, h, Int32Tensor([]int{2}, []int32{1, 0}), fl)[0]
	assert.Equal(t, []int{2, 2}, g.Shape)
	assert.Equal(t, []int32{3, 4, 1, 2}, g.Data)
	assert.Equal(t, []int32{2}, runKernel(t, "TensorArraySizeV3", attrs, h, fl)[0].Data)
	_, err := Lookup("TensorArrayWriteV3")(&Context{Op: "TensorArrayWriteV3", Path: "p", Attrs: attrs, Inputs: []*Tensor{h, ScalarInt32(5), ScalarInt32(1), fl}})
	assert.ErrorContains(t, err, "out of range")
}
