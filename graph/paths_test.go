package graph

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Paths stay unique when names collide: a later node whose path is taken
// gets "#2", "#3"…, skipping suffixes a real node already spells. (TensorFlow
// refuses such names and duplicates, but inspect lists the graph's problems
// by path.)
func TestPathsStayUnique(t *testing.T) {
	g, err := buildErr(t, `graph_def {
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "call" op: "PartitionedCall" input: "x"
    attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } }
    attr { key: "f" value { func { name: "f" } } } }
  node { name: "s/call/f/mul#2" op: "NoOp" }
  node { name: "s/call/f/mul" op: "NoOp" }
  library {
    `+fnDef("f", "")+`
    `+fnDef("g", `node_def { name: "mul" op: "NoOp" }`)+`
  }
}`, "s=call:0")
	require.Error(t, err)
	var got []string
	for _, n := range g.Nodes {
		got = append(got, n.Path())
	}
	assert.Equal(t, []string{"x", "call", "s/call/f/mul#2", "s/call/f/mul", "s/call/f/mul#3", "g/mul", "g/mul#2"}, got)
}
