package placement_test

import (
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/coverage/placement"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/testmodel"
	"github.com/tfscan/tfscan/internal/testutil"
)

// TestWhatIfLeavesThePlacementAsItWas: the wishlist and the what-if
// questions re-place parts of the graph in place (whatIfRegion: devices,
// reasons, the nodes' device priorities, which their groups read until
// they change them, the groups themselves) and put everything back. A lazy
// result works out its nodes after them, and the fusions and auto mixed
// precision come after them too: all must read the placement as it was,
// as a simulation that asks nothing gives it. Every op's nodes are asked
// about, on corpus models, four targets and three option sets.
func TestWhatIfLeavesThePlacementAsItWas(t *testing.T) {
	cpu := builtinIndex(t, "cpu")
	targets := []struct {
		name string
		m    coverage.Matcher
	}{
		{"musa", builtinIndex(t, "musa")}, {"intel-xpu", builtinIndex(t, "intel-xpu")},
		{"ascend", builtinIndex(t, "ascend")}, {"hand-made XPU", handMadeTarget()},
	}
	variants := []struct {
		name string
		opts placement.Options
	}{
		{"default", placement.Options{}},
		{"mixed_float16", placement.Options{Precision: placement.PrecisionMixedFloat16}},
		{"cleared devices, hard placement", placement.Options{ClearDevices: true, NoSoftPlacement: true}},
	}
	var paths []string
	for _, name := range corpusModels {
		paths = append(paths, filepath.Join(corpusDir(t), name))
	}
	for _, name := range []string{"convnet_saved_model", "resource_vars.pbtxt", "tf2_while_saved_model"} {
		paths = append(paths, filepath.Join(testutil.RepoRoot(), "testdata", "models", name))
	}
	moved := 0 // what-ifs that changed the transfers
	for _, path := range paths {
		g := testmodel.Graph(t, path)
		byOp := map[string][]*graph.Node{}
		for _, n := range g.Nodes {
			byOp[n.Op] = append(byOp[n.Op], n)
		}
		var groups [][]*graph.Node
		for _, op := range slices.Sorted(maps.Keys(byOp)) {
			groups = append(groups, byOp[op])
		}
		for _, tg := range targets {
			for _, v := range variants {
				opts := v.opts
				opts.Stack, opts.Source = stackOf(tg.m), builtinIndex(t, "cuda")
				opts.NoWishlist = true
				want, err := placement.Simulate(g, tg.m, cpu, opts)
				require.NoError(t, err)
				opts.NoWishlist, opts.LazyNodes, opts.WhatIfCovered = false, true, groups
				got, err := placement.Simulate(g, tg.m, cpu, opts)
				require.NoError(t, err)
				require.Len(t, got.WhatIf, len(groups))
				for _, w := range got.WhatIf {
					if w.TransfersRemoved != 0 {
						moved++
					}
				}
				// DeviceOf answers as the nodes' results, before they are made.
				placed := map[int]placement.NodeResult{}
				for _, n := range want.Nodes {
					placed[n.ID] = n
				}
				for _, gn := range g.Nodes {
					dev, req, ok := got.DeviceOf(gn.ID)
					n, isPlaced := placed[gn.ID]
					require.Equal(t, isPlaced, ok, "%s: DeviceOf(%s) placed", path, gn.Name)
					require.Equal(t, [2]string{n.Device, n.RequestedDevice}, [2]string{dev, req}, "%s: DeviceOf(%s)", path, gn.Name)
				}
				// DevicesAt answers as DeviceOf, lazy or not, at the
				// positions asked (here the IDs reversed).
				for _, r := range []*placement.Result{got, want} {
					assertDevicesAt(t, r, g, placed)
				}
				got.Materialize()
				got.Wishlist, got.WhatIf = nil, nil
				assert.Equal(t, want, got, "%s on %s, %s", path, tg.name, v.name)
			}
		}
	}
	// The what-ifs moved nodes, and so transfers, often.
	assert.Greater(t, moved, 100)
}

// assertDevicesAt checks r.DevicesAt of every node of g, each asked at
// its ID's mirror position and, with a nil at, at its ID, against the
// nodes placed (by ID).
func assertDevicesAt(t *testing.T, r *placement.Result, g *graph.Graph, placed map[int]placement.NodeResult) {
	t.Helper()
	n := len(g.Nodes)
	mirror := make([]int32, n)
	for id := range mirror {
		mirror[id] = int32(n - 1 - id)
	}
	for _, at := range [][]int32{mirror, nil} {
		dev, req := make([]int32, n), make([]int32, n)
		names := r.DevicesAt(at, dev, req)
		require.Equal(t, "", names[0])
		require.Len(t, names, len(slices.Compact(slices.Sorted(slices.Values(names)))), "a name twice: %q", names)
		for _, gn := range g.Nodes {
			k := int32(gn.ID)
			if at != nil {
				k = at[gn.ID]
			}
			want := placed[gn.ID]
			require.Equal(t, [2]string{want.Device, want.RequestedDevice}, [2]string{names[dev[k]], names[req[k]]}, "DevicesAt(%s), at %v", gn.Name, at != nil)
		}
	}
}

// stackOf is a target's stack, nil for a matcher without one.
func stackOf(m coverage.Matcher) *coverage.StackConfig {
	if ix, ok := m.(*coverage.Index); ok {
		return ix.Stack()
	}
	return nil
}
