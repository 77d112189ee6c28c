package graph

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/internal/testutil"
)

// Paths stay unique when names collide: a later node whose path is taken
// gets "#2", "#3"…, skipping suffixes a real node already spells. (TensorFlow
// refuses such names and duplicates, but inspect lists the graph's problems
// by path.)
func TestPathsStayUnique(t *testing.T) {
	g, err := collidingPaths(t)
	require.Error(t, err)
	var got []string
	for _, n := range g.Nodes {
		got = append(got, n.Path())
	}
	assert.Equal(t, []string{"x", "call", "s/call/f/mul#2", "s/call/f/mul", "s/call/f/mul#3", "g/mul", "g/mul#2", "g/add"}, got)
}

// collidingPaths builds a graph whose node names collide with paths (and
// fails validation for it).
func collidingPaths(t *testing.T) (*Graph, error) {
	return buildErr(t, `graph_def {
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }`+callNode("call", "x", "f")+`
  node { name: "s/call/f/mul#2" op: "NoOp" }
  node { name: "s/call/f/mul" op: "NoOp" }
  library {
    `+fnDef("f", "")+`
    `+fnDef("g", `node_def { name: "mul" op: "NoOp" } node_def { name: "add" op: "NoOp" }`)+`
  }
}`, "s=call:0")
}

// A PathAppender renders every node's Path, in any order of the nodes:
// names that collide ("#k"), paths shortened in a deep call chain,
// functions nobody calls, and the corpus models with functions.
func TestPathAppenderIsPath(t *testing.T) {
	dups, _ := collidingPaths(t)
	graphs := map[string]*Graph{"dups": dups, "chain": buildChain(t, 20)}
	for _, model := range []string{"sm_simple_while_loop", "sm_static_hashtable", "sm_x_plus_y_debuginfo"} {
		graphs[model] = load(t, filepath.Join(testutil.Corpus(t), "tf", model))
	}
	for name, g := range graphs {
		require.NotEmpty(t, g.Functions, name)
		rng := rand.New(rand.NewPCG(1, uint64(len(g.Nodes))))
		for _, order := range [][]*Node{g.Nodes, slices.Collect(func(yield func(*Node) bool) {
			for _, i := range rng.Perm(len(g.Nodes)) {
				if !yield(g.Nodes[i]) {
					return
				}
			}
		})} {
			var a PathAppender
			for _, n := range order {
				assert.Equal(t, n.Path(), string(a.AppendPath([]byte("x"), n)[1:]), "%s: %s", name, n.Name)
			}
		}
	}
}
