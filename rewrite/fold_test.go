package rewrite

import (
	"context"
	"errors"
	"path/filepath"
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

var i32 = tpb.DataType_DT_INT32

// bodyModel is a graph whose work is in a function body, as a TF2
// SavedModel's is: x → PartitionedCall(body) → y, the body computing
// AddV2(a, fm) from its argument a and its node fm (given), whose
// output arg is z (FloorMod's, BroadcastTo's "output" when out is set).
func bodyModel(out string, body ...*nodepb.NodeDef) *savedmodel.Model {
	if out == "" {
		out = "z"
	}
	return callModel(&fpb.FunctionDef{
		Signature: &opdefpb.OpDef{Name: "body",
			InputArg:  []*opdefpb.OpDef_ArgDef{{Name: "a", Type: i32}},
			OutputArg: []*opdefpb.OpDef_ArgDef{{Name: "out", Type: i32}}},
		NodeDef: append(body, node("sum", "AddV2", []string{"a", "fm:" + out + ":0"}, attrs{"T": typeAttr(i32)})),
		Ret:     map[string]string{"out": "sum:z:0"},
	}, 4)
}

func i32Const(name string, vals ...int32) *nodepb.NodeDef {
	return cst(name, kernels.Int32Tensor([]int{len(vals)}, vals))
}

func floorMod(in ...string) *nodepb.NodeDef {
	return node("fm", "FloorMod", in, attrs{"T": typeAttr(i32)})
}

// TestFoldInFunctionBody folds a node of a function body whose data
// inputs are Consts of that body: the body gets a Const of its value
// under the node's name, read through Const's output arg, with the node's
// control inputs and its inputs' (Grappler's FoldNode); the proof compares
// each call's value; the model writes and builds again. The nodes the rule
// leaves are skipped with the reason.
func TestFoldInFunctionBody(t *testing.T) {
	feeds := map[string]*kernels.Tensor{"x": kernels.Int32Tensor([]int{4}, []int32{1, 2, 3, 4})}
	for _, c := range []struct {
		name string
		out  string
		body []*nodepb.NodeDef
		deny []string
		// want is the folded value, or skip the reason fm is left.
		want     []int32
		controls []string
		skip     string
	}{
		{name: "const inputs", body: []*nodepb.NodeDef{i32Const("c1", 7, -7, 9, 100), i32Const("c2", 2, 2, -4, 7), floorMod("c1:output:0", "c2:output:0")},
			deny: []string{"FloorMod"}, want: []int32{1, 1, -3, 2}},
		{name: "control inputs forwarded", body: []*nodepb.NodeDef{node("dep", "NoOp", nil, nil), node("dep2", "NoOp", nil, nil),
			func() *nodepb.NodeDef { c := i32Const("c1", 7, -7, 9, 100); c.Input = []string{"^dep2"}; return c }(),
			i32Const("c2", 2, 2, -4, 7), floorMod("c1:output:0", "c2:output:0", "^dep")},
			deny: []string{"FloorMod"}, want: []int32{1, 1, -3, 2}, controls: []string{"^dep", "^dep2"}},
		{name: "argument input", body: []*nodepb.NodeDef{i32Const("c2", 2, 2, -4, 7), floorMod("a", "c2:output:0")},
			deny: []string{"FloorMod"}, skip: "input 0 (a) is not a constant of the function body"},
		// Chains: Grappler folds the nodes between Consts in turn, so the
		// node's inputs are constant through them (constant_folding.cc:
		// 1644-1707, 4085-4092).
		{name: "computed input", body: []*nodepb.NodeDef{i32Const("c1", 7, -7, 9, 100), i32Const("c2", 2, 2, -4, 7),
			node("neg", "Neg", []string{"c1:output:0"}, attrs{"T": typeAttr(i32)}), floorMod("neg:y:0", "c2:output:0")},
			deny: []string{"FloorMod"}, want: []int32{1, 1, -1, 5}},
		{name: "chain Const→Mul→Add→consumer", body: []*nodepb.NodeDef{node("dep", "NoOp", nil, nil), node("dep2", "NoOp", nil, nil),
			func() *nodepb.NodeDef { c := i32Const("c1", 7, -7, 9, 100); c.Input = []string{"^dep2"}; return c }(),
			i32Const("c2", 2, 2, -4, 7), i32Const("one", 1, 1, 1, 1),
			node("mul", "Mul", []string{"c1:output:0", "c2:output:0", "^dep"}, attrs{"T": typeAttr(i32)}),
			node("add", "AddV2", []string{"mul:z:0", "one:output:0"}, attrs{"T": typeAttr(i32)}),
			floorMod("add:z:0", "c2:output:0")},
			// (7·2+1, -7·2+1, 9·-4+1, 100·7+1) = (15, -13, -35, 701), floor mod (2, 2, -4, 7)
			deny: []string{"FloorMod"}, want: []int32{1, 1, -3, 1}, controls: []string{"^dep", "^dep2"}},
		{name: "chain through a string constant", body: []*nodepb.NodeDef{cst("s", kernels.ScalarString("héllo")),
			node("len", "StringLength", []string{"s:output:0"}, nil), i32Const("c2", 2, 2, -4, 7),
			floorMod("len:output:0", "c2:output:0")},
			deny: []string{"FloorMod"}, skip: "input 0 (len:output:0) is not a constant of the function body"},
		{name: "chain over the size limit", out: "output", body: []*nodepb.NodeDef{i32Const("c1", 7), i32Const("shape", 4, 40000),
			node("bc", "BroadcastTo", []string{"c1:output:0", "shape:output:0"}, attrs{"T": typeAttr(i32), "Tidx": typeAttr(i32)}),
			i32Const("axis", 1),
			node("fm", "Max", []string{"bc:output:0", "axis:output:0"}, attrs{"T": typeAttr(i32), "Tidx": typeAttr(i32)})},
			deny: []string{"Max"}, skip: "input 0 (bc:output:0) is not a constant of the function body"},
		{name: "chain through an attr bound by the caller", body: []*nodepb.NodeDef{i32Const("c1", 7, -7, 9, 100), i32Const("c2", 2, 2, -4, 7),
			node("neg", "Neg", []string{"c1:output:0"}, attrs{"T": {Value: &attrpb.AttrValue_Placeholder{Placeholder: "T"}}}),
			floorMod("neg:y:0", "c2:output:0")},
			deny: []string{"FloorMod"}, skip: "input 0 (neg:y:0) is not a constant of the function body"},
		{name: "over the size limit", out: "output", body: []*nodepb.NodeDef{i32Const("c1", 7), i32Const("shape", 4, 40000),
			node("fm", "BroadcastTo", []string{"c1:output:0", "shape:output:0"}, attrs{"T": typeAttr(i32), "Tidx": typeAttr(i32)})},
			deny: []string{"BroadcastTo"}, skip: "its value would be 640000 bytes, over Grappler's 102400-byte folding limit"},
		{name: "stateful", out: "output", body: []*nodepb.NodeDef{i32Const("shape", 4),
			node("fm", "RandomUniformInt", []string{"shape:output:0", "lo:output:0", "hi:output:0"}, attrs{"T": typeAttr(i32), "Tout": typeAttr(i32)}),
			cst("lo", kernels.ScalarInt32(0)), cst("hi", kernels.ScalarInt32(9))},
			deny: []string{"RandomUniformInt"}, skip: "it is stateful"},
		{name: "string input", out: "output", body: []*nodepb.NodeDef{cst("s", kernels.ScalarString("héllo")),
			node("fm", "StringLength", []string{"s:output:0"}, nil)},
			deny: []string{"StringLength"}, skip: "input 0 is a string constant, which Grappler does not fold"},
		{name: "attr bound by the caller", body: []*nodepb.NodeDef{i32Const("c1", 7, -7, 9, 100), i32Const("c2", 2, 2, -4, 7),
			node("fm", "FloorMod", []string{"c1:output:0", "c2:output:0"}, attrs{"T": {Value: &attrpb.AttrValue_Placeholder{Placeholder: "T"}}})},
			deny: []string{"FloorMod"}, skip: "the executor cannot compute it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := planModel(t, bodyModel(c.out, c.body...), c.deny...)
			r := res.MetaGraphs[0]
			if c.skip != "" {
				assert.Empty(t, r.Applications)
				assert.Contains(t, skipReasons(r), c.skip)
				return
			}
			require.Len(t, r.Applications, 1, "skipped: %+v", r.Skipped)
			a := r.Applications[0]
			assert.Equal(t, "fold-constants", a.Rule.Name)
			assert.Equal(t, "body", a.Function)
			assert.Equal(t, 1, r.Before.Fallback-r.After.Fallback, "one fallback less")

			body := res.Model.MetaGraphs[0].Def.GetGraphDef().GetLibrary().GetFunction()[0]
			var fm, sum *nodepb.NodeDef
			for _, n := range body.GetNodeDef() {
				switch n.GetName() {
				case "fm":
					fm = n
				case "sum":
					sum = n
				}
			}
			require.NotNil(t, fm)
			assert.Equal(t, "Const", fm.GetOp())
			assert.Equal(t, c.controls, fm.GetInput(), "a Const takes control inputs only")
			v, err := kernels.FromProto(fm.GetAttr()["value"].GetTensor())
			require.NoError(t, err)
			assert.Equal(t, c.want, v.Data)
			assert.Equal(t, []string{"a", "fm:output:0"}, sum.GetInput(), "consumers read Const's output arg")

			pr, err := Prove(context.Background(), r, ProofOptions{Inputs: feeds, InputsName: "in.npz", Seed: 1, Dim: 4})
			require.NoError(t, err)
			require.Len(t, pr.Rules, 1)
			assert.Equal(t, 2, pr.Rules[0].Checks, "one call per run, two runs")
			assert.Empty(t, pr.NotExercised)
			for _, run := range pr.Runs {
				assert.True(t, run.Identical, run.Name)
			}

			// Written, loaded back and built: the body is valid, and the
			// node is covered now.
			out := filepath.Join(t.TempDir(), "out.pb")
			require.NoError(t, savedmodel.Write(res.Model, out))
			back, err := savedmodel.Load(out)
			require.NoError(t, err)
			g, err := graph.Build(back, back.MetaGraphs[0])
			require.NoError(t, err)
			target := fakeTarget{deny: set(c.deny...)}
			for _, n := range g.Nodes {
				if n.Func != nil && n.Name == "fm" {
					assert.Equal(t, "Const", n.Op)
					assert.True(t, covered(target.Match(n).Reason))
				}
			}
		})
	}
}

// TestProofCatchesWrongFold corrupts the value folded into a function
// body after planning: the whole runs compare each call of the body's
// node with the Const, and the proof names the rule and the node.
func TestProofCatchesWrongFold(t *testing.T) {
	res := planModel(t, bodyModel("", i32Const("c1", 7, -7, 9, 100), i32Const("c2", 2, 2, -4, 7), floorMod("c1:output:0", "c2:output:0")), "FloorMod")
	r := res.MetaGraphs[0]
	require.Len(t, r.Applications, 1)
	setConst(t, r.Graph, "fm", kernels.Int32Tensor([]int{4}, []int32{1, 1, -3, 3}))
	_, err := Prove(context.Background(), r, ProofOptions{Seed: 1, Dim: 4})
	var pe *ProofError
	require.True(t, errors.As(err, &pe), "%v", err)
	assert.Equal(t, "fold-constants", pe.Rule)
	assert.Equal(t, r.Applications[0].Path, pe.Node)
	assert.Contains(t, pe.Detail, "not bit-identical")
}

// TestFoldForwardsControls: at top level the Const of a folded node
// keeps the control inputs of the constant nodes before it, as Grappler,
// folding them in turn, forwards each one's (FoldNode).
func TestFoldForwardsControls(t *testing.T) {
	c1 := i32Const("c1", 7, -7, 9, 100)
	c1.Input = []string{"^dep"}
	r := plan(t, []*nodepb.NodeDef{node("dep", "NoOp", nil, nil), c1, i32Const("c2", 2, 2, -4, 7),
		node("neg", "Neg", []string{"c1"}, attrs{"T": typeAttr(i32)}),
		node("fm", "FloorMod", []string{"neg", "c2"}, attrs{"T": typeAttr(i32)}), ph("x", i32, 4),
		node("y", "AddV2", []string{"x", "fm"}, attrs{"T": typeAttr(i32)})}, []string{"FloorMod"}, false)
	require.Len(t, r.Applications, 1, "skipped: %+v", r.Skipped)
	for _, n := range r.Def.GetGraphDef().GetNode() {
		if n.GetName() == "fm" {
			assert.Equal(t, "Const", n.GetOp())
			assert.Equal(t, []string{"^dep"}, n.GetInput())
		}
	}
	_, err := Prove(context.Background(), r, ProofOptions{Seed: 1, Dim: 4})
	require.NoError(t, err)
}

// TestFoldStringOutput folds a node whose value is strings (AsString of
// an int Const in a body): the proof compares string tensors element by
// element, the body's node and the model's output, strings too.
func TestFoldStringOutput(t *testing.T) {
	str := tpb.DataType_DT_STRING
	fn := &fpb.FunctionDef{
		Signature: &opdefpb.OpDef{Name: "body",
			InputArg:  []*opdefpb.OpDef_ArgDef{{Name: "a", Type: i32}},
			OutputArg: []*opdefpb.OpDef_ArgDef{{Name: "out", Type: str}}},
		NodeDef: []*nodepb.NodeDef{i32Const("c", 7, -7, 9, 100),
			node("fm", "AsString", []string{"c:output:0"}, attrs{"T": typeAttr(i32)}),
			node("sa", "AsString", []string{"a"}, attrs{"T": typeAttr(i32)}),
			node("join", "StringJoin", []string{"sa:output:0", "fm:output:0"}, attrs{"N": intAttr(2)})},
		Ret: map[string]string{"out": "join:output:0"},
	}
	r := planModel(t, callModel(fn, 4), "AsString").MetaGraphs[0]
	require.Len(t, r.Applications, 1, "skipped: %+v", r.Skipped)
	in := kernels.Int32Tensor([]int{4}, []int32{1, 2, 3, 4})
	pr, err := Prove(context.Background(), r, ProofOptions{Inputs: map[string]*kernels.Tensor{"x": in}, InputsName: "in.npz", Seed: 1, Dim: 4})
	require.NoError(t, err)
	for _, run := range pr.Runs {
		assert.True(t, run.Identical, run.Name)
	}

	setConst(t, r.Graph, "fm", &kernels.Tensor{DType: str, Shape: []int{4}, Data: [][]byte{[]byte("7"), []byte("-7"), []byte("9"), []byte("10")}})
	_, err = Prove(context.Background(), r, ProofOptions{Inputs: map[string]*kernels.Tensor{"x": in}, InputsName: "in.npz", Seed: 1, Dim: 4})
	var pe *ProofError
	require.True(t, errors.As(err, &pe), "%v", err)
	assert.Equal(t, "fold-constants", pe.Rule)
}

// chainBody is Const → Mul → AddV2 → FloorMod in a function body: the
// chain Grappler folds node by node.
func chainBody() []*nodepb.NodeDef {
	return []*nodepb.NodeDef{i32Const("c1", 7, -7, 9, 100), i32Const("c2", 2, 2, -4, 7), i32Const("one", 1, 1, 1, 1),
		node("mul", "Mul", []string{"c1:output:0", "c2:output:0"}, attrs{"T": typeAttr(i32)}),
		node("add", "AddV2", []string{"mul:z:0", "one:output:0"}, attrs{"T": typeAttr(i32)}),
		floorMod("add:z:0", "c2:output:0")}
}

// TestFoldChainInFunctionBody: when no node of the chain has a kernel on
// the target, each is folded, the later ones on the values of the earlier
// (as Grappler's FoldGraph queues each folded node's fanout), and the
// proof checks every one of them in both runs; a wrong value anywhere in
// the chain, or only in its last node, fails the proof, naming the node.
func TestFoldChainInFunctionBody(t *testing.T) {
	res := planModel(t, bodyModel("", chainBody()...), "Mul", "AddV2", "FloorMod")
	r := res.MetaGraphs[0]
	require.Len(t, r.Applications, 3, "skipped: %+v", r.Skipped)
	want := map[string][]int32{"mul": {14, -14, -36, 700}, "add": {15, -13, -35, 701}, "fm": {1, 1, -3, 1}}
	body := res.Model.MetaGraphs[0].Def.GetGraphDef().GetLibrary().GetFunction()[0]
	for _, n := range body.GetNodeDef() {
		if w, ok := want[n.GetName()]; ok {
			assert.Equal(t, "Const", n.GetOp(), n.GetName())
			v, err := kernels.FromProto(n.GetAttr()["value"].GetTensor())
			require.NoError(t, err)
			assert.Equal(t, w, v.Data, n.GetName())
		}
	}
	pr, err := Prove(context.Background(), r, ProofOptions{Seed: 1, Dim: 4})
	require.NoError(t, err)
	require.Len(t, pr.Rules, 1)
	assert.Equal(t, 3, pr.Rules[0].Nodes)
	assert.Equal(t, 3, pr.Rules[0].Checks, "each folded node, once per call")
	assert.Empty(t, pr.NotExercised)

	for _, c := range []struct {
		deny    []string
		corrupt string
	}{
		{deny: []string{"Mul", "AddV2", "FloorMod"}, corrupt: "add"},
		{deny: []string{"FloorMod"}, corrupt: "fm"},
	} {
		r := planModel(t, bodyModel("", chainBody()...), c.deny...).MetaGraphs[0]
		require.Len(t, r.Applications, len(c.deny))
		setConst(t, r.Graph, c.corrupt, kernels.Int32Tensor([]int{4}, []int32{15, -13, -35, 700}))
		_, err := Prove(context.Background(), r, ProofOptions{Seed: 1, Dim: 4})
		var pe *ProofError
		require.True(t, errors.As(err, &pe), "%s: %v", c.corrupt, err)
		assert.Equal(t, "fold-constants", pe.Rule)
		assert.Equal(t, "body/"+c.corrupt, strings.TrimPrefix(pe.Node, "call/"), pe.Node)
		assert.Contains(t, pe.Detail, "not bit-identical")
	}
}

// TestFoldTopLevelChains: at top level too, a node between Consts is
// constant only where Grappler's IsFoldable folds it: a node fed a string
// constant, or whose statically known output is over the size limit and
// larger than its inputs, stops the chain (constant_folding.cc:988-993,
// 1007-1046); a chain of foldable nodes folds.
func TestFoldTopLevelChains(t *testing.T) {
	for _, c := range []struct {
		name  string
		chain []*nodepb.NodeDef
		in    string
		deny  string
		want  []int32
		skip  string
	}{
		{name: "chain", chain: []*nodepb.NodeDef{i32Const("c1", 7, -7, 9, 100), i32Const("c2", 2, 2, -4, 7), i32Const("one", 1, 1, 1, 1),
			node("mul", "Mul", []string{"c1", "c2"}, attrs{"T": typeAttr(i32)}),
			node("add", "AddV2", []string{"mul", "one"}, attrs{"T": typeAttr(i32)}),
			node("fm", "FloorMod", []string{"add", "c2"}, attrs{"T": typeAttr(i32)})},
			deny: "FloorMod", want: []int32{1, 1, -3, 1}},
		{name: "through a string constant", chain: []*nodepb.NodeDef{cst("s", &kernels.Tensor{DType: tpb.DataType_DT_STRING, Shape: []int{4}, Data: [][]byte{[]byte("a"), []byte("bb"), []byte("ccc"), []byte("dddd")}}),
			node("len", "StringLength", []string{"s"}, nil), i32Const("c2", 2, 2, -4, 7),
			node("fm", "FloorMod", []string{"len", "c2"}, attrs{"T": typeAttr(i32)})},
			deny: "FloorMod", skip: "input 0 is not a constant"},
		{name: "over the size limit", chain: []*nodepb.NodeDef{cst("seven", kernels.ScalarInt32(7)), i32Const("dims", 4, 40000),
			node("fill", "Fill", []string{"dims", "seven"}, attrs{"T": typeAttr(i32), "index_type": typeAttr(i32)}),
			i32Const("axis", 1), node("fm", "Max", []string{"fill", "axis"}, attrs{"T": typeAttr(i32), "Tidx": typeAttr(i32)})},
			deny: "Max", skip: "input 0 is not a constant"},
	} {
		t.Run(c.name, func(t *testing.T) {
			nodes := append(c.chain, ph("x", i32, 4), node("y", "AddV2", []string{"x", "fm"}, attrs{"T": typeAttr(i32)}))
			r := plan(t, nodes, []string{c.deny}, false)
			if c.skip != "" {
				assert.Empty(t, r.Applications)
				assert.Contains(t, skipReasons(r), c.skip)
				return
			}
			require.Len(t, r.Applications, 1, "skipped: %+v", r.Skipped)
			for _, n := range r.Def.GetGraphDef().GetNode() {
				if n.GetName() == "fm" {
					require.Equal(t, "Const", n.GetOp())
					v, err := kernels.FromProto(n.GetAttr()["value"].GetTensor())
					require.NoError(t, err)
					assert.Equal(t, c.want, v.Data)
				}
			}
			_, err := Prove(context.Background(), r, ProofOptions{Seed: 1, Dim: 4})
			require.NoError(t, err)
		})
	}
}
