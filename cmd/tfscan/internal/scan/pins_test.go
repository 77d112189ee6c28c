package scan

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/reports"
)

// The generated Keras-style frozen graph (savedmodel/modelgen
// KerasPinnedGraphDef) has every kernel on CUDA, and 9 of its 21 nodes
// pinned to /job:localhost/replica:0/task:0/device:CPU:0: the pins alone
// make the second partition and every byte that crosses, and the report
// says so; --clear-devices (clear_devices=True) makes both disappear.
func TestDevicePinsAndClearDevices(t *testing.T) {
	path := filepath.Join(testutil.RepoRoot(), "testdata", "models", "keras_pinned_frozen.pb")
	const pin = "/job:localhost/replica:0/task:0/device:CPU:0"
	run := func(clear bool) *reports.Target {
		rep, err := Run(context.Background(), Options{Paths: []string{path}, Targets: []string{"cuda"},
			Placement: PlacementOptions{ClearDevices: clear}})
		require.NoError(t, err)
		return rep.Models[0].Targets[0]
	}

	tgt := run(false)
	assert.Equal(t, 100.0, tgt.CoveragePercent(), "every op has a CUDA kernel")
	pl := tgt.Placement
	require.NotNil(t, pl)
	assert.Empty(t, pl.Error)
	assert.Equal(t, 2, pl.Partitions)
	// normalization → dense: 16 floats H2D; dense → dense_1 and back: 32
	// floats each way (batch 1).
	assert.Equal(t, 3, pl.Transfers)
	assert.Equal(t, int64(16*4+2*32*4), pl.TransferBytes)
	assert.Equal(t, 9, pl.PinnedNodes)
	assert.Equal(t, map[string]int{pin: 9}, pl.PinnedDevices)
	assert.Zero(t, pl.ClearedDevices)
	// Every crossing byte is at the border of an island the pins make.
	require.Len(t, tgt.Islands, 2)
	var islandBytes int64
	for _, is := range tgt.Islands {
		assert.Contains(t, is.Cause, `pinned to CPU by their device field "`+pin+`"`)
		assert.Contains(t, is.Cause, "--clear-devices")
		assert.Equal(t, len(is.Nodes), is.PinnedNodes, "%v", is.Nodes)
		islandBytes += is.Bytes
	}
	assert.Equal(t, pl.TransferBytes, islandBytes)
	pinned := 0
	for _, n := range tgt.Nodes {
		if n.RequestedDevice != "" {
			pinned++
			assert.Equal(t, pin, n.RequestedDevice)
			assert.Equal(t, "CPU:0", n.Device, n.Path)
		}
	}
	assert.Equal(t, 9, pinned)

	tgt = run(true)
	pl = tgt.Placement
	require.NotNil(t, pl)
	assert.Empty(t, pl.Error)
	assert.Equal(t, 1, pl.Partitions)
	assert.Zero(t, pl.Transfers)
	assert.Zero(t, pl.TransferBytes)
	assert.Zero(t, pl.PinnedNodes)
	assert.Equal(t, 9, pl.ClearedDevices)
	assert.Empty(t, tgt.Islands)
	assert.Zero(t, tgt.FallbackNodes())
	for _, n := range tgt.Nodes {
		assert.Empty(t, n.RequestedDevice, n.Path)
	}
}
