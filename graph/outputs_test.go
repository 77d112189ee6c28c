package graph

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/internal/testutil"
)

const f32 = `attr { key: "T" value { type: DT_FLOAT } }`

// The rule of summarize_graph_main.cc:177-187: unconsumed nodes (a control
// input counts as consuming), except Const, Assign, NoOp and Placeholder;
// other ops TF's list does not name (PlaceholderV2, VariableV2) stay in.
func TestPossibleOutputs(t *testing.T) {
	g := build(t, `graph_def {
		node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
		node { name: "unused_input" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
		node { name: "v2" op: "PlaceholderV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { unknown_rank: true } } } }
		node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT float_val: 1 } } } }
		node { name: "spare" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT float_val: 1 } } } }
		node { name: "var" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } }
		node { name: "lonely_var" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } }
		node { name: "init" op: "Assign" input: "var" input: "c" `+f32+` }
		node { name: "init_all" op: "NoOp" input: "^init" }
		node { name: "y" op: "Add" input: "x" input: "c" `+f32+` }
		node { name: "guarded" op: "Identity" input: "y" `+f32+` }
		node { name: "after" op: "NoOp" input: "^guarded" }
		node { name: "z" op: "Split" input: "c" input: "y" attr { key: "num_split" value { i: 2 } } `+f32+` }
		node { name: "w" op: "Identity" input: "z:1" `+f32+` }
	}`)
	assert.Equal(t, []string{"v2", "lonely_var", "w"}, names(g.PossibleOutputs()),
		"guarded is consumed by a control input; y and z by data inputs")
	// Worked out once from the build's index, as from the nodes' inputs.
	first, again := g.PossibleOutputs(), g.PossibleOutputs()
	assert.Same(t, &first[0], &again[0], "one list for the graph")
	assert.Equal(t, names(first), names(WithoutIndex(g).PossibleOutputs()))
}

func TestResolveFetch(t *testing.T) {
	g := build(t, `graph_def {
		node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
		node { name: "s" op: "Split" input: "x" input: "x" attr { key: "num_split" value { i: 3 } } `+f32+` }
		node { name: "n" op: "NoOp" }
		node { name: "u" op: "SomeCustomOp" }
		library { function { signature { name: "f" output_arg { name: "o" type: DT_FLOAT } } ret { key: "o" value: "x" } } }
	}`)
	for _, tc := range []struct{ name, want, err string }{
		{"s", "s:0", ""},
		{"s:2", "s:2", ""},
		{"s:3", "", "FetchOutputs s:3: output index too large, must be < 3"},
		{"u:7", "u:7", ""}, // an op no registry knows: its outputs cannot be counted
		{"n", "", "Tried to fetch data for 'n', which produces no output."},
		{"missing:0", "", "FetchOutputs node missing:0: not found"},
		{"^x", "", "fetch ^x names a control edge"},
		{"s:99999999999999999999", "", "output index too large"},
	} {
		got, err := g.ResolveFetch(tc.name)
		if tc.err != "" {
			require.Error(t, err, tc.name)
			assert.Contains(t, err.Error(), tc.err, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, got.Name(), tc.name)
	}
}

// The corpus's frozen LSTM has no signatures; its outputs are the five
// layers' "out" Identities and the last layer's dangling add (computed
// independently from the pbtxt with the same rule).
func TestPossibleOutputsCorpus(t *testing.T) {
	dir := testutil.Corpus(t)
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"tf/gd_lstm_layer_inference/lstm_layer_inference.pbtxt",
			[]string{"lstm_0/out", "lstm_1/out", "lstm_2/out", "lstm_3/out", "lstm_4/add_1", "lstm_4/out"}},
		// A function body written out as a GraphDef: its _Retval nodes.
		{"tf/gd_if_op/if_op.pbtxt", []string{"main", "main1"}},
	} {
		g := load(t, filepath.Join(dir, tc.file))
		assert.ElementsMatch(t, tc.want, names(g.PossibleOutputs()), tc.file)
	}
}
