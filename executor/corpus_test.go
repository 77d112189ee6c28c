package executor_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tfscan/tfscan/internal/testutil"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/internal/testmodel"
	"github.com/tfscan/tfscan/kernels"
)

// sharedDir returns ../shared relative to the repo root; it fails under
// CI=true and skips otherwise when the folder is missing.
func sharedDir(t testing.TB) string {
	t.Helper()
	return testutil.Shared(t)
}

// loadExecutor loads a corpus model and prepares an executor for it,
// restoring its checkpoint when it has one.
func loadExecutor(t testing.TB, rel string, opts executor.Options) *executor.Executor {
	t.Helper()
	m, g := testmodel.Load(t, filepath.Join(sharedDir(t), "corpus", rel))
	var w kernels.WeightSource
	if m.VariablesPrefix != "" {
		ck, err := kernels.OpenCheckpoint(m.VariablesPrefix)
		require.NoError(t, err)
		w = ck
	}
	e, err := executor.New(g, w, opts)
	require.NoError(t, err)
	return e
}

func TestHalfPlusTwo(t *testing.T) {
	for _, m := range []string{"tf/sm_half_plus_two_v1", "tf/sm_half_plus_two_pbtxt"} {
		t.Run(m, func(t *testing.T) {
			e := loadExecutor(t, m, executor.Options{})
			x := kernels.FloatTensor([]int{3, 1}, []float32{0, 1, 10})
			out, err := e.RunSignature(context.Background(), "serving_default", map[string]*kernels.Tensor{"x": x})
			require.NoError(t, err)
			assert.Equal(t, []float32{2, 2.5, 7}, out["y"].Data)
		})
	}
}

func TestIfOp(t *testing.T) {
	e := loadExecutor(t, "tf/gd_if_op/if_op.pbtxt", executor.Options{})
	sinks := executor.SinkOutputs(e.Graph())
	require.Equal(t, []string{"StatefulIf:0", "StatelessIf:0"}, sinks)
	tests := []struct {
		a, b      float32
		stateful  []float32 // a < b ? cst0+cst1 : a*cst1
		stateless float32   // a == b ? a-b : a/b
	}{
		{1, 2, []float32{6, 8, 10, 12}, 0.5},
		{3, 2, []float32{15, 18, 21, 24}, 1.5},
		{2, 2, []float32{10, 12, 14, 16}, 0},
	}
	for _, tt := range tests {
		out, err := e.Run(context.Background(), map[string]*kernels.Tensor{"a": kernels.ScalarFloat(tt.a), "b:0": kernels.ScalarFloat(tt.b)}, sinks)
		require.NoError(t, err)
		assert.Equal(t, tt.stateful, out["StatefulIf:0"].Data)
		assert.Equal(t, []float32{tt.stateless}, out["StatelessIf:0"].Data)
	}
}

// TestSimpleWhileLoop: compute(value) sums value, value-1, ..., 1 with a
// StatelessWhile inside functions (saved_model_api_test.cc expects 55 for 10).
func TestSimpleWhileLoop(t *testing.T) {
	e := loadExecutor(t, "tf/sm_simple_while_loop", executor.Options{})
	for _, tt := range []struct{ in, want float32 }{{10, 55}, {0, 0}, {3, 6}, {2.5, 4.5}} {
		out, err := e.RunSignature(context.Background(), "serving_default", map[string]*kernels.Tensor{"value": kernels.ScalarFloat(tt.in)})
		require.NoError(t, err)
		assert.Equal(t, []float32{tt.want}, out["output_0"].Data, "value %v", tt.in)
	}
}

// TestStaticHashTable: a HashTableV2 initialized from an asset file by the
// init op, looked up by the signature (line number of the word, else -1).
func TestStaticHashTable(t *testing.T) {
	e := loadExecutor(t, "tf/sm_static_hashtable", executor.Options{})
	words := &kernels.Tensor{DType: tpb.DataType_DT_STRING, Shape: []int{5}, Data: [][]byte{[]byte("foo"), []byte("bar"), []byte("baz"), []byte("wombat"), []byte("nope")}}
	out, err := e.RunSignature(context.Background(), "serving_default", map[string]*kernels.Tensor{"word": words})
	require.NoError(t, err)
	assert.Equal(t, []int64{0, 1, 2, 3, -1}, out["output_0"].Data)
	assert.Equal(t, []int{5}, out["output_0"].Shape)

	// Seeded words are the asset's, read back from the table the init op
	// filled: the seeded scalar input (element 0, a vocabulary word) is
	// found in the table.
	vocab := e.Vocabulary()
	assert.Equal(t, [][]byte{[]byte("bar"), []byte("baz"), []byte("foo"), []byte("wombat")}, vocab)
	inputs := executor.Inputs(e.Graph(), executor.FindSignature(e.Graph().Signatures, "serving_default"))
	assert.Equal(t, "strings: 4 words of the model's tables and made-up words", e.StringSeeding(inputs))
	for seed := uint32(1); seed <= 4; seed++ {
		sig := executor.FindSignature(e.Graph().Signatures, "serving_default")
		feeds, err := e.SeededFeeds(executor.Inputs(e.Graph(), sig), seed, 4)
		require.NoError(t, err)
		out, err := e.RunSignature(context.Background(), "serving_default", map[string]*kernels.Tensor{"word": feeds[sig.Inputs[0].Name]})
		require.NoError(t, err)
		assert.GreaterOrEqual(t, out["output_0"].Data.([]int64)[0], int64(0), "seed %d: %q", seed, feeds[sig.Inputs[0].Name].Data)
	}
}

func TestXPlusY(t *testing.T) {
	e := loadExecutor(t, "tf/sm_x_plus_y_debuginfo", executor.Options{})
	out, err := e.RunSignature(context.Background(), "serving_default", map[string]*kernels.Tensor{"x": kernels.ScalarFloat(1.5), "y": kernels.ScalarFloat(2)})
	require.NoError(t, err)
	assert.Equal(t, []float32{3.5}, out["output_0"].Data)
}
