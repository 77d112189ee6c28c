package executor_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
	"google.golang.org/protobuf/encoding/prototext"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/savedmodel"
)

// buildGraph parses a text GraphDef into a graph.Graph.
func buildGraph(t testing.TB, text string) *graph.Graph {
	t.Helper()
	gd := &gpb.GraphDef{}
	require.NoError(t, prototext.Unmarshal([]byte(text), gd))
	m := &savedmodel.Model{Path: "test.pbtxt", File: "test.pbtxt", Format: savedmodel.FormatGraphDefText,
		MetaGraphs: []*savedmodel.MetaGraph{{Def: &mgpb.MetaGraphDef{GraphDef: gd}}}}
	g, err := graph.Build(m, m.MetaGraphs[0])
	require.NoError(t, err)
	return g
}

func newExec(t testing.TB, text string, opts executor.Options) *executor.Executor {
	t.Helper()
	e, err := executor.New(buildGraph(t, text), nil, opts)
	require.NoError(t, err)
	return e
}

const (
	attrF32 = `attr { key: "T" value { type: DT_FLOAT } }`
	attrI32 = `attr { key: "T" value { type: DT_INT32 } }`
)

func constI32(name string, v int, ctl ...string) string {
	s := `node { name: "` + name + `" op: "Const" `
	for _, c := range ctl {
		s += `input: "^` + c + `" `
	}
	return s + `attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: ` + itoa(v) + ` } } } }
`
}

func constF32(name string, v string, ctl ...string) string {
	s := `node { name: "` + name + `" op: "Const" `
	for _, c := range ctl {
		s += `input: "^` + c + `" `
	}
	return s + `attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: ` + v + ` } } } }
`
}

func itoa(v int) string {
	if v < 0 {
		return "-" + itoa(-v)
	}
	if v < 10 {
		return string(rune('0' + v))
	}
	return itoa(v/10) + string(rune('0'+v%10))
}

func placeholder(name, dt string) string {
	return `node { name: "` + name + `" op: "Placeholder" attr { key: "dtype" value { type: ` + dt + ` } } }
`
}

func node(name, op, attrs string, inputs ...string) string {
	s := `node { name: "` + name + `" op: "` + op + `" `
	for _, in := range inputs {
		s += `input: "` + in + `" `
	}
	return s + attrs + " }\n"
}

func frameAttr(frame string, constant bool) string {
	c := "false"
	if constant {
		c = "true"
	}
	return `attr { key: "frame_name" value { s: "` + frame + `" } } attr { key: "is_constant" value { b: ` + c + ` } }`
}

// whileLoop is TF1's lowering of
//
//	i, acc = 0, 1.0
//	while i < n: i, acc = i + 1, acc * 2
//
// with n entered as a loop constant. prefix names the loop's nodes; start
// is the node whose output starts i (its Enter is the loop's input).
func whileLoop(prefix, start, n string) string {
	p := prefix + "/"
	return node(p+"Enter", "Enter", attrI32+" "+frameAttr(prefix, false), start) +
		constF32(p+"acc0", "1.0", start) +
		node(p+"Enter_1", "Enter", attrF32+" "+frameAttr(prefix, false), p+"acc0") +
		node(p+"n", "Enter", attrI32+" "+frameAttr(prefix, true), n) +
		node(p+"Merge", "Merge", attrI32+` attr { key: "N" value { i: 2 } }`, p+"Enter", p+"NextIteration") +
		node(p+"Merge_1", "Merge", attrF32+` attr { key: "N" value { i: 2 } }`, p+"Enter_1", p+"NextIteration_1") +
		node(p+"Less", "Less", attrI32, p+"Merge", p+"n") +
		node(p+"LoopCond", "LoopCond", "", p+"Less") +
		node(p+"Switch", "Switch", attrI32, p+"Merge", p+"LoopCond") +
		node(p+"Switch_1", "Switch", attrF32, p+"Merge_1", p+"LoopCond") +
		node(p+"Identity", "Identity", attrI32, p+"Switch:1") +
		node(p+"Identity_1", "Identity", attrF32, p+"Switch_1:1") +
		constI32(p+"one", 1, p+"Identity") +
		constF32(p+"two", "2.0", p+"Identity") +
		node(p+"add", "AddV2", attrI32, p+"Identity", p+"one") +
		node(p+"mul", "Mul", attrF32, p+"Identity_1", p+"two") +
		node(p+"NextIteration", "NextIteration", attrI32, p+"add") +
		node(p+"NextIteration_1", "NextIteration", attrF32, p+"mul") +
		node(p+"Exit", "Exit", attrI32, p+"Switch") +
		node(p+"Exit_1", "Exit", attrF32, p+"Switch_1")
}

func needKernels(t *testing.T, ops ...string) {
	for _, op := range ops {
		if kernels.Lookup(op) == nil && !executor.IsIntrinsic(op) {
			t.Skipf("kernel %s is not registered yet", op)
		}
	}
}

func TestV1WhileLoop(t *testing.T) {
	needKernels(t, "AddV2", "Mul", "Less")
	text := placeholder("n", "DT_INT32") + constI32("i0", 0) + whileLoop("while", "i0", "n")
	e := newExec(t, text, executor.Options{})
	for _, n := range []int32{0, 1, 5, 20} {
		out, err := e.Run(context.Background(), map[string]*kernels.Tensor{"n": kernels.ScalarInt32(n)}, []string{"while/Exit:0", "while/Exit_1"})
		require.NoError(t, err)
		assert.Equal(t, []int32{n}, out["while/Exit:0"].Data)
		assert.Equal(t, []float32{float32(math.Pow(2, float64(n)))}, out["while/Exit_1"].Data)
	}
	// The loop bound stops a loop that runs too long.
	e = newExec(t, text, executor.Options{MaxIterations: 10})
	_, err := e.Run(context.Background(), map[string]*kernels.Tensor{"n": kernels.ScalarInt32(1000)}, []string{"while/Exit:0"})
	assert.ErrorContains(t, err, "more than 10 iterations")
	// A cancelled context stops the run.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e = newExec(t, text, executor.Options{})
	_, err = e.Run(ctx, map[string]*kernels.Tensor{"n": kernels.ScalarInt32(1000)}, []string{"while/Exit:0"})
	assert.ErrorIs(t, err, context.Canceled)
}

// TestV1NestedLoops runs a loop whose body holds another loop: the inner
// frame is created afresh in each outer iteration.
func TestV1NestedLoops(t *testing.T) {
	needKernels(t, "AddV2", "Mul", "Less")
	// outer: j from 0 while j < m, each iteration runs inner loop to n and
	// adds its count to s.
	o := "outer/"
	text := placeholder("n", "DT_INT32") + placeholder("m", "DT_INT32") + constI32("j0", 0) + constI32("s0", 0) +
		node(o+"Enter", "Enter", attrI32+" "+frameAttr("outer", false), "j0") +
		node(o+"Enter_s", "Enter", attrI32+" "+frameAttr("outer", false), "s0") +
		node(o+"m", "Enter", attrI32+" "+frameAttr("outer", true), "m") +
		node(o+"n", "Enter", attrI32+" "+frameAttr("outer", true), "n") +
		node(o+"Merge", "Merge", attrI32+` attr { key: "N" value { i: 2 } }`, o+"Enter", o+"NextIteration") +
		node(o+"Merge_s", "Merge", attrI32+` attr { key: "N" value { i: 2 } }`, o+"Enter_s", o+"NextIteration_s") +
		node(o+"Less", "Less", attrI32, o+"Merge", o+"m") +
		node(o+"LoopCond", "LoopCond", "", o+"Less") +
		node(o+"Switch", "Switch", attrI32, o+"Merge", o+"LoopCond") +
		node(o+"Switch_s", "Switch", attrI32, o+"Merge_s", o+"LoopCond") +
		node(o+"Identity", "Identity", attrI32, o+"Switch:1") +
		node(o+"Identity_s", "Identity", attrI32, o+"Switch_s:1") +
		constI32(o+"zero", 0, o+"Identity") +
		whileLoop(o+"inner", o+"zero", o+"n") +
		node(o+"add_s", "AddV2", attrI32, o+"Identity_s", o+"inner/Exit") +
		constI32(o+"one", 1, o+"Identity") +
		node(o+"add", "AddV2", attrI32, o+"Identity", o+"one") +
		node(o+"NextIteration", "NextIteration", attrI32, o+"add") +
		node(o+"NextIteration_s", "NextIteration", attrI32, o+"add_s") +
		node(o+"Exit", "Exit", attrI32, o+"Switch") +
		node(o+"Exit_s", "Exit", attrI32, o+"Switch_s")
	e := newExec(t, text, executor.Options{})
	out, err := e.Run(context.Background(), map[string]*kernels.Tensor{"n": kernels.ScalarInt32(4), "m": kernels.ScalarInt32(3)}, []string{"outer/Exit_s"})
	require.NoError(t, err)
	assert.Equal(t, []int32{12}, out["outer/Exit_s"].Data)
}

// TestV1CondWithLoopInDeadBranch: a loop on the untaken side of a Switch
// is dead throughout, and its dead Exit still lets the Merge after the
// cond fire with the taken side's value.
func TestV1CondWithLoopInDeadBranch(t *testing.T) {
	needKernels(t, "AddV2", "Mul", "Less")
	text := placeholder("n", "DT_INT32") + placeholder("p", "DT_BOOL") +
		node("cond/Switch", "Switch", attrI32, "n", "p") +
		node("cond/pivot_t", "Identity", attrI32, "cond/Switch:1") +
		constI32("cond/i0", 0, "cond/pivot_t") +
		whileLoop("cond/while", "cond/i0", "cond/pivot_t") +
		node("cond/double", "AddV2", attrI32, "cond/Switch:0", "cond/Switch:0") +
		node("cond/Merge", "Merge", attrI32+` attr { key: "N" value { i: 2 } }`, "cond/while/Exit", "cond/double")
	e := newExec(t, text, executor.Options{})
	for _, tt := range []struct {
		p    bool
		want int32
	}{{true, 7}, {false, 14}} {
		out, err := e.Run(context.Background(), map[string]*kernels.Tensor{"n": kernels.ScalarInt32(7), "p": kernels.ScalarBool(tt.p)}, []string{"cond/Merge:0", "cond/Merge:1"})
		require.NoError(t, err, "p=%v", tt.p)
		assert.Equal(t, []int32{tt.want}, out["cond/Merge:0"].Data, "p=%v", tt.p)
		idx := int32(1)
		if tt.p {
			idx = 0
		}
		assert.Equal(t, []int32{idx}, out["cond/Merge:1"].Data, "value_index p=%v", tt.p)
	}
	// Fetching a tensor of the untaken branch is an error.
	_, err := e.Run(context.Background(), map[string]*kernels.Tensor{"n": kernels.ScalarInt32(7), "p": kernels.ScalarBool(false)}, []string{"cond/while/Exit"})
	assert.ErrorContains(t, err, "dead")
}

func TestRunErrors(t *testing.T) {
	text := placeholder("x", "DT_FLOAT") + node("y", "SomeCustomOp", "", "x") + node("z", "Identity", attrF32, "x")
	e := newExec(t, text, executor.Options{})
	ctx := context.Background()
	x := kernels.ScalarFloat(1)

	_, err := e.Run(ctx, map[string]*kernels.Tensor{"x": x}, []string{"y"})
	var ue *kernels.UnsupportedError
	require.True(t, errors.As(err, &ue), "%v", err)
	assert.Equal(t, "SomeCustomOp", ue.Op)
	assert.Contains(t, err.Error(), "y")
	assert.Contains(t, err.Error(), "float32")

	_, err = e.Run(ctx, nil, []string{"z"})
	assert.ErrorContains(t, err, `placeholder "x" (float32) must be fed`)

	_, err = e.Run(ctx, map[string]*kernels.Tensor{"x": kernels.ScalarInt32(1)}, []string{"z"})
	assert.ErrorContains(t, err, "dtype int32")

	_, err = e.Run(ctx, map[string]*kernels.Tensor{"nope": x}, []string{"z"})
	assert.ErrorContains(t, err, `no node "nope"`)

	_, err = e.Run(ctx, map[string]*kernels.Tensor{"x": x}, []string{"z:3"})
	assert.ErrorContains(t, err, "has 1 outputs")

	// Only needed nodes run: z does not need y's missing kernel.
	out, err := e.Run(ctx, map[string]*kernels.Tensor{"x": x}, []string{"z", "x:0"})
	require.NoError(t, err)
	assert.Equal(t, []float32{1}, out["z"].Data)
	assert.Same(t, x, out["x:0"], "a fed tensor is fetched as is")
}

func TestFloat64AndEmulation(t *testing.T) {
	needKernels(t, "Mul", "AddV2")
	text := placeholder("x", "DT_FLOAT") + constF32("a", "0.1") + constF32("b", "2.0") +
		node("ax", "Mul", attrF32, "a", "x") + node("y", "AddV2", attrF32, "ax", "b") +
		node("c", "Cast", `attr { key: "SrcT" value { type: DT_FLOAT } } attr { key: "DstT" value { type: DT_HALF } } attr { key: "Truncate" value { b: false } }`, "y")
	x := kernels.FloatTensor([]int{2}, []float32{1.0001, 3})
	ctx := context.Background()

	// float64 reference: consts and feeds widened, kernels run in float64.
	e := newExec(t, text, executor.Options{Compute: tpb.DataType_DT_DOUBLE})
	out, err := e.Run(ctx, map[string]*kernels.Tensor{"x": x}, []string{"y"})
	require.NoError(t, err)
	require.Equal(t, tpb.DataType_DT_DOUBLE, out["y"].DType)
	got := out["y"].Data.([]float64)
	assert.Equal(t, float64(float32(0.1))*float64(float32(1.0001))+2, got[0])

	// Storage rounding: every float32 tensor rounded to bfloat16.
	var seen []string
	e = newExec(t, text, executor.Options{
		Emu:       &kernels.Emulation{RoundStorage: kernels.RoundBFloat16},
		AfterNode: func(n *graph.Node, outs []*kernels.Tensor) { seen = append(seen, n.Name) },
	})
	out, err = e.Run(ctx, map[string]*kernels.Tensor{"x": x}, []string{"y"})
	require.NoError(t, err)
	r := kernels.RoundBFloat16
	want := r(r(r(0.1)*r(1.0001)) + 2)
	assert.Equal(t, want, out["y"].Data.([]float32)[0])
	assert.Equal(t, float32(1.0001), x.Data.([]float32)[0], "the feed is not modified")
	assert.ElementsMatch(t, []string{"a", "b", "ax", "y"}, seen)
}

func TestV2ControlFlowAndCalls(t *testing.T) {
	needKernels(t, "AddV2", "Less")
	// While(i < 5: i+1) via functions; a PartitionedCall; a Case.
	text := placeholder("x", "DT_INT32") + `
node { name: "w" op: "StatelessWhile" input: "x"
  attr { key: "T" value { list { type: DT_INT32 } } }
  attr { key: "cond" value { func { name: "cond" } } }
  attr { key: "body" value { func { name: "body" } } } }
node { name: "call" op: "PartitionedCall" input: "w"
  attr { key: "Tin" value { list { type: DT_INT32 } } }
  attr { key: "Tout" value { list { type: DT_INT32 } } }
  attr { key: "f" value { func { name: "body" } } } }
node { name: "byname" op: "body" input: "call" }
node { name: "case" op: "Case" input: "x" input: "x"
  attr { key: "Tin" value { list { type: DT_INT32 } } }
  attr { key: "Tout" value { list { type: DT_INT32 } } }
  attr { key: "branches" value { list { func { name: "body" } func { name: "ident" } } } } }
library {
  function {
    signature { name: "cond" input_arg { name: "i" type: DT_INT32 } output_arg { name: "r" type: DT_BOOL } }
    node_def { name: "five" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 5 } } } }
    node_def { name: "lt" op: "Less" input: "i" input: "five:output:0" attr { key: "T" value { type: DT_INT32 } } }
    ret { key: "r" value: "lt:z:0" }
  }
  function {
    signature { name: "body" input_arg { name: "i" type: DT_INT32 } output_arg { name: "r" type: DT_INT32 } }
    node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
    node_def { name: "add" op: "AddV2" input: "i" input: "one:output:0" attr { key: "T" value { type: DT_INT32 } } }
    ret { key: "r" value: "add:z:0" }
  }
  function {
    signature { name: "ident" input_arg { name: "i" type: DT_INT32 } output_arg { name: "r" type: DT_INT32 } }
    ret { key: "r" value: "i" }
  }
}`
	e := newExec(t, text, executor.Options{})
	for _, tt := range []struct{ x, w, case_ int32 }{{0, 5, 1}, {7, 7, 7}, {-3, 5, -3}} {
		out, err := e.Run(context.Background(), map[string]*kernels.Tensor{"x": kernels.ScalarInt32(tt.x)}, []string{"w", "call", "byname", "case"})
		require.NoError(t, err)
		assert.Equal(t, []int32{tt.w}, out["w"].Data, "x=%d", tt.x)
		assert.Equal(t, []int32{tt.w + 1}, out["call"].Data)
		assert.Equal(t, []int32{tt.w + 2}, out["byname"].Data)
		assert.Equal(t, []int32{tt.case_}, out["case"].Data, "Case x=%d (out of range: last branch)", tt.x)
	}

	// A library function run on its own.
	res, err := e.CallFunction(context.Background(), "body", []*kernels.Tensor{kernels.ScalarInt32(41)})
	require.NoError(t, err)
	require.Len(t, res, 1)
	assert.Equal(t, []int32{42}, res[0].Data)
	res, err = e.CallFunction(context.Background(), "cond", []*kernels.Tensor{kernels.ScalarInt32(7)})
	require.NoError(t, err)
	assert.Equal(t, []bool{false}, res[0].Data)
	_, err = e.CallFunction(context.Background(), "nope", nil)
	assert.ErrorContains(t, err, `no function "nope"`)
	_, err = e.CallFunction(context.Background(), "body", nil)
	assert.ErrorContains(t, err, "function body takes 1 arguments, got 0")

	// One node of a function body run on inputs given: its Const (an
	// intrinsic), then its kernel on that value.
	var one, add *graph.Node
	for _, n := range e.Graph().Nodes {
		if n.Func != nil && n.Func.Name == "body" {
			switch n.Name {
			case "one":
				one = n
			case "add":
				add = n
			}
		}
	}
	require.NotNil(t, add)
	c, err := e.RunNode(context.Background(), one, nil)
	require.NoError(t, err)
	require.Len(t, c, 1)
	res, err = e.RunNode(context.Background(), add, []*kernels.Tensor{kernels.ScalarInt32(41), c[0]})
	require.NoError(t, err)
	assert.Equal(t, []int32{42}, res[0].Data)
	_, err = e.RunNode(context.Background(), add, []*kernels.Tensor{kernels.ScalarInt32(41)})
	assert.ErrorContains(t, err, "1 inputs given, the node takes 2")
	_, err = e.RunNode(context.Background(), add, []*kernels.Tensor{kernels.ScalarInt32(41), kernels.ScalarFloat(1)})
	assert.Error(t, err, "a kernel's own dtype check still applies")
}

func TestVariablesV1AndV2(t *testing.T) {
	needKernels(t, "AddV2")
	text := constF32("init", "3.0") + constF32("delta", "0.5") + `
node { name: "v" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape {} } } }
node { name: "assign" op: "Assign" input: "v" input: "init" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "addv" op: "AssignAdd" input: "v" input: "delta" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "read" op: "Identity" input: "v" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "h" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape {} } } attr { key: "shared_name" value { s: "hv" } } }
node { name: "hassign" op: "AssignVariableOp" input: "h" input: "init" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "hadd" op: "AssignAddVariableOp" input: "h" input: "delta" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "hread" op: "ReadVariableOp" input: "h" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "isinit" op: "VarIsInitializedOp" input: "h" }
`
	e := newExec(t, text, executor.Options{})
	ctx := context.Background()
	_, err := e.Run(ctx, nil, []string{"read"})
	assert.ErrorContains(t, err, "uninitialized value v")
	_, err = e.Run(ctx, nil, []string{"hread"})
	assert.ErrorContains(t, err, "not initialized")
	out, err := e.Run(ctx, nil, []string{"isinit"})
	require.NoError(t, err)
	assert.Equal(t, []bool{false}, out["isinit"].Data)

	_, err = e.Run(ctx, nil, []string{"assign", "hassign"})
	require.NoError(t, err)
	_, err = e.Run(ctx, nil, []string{"addv", "hadd"})
	require.NoError(t, err)
	_, err = e.Run(ctx, nil, []string{"addv", "hadd"})
	require.NoError(t, err)
	out, err = e.Run(ctx, nil, []string{"read", "hread", "isinit"})
	require.NoError(t, err)
	assert.Equal(t, []float32{4}, out["read"].Data, "state persists across runs")
	assert.Equal(t, []float32{4}, out["hread"].Data)
	assert.Equal(t, []bool{true}, out["isinit"].Data)
}

func TestKernelPanicIsAnError(t *testing.T) {
	kernels.Register("TfscanTestPanic", func(c *kernels.Context) ([]*kernels.Tensor, error) { panic("boom") })
	e := newExec(t, placeholder("x", "DT_FLOAT")+node("p", "TfscanTestPanic", "", "x"), executor.Options{})
	_, err := e.Run(context.Background(), map[string]*kernels.Tensor{"x": kernels.ScalarFloat(1)}, []string{"p"})
	var ie *executor.InternalError
	require.True(t, errors.As(err, &ie), "%v", err)
	assert.Contains(t, err.Error(), "boom")
	assert.Contains(t, err.Error(), "p (TfscanTestPanic)")
}
