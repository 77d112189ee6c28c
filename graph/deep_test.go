package graph

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/savedmodel"
	"github.com/tfscan/tfscan/savedmodel/modelgen"
)

func buildChain(t testing.TB, depth int) *Graph {
	t.Helper()
	sm := modelgen.CallChain(depth)
	mg := &savedmodel.MetaGraph{Tags: []string{"serve"}, Def: sm.GetMetaGraphs()[0],
		Signatures: []*savedmodel.Signature{{Key: "serving_default", Outputs: []*savedmodel.TensorInfo{{Key: "y", Name: "StatefulPartitionedCall:0"}}}}}
	g, err := Build(&savedmodel.Model{File: "chain/saved_model.pb", MetaGraphs: []*savedmodel.MetaGraph{mg}}, mg)
	require.NoError(t, err)
	return g
}

// chainPath is the full path of a node of function k of a call chain.
func chainPath(k int, node string) string {
	var b strings.Builder
	b.WriteString("serving_default/StatefulPartitionedCall")
	for i := 0; i <= k; i++ {
		b.WriteString("/" + modelgen.ChainFunction(i))
		if i < k {
			b.WriteString("/StatefulPartitionedCall")
		}
	}
	return b.String() + "/" + node
}

// Paths up to maxPathCalls calls deep are whole; deeper ones keep the first
// and last four calls around one segment that counts the calls left out.
func TestShortenedPaths(t *testing.T) {
	g := buildChain(t, 20)
	byName := func(f int, node string) *Node {
		for _, n := range g.FunctionByName[modelgen.ChainFunction(f)].Nodes {
			if n.Name == node {
				return n
			}
		}
		t.Fatalf("no node %s in function %d", node, f)
		return nil
	}
	assert.Equal(t, chainPath(15, "Identity"), byName(15, "Identity").Path(), "16 calls deep: whole")
	head := "serving_default/StatefulPartitionedCall/__inference_call_0/StatefulPartitionedCall/__inference_call_1/StatefulPartitionedCall/__inference_call_2/StatefulPartitionedCall/__inference_call_3/StatefulPartitionedCall"
	assert.Equal(t, head+"/…(9 calls)…/__inference_call_13/StatefulPartitionedCall/__inference_call_14/StatefulPartitionedCall/__inference_call_15/StatefulPartitionedCall/__inference_call_16/Identity",
		byName(16, "Identity").Path())
	assert.Equal(t, head+"/…(12 calls)…/__inference_call_16/StatefulPartitionedCall/__inference_call_17/StatefulPartitionedCall/__inference_call_18/StatefulPartitionedCall/__inference_call_19/mul",
		byName(19, "mul").Path())
	seen := map[string]bool{}
	for _, n := range g.Nodes {
		require.False(t, seen[n.Path()], n.Path())
		seen[n.Path()] = true
	}
}

// A valid model of 10,000 nested calls builds, every node reachable, with
// unique paths whose total length stays linear in the model. (Speed and
// memory: BenchmarkDeepCallChain.)
func TestDeepCallChainLoads(t *testing.T) {
	const depth = 10_000
	g := buildChain(t, depth)
	assert.Empty(t, g.Diagnostics)
	assert.Len(t, g.Nodes, 2+2*(depth-1)+3)
	seen := make(map[string]bool, len(g.Nodes))
	total, longest := 0, 0
	for _, n := range g.Nodes {
		p := n.Path()
		require.False(t, seen[p], p)
		seen[p] = true
		total += len(p)
		longest = max(longest, len(p))
		require.True(t, n.Reachable, p)
	}
	assert.Less(t, longest, 1024)
	assert.Less(t, total, 1024*len(g.Nodes))
}
