package rewrite

import (
	"context"
	"math"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	shapepb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/savedmodel"
)

// fakeTarget covers every registered op but deny; halfOnly ops are
// covered for float16 only.
type fakeTarget struct {
	deny, halfOnly map[string]bool
}

func (f fakeTarget) DeviceType() string { return "GPU" }

func (f fakeTarget) Match(n *graph.Node) coverage.Match {
	switch {
	case n.Unknown || n.OpDef == nil:
		return coverage.Match{Reason: coverage.ReasonUnknownOp}
	case f.deny[n.Op]:
		return coverage.Match{Reason: coverage.ReasonNoKernel}
	case f.halfOnly[n.Op] && n.Attrs["T"].GetType() != tpb.DataType_DT_HALF:
		return coverage.Match{Reason: coverage.ReasonNoKernelForDType}
	}
	return coverage.Match{Reason: coverage.ReasonCovered}
}

func set(xs ...string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// Graph building helpers.

type attrs = map[string]*attrpb.AttrValue

func node(name, op string, in []string, a attrs) *nodepb.NodeDef {
	return &nodepb.NodeDef{Name: name, Op: op, Input: in, Attr: a}
}

func ph(name string, dt tpb.DataType, shape ...int64) *nodepb.NodeDef {
	s := &shapepb.TensorShapeProto{}
	for _, d := range shape {
		s.Dim = append(s.Dim, &shapepb.TensorShapeProto_Dim{Size: d})
	}
	return node(name, "Placeholder", nil, attrs{"dtype": typeAttr(dt), "shape": {Value: &attrpb.AttrValue_Shape{Shape: s}}})
}

func cst(name string, t *kernels.Tensor) *nodepb.NodeDef { return constNode(name, t) }

func strsAttr(ss ...string) *attrpb.AttrValue {
	l := &attrpb.AttrValue_ListValue{}
	for _, s := range ss {
		l.S = append(l.S, []byte(s))
	}
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: l}}
}

func typesAttr(ts ...tpb.DataType) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{Type: ts}}}
}

var f32 = tpb.DataType_DT_FLOAT

// values makes n deterministic floats in [-3, 3) with the given special
// values first.
func values(n int, special ...float32) []float32 {
	out := make([]float32, n)
	s := uint32(12345)
	for i := range out {
		s = s*1664525 + 1013904223
		out[i] = float32(s>>8)/float32(1<<24)*6 - 3
	}
	copy(out, special)
	return out
}

func tensor(shape []int, special ...float32) *kernels.Tensor {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return kernels.FloatTensor(shape, values(n, special...))
}

var specials = []float32{0, float32(math.Copysign(0, -1)), float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 1e-30, -1e30, 20, -20, 6, -6}

func modelOf(nodes ...*nodepb.NodeDef) *savedmodel.Model {
	m := &savedmodel.Model{Format: savedmodel.FormatGraphDef, File: "test.pb"}
	m.MetaGraphs = []*savedmodel.MetaGraph{{Def: &mgpb.MetaGraphDef{GraphDef: &gpb.GraphDef{Node: nodes}}}}
	return m
}

// ruleCase is one rule on one node "y" of a small graph.
type ruleCase struct {
	name     string
	nodes    []*nodepb.NodeDef
	feeds    map[string]*kernels.Tensor
	deny     []string
	halfOnly []string
	rules    []string // --rules (default: all)
	cast     bool
	// want is the rule expected on y and its chain.
	want, chain string
	exact       bool
	// ops, when set, are the replacement's ops in order.
	ops []string
}

// runCase plans, proves and writes one case; it returns the plan.
func runCase(t *testing.T, c ruleCase) (*Result, *Proof) {
	t.Helper()
	m := modelOf(c.nodes...)
	rs, err := SelectRules(c.rules, c.cast, false)
	require.NoError(t, err)
	opts := Options{Rules: rs, Target: fakeTarget{deny: set(c.deny...), halfOnly: set(c.halfOnly...)}, CPU: cpuIndex(t)}
	res, err := RewriteModel(context.Background(), m, 0, opts)
	require.NoError(t, err)
	r := res.MetaGraphs[0]
	pr, err := Prove(context.Background(), r, ProofOptions{Inputs: c.feeds, InputsName: "test inputs", Seed: 1, Dim: 4})
	require.NoError(t, err)
	// The rewritten model writes, loads and builds as TensorFlow imports it.
	out := filepath.Join(t.TempDir(), "out.pb")
	require.NoError(t, savedmodel.Write(res.Model, out))
	back, err := savedmodel.Load(out)
	require.NoError(t, err)
	_, err = graph.Build(back, back.MetaGraphs[0])
	require.NoError(t, err)
	return r, pr
}

var cpuIdx *coverage.Index

// cpuIndex is the built-in cpu pack, indexed.
func cpuIndex(t testing.TB) *coverage.Index {
	if cpuIdx == nil {
		def, err := coverage.BuiltinPack("default")
		require.NoError(t, err)
		p, err := coverage.BuiltinPack("cpu")
		require.NoError(t, err)
		cpuIdx = coverage.NewIndex(p, def)
	}
	return cpuIdx
}

func conv2DAttrs(fused []string, nargs int, extra attrs) attrs {
	a := attrs{"T": typeAttr(f32), "strides": intsAttr([]int64{1, 1, 1, 1}), "padding": strAttr("SAME"),
		"fused_ops": strsAttr(fused...), "num_args": intAttr(int64(nargs)), "epsilon": floatAttr(0.001),
		"data_format": strAttr("NHWC"), "dilations": intsAttr([]int64{1, 1, 1, 1})}
	for k, v := range extra {
		a[k] = v
	}
	return a
}

// ruleCases are TestRules' cases: a graph with one node the target does
// not cover (deny, halfOnly), the rule that must rewrite it and what the
// replacement must be.
func ruleCases() []ruleCase {
	x4 := tensor([]int{1, 5, 5, 3}, -0.0, 0)
	w := kernels.FloatTensor([]int{3, 3, 3, 4}, values(108))
	b := kernels.FloatTensor([]int{4}, values(4))
	ew := tensor([]int{3, 11}, specials...)
	convBase := []*nodepb.NodeDef{ph("x", f32, 1, 5, 5, 3), cst("w", w), cst("b", b)}
	bnParams := []*nodepb.NodeDef{
		cst("scale", kernels.FloatTensor([]int{4}, []float32{1.5, -0.5, 2, 0.25})),
		cst("offset", kernels.FloatTensor([]int{4}, []float32{0.1, -2, 3, 0})),
		cst("mean", kernels.FloatTensor([]int{4}, []float32{0.5, -1, 7, 0.01})),
		cst("variance", kernels.FloatTensor([]int{4}, []float32{2, 0.5, 9, 1e-3})),
	}
	with := func(base []*nodepb.NodeDef, more ...*nodepb.NodeDef) []*nodepb.NodeDef {
		return append(append([]*nodepb.NodeDef(nil), base...), more...)
	}
	unary := func(op string, a attrs) []*nodepb.NodeDef {
		if a == nil {
			a = attrs{}
		}
		a["T"] = typeAttr(f32)
		return []*nodepb.NodeDef{ph("x", f32, 3, 11), node("y", op, []string{"x"}, a)}
	}
	return []ruleCase{
		{name: "conv2d BiasAdd", nodes: with(convBase, node("y", "_FusedConv2D", []string{"x", "w", "b"}, conv2DAttrs([]string{"BiasAdd"}, 1, nil))),
			feeds: map[string]*kernels.Tensor{"x": x4}, deny: []string{"_FusedConv2D"}, want: "unfuse-conv2d", exact: true, ops: []string{"Conv2D", "BiasAdd"}},
		{name: "conv2d BiasAdd Relu, TArgs", nodes: with(convBase, node("y", "_FusedConv2D", []string{"x", "w", "b"}, conv2DAttrs([]string{"BiasAdd", "Relu"}, 1, attrs{"TArgs": typesAttr(f32)}))),
			feeds: map[string]*kernels.Tensor{"x": x4}, deny: []string{"_FusedConv2D"}, want: "unfuse-conv2d", exact: true, ops: []string{"Conv2D", "BiasAdd", "Relu"}},
		{name: "conv2d stride 2 explicit padding Elu", nodes: with(convBase, node("y", "_FusedConv2D", []string{"x", "w", "b"}, conv2DAttrs([]string{"BiasAdd", "Elu"}, 1,
			attrs{"strides": intsAttr([]int64{1, 2, 2, 1}), "padding": strAttr("EXPLICIT"), "explicit_paddings": intsAttr([]int64{0, 0, 1, 2, 2, 1, 0, 0})}))),
			feeds: map[string]*kernels.Tensor{"x": x4}, deny: []string{"_FusedConv2D"}, want: "unfuse-conv2d", exact: true, ops: []string{"Conv2D", "BiasAdd", "Elu"}},
		{name: "conv2d LeakyRelu", nodes: with(convBase, node("y", "_FusedConv2D", []string{"x", "w", "b"}, conv2DAttrs([]string{"BiasAdd", "LeakyRelu"}, 1, attrs{"leakyrelu_alpha": floatAttr(0.3)}))),
			feeds: map[string]*kernels.Tensor{"x": x4}, deny: []string{"_FusedConv2D"}, want: "unfuse-conv2d", exact: true, ops: []string{"Conv2D", "BiasAdd", "LeakyRelu"}},
		{name: "conv2d Relu6 chained with decompose-relu6", nodes: with(convBase, node("y", "_FusedConv2D", []string{"x", "w", "b"}, conv2DAttrs([]string{"BiasAdd", "Relu6"}, 1, nil))),
			feeds: map[string]*kernels.Tensor{"x": x4}, deny: []string{"_FusedConv2D", "Relu6"}, want: "unfuse-conv2d", chain: "decompose-relu6", exact: true,
			ops: []string{"Conv2D", "BiasAdd", "Relu", "Const", "Minimum"}},
		{name: "conv2d FusedBatchNorm Relu", nodes: with(with(convBase, bnParams...), node("y", "_FusedConv2D", []string{"x", "w", "scale", "offset", "mean", "variance"}, conv2DAttrs([]string{"FusedBatchNorm", "Relu"}, 4, nil))),
			feeds: map[string]*kernels.Tensor{"x": x4}, deny: []string{"_FusedConv2D"}, want: "unfuse-conv2d", exact: true, ops: []string{"Conv2D", "FusedBatchNormV3", "Relu"}},
		{name: "depthwise BiasAdd Relu6", nodes: []*nodepb.NodeDef{ph("x", f32, 1, 5, 5, 3), cst("w", kernels.FloatTensor([]int{3, 3, 3, 2}, values(54))), cst("b", kernels.FloatTensor([]int{6}, values(6))),
			node("y", "_FusedDepthwiseConv2dNative", []string{"x", "w", "b"}, attrs{"T": typeAttr(f32), "strides": intsAttr([]int64{1, 1, 1, 1}), "padding": strAttr("VALID"),
				"fused_ops": strsAttr("BiasAdd", "Relu6"), "num_args": intAttr(1)})},
			feeds: map[string]*kernels.Tensor{"x": x4}, deny: []string{"_FusedDepthwiseConv2dNative"}, want: "unfuse-depthwise", exact: true, ops: []string{"DepthwiseConv2dNative", "BiasAdd", "Relu6"}},
		{name: "depthwise TF.js BiasAdd Prelu", nodes: []*nodepb.NodeDef{ph("x", f32, 1, 5, 5, 3), cst("w", kernels.FloatTensor([]int{3, 3, 3, 1}, values(27))), cst("b", kernels.FloatTensor([]int{3}, values(3))),
			cst("alpha", kernels.FloatTensor([]int{3}, []float32{0.25, -0.5, 2})),
			node("y", "_FusedDepthwiseConv2dNative", []string{"x", "w", "b", "alpha"}, attrs{"T": typeAttr(f32), "strides": intsAttr([]int64{1, 1, 1, 1}), "padding": strAttr("SAME"),
				"fused_ops": strsAttr("biasadd", "prelu"), "num_args": intAttr(2)})},
			feeds: map[string]*kernels.Tensor{"x": x4}, deny: []string{"_FusedDepthwiseConv2dNative"}, want: "unfuse-depthwise", exact: true,
			ops: []string{"DepthwiseConv2dNative", "BiasAdd", "Const", "Less", "Mul", "SelectV2"}},
		{name: "conv3d padding_list BiasAdd Relu", nodes: []*nodepb.NodeDef{ph("x", f32, 1, 4, 4, 4, 2), cst("w", kernels.FloatTensor([]int{2, 2, 2, 2, 3}, values(48))), cst("b", kernels.FloatTensor([]int{3}, values(3))),
			node("y", "_FusedConv3D", []string{"x", "w", "b"}, attrs{"T": typeAttr(f32), "strides": intsAttr([]int64{1, 1, 1, 1, 1}), "padding": strAttr("VALID"),
				"fused_ops": strsAttr("BiasAdd", "Relu"), "num_args": intAttr(1), "padding_list": intsAttr([]int64{0, 0, 1, 0, 1, 1, 0, 1, 0, 0})})},
			feeds: map[string]*kernels.Tensor{"x": tensor([]int{1, 4, 4, 4, 2})}, deny: []string{"_FusedConv3D"}, want: "unfuse-conv3d", exact: true,
			ops: []string{"Const", "Pad", "Conv3D", "BiasAdd", "Relu"}},
		{name: "matmul BiasAdd Tanh", nodes: []*nodepb.NodeDef{ph("x", f32, 2, 3), cst("w", kernels.FloatTensor([]int{4, 3}, values(12))), cst("b", b),
			node("y", "_FusedMatMul", []string{"x", "w", "b"}, attrs{"T": typeAttr(f32), "transpose_b": boolAttr(true), "fused_ops": strsAttr("BiasAdd", "Tanh"), "num_args": intAttr(1)})},
			feeds: map[string]*kernels.Tensor{"x": tensor([]int{2, 3})}, deny: []string{"_FusedMatMul"}, want: "unfuse-matmul", exact: true, ops: []string{"MatMul", "BiasAdd", "Tanh"}},
		{name: "matmul BiasAdd Sigmoid", nodes: []*nodepb.NodeDef{ph("x", f32, 2, 3), cst("w", kernels.FloatTensor([]int{3, 4}, values(12))), cst("b", b),
			node("y", "_FusedMatMul", []string{"x", "w", "b"}, attrs{"T": typeAttr(f32), "fused_ops": strsAttr("BiasAdd", "Sigmoid"), "num_args": intAttr(1)})},
			feeds: map[string]*kernels.Tensor{"x": tensor([]int{2, 3})}, deny: []string{"_FusedMatMul"}, want: "unfuse-matmul", exact: true, ops: []string{"MatMul", "BiasAdd", "Sigmoid"}},
		{name: "batchnorm-ex side input Relu", nodes: with(bnParams, ph("x", f32, 1, 2, 2, 4), ph("side", f32, 1, 2, 2, 4),
			node("y", "_FusedBatchNormEx", []string{"x", "scale", "offset", "mean", "variance", "side"}, attrs{"T": typeAttr(f32), "U": typeAttr(f32), "epsilon": floatAttr(0.001),
				"num_side_inputs": intAttr(1), "activation_mode": strAttr("Relu"), "is_training": boolAttr(false)})),
			feeds: map[string]*kernels.Tensor{"x": tensor([]int{1, 2, 2, 4}), "side": tensor([]int{1, 2, 2, 4})}, deny: []string{"_FusedBatchNormEx"}, want: "unfuse-batchnorm-ex", exact: true,
			ops: []string{"FusedBatchNormV3", "AddV2", "Relu"}},
		{name: "batchnorm folded NHWC", nodes: with(bnParams, ph("x", f32, 1, 3, 3, 4),
			node("y", "FusedBatchNormV3", []string{"x", "scale", "offset", "mean", "variance"}, attrs{"T": typeAttr(f32), "U": typeAttr(f32), "epsilon": floatAttr(0.001), "is_training": boolAttr(false)})),
			feeds: map[string]*kernels.Tensor{"x": tensor([]int{1, 3, 3, 4}, 1e6, -1e6)}, deny: []string{"FusedBatchNormV3"}, want: "decompose-batchnorm", ops: []string{"Const", "Const", "Mul", "Add"}},
		{name: "batchnorm NCHW", nodes: with(bnParams, ph("x", f32, 1, 4, 2, 3),
			node("y", "FusedBatchNorm", []string{"x", "scale", "offset", "mean", "variance"}, attrs{"T": typeAttr(f32), "epsilon": floatAttr(0.01), "is_training": boolAttr(false), "data_format": strAttr("NCHW")})),
			feeds: map[string]*kernels.Tensor{"x": tensor([]int{1, 4, 2, 3})}, deny: []string{"FusedBatchNorm"}, want: "decompose-batchnorm"},
		{name: "batchnorm parameters fed", nodes: []*nodepb.NodeDef{ph("x", f32, 1, 3, 3, 2), ph("s", f32, 2), ph("o", f32, 2), ph("m", f32, 2), cst("v", kernels.FloatTensor([]int{2}, []float32{1, 4})),
			node("y", "FusedBatchNormV2", []string{"x", "s", "o", "m", "v"}, attrs{"T": typeAttr(f32), "U": typeAttr(f32), "epsilon": floatAttr(0.001), "is_training": boolAttr(false)})},
			feeds: map[string]*kernels.Tensor{"x": tensor([]int{1, 3, 3, 2}), "s": tensor([]int{2}), "o": tensor([]int{2}), "m": tensor([]int{2})},
			deny:  []string{"FusedBatchNormV2"}, want: "decompose-batchnorm", ops: []string{"Const", "Add", "Rsqrt", "Mul", "Mul", "Sub", "Mul", "Add"}},
		{name: "relu6", nodes: unary("Relu6", nil), feeds: map[string]*kernels.Tensor{"x": ew}, deny: []string{"Relu6"}, want: "decompose-relu6", exact: true},
		{name: "leakyrelu 0.2", nodes: unary("LeakyRelu", attrs{"alpha": floatAttr(0.2)}), feeds: map[string]*kernels.Tensor{"x": ew}, deny: []string{"LeakyRelu"}, want: "decompose-leakyrelu", exact: true},
		{name: "leakyrelu 1.5", nodes: unary("LeakyRelu", attrs{"alpha": floatAttr(1.5)}), feeds: map[string]*kernels.Tensor{"x": ew}, deny: []string{"LeakyRelu"}, want: "decompose-leakyrelu", exact: true},
		{name: "elu", nodes: unary("Elu", nil), feeds: map[string]*kernels.Tensor{"x": ew}, deny: []string{"Elu"}, want: "decompose-elu", exact: true},
		{name: "selu", nodes: unary("Selu", nil), feeds: map[string]*kernels.Tensor{"x": ew}, deny: []string{"Selu"}, want: "decompose-selu", exact: true},
		{name: "softplus", nodes: unary("Softplus", nil), feeds: map[string]*kernels.Tensor{"x": kernels.FloatTensor([]int{3, 11}, values(33, 0, -0.0, 15.9, 15.95, -15.9, -15.95, 16, -16, 100, -100, 1e-3))},
			deny: []string{"Softplus"}, want: "decompose-softplus", exact: true},
		{name: "rsqrt", nodes: unary("Rsqrt", nil), feeds: map[string]*kernels.Tensor{"x": ew}, deny: []string{"Rsqrt"}, want: "decompose-rsqrt", ops: []string{"Sqrt", "Reciprocal"}},
		{name: "squared difference broadcast", nodes: []*nodepb.NodeDef{ph("x", f32, 3, 11), ph("z", f32, 11), node("y", "SquaredDifference", []string{"x", "z"}, attrs{"T": typeAttr(f32)})},
			feeds: map[string]*kernels.Tensor{"x": ew, "z": tensor([]int{11})}, deny: []string{"SquaredDifference"}, want: "decompose-squared-difference", exact: true},
		{name: "addn 10", nodes: func() []*nodepb.NodeDef {
			ns := []*nodepb.NodeDef{}
			var in []string
			for i := 0; i < 10; i++ {
				name := string(rune('a' + i))
				ns = append(ns, cst(name, tensor([]int{3, 11}, float32(i)*1e7, float32(i)*1e-7)))
				in = append(in, name)
			}
			return append(ns, node("y", "AddN", in, attrs{"T": typeAttr(f32), "N": intAttr(10)}))
		}(), deny: []string{"AddN"}, rules: []string{"decompose-addn"}, want: "decompose-addn", exact: true},
		{name: "addn 3", nodes: []*nodepb.NodeDef{ph("x", f32, 3, 11), ph("z", f32, 3, 11), node("y", "AddN", []string{"x", "z", "x"}, attrs{"T": typeAttr(f32), "N": intAttr(3)})},
			feeds: map[string]*kernels.Tensor{"x": ew, "z": tensor([]int{3, 11})}, deny: []string{"AddN"}, want: "decompose-addn", exact: true, ops: []string{"AddV2", "AddV2"}},
		{name: "pack axis -1", nodes: []*nodepb.NodeDef{ph("x", f32, 3, 11), ph("z", f32, 3, 11), node("y", "Pack", []string{"x", "z", "x"}, attrs{"T": typeAttr(f32), "N": intAttr(3), "axis": intAttr(-1)})},
			feeds: map[string]*kernels.Tensor{"x": ew, "z": tensor([]int{3, 11})}, deny: []string{"Pack"}, want: "decompose-pack", exact: true},
		{name: "pack axis 0 one input", nodes: []*nodepb.NodeDef{ph("x", f32, 3, 11), node("y", "Pack", []string{"x"}, attrs{"T": typeAttr(f32), "N": intAttr(1), "axis": intAttr(0)})},
			feeds: map[string]*kernels.Tensor{"x": ew}, deny: []string{"Pack"}, want: "decompose-pack", exact: true, ops: []string{"Const", "ExpandDims"}},
		{name: "prelu", nodes: []*nodepb.NodeDef{ph("x", f32, 3, 11), cst("alpha", tensor([]int{11})), node("y", "Prelu", []string{"x", "alpha"}, nil)},
			feeds: map[string]*kernels.Tensor{"x": ew}, want: "decompose-prelu", exact: true},
		{name: "einsum batch matmul", nodes: []*nodepb.NodeDef{ph("x", f32, 2, 3, 4), ph("z", f32, 2, 4, 5), node("y", "Einsum", []string{"x", "z"}, attrs{"T": typeAttr(f32), "N": intAttr(2), "equation": strAttr("bij,bjk->bik")})},
			feeds: map[string]*kernels.Tensor{"x": tensor([]int{2, 3, 4}), "z": tensor([]int{2, 4, 5})}, deny: []string{"Einsum"}, want: "decompose-einsum", exact: true},
		{name: "einsum transposed output", nodes: []*nodepb.NodeDef{ph("x", f32, 3, 4), ph("z", f32, 5, 4), node("y", "Einsum", []string{"x", "z"}, attrs{"T": typeAttr(f32), "N": intAttr(2), "equation": strAttr("ij,kj->ki")})},
			feeds: map[string]*kernels.Tensor{"x": tensor([]int{3, 4}), "z": tensor([]int{5, 4})}, deny: []string{"Einsum"}, want: "decompose-einsum", exact: true},
		{name: "div float", nodes: []*nodepb.NodeDef{ph("x", f32, 3, 11), ph("z", f32, 3, 11), node("y", "Div", []string{"x", "z"}, attrs{"T": typeAttr(f32)})},
			feeds: map[string]*kernels.Tensor{"x": ew, "z": tensor([]int{3, 11}, 0, 1, -0.0)}, deny: []string{"Div"}, want: "decompose-div", exact: true, ops: []string{"RealDiv"}},
		{name: "fold constants", nodes: []*nodepb.NodeDef{cst("a", kernels.Int32Tensor([]int{4}, []int32{7, -7, 9, 100})), cst("c", kernels.Int32Tensor([]int{4}, []int32{2, 2, -4, 7})),
			node("y", "FloorMod", []string{"a", "c"}, attrs{"T": typeAttr(tpb.DataType_DT_INT32)}), ph("x", tpb.DataType_DT_INT32, 4),
			node("out", "AddV2", []string{"x", "y"}, attrs{"T": typeAttr(tpb.DataType_DT_INT32)})},
			feeds: map[string]*kernels.Tensor{"x": kernels.Int32Tensor([]int{4}, []int32{1, 2, 3, 4})}, deny: []string{"FloorMod"}, want: "fold-constants", exact: true, ops: []string{"Const"}},
		{name: "cast max pool to float16", nodes: []*nodepb.NodeDef{ph("x", f32, 1, 4, 4, 3), node("y", "MaxPool", []string{"x"}, attrs{"T": typeAttr(f32),
			"ksize": intsAttr([]int64{1, 2, 2, 1}), "strides": intsAttr([]int64{1, 2, 2, 1}), "padding": strAttr("VALID")})},
			feeds: map[string]*kernels.Tensor{"x": tensor([]int{1, 4, 4, 3})}, halfOnly: []string{"MaxPool"}, cast: true, want: "cast-float16", ops: []string{"Cast", "MaxPool", "Cast"}},
	}
}

func TestRules(t *testing.T) {
	for _, c := range ruleCases() {
		t.Run(c.name, func(t *testing.T) {
			r, pr := runCase(t, c)
			var app *Application
			for _, a := range r.Applications {
				if a.Name == "y" {
					app = a
				}
			}
			require.NotNil(t, app, "y not rewritten; skipped: %+v", r.Skipped)
			assert.Equal(t, c.want, app.Rule.Name)
			var chain []string
			for _, cr := range app.Chained {
				chain = append(chain, cr.Name)
			}
			if c.chain != "" {
				assert.Equal(t, []string{c.chain}, chain)
			}
			assert.Equal(t, c.exact, app.Exactness().Exact)
			if c.ops != nil {
				var ops []string
				for _, nd := range app.exp.nodes {
					ops = append(ops, nd.GetOp())
				}
				assert.Equal(t, c.ops, ops)
			}
			assert.Less(t, r.After.Uncovered, r.Before.Uncovered, "the node is covered now")
			assert.Empty(t, pr.NotExercised)
			require.NotEmpty(t, pr.Rules)
			for _, ev := range pr.Rules {
				assert.Positive(t, ev.Checks, "the proof checked %s", ev.Rule.Name)
				if ev.Exactness.Exact {
					assert.Zero(t, ev.MaxAbs)
				}
				t.Logf("%s: %d checks, max abs %.3g, max rel %.3g", chainName(ev.Rule, ev.Chained), ev.Checks, ev.MaxAbs, ev.MaxRel)
			}
			for _, run := range pr.Runs {
				if c.exact {
					assert.True(t, run.Identical, run.Name)
				}
			}
		})
	}
}

// TestEveryRuleHasACase keeps TestRules complete: every rule but unpin
// (TestUnpin) is the rule, or a chained rule, of a case.
func TestEveryRuleHasACase(t *testing.T) {
	covered := set("unpin")
	for _, c := range ruleCases() {
		covered[c.want] = true
		if c.chain != "" {
			covered[c.chain] = true
		}
	}
	var missing []string
	for _, r := range Rules() {
		if !covered[r.Name] {
			missing = append(missing, r.Name)
		}
	}
	sort.Strings(missing)
	assert.Empty(t, missing)
}
