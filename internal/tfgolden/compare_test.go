package tfgolden

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/kernels"
)

func TestULPDistances(t *testing.T) {
	nan32, inf32 := float32(math.NaN()), float32(math.Inf(1))
	next := math.Nextafter32(1, 2)
	for _, tc := range []struct {
		name string
		a, b float32
		want int64
	}{
		{"equal", 1, 1, 0},
		{"neighbours", 1, next, 1},
		{"signed zeros", float32(math.Copysign(0, -1)), 0, 1},
		{"across zero", -math.SmallestNonzeroFloat32, math.SmallestNonzeroFloat32, 3},
		{"NaN equals NaN", nan32, -nan32, 0},
		{"NaN against a number", nan32, 1, MaxULP},
		{"Inf equals itself", inf32, inf32, 0},
		{"Inf against the largest float", inf32, math.MaxFloat32, MaxULP},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ulp32(tc.a, tc.b))
			assert.Equal(t, tc.want, ulp32(tc.b, tc.a))
		})
	}
	assert.Equal(t, int64(1), ulp64(1, math.Nextafter(1, 2)))
	assert.Equal(t, int64(1), ulp16(0x3c00, 0x3c01, 0x7c00, 0x3ff)) // float16 1 and its neighbour
	assert.Equal(t, int64(0), ulp16(0x7e00, 0x7c01, 0x7c00, 0x3ff)) // two float16 NaNs
}

func TestCompareTolerances(t *testing.T) {
	want := kernels.FloatTensor([]int{3}, []float32{1, 1e-8, float32(math.NaN())})
	near := kernels.FloatTensor([]int{3}, []float32{math.Nextafter32(1, 2), 2e-8, float32(math.NaN())})

	d, err := Compare(want, want, Tol{})
	require.NoError(t, err)
	assert.True(t, d.Identical)

	d, err = Compare(near, want, Tol{})
	require.NoError(t, err)
	assert.Equal(t, 2, d.Bad, "bit-identical asks for every bit")

	d, _ = Compare(near, want, Tol{ULP: 1})
	assert.Equal(t, 1, d.Bad, "1e-8 against 2e-8 is many ULPs")
	d, _ = Compare(near, want, Tol{ULP: 1, Abs: 1e-7})
	assert.Equal(t, 0, d.Bad, "an absolute bound covers values that cancel towards zero")

	_, err = Compare(kernels.FloatTensor([]int{1, 3}, []float32{1, 1, 1}), want, Tol{})
	assert.ErrorContains(t, err, "shape")
	_, err = Compare(kernels.Int32Tensor([]int{3}, []int32{1, 1, 1}), want, Tol{})
	assert.ErrorContains(t, err, "dtype")
}
