package scan

import (
	"context"
	"path/filepath"
	"runtime/debug"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/internal/testutil"
)

// TestDecodedAheadIsTakenOrDropped: the one model a scan names is
// decoded ahead with its pacing; the scan of that path takes both once,
// and a decoding no scan takes (a target that does not resolve, another
// path) is waited for and its pacing ended.
func TestDecodedAheadIsTakenOrDropped(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	path := filepath.Join(testutil.Corpus(t), "tf", "sm_half_plus_two_v1")

	assert.Nil(t, decodeAhead(Options{Paths: []string{path, path}}), "several paths")
	assert.Nil(t, decodeAhead(Options{Paths: []string{path}, Cache: t.TempDir()}), "a cached model is not read")

	a := decodeAhead(Options{Paths: []string{path}})
	require.NotNil(t, a)
	assert.True(t, deferred(), "the pacing starts with the decoding")
	_, _, ok, _ := a.take(path + "x")
	assert.False(t, ok, "another path")
	m, pace, ok, err := a.take(path)
	require.True(t, ok)
	require.NoError(t, err)
	want, _, err := Load(path, nil)
	require.NoError(t, err)
	assert.Equal(t, want.File, m.File)
	_, _, ok, _ = a.take(path)
	assert.False(t, ok, "taken once")
	a.drop()
	assert.True(t, deferred(), "a decoding taken keeps its pacing for the scan")
	pace.end()
	assert.Equal(t, 100, gcPercent())

	restored := func() bool { return gcPercent() == 100 }
	a = decodeAhead(Options{Paths: []string{path}})
	a.drop()
	require.Eventually(t, restored, 10*time.Second, time.Millisecond, "a decoding no scan took ends its pacing once done")

	_, err = Run(context.Background(), Options{Paths: []string{path}, Targets: []string{"no-such-target"}})
	require.Error(t, err)
	require.Eventually(t, restored, 10*time.Second, time.Millisecond, "a scan that stops before its model ends the pacing")
}
