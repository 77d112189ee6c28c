package shape

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/testmodel"
	"github.com/tfscan/tfscan/internal/testutil"
)

// TestScopeOrderInfersAsTheWalk: a scope (the top level, a function body)
// where no node calls a function is inferred in the build's topological
// order (scopeOrder), and a node like one of the last few inferred takes
// their outputs (alike); every output and assumption comes out as in the
// walk's data-edge order with every rule run, on models with TF1 loops,
// pins, resources, function bodies and repeated layers.
func TestScopeOrderInfersAsTheWalk(t *testing.T) {
	root := testutil.RepoRoot()
	corpus := testutil.Corpus(t)
	paths := []string{
		filepath.Join("testdata", "tf1_while.pbtxt"),
		filepath.Join(root, "testdata", "models", "convnet_frozen.pb"),
		filepath.Join(root, "testdata", "models", "keras_pinned_frozen.pb"),
		filepath.Join(root, "testdata", "models", "convnet.meta"),
		filepath.Join(root, "testdata", "models", "resource_vars.pbtxt"),
		filepath.Join(root, "testdata", "models", "keras_saved_model"),
		filepath.Join(root, "testdata", "models", "convnet_saved_model"),
		filepath.Join(root, "testdata", "models", "tf2_while_saved_model"),
		filepath.Join(corpus, "tf", "gd_lstm_layer_inference", "lstm_layer_inference.pbtxt"),
		filepath.Join(corpus, "tf", "gd_keras_imagenet_train", "keras_imagenet_main.pbtxt"),
		filepath.Join(corpus, "tf", "gd_if_op", "if_op.pbtxt"),
		filepath.Join(corpus, "tf", "sm_half_plus_two_v1"),
		filepath.Join(corpus, "tf", "sm_simple_while_loop"),
		filepath.Join(corpus, "tf", "sm_static_hashtable"),
		filepath.Join(corpus, "tf", "sm_x_plus_y_debuginfo"),
		filepath.Join(corpus, "tfjs", "centernet"),
		filepath.Join(corpus, "tfjs", "meet"),
	}
	loops, bodies := 0, 0
	for _, path := range paths {
		g := testmodel.Graph(t, path)
		for _, n := range g.Nodes {
			if n.Op == "NextIteration" {
				loops++
				break
			}
		}
		for _, f := range g.Functions {
			if !slices.ContainsFunc(f.Nodes, func(n *graph.Node) bool { return len(n.Calls()) > 0 }) {
				bodies++
			}
		}
		calls := func(nodes []*graph.Node) bool {
			return slices.ContainsFunc(nodes, func(n *graph.Node) bool { return len(n.Calls()) > 0 })
		}
		scopes := &Shapes{g: g, fns: make([]body, len(g.Functions))}
		assert.Equal(t, calls(g.Nodes[:g.TopLevel]), scopes.callingScopes(), "%s: the top level calls", path)
		for _, f := range g.Functions {
			assert.Equal(t, calls(f.Nodes), scopes.fns[scopes.slot(f)].calls, "%s: %s calls", path, f.Name)
		}
		o := Options{Dims: map[string]int64{"batch": 3}}
		got, want := Infer(g, o), infer(g, o, true)
		assert.Equal(t, want.AssumedDims, got.AssumedDims, path)
		for _, n := range g.Nodes {
			for i := range n.OutputTypes() {
				w, wok := want.Output(n, i)
				gt, gok := got.Output(n, i)
				if !assert.Equal(t, wok, gok, "%s: %s:%d", path, n.Name, i) || !assert.Equal(t, w, gt, "%s: %s:%d", path, n.Name, i) {
					return
				}
			}
		}
	}
	assert.Positive(t, loops, "no model with a TF1 loop")
	assert.GreaterOrEqual(t, bodies, 10, "function bodies without calls")
}

// positions finds each node's position whatever the nodes' IDs
// (testmodel.Numbered) and finds no node from outside.
func TestPositions(t *testing.T) {
	for _, ids := range testmodel.NumberingKinds {
		nodes := testmodel.Numbered(ids, 30, 5)
		pos := positions(nodes)
		for i, n := range slices.Backward(nodes) {
			j, ok := pos(n)
			assert.True(t, ok, "%s %d", ids, i)
			assert.Equal(t, i, j, ids)
		}
		for _, n := range []*graph.Node{{ID: 5}, {ID: 6}, {ID: 0}} {
			_, ok := pos(n)
			assert.False(t, ok, "%s: a node from outside, ID %d", ids, n.ID)
		}
	}
	_, ok := positions(nil)(&graph.Node{})
	assert.False(t, ok)
}
