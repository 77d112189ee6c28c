package scan

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/internal/testutil"
)

// The generated convnet as a frozen GraphDef has no signature: its output is
// probs (summarize_graph's rule), so the placement copies probs [1,10]
// float32 back to the host besides feeding x [1,8,8,1] — the same I/O as
// the convnet SavedModel, whose signature names probs. --fetch overrides.
func TestRunAssumedOutputs(t *testing.T) {
	models := filepath.Join(testutil.RepoRoot(), "testdata", "models")
	frozen := filepath.Join(models, "convnet_frozen.pb")
	const x, probs = 1 * 8 * 8 * 1 * 4, 1 * 10 * 4
	run := func(fetch ...string) (assumed []string, ioTransfers int, ioBytes int64, errs []string) {
		rep, err := Run(context.Background(), Options{Paths: []string{frozen}, Targets: []string{"musa"}, Fetches: fetch})
		require.NoError(t, err)
		for _, e := range rep.Errors {
			errs = append(errs, e.Message)
		}
		if len(rep.Models) == 0 {
			return nil, 0, 0, errs
		}
		p := rep.Models[0].Targets[0].Placement
		return rep.Models[0].AssumedOutputs, p.IOTransfers, p.IOBytes, errs
	}
	assumed, n, b, errs := run()
	require.Empty(t, errs)
	assert.Equal(t, []string{"probs"}, assumed)
	assert.Equal(t, 2, n)
	assert.Equal(t, int64(x+probs), b)

	rep, err := Run(context.Background(), Options{Paths: []string{filepath.Join(models, "convnet_saved_model")}, Targets: []string{"musa"}})
	require.NoError(t, err)
	assert.Empty(t, rep.Models[0].AssumedOutputs, "a model with signatures assumes nothing")
	assert.Equal(t, int64(x+probs), rep.Models[0].Targets[0].Placement.IOBytes)

	for _, tc := range []struct {
		fetch []string
		bytes int64
	}{
		{[]string{"flatten/Reshape"}, x + 64*4},                  // a node name is its output 0
		{[]string{"conv1/Relu:0", "probs"}, x + 8*8*4*4 + probs}, // several
		{[]string{"x"}, x}, // a fed tensor is not copied back
	} {
		assumed, _, b, errs := run(tc.fetch...)
		require.Empty(t, errs, tc.fetch)
		assert.Nil(t, assumed, "%v: with --fetch nothing is assumed", tc.fetch)
		assert.Equal(t, tc.bytes, b, tc.fetch)
	}

	// A fetch the model does not have is that model's error, in TF's words.
	_, _, _, errs = run("probs:1")
	assert.Equal(t, []string{frozen + ": --fetch probs:1: FetchOutputs probs:1: output index too large, must be < 1"}, errs)
	_, _, _, errs = run("nope")
	assert.Equal(t, []string{frozen + ": --fetch nope: FetchOutputs node nope: not found"}, errs)
}
