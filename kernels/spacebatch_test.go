package kernels

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSpaceBatchErrors(t *testing.T) {
	x := xf32([]int{1, 4, 4, 1}, make([]float32, 16)...)
	xRunErrors(t, []xErrCase{
		{"block rank", "SpaceToBatchND", nil, []*Tensor{x, xi32([]int{1, 2}, 2, 2), xi32([]int{2, 2}, 0, 0, 0, 0)}, "block_shape rank should be 1 instead of 2"},
		{"input rank", "SpaceToBatchND", nil, []*Tensor{xf32([]int{2}, 1, 2), xi32([]int{2}, 2, 2), xi32([]int{2, 2}, 0, 0, 0, 0)}, "input rank should be >= 3 instead of 1"},
		{"paddings shape", "SpaceToBatchND", nil, []*Tensor{x, xi32([]int{2}, 2, 2), xi32([]int{2}, 0, 0)}, "paddings should have shape [2, 2] instead of [2]"},
		{"block zero", "SpaceToBatchND", nil, []*Tensor{x, xi32([]int{2}, 0, 2), xi32([]int{2, 2}, 0, 0, 0, 0)}, "All values in block_shape must be positive, got value, 0 at index 0."},
		{"negative pad", "SpaceToBatchND", nil, []*Tensor{x, xi32([]int{2}, 2, 2), xi32([]int{2, 2}, -1, 1, 0, 0)}, "Paddings must be non-negative"},
		{"indivisible", "SpaceToBatchND", nil, []*Tensor{x, xi32([]int{2}, 3, 2), xi32([]int{2, 2}, 0, 0, 0, 0)}, "padded_shape[0]=4 is not divisible by block_shape[0]=3"},
		{"huge block", "SpaceToBatchND", nil, []*Tensor{x, xi64([]int{2}, 1<<40, 1<<40), xi64([]int{2, 2}, 0, 0, 0, 0)}, "too large"},
		{"batch indivisible", "BatchToSpaceND", nil, []*Tensor{x, xi32([]int{2}, 2, 2), xi32([]int{2, 2}, 0, 0, 0, 0)}, "Input batch dimension (1) is not divisible by product of block sizes (4)"},
		{"negative crop", "BatchToSpaceND", nil, []*Tensor{xf32([]int{4, 1, 1, 1}, 1, 2, 3, 4), xi32([]int{2}, 2, 2), xi32([]int{2, 2}, 0, -1, 0, 0)}, "Crops must be non-negative"},
		{"crop too big", "BatchToSpaceND", nil, []*Tensor{xf32([]int{4, 1, 1, 1}, 1, 2, 3, 4), xi32([]int{2}, 2, 2), xi32([]int{2, 2}, 2, 1, 0, 0)}, "cropped_shape[0]=-1 must be non-negative"},
		{"v1 block size", "SpaceToBatch", xattrs("block_size", 1), []*Tensor{x, xi32([]int{2, 2}, 0, 0, 0, 0)}, "Block size should be > 1: 1"},
		{"v1 rank", "BatchToSpace", xattrs("block_size", 2), []*Tensor{xf32([]int{4, 1, 1}, 1, 2, 3, 4), xi32([]int{2, 2}, 0, 0, 0, 0)}, "Input rank should be: 4 instead of: 3"},
		{"too few inputs", "SpaceToBatchND", nil, []*Tensor{x}, "expected 3 inputs"},
	})
}

func TestSpaceBatchEdges(t *testing.T) {
	// Empty batch: shape arithmetic only.
	out, err := xRun("SpaceToBatchND", nil, xf32([]int{0, 4, 2, 3}), xi32([]int{2}, 2, 2), xi32([]int{2, 2}, 0, 0, 0, 0))
	require.NoError(t, err)
	assert.Equal(t, []int{0, 2, 1, 3}, out[0].Shape)
	require.NoError(t, out[0].Validate())
	// NaN moves unchanged; padding is zero.
	// padded [0, NaN, 1, 0] → batch 0 takes offsets 0, 2; batch 1 takes 1, 3.
	nan := float32(math.NaN())
	out, err = xRun("SpaceToBatchND", nil, xf32([]int{1, 2, 1}, nan, 1), xi32([]int{1}, 2), xi32([]int{1, 2}, 1, 1))
	require.NoError(t, err)
	got := out[0].Data.([]float32)
	assert.Equal(t, []int{2, 2, 1}, out[0].Shape)
	assert.Equal(t, []float32{0, 1}, got[:2])
	assert.True(t, math.IsNaN(float64(got[2])), "NaN kept")
	assert.Equal(t, float32(0), got[3])
	// Bool and string are not registered by TensorFlow.
	_, err = xRun("SpaceToBatchND", nil, xstr([]int{1, 2, 1}, "a", "b"), xi32([]int{1}, 2), xi32([]int{1, 2}, 0, 0))
	var u *UnsupportedError
	require.ErrorAs(t, err, &u)
}

// TestSpaceBatchRoundTrip checks BatchToSpaceND(SpaceToBatchND(x)) == x on
// random shapes, including tensors large enough to run in parallel.
func TestSpaceBatchRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for iter := 0; iter < 40; iter++ {
		m := 1 + r.Intn(3)
		block := make([]int64, m)
		pads := make([]int64, 2*m)
		shape := []int{1 + r.Intn(3)}
		for i := 0; i < m; i++ {
			block[i] = int64(1 + r.Intn(3))
			pads[2*i] = int64(r.Intn(3))
			in := 1 + r.Intn(6)
			if iter%8 == 0 {
				in = 40 + r.Intn(20)
			}
			total := int64(in) + pads[2*i]
			pads[2*i+1] = (block[i] - total%block[i]) % block[i]
			shape = append(shape, in)
		}
		shape = append(shape, 1+r.Intn(4))
		n := product(shape)
		data := make([]int32, n)
		for i := range data {
			data[i] = int32(i + 1)
		}
		x := xi32(shape, data...)
		y, err := xRun("SpaceToBatchND", nil, x, xi64([]int{m}, block...), xi64([]int{m, 2}, pads...))
		require.NoError(t, err)
		z, err := xRun("BatchToSpaceND", nil, y[0], xi64([]int{m}, block...), xi64([]int{m, 2}, pads...))
		require.NoError(t, err)
		require.Equal(t, x.Shape, z[0].Shape, "shape %v block %v pads %v", shape, block, pads)
		require.Equal(t, data, z[0].Data, "shape %v block %v pads %v", shape, block, pads)
	}
}
