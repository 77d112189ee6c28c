package graph

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHasOp checks that a built graph tells the ops of its nodes, a
// function body's included, one by one and by a predicate, and rules out
// only the others; a graph Build did not make may hold any op.
func TestHasOp(t *testing.T) {
	g := build(t, `graph_def {
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }`+callNode("p", "x", "f")+`
  library { `+fnDef("f", `node_def { name: "r" op: "ReadFile" input: "x" }`)+` } }`)
	for op, want := range map[string]bool{"Placeholder": true, "PartitionedCall": true, "Mul": true, "ReadFile": true,
		"PyFunc": false, "RestoreV2": false, "f": false} {
		assert.Equal(t, want, g.HasOp(op), op)
	}
	assert.True(t, g.HasAnyOp(func(op string) bool { return op == "ReadFile" || op == "PyFunc" }))
	assert.False(t, g.HasAnyOp(func(op string) bool { return op == "PyFunc" }))
	empty := build(t, `graph_def { }`)
	assert.False(t, empty.HasOp("Placeholder"))
	assert.False(t, empty.HasAnyOp(func(string) bool { return true }))
	assert.True(t, (&Graph{}).HasOp("PyFunc"))
	assert.True(t, (&Graph{}).HasAnyOp(func(string) bool { return false }))
}
