package placement_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/internal/testmodel"
)

// One Scratch lent to simulation after simulation, of models large and
// small and of targets whose graphs flatten differently, changes no
// result: each simulation gets its memory cleared.
func TestScratchChangesNothing(t *testing.T) {
	defaults, err := coverage.BuiltinPack("default")
	require.NoError(t, err)
	index := func(name string) *coverage.Index {
		p, err := coverage.BuiltinPack(name)
		require.NoError(t, err)
		return coverage.NewIndex(p, defaults)
	}
	cpu := index("cpu")
	var sc placement.Scratch
	// Large before small, so that a small one runs in memory a large one
	// left, and back.
	for _, model := range []string{"tfjs/centernet", "tf/sm_simple_while_loop", "tfjs/emotion", "tf/gd_lstm_layer_inference/lstm_layer_inference.pbtxt", "tfjs/centernet"} {
		g := testmodel.Graph(t, filepath.Join(corpusDir(t), model))
		for _, target := range []string{"rocm", "musa", "intel-xpu"} {
			for _, precision := range []string{"", placement.PrecisionMixedFloat16} {
				tg := index(target)
				opts := placement.Options{Precision: precision, Stack: tg.Stack()}
				want, err := placement.Simulate(g, tg, cpu, opts)
				require.NoError(t, err)
				opts.Scratch = &sc
				got, err := placement.Simulate(g, tg, cpu, opts)
				require.NoError(t, err)
				assert.Equal(t, want, got, "%s on %s, precision %q", model, target, precision)
			}
		}
	}
}
