package savedmodel_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/internal/testmodel/testexec"
	"github.com/tfscan/tfscan/internal/tfgolden"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/kernels/npz"
)

// TestTFJSNarrowedRun runs the converter's forms of small models
// (testdata/tfjs_dtypes, make.py) as `tfscan run` does and holds them to
// what TensorFlow computes, bit for bit: the mixed_float16 model, whose
// float16 weights the converter stores as float32, gives TensorFlow's
// float16 result (float32 arithmetic on the same weights, what TF.js does,
// gives the float32 model's, which differs); the float32 model with
// float16-quantized weights gives what TensorFlow computes from the float16
// values of its weights; the float64 and int64 model, whose weights the
// converter stores as float32 and int32, gives TensorFlow's float64 and
// int64 results.
func TestTFJSNarrowedRun(t *testing.T) {
	dir := filepath.Join("testdata", "tfjs_dtypes")
	io, err := npz.Read(filepath.Join(dir, "io.npz"))
	require.NoError(t, err)
	for _, tc := range []struct {
		model   string
		inputs  map[string]string // signature key -> io.npz key
		outputs map[string]string
	}{
		{"mixed", map[string]string{"x": "x"}, map[string]string{"y": "mixed"}},
		{"mixed_q16", map[string]string{"x": "x"}, map[string]string{"y": "mixed"}},
		{"float32_q16", map[string]string{"x": "x"}, map[string]string{"y": "float32_q16"}},
		{"wide", map[string]string{"x": "wide_x", "i": "wide_i"}, map[string]string{"y": "wide_y", "j": "wide_j"}},
	} {
		t.Run(tc.model, func(t *testing.T) {
			ex, g, err := testexec.Executor(filepath.Join(dir, tc.model))
			require.NoError(t, err)
			require.Len(t, g.Signatures, 1)
			sig := g.Signatures[0]
			in := map[string]*kernels.Tensor{}
			for k, v := range tc.inputs {
				in[k] = io[v]
				require.NotNil(t, in[k], v)
			}
			feeds, _, err := executor.FeedsFrom(g, sig, in)
			require.NoError(t, err)
			names, keys := executor.Outputs(g, sig)
			require.Len(t, names, len(tc.outputs))
			res, err := ex.Run(context.Background(), feeds, names)
			require.NoError(t, err)
			for i, k := range keys {
				want := io[tc.outputs[k]]
				require.NotNil(t, want, k)
				d, err := tfgolden.Compare(res[names[i]], want, tfgolden.Tol{})
				require.NoError(t, err, k)
				require.Zero(t, d.Bad, "%s: %d of %d values differ from TensorFlow's; first %s", k, d.Bad, d.N, d.First)
			}
		})
	}
	// The two results differ: running the mixed model's graph in float32,
	// as TF.js does, would not give TensorFlow's numbers.
	d, err := tfgolden.Compare(io["mixed"], io["float32_q16"], tfgolden.Tol{})
	require.NoError(t, err)
	require.NotZero(t, d.Bad)
}
