package graph

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
	"google.golang.org/protobuf/encoding/prototext"

	"github.com/tfscan/tfscan/savedmodel"
)

// build parses a text MetaGraphDef and builds it; sigs are
// "key=node:0,node:0" output lists.
func build(t *testing.T, text string, sigs ...string) *Graph {
	t.Helper()
	g, err := buildErr(t, text, sigs...)
	require.NoError(t, err)
	return g
}

// buildErr is build for a graph TensorFlow may refuse: the graph and
// Build's error.
func buildErr(t *testing.T, text string, sigs ...string) (*Graph, error) {
	t.Helper()
	def := &mgpb.MetaGraphDef{}
	require.NoError(t, prototext.Unmarshal([]byte(text), def))
	mg := &savedmodel.MetaGraph{Tags: []string{"serve"}, Def: def}
	for _, s := range sigs {
		key, outs, _ := strings.Cut(s, "=")
		sig := &savedmodel.Signature{Key: key}
		for i, o := range strings.Split(outs, ",") {
			sig.Outputs = append(sig.Outputs, &savedmodel.TensorInfo{Key: "out" + string(rune('0'+i)), Name: o})
		}
		mg.Signatures = append(mg.Signatures, sig)
	}
	m := &savedmodel.Model{Path: "test", File: "test/saved_model.pb", MetaGraphs: []*savedmodel.MetaGraph{mg}}
	g, err := Build(m, mg)
	require.NotNil(t, g)
	return g, err
}

func nodeByPath(t *testing.T, g *Graph, path string) *Node {
	t.Helper()
	for _, n := range g.Nodes {
		if n.Path() == path {
			return n
		}
	}
	var paths []string
	for _, n := range g.Nodes {
		paths = append(paths, n.Path())
	}
	t.Fatalf("no node %q; have %q", path, paths)
	return nil
}

func diagKinds(g *Graph) []string {
	var out []string
	for _, d := range g.Diagnostics {
		out = append(out, d.Kind+":"+d.Path)
	}
	return out
}

func funcNames(fs []*Function) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

// callNode is a top-level PartitionedCall node, name, calling fn on in
// (one float in, one out).
func callNode(name, in, fn string) string {
	return `
  node { name: "` + name + `" op: "PartitionedCall" input: "` + in + `"
    attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } }
    attr { key: "f" value { func { name: "` + fn + `" } } } }`
}

// A function body that returns its argument doubled: "x" → "mul:z:0".
func fnDef(name string, extra string) string {
	return `function {
    signature { name: "` + name + `" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "mul" op: "Mul" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    ` + extra + `
    ret { key: "y" value: "mul:z:0" }
  }`
}

func TestBuildCallsThroughEveryFuncAttr(t *testing.T) {
	g := build(t, `graph_def {
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }`+callNode("p", "x", "f_call")+`
  node { name: "pred" op: "Placeholder" attr { key: "dtype" value { type: DT_BOOL } } }
  node { name: "if" op: "If" input: "pred" input: "x"
    attr { key: "Tcond" value { type: DT_BOOL } } attr { key: "Tin" value { list { type: DT_FLOAT } } }
    attr { key: "Tout" value { list { type: DT_FLOAT } } }
    attr { key: "then_branch" value { func { name: "f_then" } } } attr { key: "else_branch" value { func { name: "f_else" } } } }
  node { name: "while" op: "While" input: "x"
    attr { key: "T" value { list { type: DT_FLOAT } } }
    attr { key: "cond" value { func { name: "f_cond" } } } attr { key: "body" value { func { name: "f_body" } } } }
  node { name: "i" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
  node { name: "case" op: "Case" input: "i" input: "x"
    attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } }
    attr { key: "branches" value { list { func { name: "f_b0" } func { name: "f_b1" } } } } }
  node { name: "ds" op: "Placeholder" attr { key: "dtype" value { type: DT_VARIANT } } }
  node { name: "map" op: "MapDataset" input: "ds"
    attr { key: "Targuments" value { list { } } }
    attr { key: "output_types" value { list { type: DT_FLOAT } } }
    attr { key: "output_shapes" value { list { shape { } } } }
    attr { key: "f" value { func { name: "f_map" } } } }
  node { name: "direct" op: "f_direct" input: "x" }
  library {
    `+fnDef("f_call", "")+`
    `+fnDef("f_then", "")+`
    `+fnDef("f_else", "")+`
    `+fnDef("f_body", "")+`
    function {
      signature { name: "f_cond" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "c" type: DT_BOOL } }
      node_def { name: "less" op: "Less" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
      ret { key: "c" value: "less:z:0" }
    }
    `+fnDef("f_b0", "")+`
    `+fnDef("f_b1", "")+`
    `+fnDef("f_map", "")+`
    `+fnDef("f_direct", "")+`
    `+fnDef("f_unused", "")+`
  }
}`, "serving_default=p:0,if:0,while:0,case:0,direct:0")

	calls := map[string][]string{
		"p": {"f_call"}, "if": {"f_else", "f_then"}, "while": {"f_body", "f_cond"},
		"case": {"f_b0", "f_b1"}, "map": {"f_map"}, "direct": {"f_direct"},
	}
	for name, want := range calls {
		n := nodeByPath(t, g, name)
		assert.ElementsMatch(t, want, funcNames(n.Calls()), name)
		for _, f := range n.Calls() {
			assert.Equal(t, []*Node{n}, f.Callers)
		}
	}
	assert.Empty(t, g.FunctionByName["f_unused"].Callers)

	// Paths: signature prefix for what serving_default needs, none for the
	// MapDataset (not needed by the signature), bare for uncalled functions.
	nodeByPath(t, g, "serving_default/p/f_call/mul")
	nodeByPath(t, g, "serving_default/if/f_then/mul")
	nodeByPath(t, g, "serving_default/while/f_cond/less")
	nodeByPath(t, g, "serving_default/case/f_b1/mul")
	nodeByPath(t, g, "serving_default/direct/f_direct/mul")
	nodeByPath(t, g, "map/f_map/mul")
	nodeByPath(t, g, "f_unused/mul")

	// Calling a library function by op name: no OpDef, dtypes from the
	// function's signature, not unknown.
	direct := nodeByPath(t, g, "direct")
	assert.Nil(t, direct.OpDef)
	assert.False(t, direct.Unknown)
	assert.Equal(t, []tpb.DataType{tpb.DataType_DT_FLOAT}, direct.InputTypes())
	assert.Equal(t, []tpb.DataType{tpb.DataType_DT_FLOAT}, direct.OutputTypes())

	// Reachability: signature outputs reach into called bodies; the dataset
	// branch and the unused function are not needed.
	assert.True(t, nodeByPath(t, g, "serving_default/while/f_body/mul").Reachable)
	assert.False(t, nodeByPath(t, g, "map").Reachable)
	assert.False(t, nodeByPath(t, g, "map/f_map/mul").Reachable)
	assert.False(t, nodeByPath(t, g, "f_unused/mul").Reachable)
	assert.Empty(t, g.Diagnostics)
}

// Recursion is refused (the graph is still built, for inspect): TensorFlow
// cannot order the library.
func TestBuildRecursion(t *testing.T) {
	g, err := buildErr(t, `graph_def {
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }`+callNode("call", "x", "ping")+`
  library {
    `+fnDef("ping", `node_def { name: "again" op: "pong" input: "mul:z:0" }`)+`
    `+fnDef("pong", `node_def { name: "back" op: "ping" input: "mul:z:0" }`)+`
    `+fnDef("self", `node_def { name: "me" op: "PartitionedCall" input: "x"
      attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } }
      attr { key: "f" value { func { name: "self" } } } }`)+`
    `+fnDef("plain", "")+`
  }
}`, "s=call:0")
	assert.True(t, g.FunctionByName["ping"].Recursive)
	assert.True(t, g.FunctionByName["pong"].Recursive)
	assert.True(t, g.FunctionByName["self"].Recursive)
	assert.False(t, g.FunctionByName["plain"].Recursive)
	assert.EqualError(t, err, `test/saved_model.pb: function "ping": There is a cyclic dependency between functions. Could not resolve ['ping', 'pong', 'self'].`)
	assert.Equal(t, []string{"recursion:ping"}, diagKinds(g))
	nodeByPath(t, g, "s/call/ping/again/pong/back")
	nodeByPath(t, g, "self/me")
	// The walk stops at the recursion: "again" is not on ping's return path.
	assert.True(t, nodeByPath(t, g, "s/call/ping/mul").Reachable)
	assert.False(t, nodeByPath(t, g, "s/call/ping/again").Reachable)
}

func TestBuildUnknownOp(t *testing.T) {
	g := build(t, `graph_def {
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "c" op: "MyCustomOp" input: "x" input: "x:0" attr { key: "T" value { type: DT_HALF } } }
}`)
	c := nodeByPath(t, g, "c")
	assert.True(t, c.Unknown)
	assert.Nil(t, c.OpDef)
	assert.Nil(t, c.InputTypes())
	assert.Equal(t, []string{"float16"}, c.DTypes())
	require.Len(t, c.Inputs, 2)
	assert.Equal(t, Input{Node: nodeByPath(t, g, "x")}, c.Inputs[1], "x:0")
	assert.Equal(t, []string{"unknown_op:c"}, diagKinds(g))
	assert.False(t, g.Diagnostics[0].Fatal, "an unknown op is not refused")
	// Without signatures, sinks are the roots.
	assert.True(t, c.Reachable)
	assert.True(t, nodeByPath(t, g, "x").Reachable)
}

func TestBuildDTypes(t *testing.T) {
	g := build(t, `
meta_info_def { stripped_op_list { op {
  name: "Mine" input_arg { name: "a" type_attr: "T" } output_arg { name: "b" type: DT_INT8 }
  attr { name: "T" type: "type" default_value { type: DT_BFLOAT16 } } } } }
graph_def {
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "i" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
  node { name: "addn" op: "AddN" input: "x" input: "x" input: "x"
    attr { key: "N" value { i: 3 } } attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "concat" op: "ConcatV2" input: "x" input: "x" input: "i"
    attr { key: "N" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "idn" op: "IdentityN" input: "x" input: "i"
    attr { key: "T" value { list { type: DT_FLOAT type: DT_INT32 } } } }
  node { name: "pc" op: "StatefulPartitionedCall" input: "x" input: "i"
    attr { key: "Tin" value { list { type: DT_FLOAT type: DT_INT32 } } }
    attr { key: "Tout" value { list { type: DT_HALF } } }
    attr { key: "f" value { func { name: "fn" } } } }
  node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } }
  node { name: "assign" op: "Assign" input: "v" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "cast" op: "Cast" input: "x" attr { key: "SrcT" value { type: DT_FLOAT } } attr { key: "DstT" value { type: DT_HALF } } }
  node { name: "mine" op: "Mine" input: "x" }
  node { name: "split" op: "Split" input: "i" input: "x" attr { key: "num_split" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } }
  library { function {
    signature { name: "fn" input_arg { name: "a" type: DT_FLOAT } input_arg { name: "b" type: DT_INT32 } output_arg { name: "o" type: DT_HALF } }
    node_def { name: "sp" op: "Split" input: "b" input: "a" attr { key: "num_split" value { i: 3 } } attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "u" op: "Unique" input: "sp:output:2" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "idn" op: "IdentityN" input: "sp:output" input: "u:idx:0"
      attr { key: "T" value { list { type: DT_FLOAT type: DT_FLOAT type: DT_FLOAT type: DT_INT32 } } } }
    node_def { name: "h" op: "Cast" input: "idn:output:0" attr { key: "SrcT" value { type: DT_FLOAT } } attr { key: "DstT" value { type: DT_HALF } } }
    ret { key: "o" value: "h:y:0" }
  } }
}`)
	f32, i32, f16 := tpb.DataType_DT_FLOAT, tpb.DataType_DT_INT32, tpb.DataType_DT_HALF
	tests := []struct {
		node     string
		in, out  []tpb.DataType
		dtypes   []string
		attrKeys []string
	}{
		{"addn", []tpb.DataType{f32, f32, f32}, []tpb.DataType{f32}, []string{"float32"}, nil},
		// Tidx comes from the OpDef default.
		{"concat", []tpb.DataType{f32, f32, i32}, []tpb.DataType{f32}, []string{"float32", "int32"}, []string{"Tidx"}},
		{"idn", []tpb.DataType{f32, i32}, []tpb.DataType{f32, i32}, []string{"float32", "int32"}, nil},
		{"pc", []tpb.DataType{f32, i32}, []tpb.DataType{f16}, []string{"float32", "int32", "float16"}, []string{"config", "executor_type"}},
		{"v", nil, []tpb.DataType{tpb.DataType_DT_FLOAT_REF}, []string{"float32"}, []string{"container", "shared_name"}},
		{"assign", []tpb.DataType{tpb.DataType_DT_FLOAT_REF, f32}, []tpb.DataType{tpb.DataType_DT_FLOAT_REF}, []string{"float32"}, []string{"use_locking", "validate_shape"}},
		{"cast", []tpb.DataType{f32}, []tpb.DataType{f16}, []string{"float32", "float16"}, []string{"Truncate"}},
		// The model's stripped op list wins; its default fills T.
		{"mine", []tpb.DataType{tpb.DataType_DT_BFLOAT16}, []tpb.DataType{tpb.DataType_DT_INT8}, []string{"bfloat16"}, []string{"T"}},
		{"split", []tpb.DataType{i32, f32}, []tpb.DataType{f32, f32}, []string{"float32"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.node, func(t *testing.T) {
			n := nodeByPath(t, g, tt.node)
			assert.Equal(t, tt.in, n.InputTypes(), "inputs")
			assert.Equal(t, tt.out, n.OutputTypes(), "outputs")
			assert.Equal(t, tt.dtypes, n.DTypes())
			for _, k := range tt.attrKeys {
				assert.Contains(t, n.Attrs, k)
				assert.NotContains(t, n.Def.GetAttr(), k, "defaults must not be written into the NodeDef")
			}
		})
	}
	assert.True(t, g.Ops.FromModel("Mine"))

	// FunctionDef input syntax resolved to flattened output indexes.
	fn := g.FunctionByName["fn"]
	assert.Equal(t, []tpb.DataType{f32, i32}, fn.ArgTypes)
	assert.Equal(t, []tpb.DataType{f16}, fn.RetTypes)
	sp := nodeByPath(t, g, "pc/fn/sp")
	assert.Equal(t, []Input{{Node: nil, Arg: 1}, {Node: nil, Arg: 0}}, sp.Inputs)
	u := nodeByPath(t, g, "pc/fn/u")
	assert.Equal(t, sp, u.Inputs[0].Node)
	assert.EqualValues(t, 2, u.Inputs[0].Output)
	idn := nodeByPath(t, g, "pc/fn/idn")
	require.Len(t, idn.Inputs, 4, "sp:output expands to all three outputs")
	for i := 0; i < 3; i++ {
		assert.Equal(t, sp, idn.Inputs[i].Node)
		assert.EqualValues(t, i, idn.Inputs[i].Output)
	}
	assert.Equal(t, u, idn.Inputs[3].Node)
	assert.EqualValues(t, 1, idn.Inputs[3].Output, "Unique's idx is its second output")
	assert.Empty(t, g.Diagnostics)
}

func TestBuildLoopsAndCycles(t *testing.T) {
	// A TF1 while loop: Enter → Merge ← NextIteration is legal.
	g := build(t, `graph_def {
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "enter" op: "Enter" input: "x" attr { key: "T" value { type: DT_FLOAT } } attr { key: "frame_name" value { s: "w" } } }
  node { name: "merge" op: "Merge" input: "enter" input: "next" attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
  node { name: "body" op: "Identity" input: "merge" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "next" op: "NextIteration" input: "body" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "exit" op: "Exit" input: "merge" attr { key: "T" value { type: DT_FLOAT } } }
}`)
	assert.Empty(t, g.Diagnostics)
	var order []string
	for _, n := range g.Topo() {
		order = append(order, n.Name)
	}
	// Every node comes after its inputs but for the loop's back edge: the
	// order is the nodes' own.
	assert.Equal(t, []string{"x", "enter", "merge", "body", "next", "exit"}, order)
	assert.True(t, g.TopoKeepsOrder())
	assert.ElementsMatch(t, []string{"body", "exit"}, names(g.Consumers(nodeByPath(t, g, "merge"))))

	// A plain cycle is refused, and Build still terminates.
	g, err := buildErr(t, `graph_def {
  node { name: "a" op: "Identity" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "b" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "c" op: "NoOp" }
}`)
	assert.EqualError(t, err, `test/saved_model.pb: node "a": 2 nodes in a cycle`)
	assert.Equal(t, []string{"cycle:a"}, diagKinds(g))
	assert.Len(t, g.Topo(), 3)
}

func names(ns []*Node) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.Name)
	}
	return out
}

func TestSelectMetaGraph(t *testing.T) {
	mk := func(tags ...string) *savedmodel.MetaGraph {
		return &savedmodel.MetaGraph{Tags: tags, Def: &mgpb.MetaGraphDef{}}
	}
	train, serveGPU, serve := mk("train"), mk("serve", "gpu"), mk("serve")
	m := &savedmodel.Model{File: "m/saved_model.pb", MetaGraphs: []*savedmodel.MetaGraph{train, serveGPU, serve}}
	tests := []struct {
		tags []string
		want *savedmodel.MetaGraph
		err  string
	}{
		{nil, serve, ""},
		{[]string{"gpu", "serve"}, serveGPU, ""},
		{[]string{"train"}, train, ""},
		{[]string{"tpu"}, nil, "m/saved_model.pb: no meta graph tagged [tpu] (have [train] [gpu,serve] [serve])"},
	}
	for _, tt := range tests {
		got, err := SelectMetaGraph(m, tt.tags)
		if tt.err != "" {
			assert.EqualError(t, err, tt.err)
			continue
		}
		require.NoError(t, err)
		assert.Same(t, tt.want, got)
	}
	got, err := SelectMetaGraph(&savedmodel.Model{MetaGraphs: []*savedmodel.MetaGraph{train, serveGPU}}, nil)
	require.NoError(t, err)
	assert.Same(t, serveGPU, got)
	got, err = SelectMetaGraph(&savedmodel.Model{MetaGraphs: []*savedmodel.MetaGraph{train}}, nil)
	require.NoError(t, err)
	assert.Same(t, train, got)
	_, err = SelectMetaGraph(&savedmodel.Model{File: "x"}, nil)
	assert.Error(t, err)
}

func TestRegistry(t *testing.T) {
	r := Default()
	assert.Equal(t, "2.15.0", r.TFVersion)
	assert.NotNil(t, r.Lookup("Conv2D"))
	assert.NotNil(t, r.Lookup("_FusedConv2D"))
	assert.Nil(t, r.Lookup("SomeUnknownOp"))
	assert.GreaterOrEqual(t, r.Len(), 1400)
	var nilReg *OpRegistry
	assert.Nil(t, nilReg.Lookup("Conv2D"))
}
