package executor_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
)

// A kernel writes over an input only where nothing else reads it: a
// BiasAdd output read by one Relu or one Mul is overwritten, one that is also fetched,
// read by a second consumer or shown to an observer keeps its values.
func TestOwnedInputs(t *testing.T) {
	bias := `node { name: "b" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: -1 float_val: 5 } } } }
`
	text := placeholder("x", "DT_FLOAT") + bias +
		node("ba", "BiasAdd", attrF32, "x", "b") +
		node("r", "Relu", attrF32, "ba") +
		node("ba2", "BiasAdd", attrF32, "x", "b") +
		node("r6", "Relu6", attrF32, "ba2") +
		node("n2", "Neg", attrF32, "ba2") +
		node("ba3", "BiasAdd", attrF32, "x", "b") +
		node("m", "Mul", attrF32, "b", "ba3")
	x := func() *kernels.Tensor { return kernels.FloatTensor([]int{2, 2}, []float32{0.5, 2, -3, 1}) }
	tests := []struct {
		name    string
		fetches []string
		want    map[string][]float32
	}{
		{"one reader", []string{"r"}, map[string][]float32{"r": {0, 7, 0, 6}}},
		{"also fetched", []string{"r", "ba"}, map[string][]float32{"r": {0, 7, 0, 6}, "ba": {-0.5, 7, -4, 6}}},
		{"two readers", []string{"r6", "n2"}, map[string][]float32{"r6": {0, 6, 0, 6}, "n2": {0.5, -7, 4, -6}}},
		{"binary", []string{"m"}, map[string][]float32{"m": {0.5, 35, 4, 30}}},
		{"binary, fetched", []string{"m", "ba3"}, map[string][]float32{"m": {0.5, 35, 4, 30}, "ba3": {-0.5, 7, -4, 6}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newExec(t, text, executor.Options{})
			out, err := e.Run(context.Background(), map[string]*kernels.Tensor{"x": x()}, tt.fetches)
			require.NoError(t, err)
			for k, v := range tt.want {
				assert.Equal(t, v, out[k].Data, k)
			}
		})
	}
	t.Run("observed", func(t *testing.T) {
		var seen *kernels.Tensor
		e := newExec(t, text, executor.Options{AfterNode: func(n *graph.Node, outs []*kernels.Tensor) {
			if n.Name == "ba" {
				seen = outs[0]
			}
		}})
		_, err := e.Run(context.Background(), map[string]*kernels.Tensor{"x": x()}, []string{"r"})
		require.NoError(t, err)
		assert.Equal(t, []float32{-0.5, 7, -4, 6}, seen.Data)
	})
	t.Run("fed", func(t *testing.T) {
		e := newExec(t, text, executor.Options{})
		fed := kernels.FloatTensor([]int{2, 2}, []float32{-1, 1, -2, 2})
		out, err := e.Run(context.Background(), map[string]*kernels.Tensor{"ba": fed}, []string{"r"})
		require.NoError(t, err)
		assert.Equal(t, []float32{0, 1, 0, 2}, out["r"].Data)
		assert.Equal(t, []float32{-1, 1, -2, 2}, fed.Data)
	})
}
