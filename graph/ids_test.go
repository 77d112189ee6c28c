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
