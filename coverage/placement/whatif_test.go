package placement

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/graph"
)

// TestWhatIfCovered asks the wishlist's question about chosen nodes: the
// group of every ResourceApplyAdagradDA node gets the wishlist's answer for
// that kernel, a group of a node already on the target removes nothing, and
// an empty group answers zero.
func TestWhatIfCovered(t *testing.T) {
	nodes := []string{
		nd("v", "VarHandleOp", nil, ta("dtype", "DT_FLOAT"), sha("shape", 4, 4), sa("shared_name", "v")),
		nd("read", "ReadVariableOp", in("v"), ta("dtype", "DT_FLOAT")),
		placeholder("x", "DT_FLOAT", 2, 4),
		nd("mm", "MatMul", in("x", "read"), ta("T", "DT_FLOAT")),
	}
	nodes = append(nodes, adagradDA("v")...)
	g := buildGraph(t, graphText(nodes...), "serving_default=x:0->mm:0")
	byName := map[string]*graph.Node{}
	for _, n := range g.Nodes {
		byName[n.Name] = n
	}
	r := simulate(t, g, "GPU", cpuOps+varReg, Options{WhatIfCovered: [][]*graph.Node{
		{byName["apply"]}, {byName["mm"]}, nil,
	}})
	require.Len(t, r.WhatIf, 3)
	var wish Wish
	for _, w := range r.Wishlist {
		if w.Op == "ResourceApplyAdagradDA" {
			wish = w
		}
	}
	assert.Equal(t, wish.BytesRemoved, r.WhatIf[0].BytesRemoved)
	assert.Equal(t, wish.TransfersRemoved, r.WhatIf[0].TransfersRemoved)
	assert.Equal(t, int64(64), r.WhatIf[0].BytesRemoved)
	assert.Equal(t, 1, r.WhatIf[0].Nodes)
	assert.Equal(t, Wish{Nodes: 1}, r.WhatIf[1])
	assert.Equal(t, Wish{}, r.WhatIf[2])
	// The what-if leaves the placement as it was.
	assert.Equal(t, "CPU:0", devices(r)["apply"])
}
