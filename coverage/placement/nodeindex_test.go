package placement

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/testmodel"
)

// nodeIndex answers as a map of the nodes would, whatever their IDs: run
// one after the other (as Build numbers them), shuffled, all the same (a
// graph made by hand), or from another set; nodes it was not told of are
// not found.
func TestNodeIndexIsAMap(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, ids := range testmodel.NumberingKinds {
		for trial := 0; trial < 20; trial++ {
			n := rng.Intn(40)
			nodes := testmodel.Numbered(ids, n, 7)
			outside := []*graph.Node{{ID: 7}, {ID: 8}, {ID: -1}}
			x := newNodeIndex(nil, nodes)
			want := map[*graph.Node]int{}
			for _, i := range rng.Perm(n) {
				if rng.Intn(4) > 0 {
					x.set(nodes[i], 100+i)
					want[nodes[i]] = 100 + i
				}
			}
			for _, gn := range append(nodes, outside...) {
				got, ok := x.get(gn)
				w, wok := want[gn]
				require.Equal(t, wok, ok, "%s trial %d ID %d", ids, trial, gn.ID)
				if ok {
					require.Equal(t, w, got, "%s trial %d ID %d", ids, trial, gn.ID)
				}
			}
		}
	}
}

// A first instance's index is firstOf's run at its nodes' IDs: what it
// sets is the nodes' first placement node. One whose nodes are not a run
// of the graph's, or one of whose nodes has a placement node already, has
// an array of its own, so that firstOf keeps each node's first.
func TestFirstIndexSharesFirstOf(t *testing.T) {
	all := make([]*graph.Node, 10)
	for i := range all {
		all[i] = &graph.Node{ID: i}
	}
	unplaced := func() []int32 {
		f := make([]int32, len(all))
		for i := range f {
			f[i] = -1
		}
		return f
	}
	t.Run("first instance", func(t *testing.T) {
		firstOf := unplaced()
		x := firstIndex(nil, all[3:7], all, firstOf)
		x.set(all[4], 40)
		require.Equal(t, int32(40), firstOf[4])
		got, ok := x.get(all[4])
		require.True(t, ok)
		require.Equal(t, 40, got)
		_, ok = x.get(all[5])
		require.False(t, ok)
		_, ok = x.get(all[8]) // outside the run
		require.False(t, ok)
	})
	for _, tc := range []struct {
		name  string
		nodes []*graph.Node
		place int // a node of the run placed already, -1 for none
	}{
		{"a node placed", all[3:7], 6},
		{"not the graph's nodes", []*graph.Node{{ID: 3}, {ID: 4}}, -1},
		{"not a run", []*graph.Node{all[3], all[5]}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			firstOf := unplaced()
			if tc.place >= 0 {
				firstOf[tc.place] = 60
			}
			x := firstIndex(nil, tc.nodes, all, firstOf)
			for i, n := range tc.nodes {
				x.set(n, 100+i)
			}
			want := unplaced()
			if tc.place >= 0 {
				want[tc.place] = 60
			}
			require.Equal(t, want, firstOf, "firstOf is left alone")
			for i, n := range tc.nodes {
				got, ok := x.get(n)
				require.True(t, ok)
				require.Equal(t, 100+i, got)
			}
		})
	}
}
