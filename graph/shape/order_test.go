package shape

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/internal/testmodel"
	"github.com/tfscan/tfscan/internal/testutil"
)

// TestTopOrderInfersAsTheWalk: a graph without functions is inferred in
// its own topological order (topOrder); every output and assumption comes
// out as in the walk's data-edge order, on models with TF1 loops, pins and
// resources.
func TestTopOrderInfersAsTheWalk(t *testing.T) {
	root := testutil.RepoRoot()
	corpus := testutil.Corpus(t)
	paths := []string{
		filepath.Join("testdata", "tf1_while.pbtxt"),
		filepath.Join(root, "testdata", "models", "convnet_frozen.pb"),
		filepath.Join(root, "testdata", "models", "keras_pinned_frozen.pb"),
		filepath.Join(root, "testdata", "models", "convnet.meta"),
		filepath.Join(root, "testdata", "models", "resource_vars.pbtxt"),
		filepath.Join(corpus, "tf", "gd_lstm_layer_inference", "lstm_layer_inference.pbtxt"),
		filepath.Join(corpus, "tf", "gd_keras_imagenet_train", "keras_imagenet_main.pbtxt"),
		filepath.Join(corpus, "tf", "sm_half_plus_two_v1"),
		filepath.Join(corpus, "tfjs", "centernet"),
		filepath.Join(corpus, "tfjs", "meet"),
	}
	loops, compared := 0, 0
	for _, path := range paths {
		g := testmodel.Graph(t, path)
		if len(g.Functions) > 0 {
			// Inferred in the walk's order (topOrder).
			continue
		}
		compared++
		top := g.Nodes[:g.TopLevel]
		require.Len(t, topOrder(g), len(top), path)
		for _, n := range top {
			if n.Op == "NextIteration" {
				loops++
				break
			}
		}
		o := Options{Dims: map[string]int64{"batch": 3}}
		got, want := Infer(g, o), infer(g, o, walkOrder(top))
		assert.Equal(t, want.AssumedDims, got.AssumedDims, path)
		for _, n := range top {
			for i := range n.OutputTypes {
				w, wok := want.Output(n, i)
				gt, gok := got.Output(n, i)
				if !assert.Equal(t, wok, gok, "%s: %s:%d", path, n.Name, i) || !assert.Equal(t, w, gt, "%s: %s:%d", path, n.Name, i) {
					return
				}
			}
		}
	}
	assert.GreaterOrEqual(t, compared, 6)
	assert.Positive(t, loops, "no model with a TF1 loop")
}
