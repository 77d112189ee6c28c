package scan

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/internal/testutil"
)

// applyPlacement fills the placement sections and every listed node's
// device from a real simulation.
func TestApplyPlacement(t *testing.T) {
	corpus := testutil.Corpus(t)
	_, g, err := Load(filepath.Join(corpus, "tfjs", "emotion"), nil)
	require.NoError(t, err)
	ts, err := ResolveTargets([]string{"cuda"}, nil)
	require.NoError(t, err)
	tgt := ts.List[0]
	rt := Coverage(PrepareNodes(g, nil, ts.List), tgt)
	cpu, err := ts.CPU()
	require.NoError(t, err)
	res, err := placement.Simulate(g, tgt.Index, cpu, placement.Options{})
	require.NoError(t, err)
	applyPlacement(rt, res, nil, nil)
	require.NotNil(t, rt.Placement)
	assert.Equal(t, res.Transfers, rt.Placement.Transfers)
	assert.Equal(t, res.TransferBytes, rt.Placement.TransferBytes)
	assert.NotNil(t, rt.Placement.AssumedDims)
	total := 0
	for _, n := range rt.Nodes {
		assert.NotEmpty(t, n.Device, n.Path)
		assert.NotEmpty(t, n.Reasons, n.Path)
	}
	for _, c := range rt.Placement.DeviceNodes {
		total += c
	}
	assert.Equal(t, len(rt.Nodes), total)

	applyComparison(rt, &placement.Agreement{Matched: 1, Agreed: 1, Nodes: []placement.NodeAgreement{{Name: "a", Op: "Relu", Predicted: "GPU:0", Actual: "GPU:0", Agree: true}}})
	require.NotNil(t, rt.Placement.Comparison)
	assert.Equal(t, 1, rt.Placement.Comparison.Agreed)
}

// place looks kernels up with the keys PrepareNodes built (keyedMatcher)
// and shares the shapes between targets: its results must be those of a
// simulation on the plain indexes, on models with functions, control
// flow and auto mixed precision (whose node copies keep their IDs but
// change their attrs, so they must not take the prepared key).
func TestPlaceKeyedSharedSameResult(t *testing.T) {
	corpus := testutil.Corpus(t)
	for _, model := range []string{"tfjs/centernet", "tf/sm_simple_while_loop", "tf/gd_lstm_layer_inference", "tf/gd_keras_imagenet_train"} {
		for _, precision := range []string{"", placement.PrecisionMixedFloat16} {
			_, g, err := Load(filepath.Join(corpus, model), nil)
			require.NoError(t, err, model)
			ts, err := ResolveTargets([]string{"musa", "rocm", "intel-xpu"}, nil)
			require.NoError(t, err)
			// Keys for musa alone: the other indexes' constrained attrs
			// need not be in them, so their lookups must fall back.
			ns := PrepareNodes(g, nil, ts.List[:1])
			opts := Options{Placement: PlacementOptions{Precision: precision}}
			cpu, err := ts.CPU()
			require.NoError(t, err)
			src, err := ts.Source()
			require.NoError(t, err)
			for _, tg := range ts.List {
				got, err := place(g, ns, tg, ts, opts, nil, false)
				require.NoError(t, err)
				require.Nil(t, got.Nodes, "a scan's results are lazy")
				// Each node's result as the lazy result gives it equals the
				// list a plain simulation makes.
				byID := map[int]placement.NodeResult{}
				for _, n := range g.Nodes {
					if nr, ok := got.NodeOf(n.ID); ok {
						byID[n.ID] = nr
					}
				}
				got.Materialize()
				require.Len(t, byID, len(got.Nodes))
				for _, nr := range got.Nodes {
					assert.Equal(t, nr, byID[nr.ID])
				}
				want, err := placement.Simulate(g, tg.Index, cpu, placement.Options{Precision: precision, Source: src, Stack: tg.Index.Stack(), NoNodeCounts: true})
				require.NoError(t, err)
				assert.Equal(t, want, got, "%s on %s, precision %q", model, tg.Name, precision)
			}
		}
	}
}

// applyPlacement finds each listed node's result by graph node when given
// the prepared nodes, by path otherwise: the same report either way.
func TestApplyPlacementByIDOrPath(t *testing.T) {
	corpus := testutil.Corpus(t)
	for _, model := range []string{"tfjs/centernet", "tf/sm_simple_while_loop"} {
		_, g, err := Load(filepath.Join(corpus, model), nil)
		require.NoError(t, err)
		ts, err := ResolveTargets([]string{"rocm"}, nil)
		require.NoError(t, err)
		ns := PrepareNodes(g, nil, ts.List)
		res, err := place(g, ns, ts.List[0], ts, Options{}, nil, false)
		require.NoError(t, err)
		byID, at := coverageInto(ns, ts.List[0], nil, nil)
		byPath := Coverage(ns, ts.List[0])
		applyPlacement(byID, res, ns, at)
		applyPlacement(byPath, res, nil, nil)
		assert.Equal(t, byPath, byID, model)
		assert.NotEmpty(t, byID.Nodes[0].Device, model)
	}
}
