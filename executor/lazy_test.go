package executor

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/savedmodel"
)

// A constant a lazy load left in the model's file (savedmodel/lazy.go) is
// read when the executor is made; one that cannot be (its NodeDef put
// into another model) is an error, never a run with zeros.
func TestLazyConstants(t *testing.T) {
	const n = 300_000 // 1.2 MB: the file is loaded lazily
	vals := make([]float32, n)
	for i := range vals {
		vals[i] = float32(i%977) / 3
	}
	p, err := kernels.ToProto(kernels.FloatTensor([]int{n}, vals))
	require.NoError(t, err)
	f32 := &attrpb.AttrValue{Value: &attrpb.AttrValue_Type{Type: tpb.DataType_DT_FLOAT}}
	gd := &gpb.GraphDef{Node: []*nodepb.NodeDef{
		{Name: "w", Op: "Const", Attr: map[string]*attrpb.AttrValue{"dtype": f32, "value": {Value: &attrpb.AttrValue_Tensor{Tensor: p}}}},
		{Name: "y", Op: "Identity", Input: []string{"w"}, Attr: map[string]*attrpb.AttrValue{"T": f32}},
	}}
	b, err := proto.Marshal(gd)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "model.pb")
	require.NoError(t, os.WriteFile(file, b, 0o644))

	run := func(m *savedmodel.Model) (*kernels.Tensor, error) {
		g, err := graph.Build(m, m.MetaGraphs[0])
		require.NoError(t, err)
		e, err := New(g, nil, Options{})
		if err != nil {
			return nil, err
		}
		out, err := e.Run(context.Background(), nil, []string{"y:0"})
		return out["y:0"], err
	}

	m, err := savedmodel.Load(file)
	require.NoError(t, err)
	require.Equal(t, 1, m.LazyContents())
	other := &savedmodel.Model{Format: savedmodel.FormatGraphDef, File: "other.pb",
		MetaGraphs: []*savedmodel.MetaGraph{{Def: &mgpb.MetaGraphDef{GraphDef: &gpb.GraphDef{Node: m.MetaGraphs[0].Def.GetGraphDef().GetNode()}}}}}
	_, err = run(other)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "w (Const): the constant's value was left in its model's file and not read")

	y, err := run(m)
	require.NoError(t, err)
	assert.Equal(t, kernels.FloatTensor([]int{n}, vals), y)
	assert.Zero(t, m.LazyContents())
}
