package shape

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/savedmodel"
	"github.com/tfscan/tfscan/savedmodel/modelgen"
)

// Shapes flow through 10,000 nested calls: the body of each function is
// inferred with its caller's argument shapes, and the innermost result
// comes back out, without a Go stack frame per call (a frame per call
// overflows the goroutine stack at 100,000 calls).
func TestInferDeepCallChain(t *testing.T) {
	sm := modelgen.CallChain(10_000)
	mg := &savedmodel.MetaGraph{Def: sm.GetMetaGraphs()[0]}
	g, err := graph.Build(&savedmodel.Model{File: "chain/saved_model.pb", MetaGraphs: []*savedmodel.MetaGraph{mg}}, mg)
	require.NoError(t, err)
	s := Infer(g, Options{Inputs: map[string][]int64{"serving_default_x": {3}}})
	var call *graph.Node
	for _, n := range g.Nodes[:g.TopLevel] {
		if n.Name == "StatefulPartitionedCall" {
			call = n
		}
	}
	require.NotNil(t, call)
	out, ok := s.Output(call, 0)
	require.True(t, ok)
	assert.Equal(t, tpb.DataType_DT_FLOAT, out.DType)
	assert.Equal(t, known(3), out.Shape)
	last := g.FunctionByName[modelgen.ChainFunction(9_999)]
	arg, ok := s.Arg(last, 0)
	require.True(t, ok)
	assert.Equal(t, known(3), arg.Shape, "the innermost function got its caller's shape")
}
