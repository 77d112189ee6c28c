package scan

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/internal/testutil"
)

// A scan reserves its placements' Scratch when it makes what they share
// ahead (sharesAhead), for as many nodes as the decoded model holds, its
// functions' included: as many as the graph built from it, and as many
// inputs as their nodes have, data and control. The pacing of
// the load allows for what the reservation allocates.
func TestScanReservesItsPlacements(t *testing.T) {
	ts, err := ResolveTargets([]string{"musa"}, nil)
	require.NoError(t, err)
	require.NoError(t, ts.SetFrom("cuda"))
	for _, c := range []struct {
		name   string
		opts   Options
		shares bool
	}{
		{"default", Options{}, true},
		{"no placement", Options{Placement: PlacementOptions{Disabled: true}}, false},
		{"every node", Options{AllNodes: true}, false},
		{"one at a time", Options{oneAtATime: true}, false},
	} {
		first, beside, ok := sharesAhead(ts, c.opts)
		assert.Equal(t, c.shares, ok, c.name)
		if ok {
			// The source beside the target: the target first; alone,
			// the source.
			assert.Equal(t, placesBeside(ts, ts.fromTarget(), c.opts), beside, c.name)
			assert.Equal(t, map[bool]string{true: "musa", false: "cuda"}[beside], first.Name, c.name)
		}
	}

	root := testutil.RepoRoot()
	for _, path := range []string{
		filepath.Join(root, "testdata", "models", "convnet_frozen.pb"),
		filepath.Join(root, "testdata", "models", "keras_saved_model"),
		filepath.Join(testutil.Corpus(t), "tf", "sm_simple_while_loop"),
	} {
		m, g, err := Load(path, nil)
		require.NoError(t, err)
		e := decodedExtent(m)
		assert.Equal(t, len(g.Nodes), e.Nodes, path)
		assert.Equal(t, len(g.Functions) > 0, e.Functions, path)
		want := 0
		for _, n := range g.Nodes {
			want += len(n.Inputs) + len(n.ControlInputs())
		}
		assert.Equal(t, want, e.Inputs, path)
	}

	t.Setenv("GOGC", "")
	m, err := decodeModel(filepath.Join(root, "testdata", "models", "convnet_frozen.pb"))
	require.NoError(t, err)
	pace := paceModel("")
	defer pace.end()
	goal := pacing.goal
	r := reserveAhead(m, true, pace)
	assert.Equal(t, goal+placement.ReserveSize(decodedExtent(m), true), pacing.goal)
	assert.NotNil(t, r.scratch().Beside())
	assert.NotSame(t, r.scratch(), (*reservedScratch)(nil).scratch())
}

// The arrays a placement is read into (placeNodes) are cut from the
// prepared nodes' block with theirs, made once for every placement.
func TestPlacedArraysArePrepared(t *testing.T) {
	_, g, err := Load(filepath.Join(testutil.RepoRoot(), "testdata", "models", "convnet_frozen.pb"), nil)
	require.NoError(t, err)
	ts, err := ResolveTargets([]string{"musa"}, nil)
	require.NoError(t, err)
	ns := PrepareNodes(g, nil, ts.List)
	require.Len(t, ns.placedDev, len(ns.list))
	require.Len(t, ns.placedReq, len(ns.list))
	dev, req := &ns.placedDev[0], &ns.placedReq[0]
	for range 2 {
		res, err := place(g, ns, ts.List[0], ts, Options{}, nil, true)
		require.NoError(t, err)
		pl := placeNodes(ns, res)
		assert.Same(t, dev, &pl.dev[0])
		assert.Same(t, req, &pl.req[0])
		assert.NotEmpty(t, pl.device(0))
	}
}
