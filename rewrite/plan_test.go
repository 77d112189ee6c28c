package rewrite

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	fpb "github.com/wamuir/graft/tensorflow/core/framework/function_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/savedmodel"
)

func plan(t *testing.T, nodes []*nodepb.NodeDef, deny []string, clear bool, names ...string) *Result {
	t.Helper()
	rs, err := SelectRules(names, false, clear)
	require.NoError(t, err)
	res, err := RewriteModel(context.Background(), modelOf(nodes...), 0,
		Options{Rules: rs, Target: fakeTarget{deny: set(deny...)}, CPU: cpuIndex(t)})
	require.NoError(t, err)
	return res.MetaGraphs[0]
}

// planModel plans every rule on m for a target without the ops in deny.
func planModel(t *testing.T, m *savedmodel.Model, deny ...string) *ModelResult {
	t.Helper()
	rs, err := SelectRules(nil, false, false)
	require.NoError(t, err)
	res, err := RewriteModel(context.Background(), m, 0, Options{Rules: rs, Target: fakeTarget{deny: set(deny...)}, CPU: cpuIndex(t)})
	require.NoError(t, err)
	return res
}

// callModel is a model whose work is in the function fn, as a TF2
// SavedModel's is: a Placeholder x of fn's first argument's dtype and the
// given shape → PartitionedCall(fn) → Identity y.
func callModel(fn *fpb.FunctionDef, shape ...int64) *savedmodel.Model {
	in, out := fn.GetSignature().GetInputArg()[0].GetType(), fn.GetSignature().GetOutputArg()[0].GetType()
	m := modelOf(ph("x", in, shape...),
		node("call", "PartitionedCall", []string{"x"}, attrs{"Tin": typesAttr(in), "Tout": typesAttr(out),
			"f": {Value: &attrpb.AttrValue_Func{Func: &attrpb.NameAttrList{Name: fn.GetSignature().GetName()}}}}),
		node("y", "Identity", []string{"call"}, attrs{"T": typeAttr(out)}))
	m.MetaGraphs[0].Def.GraphDef.Library = &fpb.FunctionDefLibrary{Function: []*fpb.FunctionDef{fn}}
	return m
}

// setConst changes the value of Const name in the rewritten graph, as a
// wrong rule would have written it.
func setConst(t *testing.T, g *graph.Graph, name string, v *kernels.Tensor) {
	t.Helper()
	for _, n := range g.Nodes {
		if n.Name == name {
			p, err := kernels.ToProto(v)
			require.NoError(t, err)
			n.Def.Attr["value"] = &attrpb.AttrValue{Value: &attrpb.AttrValue_Tensor{Tensor: p}}
			return
		}
	}
	t.Fatalf("no node %s", name)
}

// TestProofCatchesWrongReplacement breaks a replacement after planning:
// the proof names the rule and the node and fails, for an exact rule and
// for a tolerance rule whose error exceeds its bound.
func TestProofCatchesWrongReplacement(t *testing.T) {
	r := plan(t, []*nodepb.NodeDef{ph("x", f32, 3, 11), node("y", "Relu6", []string{"x"}, attrs{"T": typeAttr(f32)})}, []string{"Relu6"}, false)
	require.Len(t, r.Applications, 1)
	setConst(t, r.Graph, "y/six", kernels.ScalarFloat(5.999))
	_, err := Prove(context.Background(), r, ProofOptions{Inputs: map[string]*kernels.Tensor{"x": tensor([]int{3, 11}, specials...)}, InputsName: "in.npz", Seed: 1, Dim: 4})
	var pe *ProofError
	require.True(t, errors.As(err, &pe), "%v", err)
	assert.Equal(t, "decompose-relu6", pe.Rule)
	assert.Equal(t, "y", pe.Node)
	assert.Contains(t, pe.Error(), "proof failed: rule decompose-relu6 on node y (the graph's outputs, the inputs of in.npz): not bit-identical")

	bn := []*nodepb.NodeDef{ph("x", f32, 1, 2, 2, 2),
		cst("scale", kernels.FloatTensor([]int{2}, []float32{1, 2})), cst("offset", kernels.FloatTensor([]int{2}, []float32{0, 1})),
		cst("mean", kernels.FloatTensor([]int{2}, []float32{0.5, 0})), cst("variance", kernels.FloatTensor([]int{2}, []float32{1, 4})),
		node("y", "FusedBatchNormV3", []string{"x", "scale", "offset", "mean", "variance"}, attrs{"T": typeAttr(f32), "U": typeAttr(f32), "epsilon": floatAttr(0), "is_training": boolAttr(false)})}
	r = plan(t, bn, []string{"FusedBatchNormV3"}, false)
	require.Len(t, r.Applications, 1)
	setConst(t, r.Graph, "y/scaled", kernels.FloatTensor([]int{2}, []float32{1.001, 1}))
	_, err = Prove(context.Background(), r, ProofOptions{Seed: 1, Dim: 4})
	require.True(t, errors.As(err, &pe), "%v", err)
	assert.Equal(t, "decompose-batchnorm", pe.Rule)
	assert.Contains(t, pe.Detail, "over the rule's bound")
}

// TestFunctionBody rewrites a node in a function body called from the
// graph: the output arg its consumers and the function's result name
// changes with it (Relu6's "activations" becomes Minimum's "z"), the body
// is compared in the whole runs.
func TestFunctionBody(t *testing.T) {
	fn := &fpb.FunctionDef{
		Signature: &opdefpb.OpDef{Name: "body",
			InputArg:  []*opdefpb.OpDef_ArgDef{{Name: "a", Type: tpb.DataType_DT_FLOAT}},
			OutputArg: []*opdefpb.OpDef_ArgDef{{Name: "out", Type: tpb.DataType_DT_FLOAT}}},
		NodeDef: []*nodepb.NodeDef{
			node("r6", "Relu6", []string{"a"}, attrs{"T": typeAttr(f32)}),
			node("neg", "Neg", []string{"r6:activations:0"}, attrs{"T": typeAttr(f32)}),
		},
		Ret: map[string]string{"out": "r6:activations:0"},
	}
	res := planModel(t, callModel(fn, 3, 11), "Relu6")
	r := res.MetaGraphs[0]
	require.Len(t, r.Applications, 1)
	assert.Equal(t, "body", r.Applications[0].Function)
	body := res.Model.MetaGraphs[0].Def.GetGraphDef().GetLibrary().GetFunction()[0]
	assert.Equal(t, "r6:z:0", body.GetRet()["out"])
	for _, n := range body.GetNodeDef() {
		if n.GetName() == "neg" {
			assert.Equal(t, []string{"r6:z:0"}, n.GetInput())
		}
	}
	pr, err := Prove(context.Background(), r, ProofOptions{Inputs: map[string]*kernels.Tensor{"x": tensor([]int{3, 11}, specials...)}, InputsName: "in.npz", Seed: 1, Dim: 4})
	require.NoError(t, err)
	require.Len(t, pr.Rules, 1)
	assert.Equal(t, 2, pr.Rules[0].Checks)
	assert.Empty(t, pr.NotExercised)
}

// TestSkips covers nodes a rule leaves alone, with the reason.
func TestSkips(t *testing.T) {
	// Another output of the node is read: the replacement gives output 0
	// only.
	bn := []*nodepb.NodeDef{ph("x", f32, 1, 2, 2, 2),
		cst("s", kernels.FloatTensor([]int{2}, []float32{1, 2})),
		node("y", "FusedBatchNormV3", []string{"x", "s", "s", "s", "s"}, attrs{"T": typeAttr(f32), "U": typeAttr(f32), "is_training": boolAttr(false)}),
		node("z", "Identity", []string{"y:1"}, attrs{"T": typeAttr(f32)})}
	r := plan(t, bn, []string{"FusedBatchNormV3"}, false)
	assert.Empty(t, r.Applications)
	assert.Contains(t, skipReasons(r), "z reads output 1, and the replacement gives output 0 only")

	// A replacement that needs an op the target lacks too.
	r = plan(t, []*nodepb.NodeDef{ph("x", f32, 3), node("y", "Elu", []string{"x"}, attrs{"T": typeAttr(f32)})}, []string{"Elu", "Exp"}, false)
	assert.Empty(t, r.Applications)
	assert.Contains(t, skipReasons(r), "its replacement needs Exp (float32), which the target has no kernel for")

	// Gelu has no standalone op to unfuse into.
	r = plan(t, []*nodepb.NodeDef{ph("x", f32, 2, 3), cst("w", tensor([]int{3, 4})), cst("b", tensor([]int{4})),
		node("y", "_FusedMatMul", []string{"x", "w", "b"}, attrs{"T": typeAttr(f32), "fused_ops": strsAttr("BiasAdd", "GeluExact"), "num_args": intAttr(1)})}, []string{"_FusedMatMul"}, false)
	assert.Empty(t, r.Applications)
	assert.Contains(t, skipReasons(r), "GeluExact has no standalone op to unfuse into")

	// Rules not selected are not used.
	r = plan(t, []*nodepb.NodeDef{ph("x", f32, 3), node("y", "Relu6", []string{"x"}, attrs{"T": typeAttr(f32)})}, []string{"Relu6"}, false, "unfuse")
	assert.Empty(t, r.Applications)
}

func skipReasons(r *Result) string {
	var s []string
	for _, k := range r.Skipped {
		s = append(s, k.Reason)
	}
	return strings.Join(s, "\n")
}

// TestUnpin drops top-level device pins when that places the graph
// better, together with the rules planned on the unpinned graph.
func TestUnpin(t *testing.T) {
	nodes := []*nodepb.NodeDef{ph("x", f32, 1, 5, 5, 3), cst("w", kernels.FloatTensor([]int{3, 3, 3, 4}, values(108))), cst("b", kernels.FloatTensor([]int{4}, values(4))),
		node("c", "_FusedConv2D", []string{"x", "w", "b"}, conv2DAttrs([]string{"BiasAdd", "Relu"}, 1, nil)),
		node("y", "Relu", []string{"c"}, attrs{"T": typeAttr(f32)}),
		node("z", "Neg", []string{"y"}, attrs{"T": typeAttr(f32)})}
	nodes[3].Device = "/device:CPU:0"
	nodes[4].Device = "/device:CPU:0"
	pinned := plan(t, nodes, []string{"_FusedConv2D"}, false)
	require.Len(t, pinned.Applications, 1)
	assert.Zero(t, pinned.Unpinned)
	assert.Equal(t, 0, pinned.After.Fallback, "the unfused conv is covered; its pin keeps it on CPU")

	r := plan(t, nodes, []string{"_FusedConv2D"}, true)
	require.Len(t, r.Applications, 1)
	assert.Equal(t, 2, r.Unpinned)
	assert.Equal(t, 1, r.After.Partitions)
	assert.Zero(t, r.After.TransferBytes)
	for _, n := range r.Def.GetGraphDef().GetNode() {
		assert.Empty(t, n.GetDevice(), n.GetName())
	}
	pr, err := Prove(context.Background(), r, ProofOptions{Seed: 1, Dim: 4})
	require.NoError(t, err)
	require.NotEmpty(t, pr.Runs)
	assert.True(t, pr.Runs[0].Identical)

	// Only the pins dropped: nothing to run.
	nodes[3] = node("c", "Conv2D", []string{"x", "w"}, attrs{"T": typeAttr(f32), "strides": intsAttr([]int64{1, 1, 1, 1}), "padding": strAttr("SAME")})
	nodes[3].Device = "/device:CPU:0"
	r = plan(t, nodes, nil, true)
	assert.Empty(t, r.Applications)
	assert.Equal(t, 2, r.Unpinned)
	pr, err = Prove(context.Background(), r, ProofOptions{Seed: 1, Dim: 4})
	require.NoError(t, err)
	assert.Empty(t, pr.Runs)
}

func TestSelectRules(t *testing.T) {
	s, err := SelectRules(nil, false, false)
	require.NoError(t, err)
	assert.False(t, s[ruleCast])
	assert.False(t, s[ruleUnpin])
	assert.True(t, s[ruleUnfuseConv2D])
	s, err = SelectRules([]string{"unfuse", "decompose-relu6"}, false, true)
	require.NoError(t, err)
	assert.True(t, s[ruleUnfuseMatMul])
	assert.True(t, s[ruleRelu6])
	assert.False(t, s[ruleElu])
	assert.True(t, s[ruleUnpin], "--clear-devices adds unpin")
	_, err = SelectRules([]string{"unfuse-conv"}, false, false)
	assert.ErrorContains(t, err, `unknown rewrite rule "unfuse-conv" (rules: unfuse-conv2d,`)
	_, err = SelectRules([]string{"cast-float16"}, false, false)
	assert.ErrorContains(t, err, "needs --allow-lower-precision")
	_, err = SelectRules([]string{"unpin"}, false, false)
	assert.ErrorContains(t, err, "needs --clear-devices")
}

// TestSuggest answers explain's question for one node: the rules that
// would make it covered, chains included; none for a covered node.
func TestSuggest(t *testing.T) {
	m := modelOf(ph("x", f32, 1, 5, 5, 3), cst("w", kernels.FloatTensor([]int{3, 3, 3, 4}, values(108))), cst("b", kernels.FloatTensor([]int{4}, values(4))),
		node("y", "_FusedConv2D", []string{"x", "w", "b"}, conv2DAttrs([]string{"BiasAdd", "Relu6"}, 1, nil)))
	g, err := graph.Build(m, m.MetaGraphs[0])
	require.NoError(t, err)
	var y *graph.Node
	for _, n := range g.Nodes {
		if n.Name == "y" {
			y = n
		}
	}
	ss := Suggest(g, y, fakeTarget{deny: set("_FusedConv2D", "Relu6")})
	require.Len(t, ss, 1)
	assert.Equal(t, "unfuse-conv2d", ss[0].Rule.Name)
	require.Len(t, ss[0].Chained, 1)
	assert.Equal(t, "decompose-relu6", ss[0].Chained[0].Name)
	assert.Equal(t, []string{"Conv2D", "BiasAdd", "Relu", "Const", "Minimum"}, ss[0].Ops)
	assert.True(t, ss[0].Exactness.Exact)
	assert.Empty(t, Suggest(g, y, fakeTarget{}), "covered: nothing to suggest")
}
