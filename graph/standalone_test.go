package graph

import (
	"testing"

	"github.com/stretchr/testify/assert"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

func TestStandalone(t *testing.T) {
	nd := &nodepb.NodeDef{Name: "c", Op: "Conv2D", Input: []string{"x", "w"}, Attr: map[string]*attrpb.AttrValue{
		"T": {Value: &attrpb.AttrValue_Type{Type: tpb.DataType_DT_HALF}},
	}}
	n := Default().Standalone(nd, nil)
	assert.Equal(t, -1, n.ID)
	assert.Equal(t, "Conv2D", n.OpDef.GetName())
	assert.Equal(t, []tpb.DataType{tpb.DataType_DT_HALF, tpb.DataType_DT_HALF}, n.InputTypes())
	assert.Equal(t, []tpb.DataType{tpb.DataType_DT_HALF}, n.OutputTypes())
	assert.Equal(t, "NHWC", string(n.Attrs["data_format"].GetS()), "defaults completed")
	assert.Nil(t, nd.Attr["data_format"], "the NodeDef is not changed")
	assert.Empty(t, n.Inputs)

	u := Default().Standalone(&nodepb.NodeDef{Name: "u", Op: "NoSuchOp"}, nil)
	assert.True(t, u.Unknown)
}
