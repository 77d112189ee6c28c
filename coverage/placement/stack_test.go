package placement

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/graph"
)

// testStack declares, like the Ascend pack, two precision modes, two
// adapters and a session adapter's mix_compile switch, and, like the
// intel-xpu pack, one optimizer fusion. The sources are made up.
func testStack() *coverage.Stack {
	return &coverage.Stack{
		Precision: &coverage.PrecisionModes{
			Option: "precision_mode", Source: "cfg.py:1", Default: "allow_fp32_to_fp16", DefaultSource: "doc",
			Modes: []coverage.PrecisionMode{
				{Name: "allow_fp32_to_fp16", Source: "cfg.py:2", LowerTo: "float16", Matrix: "lower", Vector: "keep", Unsupported: "lower", Doc: "doc"},
				{Name: "must_keep_origin_dtype", Source: "cfg.py:3", Matrix: "keep", Vector: "keep", Unsupported: "error", Doc: "doc"},
			},
			MatrixOps: []string{"MatMul", "Conv2D"},
			Error:     "Graph engine process graph failed:", ErrorSource: "device.cpp:9",
			CompilerError: "No kernel for [%s], optype [%s].", CompilerErrorSource: "ge.cc:4",
		},
		Options: []coverage.StackOption{
			{Name: "adapter", Kind: coverage.OptionAdapter, Values: []string{"tf2", "tf1"},
				ValueKinds: []string{coverage.AdapterMixed, coverage.AdapterSession}, ValueSources: []string{"mix.cpp:1", "pass.cc:1"},
				Default: "tf2", Source: "device.cpp:1"},
			{Name: "mix_compile_mode", Kind: coverage.OptionMixCompile, Values: []string{"false", "true"},
				ValueSources: []string{"pass.cc:824", "pass.cc:782"}, Default: "false", Source: "attrs.cc:773", Applies: "tf1"},
		},
		Optimizer: &coverage.Optimizer{Name: "vendor remapper", Source: "remapper.cc:1", Modelled: true, Fusions: []coverage.Rewrite{
			{Chain: [][]string{{"Conv2D"}, {"BiasAdd"}, {"Relu", "Relu6"}}, Fused: "_VendorFusedConv2D", Source: "remapper.cc:10"},
		}},
	}
}

// simulateStack is simulate with the target pack declaring st and the
// user's settings applied, as scan does.
func simulateStack(t testing.TB, g *graph.Graph, target, reg string, st *coverage.Stack, s coverage.StackSettings) *Result {
	t.Helper()
	tm, cm := matchers(t, target, reg)
	ix := tm.(*coverage.Index)
	ix.Pack().Stack = st
	c, err := ix.Pack().ResolveStack(s)
	require.NoError(t, err)
	ix.SetStack(c)
	r, err := Simulate(g, ix, cm, Options{Stack: c})
	require.NoError(t, err)
	return r
}

// The vendor's optimizer fuses Conv2D+BiasAdd+Relu into its own op: with
// that kernel on the target the fusion is not lost; without it, or for a
// chain it does not fuse, it is.
func TestVendorFusion(t *testing.T) {
	g := buildGraph(t, convGraph(t, "DT_FLOAT"))
	// A kernel stack (no precision modes), as intel-xpu.
	kernelStack := func() *coverage.Stack { return &coverage.Stack{Optimizer: testStack().Optimizer} }
	r := simulateStack(t, g, "XPU", cpuOps+convReg+"_VendorFusedConv2D XPU T=float32\n", kernelStack(), coverage.StackSettings{})
	assert.Empty(t, r.Fusions)

	r = simulateStack(t, g, "XPU", cpuOps+convReg, kernelStack(), coverage.StackSettings{})
	require.Len(t, r.Fusions, 1)
	assert.Contains(t, r.Fusions[0].Reason, "vendor remapper has no such fusion for float32 with a kernel")

	// Only float16 fused kernels: the float32 chain stays unfused.
	r = simulateStack(t, g, "XPU", cpuOps+convReg+"_VendorFusedConv2D XPU T=float16\n", kernelStack(), coverage.StackSettings{})
	require.Len(t, r.Fusions, 1)

	// A fusion limited to other dtypes does not apply.
	st := kernelStack()
	st.Optimizer.Fusions[0].DTypes = []string{"bfloat16"}
	r = simulateStack(t, g, "XPU", cpuOps+convReg+"_VendorFusedConv2D XPU T=float32\n", st, coverage.StackSettings{})
	require.Len(t, r.Fusions, 1)

	// An optimizer tfscan could not read changes nothing.
	st = kernelStack()
	st.Optimizer.Modelled = false
	r = simulateStack(t, g, "XPU", cpuOps+convReg+"_VendorFusedConv2D XPU T=float32\n", st, coverage.StackSettings{})
	require.Len(t, r.Fusions, 1)
	assert.Contains(t, r.Fusions[0].Reason, "vendor remapper is not modelled")
}

// A float32 op whose device kernel is float16-only: lowered and placed on
// the device under allow_fp32_to_fp16; under must_keep_origin_dtype still
// partitioned onto the device by op name, where the compiler rejects it.
func TestPrecisionModeLowered(t *testing.T) {
	g := buildGraph(t, graphText(
		placeholder("x", "DT_FLOAT", 1, 8, 8, 3),
		nd("pool", "MaxPool", in("x"), ta("T", "DT_FLOAT"), sa("padding", "SAME"),
			`attr { key: "ksize" value { list { i: 1 i: 2 i: 2 i: 1 } } }`,
			`attr { key: "strides" value { list { i: 1 i: 2 i: 2 i: 1 } } }`),
		nd("relu", "Relu", in("pool"), ta("T", "DT_FLOAT")),
	), "serving_default=x:0->relu:0")
	reg := cpuAll("MaxPool", "Relu", "Placeholder") + `
MaxPool NPU T=float16
Relu NPU T=float32|float16
Placeholder DEFAULT
`
	r := simulateStack(t, g, "NPU", reg, testStack(), coverage.StackSettings{})
	assert.Equal(t, "NPU:0", devices(r)["pool"])
	assert.Contains(t, strings.Join(reasonsOf(r, "pool"), "\n"), "computed in float16 under the stack's precision mode")
	assert.Empty(t, r.Errors)

	// The compile error is coverage's (precision_mode_error), not a
	// placement error.
	r = simulateStack(t, g, "NPU", reg, testStack(), coverage.StackSettings{PrecisionMode: "must_keep_origin_dtype"})
	assert.Equal(t, "NPU:0", devices(r)["pool"])
	assert.Empty(t, r.Errors)
	assert.Contains(t, reasonsOf(r, "pool")[0], "NPU:0: partitioned onto NPU by op name, where its compiler rejects it: precision_mode must_keep_origin_dtype keeps float32")

	// Without a stack it is a plain dtype gap: CPU fallback.
	r = simulate(t, g, "NPU", reg, Options{})
	assert.Equal(t, "CPU:0", devices(r)["pool"])
}

// A session adapter without mix_compile_mode compiles one cluster: the
// largest; a cluster that depends on it through a host op runs on the host.
// With mix_compile_mode (or the mixed TF2 adapter) both are compiled.
func TestOneCluster(t *testing.T) {
	g := buildGraph(t, graphText(
		placeholder("x", "DT_FLOAT", 2, 2),
		nd("a1", "Relu", in("x"), ta("T", "DT_FLOAT")),
		nd("a2", "Relu", in("a1"), ta("T", "DT_FLOAT")),
		nd("a3", "Relu", in("a2"), ta("T", "DT_FLOAT")),
		nd("host", "Cast", in("a3"), ta("SrcT", "DT_FLOAT"), ta("DstT", "DT_FLOAT"), `attr { key: "Truncate" value { b: false } }`),
		nd("b1", "Relu", in("host"), ta("T", "DT_FLOAT")),
	), "serving_default=x:0->b1:0")
	reg := cpuOps + `
Relu NPU T=float32
Placeholder DEFAULT
`
	r := simulateStack(t, g, "NPU", reg, testStack(), coverage.StackSettings{})
	d := devices(r)
	assert.Equal(t, []string{"NPU:0", "CPU:0", "NPU:0"}, []string{d["a3"], d["host"], d["b1"]})

	r = simulateStack(t, g, "NPU", reg, testStack(), coverage.StackSettings{Options: map[string]string{"adapter": "tf1"}})
	d = devices(r)
	assert.Equal(t, []string{"NPU:0", "CPU:0", "CPU:0"}, []string{d["a3"], d["host"], d["b1"]})
	assert.Contains(t, reasonsOf(r, "b1")[0], "mix_compile_mode=false: the adapter compiles one cluster (the largest, 3 nodes")
	assert.Contains(t, reasonsOf(r, "b1")[0], "pass.cc:824")

	r = simulateStack(t, g, "NPU", reg, testStack(), coverage.StackSettings{Options: map[string]string{"mix_compile_mode": "true"}})
	assert.Equal(t, "NPU:0", devices(r)["b1"])
}
