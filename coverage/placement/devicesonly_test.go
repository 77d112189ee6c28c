package placement_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/internal/testmodel"
	"github.com/tfscan/tfscan/internal/testutil"
)

// TestDevicesOnlyLeavesTheRestAsItIs: Options.NoNodeCounts and
// DevicesOnly leave out the counts (and, DevicesOnly, the islands and
// fusions) and nothing else, on corpus models with pins, islands and
// fusions, on two targets, with and without cleared devices.
func TestDevicesOnlyLeavesTheRestAsItIs(t *testing.T) {
	cpu := builtinIndex(t, "cpu")
	var paths []string
	for _, name := range []string{"resource_vars.pbtxt", "convnet_saved_model"} {
		paths = append(paths, filepath.Join(testutil.RepoRoot(), "testdata", "models", name))
	}
	for _, name := range corpusModels {
		paths = append(paths, filepath.Join(corpusDir(t), name))
	}
	counted, islands, fusions, pinned := 0, 0, 0, 0
	for _, path := range paths {
		g := testmodel.Graph(t, path)
		for _, tc := range []struct {
			target string
			clear  bool
		}{{"musa", false}, {"musa", true}, {"intel-xpu", false}} {
			target, clear := builtinIndex(t, tc.target), tc.clear
			opts := placement.Options{Stack: stackOf(target), Source: builtinIndex(t, "cuda"), NoWishlist: true, ClearDevices: clear}
			want, err := placement.Simulate(g, target, cpu, opts)
			require.NoError(t, err)
			if len(want.DeviceNodes) > 0 {
				counted++
			}
			if len(want.Islands) > 0 {
				islands++
			}
			if len(want.Fusions) > 0 {
				fusions++
			}
			if want.PinnedNodes > 0 {
				pinned++
			}
			for _, o := range []placement.Options{{NoNodeCounts: true}, {DevicesOnly: true}} {
				o.Stack, o.Source, o.NoWishlist, o.ClearDevices = opts.Stack, opts.Source, true, clear
				got, err := placement.Simulate(g, target, cpu, o)
				require.NoError(t, err)
				w := *want
				w.DeviceNodes, w.PinnedNodes, w.PinnedDevices = map[string]int{}, 0, map[string]int{}
				if o.DevicesOnly {
					w.Islands, w.Fusions = nil, nil
				}
				assert.Equal(t, &w, got, "%s on %s, clear devices %v, %+v", path, tc.target, clear, o)
			}
		}
	}
	assert.Equal(t, 3*len(paths), counted)
	assert.Positive(t, pinned)
	assert.Positive(t, islands)
	assert.Positive(t, fusions)
}
