package shape

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
	"google.golang.org/protobuf/encoding/prototext"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/savedmodel"
)

// recursiveGraph builds a top-level call of "self", a function that calls
// itself on its argument's Relu, and "plain", which nobody calls.
func recursiveGraph(t *testing.T) *graph.Graph {
	t.Helper()
	fn := func(name, body, ret string) string {
		return `function {
      signature { name: "` + name + `" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
      node_def { name: "relu" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
      ` + body + `
      ret { key: "y" value: "` + ret + `" } }`
	}
	call := func(name, in, f string) string {
		return `node_def { name: "` + name + `" op: "PartitionedCall" input: "` + in + `"
      attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } }
      attr { key: "f" value { func { name: "` + f + `" } } } }`
	}
	top := call("call", "x", "self")[len("node_def"):]
	def := &mgpb.MetaGraphDef{}
	require.NoError(t, prototext.Unmarshal([]byte(`graph_def {
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
  node `+top+`
  library {
    `+fn("self", call("again", "relu:activations:0", "self"), "again:output:0")+`
    `+fn("plain", "", "relu:activations:0")+`
  } }`), def))
	mg := &savedmodel.MetaGraph{Tags: []string{"serve"}, Def: def}
	g, _ := graph.Build(&savedmodel.Model{File: "test/saved_model.pb", MetaGraphs: []*savedmodel.MetaGraph{mg}}, mg)
	require.NotNil(t, g)
	require.True(t, g.FunctionByName["self"].Recursive)
	return g
}

// Inference keeps what it knows of a function by the function's Index
// where the graph's Functions hold it there, and apart where they do not
// (a graph assembled by hand lists them in another order, or not at
// all): the results are the same. A body being inferred is busy, so
// that its recursive call sees no results rather than inferring it
// again. A function inference did not meet has no arguments.
func TestFunctionsBySlot(t *testing.T) {
	built := recursiveGraph(t)
	want := Infer(built, Options{})
	self, plain := built.FunctionByName["self"], built.FunctionByName["plain"]
	node := func(f *graph.Function, name string) *graph.Node {
		i := slices.IndexFunc(f.Nodes, func(n *graph.Node) bool { return n.Name == name })
		require.GreaterOrEqual(t, i, 0, name)
		return f.Nodes[i]
	}
	assert.Equal(t, []int64{2, 3}, dims(t, want, node(self, "relu")), "self's body takes its caller's shape")
	again, _ := want.Output(node(self, "again"), 0)
	assert.Equal(t, Tensor{DType: tpb.DataType_DT_FLOAT, Shape: unknownRank()}, again, "the recursive call sees no results")
	arg, ok := want.Arg(self, 0)
	assert.True(t, ok)
	assert.Equal(t, []int64{2, 3}, arg.Shape.Dims)
	_, ok = want.Arg(plain, 0)
	assert.True(t, ok, "a function nobody calls is inferred too")

	reversed := slices.Clone(built.Functions)
	slices.Reverse(reversed)
	for _, tc := range []struct {
		name      string
		functions []*graph.Function
		plainArg  bool
	}{
		{"reordered", reversed, true},
		{"unlisted", nil, false},
		{"self alone", []*graph.Function{self}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := *built
			g.Functions = tc.functions
			got := Infer(&g, Options{})
			for _, n := range g.Nodes {
				w, wok := want.Output(n, 0)
				o, ok := got.Output(n, 0)
				if n.Func == plain && !tc.plainArg {
					continue
				}
				assert.Equal(t, wok, ok, n.Name)
				assert.Equal(t, w, o, n.Name)
			}
			a, ok := got.Arg(self, 0)
			assert.True(t, ok)
			assert.Equal(t, arg, a)
			_, ok = got.Arg(plain, 0)
			assert.Equal(t, tc.plainArg, ok)
		})
	}

	other := recursiveGraph(t).FunctionByName["self"]
	require.Equal(t, self.Index(), other.Index())
	for name, f := range map[string]*graph.Function{"another graph's": other, "made by hand": {Name: "self"}, "nil": nil} {
		_, ok := want.Arg(f, 0)
		assert.False(t, ok, name)
	}
	_, ok = (*Shapes)(nil).Arg(self, 0)
	assert.False(t, ok)
}
