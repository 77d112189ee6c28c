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
	applyPlacement(rt, res)
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
