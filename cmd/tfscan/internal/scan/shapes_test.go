package scan

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/internal/testutil"
)

// Shapes inferred ahead, on a goroutine of their own, are those the
// placement would infer with the scan's options, and every placement of
// the model shares them.
func TestShapesAheadAreThePlacements(t *testing.T) {
	corpus := testutil.Corpus(t)
	for _, model := range []string{"tf/sm_simple_while_loop", "tf/gd_keras_imagenet_train"} {
		_, g, err := Load(filepath.Join(corpus, model), nil)
		require.NoError(t, err, model)
		opts := Options{Placement: PlacementOptions{Dims: map[string]int64{"batch": 3}}}
		ns := &Nodes{ahead: inferAhead(g, opts)}
		got := ns.shapesFor(g, placement.Options{})
		require.NotNil(t, got, model)
		assert.Same(t, got, ns.shapesFor(g, placement.Options{}), "inferred once")
		want := placement.InferShapes(g, shapeOptions(opts))
		assert.Equal(t, want.AssumedDims, got.AssumedDims, model)
		for _, n := range g.Nodes {
			for i := range n.OutputTypes() {
				w, wok := want.Output(n, i)
				o, ok := got.Output(n, i)
				assert.Equal(t, wok, ok, "%s: %s:%d", model, n.Name, i)
				assert.Equal(t, w, o, "%s: %s:%d", model, n.Name, i)
			}
		}
	}
}

// A panic of the inference ahead is raised again where the scan waits for
// the shapes, on the scan's goroutine, as if it had inferred them there.
func TestShapesAheadPanicOnTheScans(t *testing.T) {
	a := inferAhead(nil, Options{})
	assert.Panics(t, func() { a.wait() })
}
