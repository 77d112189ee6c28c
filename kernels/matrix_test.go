package kernels

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMatrixErrors(t *testing.T) {
	x := xf32([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	v3 := xattrs("align", "RIGHT_LEFT")
	xRunErrors(t, []xErrCase{
		{"band rank", "MatrixBandPart", nil, []*Tensor{xf32([]int{3}, 1, 2, 3), xi64([]int{}, 0), xi64([]int{}, 0)}, "input must be at least 2-dim, received shape: [3]"},
		{"band lower", "MatrixBandPart", nil, []*Tensor{x, xi64([]int{}, 3), xi64([]int{}, 0)}, "num_lower must be negative or less or equal to number of rows (2) got: 3"},
		{"band upper", "MatrixBandPart", nil, []*Tensor{x, xi64([]int{}, 0), xi64([]int{}, 4)}, "num_upper must be negative or less or equal to number of columns (3) got: 4"},
		{"band scalar", "MatrixBandPart", nil, []*Tensor{x, xi64([]int{1}, 0), xi64([]int{}, 0)}, "num_lower must be scalar, got shape [1]"},
		{"part k order", "MatrixDiagPartV3", v3, []*Tensor{x, xi32([]int{2}, 1, 0), xf32([]int{}, 0)}, "lower_diag_index must not be larger than upper_diag_index: 1 > 0"},
		{"part k range", "MatrixDiagPartV3", v3, []*Tensor{x, xi32([]int{}, 3), xf32([]int{}, 0)}, "lower_diag_index is out of bound: 3."},
		{"part k size", "MatrixDiagPartV3", v3, []*Tensor{x, xi32([]int{3}, 0, 1, 2), xf32([]int{}, 0)}, "diag_index must have only one or two elements, received 3 elements."},
		{"part pad", "MatrixDiagPartV3", v3, []*Tensor{x, xi32([]int{}, 0), xf32([]int{2}, 0, 0)}, "Padding must be scalar."},
		{"diag rows small", "MatrixDiagV3", v3, []*Tensor{xf32([]int{3}, 1, 2, 3), xi32([]int{}, 0), xi32([]int{}, 2), xi32([]int{}, -1), xf32([]int{}, 0)}, "The number of rows is too small."},
		{"diag inconsistent", "MatrixDiagV3", v3, []*Tensor{xf32([]int{3}, 1, 2, 3), xi32([]int{}, 0), xi32([]int{}, 4), xi32([]int{}, 4), xf32([]int{}, 0)}, "The number of rows or columns is not consistent"},
		{"diag count", "MatrixDiagV3", v3, []*Tensor{xf32([]int{2, 3}, 1, 2, 3, 4, 5, 6), xi32([]int{2}, -2, 0), xi32([]int{}, -1), xi32([]int{}, -1), xf32([]int{}, 0)}, "The number of diagonals provided in the input does not match"},
		{"diag huge", "MatrixDiagV3", v3, []*Tensor{xf32([]int{1}, 1), xi32([]int{}, 0), xi32([]int{}, 1<<30), xi32([]int{}, 1), xf32([]int{}, 0)}, "too large"},
		{"setdiag shape", "MatrixSetDiagV3", v3, []*Tensor{x, xf32([]int{3}, 1, 2, 3), xi32([]int{}, 0)}, "Expected diagonal shape: [2]"},
		{"bad align", "MatrixDiagPartV3", xattrs("align", "UP"), []*Tensor{x, xi32([]int{}, 0), xf32([]int{}, 0)}, "invalid align"},
	})
}

func TestMatrixEdges(t *testing.T) {
	// Empty matrices.
	out, err := xRun("MatrixDiagPartV3", xattrs("align", "RIGHT_LEFT"), xf32([]int{2, 0, 3}), xi32([]int{}, 0), xf32([]int{}, 0))
	require.NoError(t, err)
	assert.Equal(t, []int{2, 0}, out[0].Shape)
	out, err = xRun("MatrixBandPart", nil, xf32([]int{0, 4, 4}), xi64([]int{}, 1), xi64([]int{}, 1))
	require.NoError(t, err)
	assert.Equal(t, []int{0, 4, 4}, out[0].Shape)
	// Strings are not POD.
	_, err = xRun("MatrixBandPart", nil, xstr([]int{1, 1}, "a"), xi64([]int{}, 0), xi64([]int{}, 0))
	var u *UnsupportedError
	require.ErrorAs(t, err, &u)
	// L2Loss of an empty tensor is 0; integers are not registered.
	out, err = xRun("L2Loss", nil, xf32([]int{0}))
	require.NoError(t, err)
	assert.Equal(t, []float32{0}, out[0].Data)
	_, err = xRun("L2Loss", nil, xi32([]int{1}, 2))
	require.ErrorAs(t, err, &u)
}

// TestMatrixDiagPartDocExample is the example of tf.linalg.diag_part's
// documentation (core/ops/array_ops.cc MatrixDiagPartV3).
func TestMatrixDiagPartDocExample(t *testing.T) {
	in := xi32([]int{1, 3, 4}, 1, 2, 3, 4, 5, 6, 7, 8, 9, 8, 7, 6)
	for _, tt := range []struct {
		align string
		want  []int32
	}{
		{"RIGHT_LEFT", []int32{0, 3, 8, 2, 7, 6, 1, 6, 7, 5, 8, 0}},
		{"LEFT_RIGHT", []int32{3, 8, 0, 2, 7, 6, 1, 6, 7, 0, 5, 8}},
	} {
		out, err := xRun("MatrixDiagPartV3", xattrs("align", tt.align), in, xi32([]int{2}, -1, 2), xi32([]int{}, 0))
		require.NoError(t, err)
		assert.Equal(t, []int{1, 4, 3}, out[0].Shape)
		assert.Equal(t, tt.want, out[0].Data, tt.align)
		// MatrixDiagV3 puts the band back.
		back, err := xRun("MatrixDiagV3", xattrs("align", tt.align), out[0], xi32([]int{2}, -1, 2), xi32([]int{}, 3), xi32([]int{}, 4), xi32([]int{}, 0))
		require.NoError(t, err)
		assert.Equal(t, []int32{1, 2, 3, 0, 5, 6, 7, 8, 0, 8, 7, 6}, back[0].Data, tt.align)
	}
}
