package scan

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

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

// deferred tells that the collector's first collection is deferred: the
// heap's goal is at least the least a model's load is allowed above what
// the heap holds.
func deferred() bool { return heapGoal() >= heapHeld()+minLoadAllowance*9/10 }

func TestPaceModel(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	small := filepath.Join(t.TempDir(), "model.pb")
	require.NoError(t, os.WriteFile(small, make([]byte, 1000), 0o644))

	// Models that overlap keep the deferral until the last ends.
	a := paceModel(small)
	require.True(t, deferred(), "goal %d, held %d", heapGoal(), heapHeld())
	assert.LessOrEqual(t, heapGoal(), (heapHeld()+minLoadAllowance)*3/2, "the goal is the one asked for")
	b := paceModel(small)
	a.end()
	assert.True(t, deferred(), "one model is still in flight")
	b.end()
	assert.Equal(t, 100, gcPercent(), "the pacing found is restored")
	b.end()
	assert.Equal(t, 100, gcPercent(), "a part ends once")

	// A model loaded raises the goal to scanHeadroom times what the heap
	// holds, when that is more (half the allowance held is, and is too
	// little for a collection to start).
	p := paceModel(small)
	kept := make([]byte, minLoadAllowance/2)
	for i := 0; i < len(kept); i += 4096 {
		kept[i] = 1
	}
	p.loaded()
	assert.GreaterOrEqual(t, heapGoal(), scanHeadroom*heapHeld()*9/10)
	runtime.KeepAlive(kept)

	// A collection ends the deferral: the collector is paced from then on.
	require.Eventually(t, func() bool {
		runtime.GC()
		return gcPercent() == scanGCPercent
	}, 10*time.Second, 10*time.Millisecond)
	p.end()
	assert.Equal(t, 100, gcPercent())

	// A GOGC the user sets is left as it is.
	t.Setenv("GOGC", "50")
	debug.SetGCPercent(50)
	p = paceModel(small)
	assert.Equal(t, 50, gcPercent())
	p.loaded()
	p.end()
	assert.Equal(t, 50, gcPercent())
}

func TestLoadAllowanceFollowsTheModel(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	big := filepath.Join(t.TempDir(), "model.pb")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(2*minLoadAllowance/loadPerByte)) // sparse
	require.NoError(t, f.Close())
	p := paceModel(big)
	assert.GreaterOrEqual(t, heapGoal(), heapHeld()+2*minLoadAllowance*9/10)
	p.end()

	// The allowance stops at maxLoadAllowance.
	require.NoError(t, os.Truncate(big, 2*maxLoadAllowance/loadPerByte))
	p = paceModel(big)
	assert.LessOrEqual(t, heapGoal(), (heapHeld()+maxLoadAllowance)*11/10)
	p.end()
}

func TestModelBytes(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "saved_model.pb"), make([]byte, 300), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "fingerprint.pb"), make([]byte, 20), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "variables"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "variables", "variables.data-00000-of-00001"), make([]byte, 5000), 0o644))
	assert.Equal(t, uint64(320), modelBytes(dir), "the files in the directory, not below it")
	assert.Equal(t, uint64(300), modelBytes(filepath.Join(dir, "saved_model.pb")))
	assert.Zero(t, modelBytes(filepath.Join(dir, "missing")))
}

// TestScanIsPaced: a model is scanned with the first collection deferred,
// and the pacing is restored when the scan ends.
func TestScanIsPaced(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	during := false
	opts := Options{Paths: []string{filepath.Join(testutil.Corpus(t), "tf", "sm_half_plus_two_v1")}, Targets: []string{"cpu"}}
	opts.onScan = func(*graph.Graph, Options) { during = deferred() }
	_, err := Run(context.Background(), opts)
	require.NoError(t, err)
	assert.True(t, during)
	assert.Equal(t, 100, gcPercent())
}

// TestInspectIsPaced: a model is inspected with the first collection
// deferred, and the pacing is restored when it is summarised.
func TestInspectIsPaced(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	during := false
	opts := InspectOptions{Paths: []string{filepath.Join(testutil.Corpus(t), "tf", "sm_half_plus_two_v1")}}
	opts.onInspect = func(*graph.Graph) { during = deferred() }
	rep, err := Inspect(context.Background(), opts)
	require.NoError(t, err)
	require.Len(t, rep.Models, 1)
	assert.True(t, during)
	assert.Equal(t, 100, gcPercent())
}
