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
// buffer poisoned (NaN, 0xA5 bytes), three times each, and compares the
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
			for run := 0; run < 3; run++ {
				got, err := e.Run(context.Background(), feeds, fetches)
				require.NoError(t, err)
				for _, f := range fetches {
					sameBits(t, want[f], got[f], "run %d, %s", run, f)
				}
			}
			if reused, _ := executor.BuffersReused(e); m[:4] == "tfjs" {
				assert.Positive(t, reused, "no buffer was recycled")
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
