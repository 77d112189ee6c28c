package scan

import (
	"context"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/testutil"
)

// gcPercent reads the collector's pacing without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

func TestPaceScan(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))

	// Scans that overlap keep the pacing until the last ends.
	endA := paceScan()
	assert.Equal(t, scanGCPercent, gcPercent())
	endB := paceScan()
	endA()
	assert.Equal(t, scanGCPercent, gcPercent(), "one scan still runs")
	endB()
	assert.Equal(t, 100, gcPercent(), "the pacing found is restored")

	// A GOGC the user sets is left as it is.
	t.Setenv("GOGC", "50")
	debug.SetGCPercent(50)
	end := paceScan()
	assert.Equal(t, 50, gcPercent())
	end()
	assert.Equal(t, 50, gcPercent())
}

// TestScanIsPaced: a model is scanned under scanGCPercent, and the
// pacing is restored when the scan ends.
func TestScanIsPaced(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	during := 0
	opts := Options{Paths: []string{filepath.Join(testutil.Corpus(t), "tf", "sm_half_plus_two_v1")}, Targets: []string{"cpu"}}
	opts.onScan = func(*graph.Graph, Options) { during = gcPercent() }
	_, err := Run(context.Background(), opts)
	require.NoError(t, err)
	assert.Equal(t, scanGCPercent, during)
	assert.Equal(t, 100, gcPercent())
}
