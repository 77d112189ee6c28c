package kernels_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/kernels"
)

// The stateful kernels run without an executor: what they keep lives in
// the ResourceMgr their Context hands them, as TensorFlow's kernels reach
// state through OpKernelContext::resource_manager().

func stateful(t *testing.T, rm *kernels.ResourceMgr, op, node string, attrs map[string]*attrpb.AttrValue, in ...*kernels.Tensor) []*kernels.Tensor {
	t.Helper()
	k := kernels.Find(op)
	require.NotNil(t, k, op)
	require.True(t, k.Stateful, "%s is declared stateful", op)
	out, err := k.Fn(&kernels.Context{Op: op, Path: node, Node: node, Attrs: attrs, Inputs: in, Resources: rm})
	require.NoError(t, err, op)
	return out
}

func typeAttr(dt tpb.DataType) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_Type{Type: dt}}
}

func strAttr(s string) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_S{S: []byte(s)}}
}

func TestResourceVariableThroughContext(t *testing.T) {
	rm := kernels.NewResourceMgr(nil)
	attrs := map[string]*attrpb.AttrValue{"dtype": typeAttr(tpb.DataType_DT_FLOAT), "shared_name": strAttr("v")}
	h := stateful(t, rm, "VarHandleOp", "h", attrs)[0]
	stateful(t, rm, "AssignVariableOp", "assign", attrs, h, kernels.ScalarFloat(1.5))
	stateful(t, rm, "AssignAddVariableOp", "add", attrs, h, kernels.ScalarFloat(2))

	// Another handle op of the same shared_name, in a later "run", sees
	// the same variable.
	h2 := stateful(t, rm, "VarHandleOp", "h2", attrs)[0]
	got := stateful(t, rm, "ReadVariableOp", "read", attrs, h2)
	assert.Equal(t, []float32{3.5}, got[0].Data)

	// Resources are typed: a hash table of the same name is another resource.
	tattrs := map[string]*attrpb.AttrValue{"key_dtype": typeAttr(tpb.DataType_DT_STRING), "value_dtype": typeAttr(tpb.DataType_DT_INT64), "shared_name": strAttr("v")}
	th := stateful(t, rm, "HashTableV2", "table", tattrs)[0]
	assert.NotSame(t, h.Data.([]*kernels.Resource)[0], th.Data.([]*kernels.Resource)[0])
	_, err := kernels.Lookup("ReadVariableOp")(&kernels.Context{Op: "ReadVariableOp", Path: "bad", Inputs: []*kernels.Tensor{th}, Resources: rm})
	assert.ErrorContains(t, err, "resource /v is not a variable")
}

func TestRefVariableThroughContext(t *testing.T) {
	rm := kernels.NewResourceMgr(nil)
	attrs := map[string]*attrpb.AttrValue{"dtype": typeAttr(tpb.DataType_DT_FLOAT)}
	c := &kernels.Context{Op: "VariableV2", Path: "v", Node: "v", Attrs: attrs, Resources: rm}
	_, err := kernels.Lookup("VariableV2")(c)
	require.NoError(t, err)
	require.Len(t, c.RefOutputs, 1)
	v := c.RefOutputs[0]
	assert.Equal(t, "v", v.Name)

	// Assign takes the reference as Refs[0] (its value nil: uninitialized)
	// and forwards it.
	c = &kernels.Context{Op: "Assign", Path: "assign", Attrs: attrs, Resources: rm,
		Inputs: []*kernels.Tensor{nil, kernels.ScalarFloat(4)}, Refs: []*kernels.RefVar{v, nil}}
	_, err = kernels.Lookup("Assign")(c)
	require.NoError(t, err)
	assert.Same(t, v, c.RefOutputs[0])
	assert.Equal(t, []float32{4}, v.Value.Data)

	// Reading an uninitialized reference is TensorFlow's error.
	w := &kernels.RefVar{Name: "w"}
	_, err = kernels.Lookup("AssignAdd")(&kernels.Context{Op: "AssignAdd", Path: "add", Attrs: attrs, Resources: rm,
		Inputs: []*kernels.Tensor{nil, kernels.ScalarFloat(1)}, Refs: []*kernels.RefVar{w, nil}})
	assert.ErrorContains(t, err, "add (AssignAdd): attempting to use uninitialized value w")
}

func TestNumericsThroughContext(t *testing.T) {
	nm := &kernels.Numerics{Emu: &kernels.Emulation{RoundStorage: kernels.RoundBFloat16}}
	x := kernels.ScalarFloat(1.0001)
	y, err := nm.Import(x)
	require.NoError(t, err)
	assert.Equal(t, []float32{1.0001}, x.Data, "Import does not modify its input")
	assert.Equal(t, []float32{kernels.RoundBFloat16(1.0001)}, y.Data)

	f64 := &kernels.Numerics{Compute: tpb.DataType_DT_DOUBLE}
	z, err := f64.Import(x)
	require.NoError(t, err)
	assert.Equal(t, tpb.DataType_DT_DOUBLE, z.DType)
	assert.Equal(t, tpb.DataType_DT_DOUBLE, f64.DType(tpb.DataType_DT_HALF))
	assert.Equal(t, tpb.DataType_DT_INT32, f64.DType(tpb.DataType_DT_INT32))

	var none *kernels.Numerics
	same, err := none.Import(x)
	require.NoError(t, err)
	assert.Same(t, x, same)
}
