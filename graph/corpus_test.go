package graph_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tfscan/tfscan/internal/testutil"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/testmodel"
	"github.com/tfscan/tfscan/savedmodel"
)

// corpusDir is ../shared/corpus relative to the repo root. Tests that need
// it fail (not skip) when it is missing under CI=true.
func corpusDir(t testing.TB) string {
	t.Helper()
	return testutil.Corpus(t)
}

// corpusCounts are the node counts ../shared/corpus/README.md states:
// "nodes (graph + functions)" for tf/, "nodes" for tfjs/.
var corpusCounts = []struct {
	name             string
	graph, functions int
	unknown          []string
}{
	{"tf/sm_half_plus_two_v1", 65, 0, nil},
	{"tf/sm_half_plus_two_pbtxt", 65, 0, nil},
	{"tf/sm_simple_while_loop", 7, 40, nil},
	{"tf/sm_static_hashtable", 21, 35, nil},
	{"tf/sm_x_plus_y_debuginfo", 8, 22, nil},
	{"tf/gd_if_op/if_op.pbtxt", 10, 4, nil},
	{"tf/gd_lstm_layer_inference/lstm_layer_inference.pbtxt", 312, 0, nil},
	{"tf/gd_keras_imagenet_train/keras_imagenet_main.pbtxt", 2853, 106, nil},
	{"tf/gd_unknown_op/test_graph_tfunknownop.pbtxt", 6, 0, []string{"SomeUnknownOp"}},
	{"tf/mg_text_in_dot_pb/metrics_export_meta_graph.pb", 35, 0, nil},
	{"tfjs/emotion", 45, 0, nil},
	{"tfjs/meet", 407, 0, nil},
	{"tfjs/mobilefacenet", 359, 0, nil}, // "Prelu" appears only inside _FusedConv2D fused_ops,
	{"tfjs/centernet", 544, 0, nil},
}

func TestCorpusCounts(t *testing.T) {
	dir := corpusDir(t)
	for _, tt := range corpusCounts {
		t.Run(tt.name, func(t *testing.T) {
			g := testmodel.Graph(t, filepath.Join(dir, tt.name))
			fnNodes := 0
			for _, f := range g.Functions {
				fnNodes += len(f.Nodes)
			}
			assert.Equal(t, tt.graph, g.TopLevel, "graph nodes")
			// The consumer index and the nodes' own inputs (a graph
			// without the index) give the same possible outputs.
			outputs := func(g *graph.Graph) (out []string) {
				for _, n := range g.PossibleOutputs() {
					out = append(out, n.Name)
				}
				return out
			}
			assert.Equal(t, outputs(graph.WithoutIndex(g)), outputs(g), "possible outputs")
			// The phases, from the build's reachability where it walked
			// the step, are the walks'.
			assert.Equal(t, graph.PhasesWalked(g, ""), g.Phases(""), "phases")
			assert.Equal(t, tt.functions, fnNodes, "function nodes")
			assert.Len(t, g.Nodes, tt.graph+tt.functions)

			unknown := map[string]bool{}
			for _, n := range g.Nodes {
				if n.Unknown {
					unknown[n.Op] = true
				}
			}
			var got []string
			for op := range unknown {
				got = append(got, op)
			}
			sort.Strings(got)
			assert.Equal(t, tt.unknown, got, "unknown ops")
			for _, d := range g.Diagnostics {
				t.Logf("%s %s: %s", d.Kind, d.Path, d.Message)
			}
			checkInvariants(t, g)
		})
	}
}

// badCorpus are the README's BAD INPUT models.
// with what the error must say.
var badCorpus = map[string]string{
	"tf/sm_fuzz_const_no_value":             `saved_model.pb: node "Assign/value" (Const) has no "value" attr`,
	"tf/gd_malformed/graph-malformed.pbtxt": "graph-malformed.pbtxt: not a model",
}

// Every model directory in the corpus must be covered above.
func TestCorpusComplete(t *testing.T) {
	dir := corpusDir(t)
	covered := map[string]bool{}
	for _, c := range corpusCounts {
		covered[strings.SplitN(c.name, "/", 3)[0]+"/"+strings.SplitN(c.name, "/", 3)[1]] = true
	}
	for b := range badCorpus {
		covered[strings.SplitN(b, "/", 3)[0]+"/"+strings.SplitN(b, "/", 3)[1]] = true
	}
	for _, kind := range []string{"tf", "tfjs"} {
		entries, err := os.ReadDir(filepath.Join(dir, kind))
		require.NoError(t, err)
		for _, e := range entries {
			if e.IsDir() {
				assert.True(t, covered[kind+"/"+e.Name()], "corpus model %s/%s has no expected counts", kind, e.Name())
			}
		}
	}
}

// TestCorpusBadInput checks that the BAD INPUT models fail to load with one
// error naming the file.
func TestCorpusBadInput(t *testing.T) {
	dir := corpusDir(t)
	for name, want := range badCorpus {
		t.Run(name, func(t *testing.T) {
			_, err := savedmodel.Load(filepath.Join(dir, name))
			require.Error(t, err)
			assert.Contains(t, err.Error(), filepath.Join(dir, name))
			assert.Contains(t, err.Error(), want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

// checkInvariants are what every later stage relies on.
func checkInvariants(t *testing.T, g *graph.Graph) {
	t.Helper()
	paths := map[string]bool{}
	for i, n := range g.Nodes {
		require.Equal(t, i, n.ID)
		require.NotEmpty(t, n.Path())
		require.False(t, paths[n.Path()], "duplicate path %q", n.Path())
		paths[n.Path()] = true
		if i < g.TopLevel {
			require.Nil(t, n.Func)
		} else {
			require.NotNil(t, n.Func)
		}
	}
	require.Len(t, g.Topo(), g.TopLevel)
	for _, f := range g.Functions {
		require.Len(t, f.Topo(), len(f.Nodes))
	}
}
