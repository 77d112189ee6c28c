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
