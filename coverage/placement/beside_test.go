package placement_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/internal/testmodel"
	"github.com/tfscan/tfscan/internal/testutil"
)

// Two simulations at the same time, one lent a prepared Scratch and one its
// Beside, give the Results each gives alone, and so do the next ones lent
// the same two: with a source without the wishlist (as a scan's --from is
// placed), auto mixed precision, a function device and cleared devices.
// The Scratch is flattened ahead (Flatten, before the matchers are asked)
// for every other variant, and Prepare keeps that graph. make test runs it
// under the race detector too.
func TestBesideChangesNothing(t *testing.T) {
	cpu := builtinIndex(t, "cpu")
	pairs := [][2]*coverage.Index{
		{builtinIndex(t, "cuda"), builtinIndex(t, "musa")},
		{builtinIndex(t, "cuda"), builtinIndex(t, "intel-xpu")},
	}
	variants := []placement.Options{
		{},
		{Precision: placement.PrecisionMixedFloat16},
		{FunctionDevice: "CPU"},
		{ClearDevices: true},
	}
	for _, model := range []string{"tfjs/centernet", "tf/sm_simple_while_loop", "tf/gd_lstm_layer_inference/lstm_layer_inference.pbtxt", "tf/gd_keras_imagenet_train/keras_imagenet_main.pbtxt", "tf/sm_static_hashtable"} {
		g := testmodel.Graph(t, filepath.Join(corpusDir(t), model))
		var sc placement.Scratch
		for v, opts := range variants {
			for _, pair := range pairs {
				srcOpts, tOpts := opts, opts
				srcOpts.NoWishlist = true
				tOpts.Stack = pair[1].Stack()
				want := [2]*placement.Result{}
				var err error
				want[0], err = placement.Simulate(g, pair[0], cpu, srcOpts)
				require.NoError(t, err)
				want[1], err = placement.Simulate(g, pair[1], cpu, tOpts)
				require.NoError(t, err)

				tOpts.Scratch = &sc
				if v%2 == 1 {
					require.NoError(t, sc.Flatten(g, pair[1], tOpts))
					flat := placement.Flattened(&sc)
					require.NotNil(t, flat)
					require.NoError(t, sc.Prepare(g, pair[1], cpu, tOpts))
					require.Same(t, flat, placement.Flattened(&sc), "Prepare flattens again")
				} else {
					require.NoError(t, sc.Prepare(g, pair[1], cpu, tOpts))
				}
				srcOpts.Scratch = sc.Beside()
				var got [2]*placement.Result
				var srcErr error
				done := make(chan struct{})
				go func() {
					defer close(done)
					got[0], srcErr = placement.Simulate(g, pair[0], cpu, srcOpts)
				}()
				got[1], err = placement.Simulate(g, pair[1], cpu, tOpts)
				<-done
				require.NoError(t, err)
				require.NoError(t, srcErr)
				assert.Equal(t, want, got, "%s, %s beside %s, %+v", model, pair[0].DeviceType(), pair[1].DeviceType(), opts)
			}
		}
	}
}

// The arrays a Scratch reserved for a model's nodes (Reserve, as a scan
// sizes it by the decoded model's nodes) are long enough for the nodes
// its flattening makes, which adds each call's arguments and results and
// a body's further instances: on every model of the corpus and the
// project's, SavedModels with functions and TF1 loops among them.
func TestReservedRoomHoldsTheFlattenedGraph(t *testing.T) {
	var paths []string
	for _, dir := range []string{filepath.Join(corpusDir(t), "tf"), filepath.Join(corpusDir(t), "tfjs"), filepath.Join(testutil.RepoRoot(), "testdata", "models")} {
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range entries {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	musa := builtinIndex(t, "musa")
	flattened := 0
	for _, path := range paths {
		g, err := testmodel.TryGraph(path)
		if err != nil {
			continue // the corpus's malformed models
		}
		var sc placement.Scratch
		require.NoError(t, sc.Flatten(g, musa, placement.Options{}), path)
		n := placement.FlattenedNodes(&sc)
		assert.LessOrEqual(t, n, placement.LentRoom(len(g.Nodes), len(g.Functions) > 0), path)
		if n > len(g.Nodes) {
			flattened++
		}
	}
	assert.GreaterOrEqual(t, flattened, 3, "models whose flattening adds nodes")
}
