package shape

import (
	"testing"

	"github.com/stretchr/testify/assert"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/savedmodel"
)

// TestAlikeTakesOnlyTheSame: nodes of one op and one attr map take the
// outputs of an earlier one only where their inputs are the same tensors:
// inputs that differ in value alone, in an assumed dimension alone, in
// dtype, in rank, in a dimension alone or in number each give their own
// outputs, as every rule run does.
func TestAlikeTakesOnlyTheSame(t *testing.T) {
	var gb g
	id, sum := A{}, A{"keep_dims": b(false)}
	f64 := []tpb.DataType{tpb.DataType_DT_DOUBLE}
	// Values: Identity forwards them, a reduction reads its axes.
	ids := []*graph.Node{gb.add("id1", "Identity", id, i32, gb.ci("v1", 1, 2)), gb.add("id2", "Identity", id, i32, gb.ci("v2", 3, 4))}
	x := gb.cf("x", 2, 3)
	sums := []*graph.Node{gb.add("sum0", "Sum", sum, f32, x, gb.ci("ax0", 0)), gb.add("sum1", "Sum", sum, f32, x, gb.ci("ax1", 1))}
	// Assumed: a fed batch and a constant of the same shape.
	relus := []*graph.Node{gb.add("r1", "Relu", id, f32, gb.ph("p", -1, 3)), gb.add("r2", "Relu", id, f32, gb.cf("c", 1, 3))}
	// Dtype and rank.
	casts := []*graph.Node{gb.add("c1", "Relu", id, f32, gb.cf("d1", 1, 3)), gb.add("c2", "Relu", id, f64,
		gb.add("d2", "Const", A{"dtype": ty(tpb.DataType_DT_DOUBLE), "value": {Value: &attrpb.AttrValue_Tensor{Tensor: &tensorpb.TensorProto{Dtype: tpb.DataType_DT_DOUBLE, TensorShape: shapeAttr(1, 3).GetShape()}}}}, f64)),
		gb.add("c3", "Relu", id, f32, gb.cf("d3", 3))}
	// Dimensions alone.
	sized := []*graph.Node{gb.add("e1", "Relu", id, f32, gb.cf("f1", 2, 3)), gb.add("e2", "Relu", id, f32, gb.cf("f2", 4, 3))}
	// A malformed node with fewer inputs than the one before.
	gb.add("none", "Relu", id, f32)
	gr := gb.graph()
	got, want := Infer(gr, Options{}), infer(gr, Options{}, true)
	for _, n := range gr.Nodes {
		w, wok := want.Output(n, 0)
		gt, gok := got.Output(n, 0)
		assert.Equal(t, wok, gok, n.Name)
		assert.Equal(t, w, gt, n.Name)
	}
	v1, _ := got.Output(ids[0], 0)
	v2, _ := got.Output(ids[1], 0)
	assert.Equal(t, []int64{1, 2}, v1.Value)
	assert.Equal(t, []int64{3, 4}, v2.Value)
	assert.Equal(t, []int64{3}, dims(t, got, sums[0]))
	assert.Equal(t, []int64{2}, dims(t, got, sums[1]))
	assert.True(t, got.Assumed(relus[0], 0))
	assert.False(t, got.Assumed(relus[1], 0))
	c2, _ := got.Output(casts[1], 0)
	assert.Equal(t, tpb.DataType_DT_DOUBLE, c2.DType)
	assert.Equal(t, []int64{3}, dims(t, got, casts[2]))
	assert.Equal(t, []int64{2, 3}, dims(t, got, sized[0]))
	assert.Equal(t, []int64{4, 3}, dims(t, got, sized[1]))
}

// Consts of one attr map are alike (one rule run for them all) unless the
// model is a TF.js one, whose weights give each Const its value by name:
// then each takes its own weight's shape.
func TestAlikeConstsUnlessWeighted(t *testing.T) {
	var gb g
	shared := A{"dtype": ty(tpb.DataType_DT_FLOAT), "value": {Value: &attrpb.AttrValue_Tensor{Tensor: &tensorpb.TensorProto{Dtype: tpb.DataType_DT_FLOAT, TensorShape: shapeAttr(4).GetShape()}}}}
	c1, c2 := gb.add("c1", "Const", shared, f32), gb.add("c2", "Const", shared, f32)
	gr := gb.graph()
	got := Infer(gr, Options{})
	assert.Equal(t, []int64{4}, dims(t, got, c1))
	assert.Equal(t, []int64{4}, dims(t, got, c2))

	gr.Model = &savedmodel.Model{Weights: map[string]*savedmodel.Weight{
		"c1": {Name: "c1", DType: tpb.DataType_DT_FLOAT, Shape: []int64{2, 3}},
		"c2": {Name: "c2", DType: tpb.DataType_DT_FLOAT, Shape: []int64{5}},
	}}
	got = Infer(gr, Options{})
	assert.Equal(t, []int64{2, 3}, dims(t, got, c1))
	assert.Equal(t, []int64{5}, dims(t, got, c2))
}
