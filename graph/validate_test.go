package graph

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"

	"github.com/tfscan/tfscan/savedmodel"
	"github.com/tfscan/tfscan/savedmodel/modelgen"
)

// Every hostile model is refused with one problem, in TensorFlow's words,
// naming the file and the node or function; the graph is still built.
func TestBuildRefusesWhatTensorFlowRefuses(t *testing.T) {
	for _, h := range modelgen.HostileModels() {
		t.Run(h.Name, func(t *testing.T) {
			mg := &savedmodel.MetaGraph{Def: &mgpb.MetaGraphDef{GraphDef: h.Graph}}
			m := &savedmodel.Model{File: h.File(), MetaGraphs: []*savedmodel.MetaGraph{mg}}
			g, err := Build(m, mg)
			require.NotNil(t, g)
			assert.EqualError(t, err, h.File()+": "+h.Where+": "+h.Refusal)
			var se *savedmodel.Error
			require.True(t, errors.As(err, &se))
			var ie *InvalidGraphError
			require.True(t, errors.As(err, &ie))
			require.Len(t, ie.Problems, 1)
			assert.True(t, ie.Problems[0].Fatal)
			assert.NotEmpty(t, ie.Problems[0].Path)
			assert.Equal(t, len(g.Nodes), len(g.Topo())+len(g.Nodes)-g.TopLevel, "the graph is complete")
		})
	}
}

// What TensorFlow accepts stays accepted: the same function twice, a
// control input on a function argument, an op as SymbolicGradient's f, an
// attr of an unknown op naming no function (a plain diagnostic), names
// TensorFlow checks only on import in a TF.js model.
func TestBuildAcceptsWhatTensorFlowAccepts(t *testing.T) {
	twice := fnDef("f", "")
	tests := []struct {
		name  string
		text  string
		kinds []string
	}{
		{"identical functions", `graph_def {
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "y" op: "f" input: "x" }
  library { ` + twice + twice + ` } }`, nil},
		{"control input on an argument", `graph_def {
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "y" op: "f" input: "x" }
  library { ` + fnDef("f", `node_def { name: "n" op: "NoOp" input: "^x" }`) + ` } }`, nil},
		{"an op as SymbolicGradient's f", `graph_def {
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "g" op: "SymbolicGradient" input: "x" input: "x"
    attr { key: "Tin" value { list { type: DT_FLOAT type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } }
    attr { key: "f" value { func { name: "Relu" } } } } }`, nil},
		{"unknown op naming no function", `graph_def {
  node { name: "c" op: "MyCustomOp" attr { key: "fn" value { func { name: "nope" } } } } }`, []string{"missing_function:c", "unknown_op:c"}},
		{"v1 while loop", `graph_def {
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "enter" op: "Enter" input: "x" attr { key: "T" value { type: DT_FLOAT } } attr { key: "frame_name" value { s: "w" } } }
  node { name: "merge" op: "Merge" input: "enter" input: "next" attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
  node { name: "next" op: "NextIteration" input: "merge" attr { key: "T" value { type: DT_FLOAT } } } }`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := build(t, tt.text)
			assert.Equal(t, tt.kinds, diagKinds(g))
		})
	}
	// TF.js: the runtime does not check names.
	g, err := buildErr(t, `graph_def { node { name: "a b" op: "NoOp" } node { name: "_c" op: "NoOp" } }`)
	require.Error(t, err, "TensorFlow's importer refuses both names")
	assert.Len(t, err.(*savedmodel.Error).Err.(*InvalidGraphError).Problems, 2)
	mg := &savedmodel.MetaGraph{Def: g.MetaGraph.Def}
	_, err = Build(&savedmodel.Model{Format: savedmodel.FormatTFJS, MetaGraphs: []*savedmodel.MetaGraph{mg}}, mg)
	assert.NoError(t, err)
}

// The first problem named is the one TensorFlow meets first; the line says
// how many more there are.
func TestInvalidGraphErrorOrder(t *testing.T) {
	_, err := buildErr(t, `graph_def {
  node { name: "a" op: "Identity" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "b" op: "Identity" input: "a" input: "nope" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "a" op: "NoOp" }
}`)
	assert.EqualError(t, err, `test/saved_model.pb: node "a": Node 'a' is not unique (and 2 more problems TensorFlow refuses)`)
}

func TestValidNodeName(t *testing.T) {
	for _, s := range []string{"a", "A/b_c-d.e", "0", ".x", "a>b", "a/b>c/d"} {
		assert.True(t, validNodeName(s), s)
	}
	for _, s := range []string{"", "_a", "-a", "/a", "a b", "a:0", "a>", "a>_b", "a>>b", "é"} {
		assert.False(t, validNodeName(s), s)
	}
}

// A name that repeats keeps its first node: inputs resolve to it, and
// every later node of the name is reported, wherever the first repeat is.
func TestDuplicateNameKeepsFirst(t *testing.T) {
	g, err := buildErr(t, `graph_def {
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "c" op: "NoOp" }
  node { name: "a" op: "NoOp" }
  node { name: "c" op: "NoOp" }
  node { name: "a" op: "NoOp" }
  node { name: "b" op: "Identity" input: "a" input: "^c" attr { key: "T" value { type: DT_FLOAT } } }
}`)
	require.Error(t, err)
	b := g.Nodes[6]
	require.Equal(t, "b", b.Name)
	require.Len(t, b.Inputs, 1)
	assert.Same(t, g.Nodes[1], b.Inputs[0].Node)
	assert.Equal(t, []*Node{g.Nodes[2]}, b.ControlInputs())
	var dups []int
	for _, d := range g.Diagnostics {
		if d.Kind == "duplicate_node" {
			dups = append(dups, d.node.ID)
		}
	}
	assert.Equal(t, []int{3, 4, 5}, dups)
}
