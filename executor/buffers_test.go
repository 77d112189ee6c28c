package executor_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/kernels"
)

// TestBufferReuse runs corpus models with buffer reuse and every freed
// buffer poisoned (NaN, 0xA5 bytes), twice each, and compares the
// outputs bit for bit with a run that recycles nothing: a tensor read
// after its buffer went back to the pool, or a kernel leaving part of a
// recycled output unwritten, changes them. Models with loops,
// conditionals, functions and in-place kernels are among them; the test
// also checks that buffers were recycled at all.
func TestBufferReuse(t *testing.T) {
	defer executor.PoisonFreed(true)()
	for _, m := range []string{"tfjs/emotion", "tfjs/meet", "tfjs/mobilefacenet", "tfjs/centernet", "tf/sm_simple_while_loop", "tf/gd_if_op/if_op.pbtxt"} {
		t.Run(filepath.Base(m), func(t *testing.T) {
			ref := loadExecutor(t, m, executor.Options{})
			executor.DisableBufferReuse(ref)
			feeds, fetches := seededRun(t, ref)
			want, err := ref.Run(context.Background(), feeds, fetches)
			require.NoError(t, err)
			e := loadExecutor(t, m, executor.Options{})
			for run := 0; run < 2; run++ {
				got, err := e.Run(context.Background(), feeds, fetches)
				require.NoError(t, err)
				for _, f := range fetches {
					sameBits(t, want[f], got[f], "run %d, %s", run, f)
				}
			}
			if reused, _ := executor.BuffersReused(e); m[:4] == "tfjs" {
				assert.Positive(t, reused, "no buffer is recycled")
			}
		})
	}
}

// sameBits fails unless a and b hold the same dtype, shape and bits
// (NaN included).
func sameBits(t *testing.T, a, b *kernels.Tensor, msg string, args ...any) {
	t.Helper()
	require.NotNil(t, b)
	require.Equal(t, a.DType, b.DType)
	require.Equal(t, a.Shape, b.Shape)
	switch x := a.Data.(type) {
	case []float32:
		y := b.Data.([]float32)
		for i := range x {
			if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
				t.Fatalf(msg+": element %d is %v, want %v", append(args, i, y[i], x[i])...)
			}
		}
	default:
		assert.Equal(t, a.Data, b.Data, append([]any{msg}, args...)...)
	}
}

// Tensors that leave through an alias keep their buffers: a Relu output
// fetched through Identity or IdentityN, or read later through a Reshape
// view, holds its values while later kernels draw outputs from the pool
// (poisoned when freed, so a recycled buffer shows as NaN).
func TestBufferReuseAliases(t *testing.T) {
	defer executor.PoisonFreed(true)()
	shape := `node { name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 600 } } } }
`
	text := placeholder("x", "DT_FLOAT") + shape +
		node("a", "Relu", attrF32, "x") +
		node("i", "Identity", attrF32, "a") +
		node("in", "IdentityN", `attr { key: "T" value { list { type: DT_FLOAT type: DT_FLOAT } } }`, "a", "x") +
		node("r", "Reshape", attrF32+` attr { key: "Tshape" value { type: DT_INT32 } }`, "a", "shape") +
		node("n", "Neg", attrF32, "a") +
		node("b", "Relu", attrF32, "n") +
		node("c", "Mul", attrF32, "b", "b") +
		node("d", "Relu6", attrF32, "c") +
		node("e", "Neg", attrF32, "i") +
		node("f", "Relu", attrF32, "e")
	x := make([]float32, 600)
	for j := range x {
		x[j] = float32(j%7) - 3
	}
	feeds := map[string]*kernels.Tensor{"x": kernels.FloatTensor([]int{2, 300}, x)}
	for _, tt := range []struct {
		fetches []string
		frees   bool // whether some buffer goes back to the pool
	}{{[]string{"i", "d"}, true}, {[]string{"in:0", "d"}, true}, {[]string{"r", "d"}, true}, {[]string{"d", "f"}, true}, {[]string{"i", "f", "r"}, false}} {
		fetches := tt.fetches
		ref := newExec(t, text, executor.Options{})
		executor.DisableBufferReuse(ref)
		want, err := ref.Run(context.Background(), feeds, fetches)
		require.NoError(t, err)
		e := newExec(t, text, executor.Options{})
		for run := 0; run < 2; run++ {
			got, err := e.Run(context.Background(), feeds, fetches)
			require.NoError(t, err)
			for _, f := range fetches {
				sameBits(t, want[f], got[f], "%v, run %d, %s", fetches, run, f)
			}
		}
		_, freed := executor.BuffersReused(e)
		assert.Equal(t, tt.frees, freed > 0, "%v: %d buffers freed", fetches, freed)
	}
}
