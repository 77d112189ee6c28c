package parity

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/testmodel"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/kernels/precision"
)

// loadGraph builds a test graph from testdata/parity.
func loadGraph(t testing.TB, name string) *graph.Graph {
	t.Helper()
	return testmodel.Graph(t, filepath.Join("..", "testdata", "parity", name))
}

func profile(t testing.TB, name string) *precision.Profile {
	t.Helper()
	p, err := precision.Lookup(name, false)
	require.NoError(t, err)
	return p
}

func TestSumOfOnesUnderProfiles(t *testing.T) {
	g := loadGraph(t, "sum_ones.pbtxt")
	tol := Tolerance{ATol: 1e-3, RTol: 1e-2}
	run := func(name string) *Result {
		res, err := Run(context.Background(), Model{Graph: g, Fetches: []string{"sum:0"}}, Options{Profile: profile(t, name), Tol: tol})
		require.NoError(t, err)
		require.Len(t, res.Outputs, 1)
		assert.Equal(t, []float64{100000}, res.Reference["sum:0"].Data, "the float64 reference")
		return res
	}
	sumNode := func(res *Result) NodeResult {
		for _, n := range res.Nodes {
			if n.Node.Name == "sum" {
				return n
			}
		}
		t.Fatalf("no result for the Sum node")
		return NodeResult{}
	}

	t.Run("fp32 is exact", func(t *testing.T) {
		res := run(precision.FP32)
		assert.True(t, res.Outputs[0].Pass)
		assert.Zero(t, res.Outputs[0].MaxAbs)
		assert.Nil(t, res.FirstDivergence)
		assert.Empty(t, res.Nodes)
	})
	t.Run("fp16 storage overflows to Inf", func(t *testing.T) {
		res := run(precision.FP16)
		o := res.Outputs[0]
		assert.False(t, o.Pass)
		assert.Equal(t, float32(math.Inf(1)), res.Emulated["sum:0"].Data.([]float32)[0])
		assert.Equal(t, 1, o.Overflow)
		assert.True(t, o.NaNInf)
		assert.Equal(t, ErrInf, o.MaxAbs)
		require.NotNil(t, res.FirstDivergence)
		assert.Equal(t, "sum", res.FirstDivergence.Name)
		n := sumNode(res)
		assert.Equal(t, 1, n.Overflow)
		assert.True(t, n.NaNInf)
		assert.Equal(t, res.Nodes[0].Node, res.FirstDivergence, "the first divergence leads the node list")
	})
	t.Run("fp16_acc16 stalls at 2048", func(t *testing.T) {
		// Sequential float16 accumulation: 2048 + 1 ties back to 2048.
		res := run(precision.FP16Acc16)
		o := res.Outputs[0]
		assert.False(t, o.Pass)
		assert.Equal(t, []float32{2048}, res.Emulated["sum:0"].Data)
		assert.Equal(t, 100000.0-2048, o.MaxAbs)
		assert.Equal(t, 1, o.Mismatches)
		require.NotNil(t, res.FirstDivergence)
		assert.Equal(t, "sum", res.FirstDivergence.Name)
	})
	t.Run("bf16 stays within 1%", func(t *testing.T) {
		res := run(precision.BF16)
		o := res.Outputs[0]
		assert.Equal(t, []float32{99840}, res.Emulated["sum:0"].Data)
		assert.InDelta(t, 160.0/100000, o.MaxRel, 1e-12)
		assert.Less(t, o.MaxRel, 0.01)
		assert.True(t, o.Pass)
		assert.Zero(t, o.Overflow)
		assert.Equal(t, uint64(0), o.MaxULP, "99840 is 100000 rounded to bfloat16")
	})
	t.Run("mixed_float16 leaves Sum in float32", func(t *testing.T) {
		// Sum is on auto mixed precision's deny list: nothing is converted.
		res, err := Run(context.Background(), Model{Graph: g, Fetches: []string{"sum:0"}},
			Options{Profile: profile(t, precision.MixedFloat16), Tol: tol, Converted: func(*graph.Node) bool { return false }})
		require.NoError(t, err)
		assert.True(t, res.Outputs[0].Pass)
		assert.Zero(t, res.Outputs[0].MaxAbs)
	})
	t.Run("a node on the CPU stays float32", func(t *testing.T) {
		res, err := Run(context.Background(), Model{Graph: g, Fetches: []string{"sum:0"}},
			Options{Profile: profile(t, precision.FP16), Tol: tol, OnCPU: func(n *graph.Node) bool { return n.Op == "Sum" }})
		require.NoError(t, err)
		assert.True(t, res.Outputs[0].Pass)
	})
}

func TestMatMulTF32Error(t *testing.T) {
	g := loadGraph(t, "matmul.pbtxt")
	x := kernels.FloatTensor([]int{2, 2}, []float32{1 + 3*0x1p-12, 0.5, 0.25, -2})
	m := Model{Graph: g, Feeds: map[string]*kernels.Tensor{"x": x}, Fetches: []string{"mm:0"}}
	tol := Tolerance{ATol: 1e-6, RTol: 0}

	res, err := Run(context.Background(), m, Options{Profile: profile(t, precision.FP32), Tol: tol})
	require.NoError(t, err)
	assert.True(t, res.Outputs[0].Pass, "float32 matches float64 within 1e-6")
	assert.LessOrEqual(t, res.Outputs[0].MaxAbs, 1e-6)

	res, err = Run(context.Background(), m, Options{Profile: profile(t, precision.TF32), Tol: tol})
	require.NoError(t, err)
	o := res.Outputs[0]
	assert.Equal(t, 0x1p-12, o.MaxAbs, "1+3·2⁻¹² rounds to 1+2⁻¹⁰ in TF32")
	assert.Equal(t, 0x1p-12/(1+3*0x1p-12), o.MaxRel)
	assert.Equal(t, uint64(1<<11), o.MaxULP, "2⁻¹² is 2¹¹ float32 ulps at 1")
	assert.Equal(t, 1, o.Mismatches)
	assert.False(t, o.Pass)
	require.NotNil(t, res.FirstDivergence)
	assert.Equal(t, "mm", res.FirstDivergence.Name)
	assert.Equal(t, []float32{1 + 0x1p-10, 0.5, 0.25, -2}, res.Emulated["mm:0"].Data)
}

// TestRunIsDeterministic runs a profile twice and compares everything.
func TestRunIsDeterministic(t *testing.T) {
	g := loadGraph(t, "sum_ones.pbtxt")
	opts := Options{Profile: profile(t, precision.FP16), Tol: Tolerance{ATol: 1e-3, RTol: 1e-3}}
	a, err := Run(context.Background(), Model{Graph: g, Fetches: []string{"sum:0"}}, opts)
	require.NoError(t, err)
	b, err := Run(context.Background(), Model{Graph: g, Fetches: []string{"sum:0"}}, opts)
	require.NoError(t, err)
	assert.Equal(t, a.Outputs, b.Outputs)
	assert.Equal(t, a.Nodes, b.Nodes)
}

func TestRunErrors(t *testing.T) {
	g := loadGraph(t, "matmul.pbtxt")
	_, err := Run(context.Background(), Model{Graph: g, Fetches: []string{"mm:0"}}, Options{Profile: profile(t, precision.FP32)})
	assert.Error(t, err, "the placeholder is not fed")
	_, err = Run(context.Background(), Model{Graph: g, Fetches: []string{"mm:0"}}, Options{})
	assert.ErrorContains(t, err, "no precision profile")
}

func TestCaptureVectors(t *testing.T) {
	g := loadGraph(t, "matmul.pbtxt")
	x := kernels.FloatTensor([]int{2, 2}, []float32{1, 2, 3, 4})
	m := Model{Graph: g, Feeds: map[string]*kernels.Tensor{"x": x}, Fetches: []string{"mm:0"}}
	vecs, missed, err := CaptureVectors(context.Background(), m, func(n *graph.Node) bool { return n.Op == "MatMul" }, 0)
	require.NoError(t, err)
	assert.Empty(t, missed)
	require.Len(t, vecs, 1)
	v := vecs[0]
	assert.Equal(t, "MatMul", v.Op)
	assert.Equal(t, []string{"mm"}, v.Nodes)
	assert.Equal(t, [][]int{{2, 2}, {2, 2}}, v.InputShapes)
	assert.Equal(t, [][]int{{2, 2}}, v.OutputShapes)
	assert.Equal(t, []float32{1, 2, 3, 4}, v.Inputs[0].Data)
	assert.Equal(t, []float32{1, 0, 0, 1}, v.Inputs[1].Data)
	assert.Equal(t, []float32{1, 2, 3, 4}, v.Outputs[0].Data)
	assert.Equal(t, map[string]any{"T": "float32", "transpose_a": false, "transpose_b": false}, v.Attrs)
}

// TestComplexOutputRefused holds a complex fetched output to a one-line
// refusal naming its node, while the real output computed from it is
// compared.
func TestComplexOutputRefused(t *testing.T) {
	g := loadGraph(t, "complex.pbtxt")
	opts := Options{Profile: profile(t, precision.FP16)}
	_, err := Run(context.Background(), Model{Graph: g, Fetches: []string{"z:0"}}, opts)
	require.Error(t, err)
	assert.Equal(t, "output z:0 (node z) is complex64: parity compares real outputs only, the float64 reference run does not widen complex tensors", err.Error())

	res, err := Run(context.Background(), Model{Graph: g, Fetches: []string{"abs:0"}}, opts)
	require.NoError(t, err)
	require.Len(t, res.Outputs, 1)
	// |3 + 4i| = 5 exactly; |0.5 + i| = 1.1180339887… rounds in float16.
	assert.Equal(t, 2, res.Outputs[0].Count)
	assert.InDelta(t, 5, res.Reference["abs:0"].Data.([]float64)[0], 0)
	assert.Greater(t, res.Outputs[0].MaxAbs, 0.0)
}
