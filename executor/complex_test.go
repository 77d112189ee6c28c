package executor_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/kernels/npz"
)

// TestComplexGraph runs a small complex64/complex128 graph fed and fetched
// through .npz files, as `tfscan run --inputs` does. The expected values
// are TensorFlow 2.15's for the same graph (tf.sqrt(x * c), cast to
// complex128 and summed).
func TestComplexGraph(t *testing.T) {
	const c64 = `attr { key: "T" value { type: DT_COMPLEX64 } }`
	text := `node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_COMPLEX64 } } attr { key: "shape" value { shape { dim { size: 3 } } } } }
node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_COMPLEX64 } } attr { key: "value" value { tensor { dtype: DT_COMPLEX64 tensor_shape { dim { size: 3 } } scomplex_val: 1 scomplex_val: 2 scomplex_val: -0.5 scomplex_val: 0 } } } }
node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } } }
` + node("m", "Mul", c64, "x", "c") + node("s", "Sqrt", c64, "m") +
		node("d", "Cast", `attr { key: "SrcT" value { type: DT_COMPLEX64 } } attr { key: "DstT" value { type: DT_COMPLEX128 } }`, "s") +
		node("out", "Sum", `attr { key: "T" value { type: DT_COMPLEX128 } } attr { key: "Tidx" value { type: DT_INT32 } } attr { key: "keep_dims" value { b: false } }`, "d", "axis")
	dir := t.TempDir()
	in := filepath.Join(dir, "in.npz")
	require.NoError(t, npz.Write(in, map[string]*kernels.Tensor{"x": {DType: tpb.DataType_DT_COMPLEX64, Shape: []int{3},
		Data: []complex64{1 + 1i, 2 - 3i, -4 + 0.5i}}}))
	feeds, err := npz.Read(in)
	require.NoError(t, err)
	e := newExec(t, text, executor.Options{})
	out, err := e.Run(context.Background(), feeds, []string{"s", "out"})
	require.NoError(t, err)
	assert.Equal(t, []complex64{1.0397782 + 1.4426153i, 0.6335518 + 1.1838022i, 1.4169623 - 0.088216886i}, out["s"].Data)
	assert.Equal(t, []complex128{3.090292274951935 + 2.538200631737709i}, out["out"].Data)
	res := filepath.Join(dir, "out.npz")
	require.NoError(t, npz.Write(res, out))
	back, err := npz.Read(res)
	require.NoError(t, err)
	assert.Equal(t, out, back)
}

func TestSeededComplexInput(t *testing.T) {
	x, err := executor.SeededInput("x", 1, tpb.DataType_DT_COMPLEX64, []int{2}, nil)
	require.NoError(t, err)
	f, err := executor.SeededInput("x", 1, tpb.DataType_DT_FLOAT, []int{4}, nil)
	require.NoError(t, err)
	fd := f.Data.([]float32)
	assert.Equal(t, []complex64{complex(fd[0], fd[1]), complex(fd[2], fd[3])}, x.Data, "real, then imaginary draws")
}
