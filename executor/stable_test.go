package executor_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/kernels"
)

// A MatMul's stable weights (a Const through Identity, a variable's value)
// are packed once and found by later runs; a variable assigned a new value
// and a Const fed with a tensor whose data changes between runs give the
// new products, never panels kept from earlier data.
func TestStableOperandsPackedOnce(t *testing.T) {
	needKernels(t, "MatMul")
	mm := `attr { key: "T" value { type: DT_FLOAT } } attr { key: "transpose_a" value { b: false } } attr { key: "transpose_b" value { b: false } }`
	text := placeholder("x", "DT_FLOAT") + placeholder("init", "DT_FLOAT") + `
node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } } float_val: 1 float_val: 2 float_val: 3 float_val: 4 } } } }
node { name: "wread" op: "Identity" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "h" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } dim { size: 2 } } } } attr { key: "shared_name" value { s: "hv" } } }
node { name: "hassign" op: "AssignVariableOp" input: "h" input: "init" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "hread" op: "ReadVariableOp" input: "h" attr { key: "dtype" value { type: DT_FLOAT } } }
` + node("byconst", "MatMul", mm, "x", "wread") + node("byvar", "MatMul", mm, "x", "hread")
	e := newExec(t, text, executor.Options{})
	ctx := context.Background()
	x := &kernels.Tensor{DType: tpb.DataType_DT_FLOAT, Shape: []int{1, 2}, Data: []float32{1, 10}}
	mat := func(v ...float32) *kernels.Tensor {
		return &kernels.Tensor{DType: tpb.DataType_DT_FLOAT, Shape: []int{2, 2}, Data: v}
	}
	run := func(feeds map[string]*kernels.Tensor, fetch string) []float32 {
		t.Helper()
		out, err := e.Run(ctx, feeds, []string{fetch})
		require.NoError(t, err)
		return out[fetch].Data.([]float32)
	}
	for i := 0; i < 3; i++ {
		require.Equal(t, []float32{31, 42}, run(map[string]*kernels.Tensor{"x": x}, "byconst"))
	}
	_, err := e.Run(ctx, map[string]*kernels.Tensor{"init": mat(1, 0, 0, 1)}, []string{"hassign"})
	require.NoError(t, err)
	for i := 0; i < 2; i++ {
		require.Equal(t, []float32{1, 10}, run(map[string]*kernels.Tensor{"x": x}, "byvar"))
	}
	hits, misses := executor.PackCacheStats(e)
	require.Equal(t, 2, misses, "the Const's and the variable's panels, packed once each")
	require.Equal(t, 3, hits)

	_, err = e.Run(ctx, map[string]*kernels.Tensor{"init": mat(0, 1, 1, 0)}, []string{"hassign"})
	require.NoError(t, err)
	require.Equal(t, []float32{10, 1}, run(map[string]*kernels.Tensor{"x": x}, "byvar"), "the variable's new value")

	// A fed Const is the caller's tensor: its data may change in place.
	w := mat(1, 0, 0, 1)
	require.Equal(t, []float32{1, 10}, run(map[string]*kernels.Tensor{"x": x, "w": w}, "byconst"))
	copy(w.Data.([]float32), []float32{2, 0, 0, 2})
	require.Equal(t, []float32{2, 20}, run(map[string]*kernels.Tensor{"x": x, "w": w}, "byconst"))
	_, misses2 := executor.PackCacheStats(e)
	require.Equal(t, 3, misses2, "the variable's new value packs; the fed Const is packed on each call, outside the cache")
}
