package scan

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/testutil"
)

// TestSortByPath checks the prepared nodes' path order (pathOrdered), a
// sort of some of their positions (sortByPath) and pathIndex against a
// plain sort of the paths, on random orders and the edge cases.
func TestSortByPath(t *testing.T) {
	for _, size := range []int{0, 1, 2, 3, 10, 1000} {
		for seed := range 5 {
			r := rand.New(rand.NewPCG(uint64(size), uint64(seed)))
			ns := &Nodes{paths: new(nodePaths)}
			var want []string
			for _, k := range r.Perm(size) {
				p := fmt.Sprintf("n%05d", k) // a top-level node's path is its name
				ns.list = append(ns.list, &graph.Node{Name: p})
				want = append(want, p)
			}
			slices.Sort(want)
			byPath := func(at []int32) []string {
				var got []string
				for _, i := range at {
					got = append(got, ns.path(int(i)))
				}
				return got
			}
			require.Equal(t, want, byPath(ns.pathOrdered()))
			// Some of the positions, in a random order.
			var some []int32
			for _, i := range r.Perm(size) {
				if r.IntN(3) > 0 {
					some = append(some, int32(i))
				}
			}
			ns.sortByPath(some)
			got := byPath(some)
			require.True(t, slices.IsSorted(got), "%v", got)
			require.Len(t, got, len(some))
			for i, n := range ns.list {
				j, ok := ns.pathIndex(n.Name)
				require.True(t, ok)
				require.Equal(t, i, j, "pathIndex finds %s", n.Name)
			}
			_, ok := ns.pathIndex("m")
			require.False(t, ok, "a path no node has")
		}
	}
}

// TestPathOrder checks the order of the sort's 16-byte keys against a plain
// sort of the paths: a common prefix, paths that are prefixes of others,
// zero and high bytes, lengths around the keys' 8 and 16 bytes, and
// enough paths that the sort's byte passes (radixSortKeys) nest.
func TestPathOrder(t *testing.T) {
	alphabet := []byte{0, 'a', 'b', '/', 0x7f, 0x80, 0xff}
	// Paths that share 16 bytes and more are sorted again by the next.
	shared := []string{"", "__inference_dense_layer_1/", "__inference_dense_layer_1/\x00", "__inference_dense_layer_12/kernel/"}
	for _, prefix := range []string{"", "model/block_1/", "x"} {
		for seed := range 22 {
			r := rand.New(rand.NewPCG(uint64(len(prefix)), uint64(seed)))
			n := 300
			if seed >= 20 {
				n = 20000
			}
			var paths []string
			for range n {
				b := []byte(prefix + shared[r.IntN(len(shared))])
				for range r.IntN(40) {
					b = append(b, alphabet[r.IntN(len(alphabet))])
				}
				paths = append(paths, string(b))
			}
			paths = append(paths, prefix, prefix, paths[0], paths[1]) // equal paths keep their positions' order
			order := pathOrder(paths)
			got := make([]string, len(order))
			for k, i := range order {
				got[k] = paths[i]
			}
			want := slices.Clone(paths)
			slices.Sort(want)
			require.Equal(t, want, got)
			for k := 1; k < len(order); k++ {
				if paths[order[k]] == paths[order[k-1]] {
					require.Less(t, order[k-1], order[k])
				}
			}
		}
	}
}

// TestPathsByID checks the paths the placements read by node ID
// (pathOfID) against each node's own path: every node of a built graph,
// a scope of some of them, and nodes whose IDs are not their positions
// (a graph made by hand).
func TestPathsByID(t *testing.T) {
	_, g, err := Load(filepath.Join(testutil.Corpus(t), "tfjs", "emotion"), nil)
	require.NoError(t, err)
	ts, err := ResolveTargets([]string{"cuda"}, nil)
	require.NoError(t, err)
	some := map[*graph.Node]bool{}
	for k, n := range g.Nodes {
		if k%3 != 0 {
			some[n] = true
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	var shuffled graph.Graph
	for _, id := range r.Perm(50) {
		shuffled.Nodes = append(shuffled.Nodes, &graph.Node{Name: fmt.Sprintf("n%d", id), ID: id})
	}
	for _, c := range []struct {
		name  string
		g     *graph.Graph
		scope map[*graph.Node]bool
	}{{"all", g, nil}, {"scope", g, some}, {"ids not positions", &shuffled, nil}} {
		ns := PrepareNodes(c.g, c.scope, ts.List)
		for _, made := range []bool{false, true} {
			if made {
				ns.allPaths()
			}
			for _, n := range c.g.Nodes {
				want := ""
				if c.scope == nil || c.scope[n] {
					want = n.Path()
				}
				require.Equal(t, want, ns.pathOfID(n.ID), "%s: node %s", c.name, n.Name)
			}
			require.Empty(t, ns.pathOfID(-1))
			require.Empty(t, ns.pathOfID(len(c.g.Nodes)))
		}
	}
}

// TestPathsRenderedAsRead checks the prepared nodes' paths read one by
// one before every path is rendered, by goroutines at once past the
// share that renders them all, and by node ID as a placement reads them,
// on a model whose nodes are mostly in function bodies.
func TestPathsRenderedAsRead(t *testing.T) {
	_, g, err := Load(filepath.Join(testutil.Corpus(t), "tf", "sm_simple_while_loop"), nil)
	require.NoError(t, err)
	ts, err := ResolveTargets([]string{"cuda"}, nil)
	require.NoError(t, err)
	require.Less(t, g.TopLevel, len(g.Nodes), "nodes in function bodies")
	ns := PrepareNodes(g, nil, ts.List)
	for i, n := range ns.list {
		if i%2 == 0 {
			require.Equal(t, n.Path(), ns.path(i))
		}
	}
	require.False(t, ns.paths.made.Load(), "a few paths read")
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				for i, n := range ns.list {
					if ns.path(i) != n.Path() {
						t.Errorf("node %d: %q, want %q", i, ns.path(i), n.Path())
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	require.True(t, ns.paths.made.Load(), "many paths read")
	for _, n := range g.Nodes {
		require.Equal(t, n.Path(), ns.pathOfID(n.ID))
	}
}
