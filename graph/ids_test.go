package graph

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tfscan/tfscan/internal/testutil"
)

// consecutiveIDs tells whether the nodes' IDs run one after the other, so
// that a node's position among them is its ID less the first's.
func consecutiveIDs(nodes []*Node) bool {
	for k, n := range nodes {
		if n.ID != nodes[0].ID+k {
			return false
		}
	}
	return true
}

// Build numbers the top level and each function body consecutively, which
// placement and shape inference rely on to find positions without a map
// (they check the node found at an ID's position and fall back to a map
// otherwise, so this is about speed).
func TestBuildNumbersBodiesConsecutively(t *testing.T) {
	for _, model := range []string{"sm_simple_while_loop", "sm_half_plus_two_v1"} {
		g := load(t, filepath.Join(testutil.Corpus(t), "tf", model))
		assert.True(t, consecutiveIDs(g.Nodes[:g.TopLevel]), model)
		for _, f := range g.Functions {
			assert.True(t, consecutiveIDs(f.Nodes), "%s %s", model, f.Name)
		}
	}
}

// A function's Index is its position in the graph's Functions whichever
// way the build assembled the library: sorted by name, a second equal copy
// dropped, a different copy or an op's name refused but the first kept, a
// nameless one left out; and -1 for a function no build made.
func TestFunctionIndexIsPosition(t *testing.T) {
	for _, tc := range []struct {
		name, library string
		want          []string
	}{
		{"no library", "", nil},
		{"name order", fnDef("c", "") + fnDef("a", "") + fnDef("b", ""), []string{"a", "b", "c"}},
		{"equal copies", fnDef("b", "") + fnDef("a", "") + fnDef("b", ""), []string{"a", "b"}},
		{"different copies", fnDef("b", "") + fnDef("a", "") + fnDef("b", `node_def { name: "m2" op: "Mul" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } } }`), []string{"a", "b"}},
		{"an op's name", fnDef("Relu", "") + fnDef("a", ""), []string{"Relu", "a"}},
		{"no name", `function { signature { } }` + fnDef("a", ""), []string{"a"}},
		{"recursion", fnDef("pong", `node_def { name: "back" op: "ping" input: "mul:z:0" }`) + fnDef("ping", `node_def { name: "again" op: "pong" input: "mul:z:0" }`), []string{"ping", "pong"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, _ := buildErr(t, `graph_def {
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  library { `+tc.library+` } }`)
			assert.Equal(t, tc.want, funcNames(g.Functions))
			for i, f := range g.Functions {
				assert.Equal(t, i, f.Index(), f.Name)
			}
			for name, f := range g.FunctionByName {
				assert.Same(t, f, g.Functions[f.Index()], name)
			}
		})
	}
	assert.Equal(t, -1, (&Function{Name: "f"}).Index(), "made by hand")
	assert.Equal(t, -1, (*Function)(nil).Index())
}
