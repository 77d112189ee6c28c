package placement

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tfscan/tfscan/graph"
)

// topoOrder's shortcut for nodes already in order gives what the sort
// gives: on random graphs with forward edges only, with some backward
// edges and cycles, with NextIteration back edges and with edges from
// outside the set.
func TestTopoOrderShortcut(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 500; trial++ {
		n := 1 + rng.Intn(30)
		outside := &graph.Node{ID: 10_000, Name: "outside", Op: "Const"}
		nodes := make([]*graph.Node, n)
		for i := range nodes {
			op := "Identity"
			if rng.Intn(8) == 0 {
				op = "NextIteration"
			}
			nodes[i] = &graph.Node{ID: 100 + i, Name: string(rune('a' + i%26)), Op: op}
		}
		backward := trial%3 == 0
		for i, nd := range nodes {
			for e := rng.Intn(3); e > 0; e-- {
				var src *graph.Node
				switch {
				case rng.Intn(10) == 0:
					src = outside
				case backward || i == 0:
					src = nodes[rng.Intn(n)]
				default:
					src = nodes[rng.Intn(i)]
				}
				if rng.Intn(2) == 0 {
					nd.Inputs = append(nd.Inputs, graph.Input{Node: src})
				} else {
					nd.ControlInputs = append(nd.ControlInputs, src)
				}
			}
		}
		assert.Equal(t, topoSort(nodes), topoOrder(nodes), "trial %d", trial)
	}
}
