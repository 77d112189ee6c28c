package graph

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tfscan/tfscan/internal/testutil"
)

func TestConsecutiveIDs(t *testing.T) {
	n := func(id int) *Node { return &Node{ID: id} }
	assert.True(t, ConsecutiveIDs(nil))
	assert.True(t, ConsecutiveIDs([]*Node{n(4), n(5), n(6)}))
	assert.False(t, ConsecutiveIDs([]*Node{n(4), n(6)}))
	assert.False(t, ConsecutiveIDs([]*Node{n(5), n(4)}))
}

// Build numbers the top level and each function body consecutively, which
// placement and shape inference rely on to find positions without a map
// (they fall back to one otherwise, so this is about speed).
func TestBuildNumbersBodiesConsecutively(t *testing.T) {
	for _, model := range []string{"sm_simple_while_loop", "sm_half_plus_two_v1"} {
		g := load(t, filepath.Join(testutil.Corpus(t), "tf", model))
		assert.True(t, ConsecutiveIDs(g.Nodes[:g.TopLevel]), model)
		for _, f := range g.Functions {
			assert.True(t, ConsecutiveIDs(f.Nodes), "%s %s", model, f.Name)
		}
	}
}
