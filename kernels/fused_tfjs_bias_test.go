package kernels

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A TF.js _FusedMatMul whose "bias" is a whole [rows, c] tensor (the
// converter's fusion of an LSTM cell's recurrent AddV2) adds it element by
// element, as TF.js's fused matMul broadcasts, and so is a scalar one; a
// bias of any other size is an error.
func TestFusedMatMulWholeTensorBias(t *testing.T) {
	attrs := xattrs("transpose_a", false, "transpose_b", false, "fused_ops", []string{"BiasAdd"}, "num_args", 1)
	a := nnF32T([]int{2, 3}, []float32{1, 2, 3, 4, 5, 6})
	b := nnF32T([]int{3, 2}, []float32{1, 0, 0, 1, 1, 1})
	out, err := nnRunOp(t, "_FusedMatMul", attrs, a, b, nnF32T([]int{2, 2}, []float32{10, 20, 30, 40}))
	require.NoError(t, err)
	assert.Equal(t, []float32{14, 25, 40, 51}, out[0].Data) // a·b = [[4 5] [10 11]]

	out, err = nnRunOp(t, "_FusedMatMul", attrs, a, b, nnF32T([]int{2}, []float32{10, 20}))
	require.NoError(t, err)
	assert.Equal(t, []float32{14, 25, 20, 31}, out[0].Data)

	// a scalar "bias" (the converter's fusion of an AddV2 of a constant)
	// is broadcast
	out, err = nnRunOp(t, "_FusedMatMul", attrs, a, b, nnF32T([]int{}, []float32{10}))
	require.NoError(t, err)
	assert.Equal(t, []float32{14, 15, 20, 21}, out[0].Data)

	_, err = nnRunOp(t, "_FusedMatMul", attrs, a, b, nnF32T([]int{3}, []float32{1, 2, 3}))
	assert.ErrorContains(t, err, "bias argument has 3 elements, want 2")
}
