package scan

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/graph"
)

// TestSortByPath checks the in-place permutation against a plain sort, on
// lists with cycles of every length (random orders) and the edge cases.
func TestSortByPath(t *testing.T) {
	for _, size := range []int{0, 1, 2, 3, 10, 1000} {
		for seed := range 5 {
			r := rand.New(rand.NewPCG(uint64(size), uint64(seed)))
			ns := &Nodes{}
			for _, k := range r.Perm(size) {
				p := fmt.Sprintf("n%05d", k)
				ns.list = append(ns.list, &graph.Node{Name: p})
				ns.paths = append(ns.paths, p)
			}
			want := slices.Clone(ns.paths)
			slices.Sort(want)
			sortByPath(ns)
			require.Equal(t, want, ns.paths)
			for i, n := range ns.list {
				require.Equal(t, ns.paths[i], n.Name, "list follows paths")
			}
		}
	}
}
