package savedmodel_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/internal/testmodel"
	"github.com/tfscan/tfscan/internal/tfgolden"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/kernels/npz"
)

// TestTFJSFloat16Run runs the converter's float16 forms of one Keras
// model (testdata/tfjs_float16, make.py) as `tfscan run` does and holds
// them to what TensorFlow computes: the mixed_float16 model, whose float16
// weights the converter stores as float32, gives TensorFlow's float16
// result bit for bit (float32 arithmetic on the same weights, what TF.js
// does, gives the float32 model's, which differs); the float32 model with
// float16-quantized weights gives what TensorFlow computes from the float16
// values of its weights.
func TestTFJSFloat16Run(t *testing.T) {
	dir := filepath.Join("testdata", "tfjs_float16")
	io, err := npz.Read(filepath.Join(dir, "io.npz"))
	require.NoError(t, err)
	for _, tc := range []struct {
		model, want string
		tol         tfgolden.Tol
	}{
		{"mixed", "mixed", tfgolden.Tol{}},
		{"mixed_q16", "mixed", tfgolden.Tol{}},
		{"float32_q16", "float32_q16", tfgolden.Tol{}},
	} {
		t.Run(tc.model, func(t *testing.T) {
			ex, g, err := testmodel.Executor(filepath.Join(dir, tc.model))
			require.NoError(t, err)
			require.Len(t, g.Signatures, 1)
			sig := g.Signatures[0]
			feeds, _, err := executor.FeedsFrom(g, sig, map[string]*kernels.Tensor{"x": io["x"]})
			require.NoError(t, err)
			names, _ := executor.Outputs(g, sig)
			require.Len(t, names, 1)
			res, err := ex.Run(context.Background(), feeds, names)
			require.NoError(t, err)
			d, err := tfgolden.Compare(res[names[0]], io[tc.want], tc.tol)
			require.NoError(t, err)
			require.Zero(t, d.Bad, "%d of %d values differ from TensorFlow's beyond %s; first %s", d.Bad, d.N, tc.tol, d.First)
		})
	}
	// The two results differ: running the mixed model's graph in float32,
	// as TF.js does, would not give TensorFlow's numbers.
	d, err := tfgolden.Compare(io["mixed"], io["float32_q16"], tfgolden.Tol{})
	require.NoError(t, err)
	require.NotZero(t, d.Bad)
}
