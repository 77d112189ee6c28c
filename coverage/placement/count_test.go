package placement_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/savedmodel"
)

// TestCountStepOnly simulates the generated Keras-style SavedModel on the
// built-in cuda pack counting the step phase only: the saver's and the
// init op's CPU nodes (SaveV2, RestoreV2, the table import) leave the
// islands, the wishlist and the transfers, while every node is still
// placed. Counting everything keeps them.
func TestCountStepOnly(t *testing.T) {
	m, err := savedmodel.Load(filepath.Join("..", "..", "testdata", "models", "keras_saved_model"))
	require.NoError(t, err)
	mg, err := graph.SelectMetaGraph(m, nil)
	require.NoError(t, err)
	g, err := graph.Build(m, mg)
	require.NoError(t, err)
	defaults, err := coverage.BuiltinPack("default")
	require.NoError(t, err)
	cuda, err := coverage.BuiltinPack("cuda")
	require.NoError(t, err)
	cpu, err := coverage.BuiltinPack("cpu")
	require.NoError(t, err)
	ph := g.Phases("")
	step := func(n *graph.Node) bool { return ph[n.ID] == graph.PhaseStep }

	all, err := placement.Simulate(g, coverage.NewIndex(cuda, defaults), coverage.NewIndex(cpu, defaults), placement.Options{})
	require.NoError(t, err)
	stepOnly, err := placement.Simulate(g, coverage.NewIndex(cuda, defaults), coverage.NewIndex(cpu, defaults), placement.Options{Count: step})
	require.NoError(t, err)

	assert.Equal(t, len(all.Nodes), len(stepOnly.Nodes), "every node is still placed")
	islandOps := func(r *placement.Result) string {
		var s []string
		for _, is := range r.Islands {
			s = append(s, is.Cause)
		}
		return strings.Join(s, "\n")
	}
	assert.Contains(t, islandOps(all), "SaveV2")
	assert.NotContains(t, islandOps(stepOnly), "SaveV2")
	assert.NotContains(t, islandOps(stepOnly), "RestoreV2")
	assert.NotContains(t, islandOps(stepOnly), "LookupTableImportV2")
	assert.Contains(t, islandOps(stepOnly), "LookupTableFindV2")
	for _, w := range stepOnly.Wishlist {
		assert.NotContains(t, []string{"SaveV2", "RestoreV2", "MergeV2Checkpoints", "LookupTableImportV2"}, w.Op)
	}
	for _, x := range stepOnly.TransferList {
		assert.NotContains(t, x.Dst, "__traced_")
		assert.NotContains(t, x.Dst, "__saved_model_init_op")
	}
	assert.Less(t, stepOnly.Transfers, all.Transfers)
	assert.LessOrEqual(t, stepOnly.TransferBytes, all.TransferBytes)
}
