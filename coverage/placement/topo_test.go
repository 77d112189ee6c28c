package placement

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tfscan/tfscan/graph"
)

// topoOrder's shortcut for nodes already in order gives what the sort
// gives: on random graphs with forward edges only, with some backward
// edges and cycles, with NextIteration back edges, with edges from
// outside the set, and with IDs that are not positions.
func TestTopoOrderShortcut(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 500; trial++ {
		n := 1 + rng.Intn(30)
		outside := &graph.Node{ID: 10_000, Name: "outside", Op: "Const"}
		nodes := make([]*graph.Node, n)
		// Now and then the IDs are not the positions (a graph made by
		// hand): the shortcut, which reads positions from IDs, must
		// not take them for positions.
		ids := rng.Perm(n)
		if trial%5 != 4 {
			ids = nil
		}
		for i := range nodes {
			op := "Identity"
			if rng.Intn(8) == 0 {
				op = "NextIteration"
			}
			nodes[i] = &graph.Node{ID: 100 + i, Name: string(rune('a' + i%26)), Op: op}
			if ids != nil {
				nodes[i].ID = 100 + ids[i]
			}
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
					nd.SetControlInputs(append(nd.ControlInputs(), src))
				}
			}
		}
		assert.Equal(t, topoSort(nodes), topoOrder(nodes, false), "trial %d", trial)
	}
}

// The build's word that a scope is in order (TopoKeepsOrder) stands for
// topoOrder's own check: on built random graphs, mostly in order, with
// control edges, loops' NextIteration and now and then a later input,
// the order is the sort's.
func TestTopoOrderTakesTheBuildsWord(t *testing.T) {
	ops := []string{"Identity", "Merge", "NextIteration", "NoOp"}
	kept := 0
	for trial := range 300 {
		rng := rand.New(rand.NewSource(int64(trial)))
		n := 1 + rng.Intn(12)
		var text strings.Builder
		text.WriteString("graph_def {\n")
		for i := range n {
			op := "NoOp"
			if i > 0 {
				op = ops[rng.Intn(len(ops))]
			}
			fmt.Fprintf(&text, "node { name: \"n%d\" op: %q", i, op)
			data := map[string]int{"Identity": 1, "Merge": 2, "NextIteration": 1}[op]
			for range data {
				j := rng.Intn(i)
				if trial%4 == 0 && rng.Intn(4) == 0 {
					j = rng.Intn(n)
				}
				fmt.Fprintf(&text, " input: \"n%d\"", j)
			}
			if i > 0 && rng.Intn(2) == 0 {
				fmt.Fprintf(&text, " input: \"^n%d\"", rng.Intn(i))
			}
			switch op {
			case "Merge":
				text.WriteString(` attr { key: "N" value { i: 2 } }`)
				fallthrough
			case "Identity", "NextIteration":
				text.WriteString(` attr { key: "T" value { type: DT_FLOAT } }`)
			}
			text.WriteString(" }\n")
		}
		text.WriteString("}\n")
		g, _ := buildGraphErr(t, text.String())
		top := g.Nodes[:g.TopLevel]
		if g.TopoKeepsOrder() {
			kept++
		}
		assert.Equal(t, names(topoSort(top)), names(topoOrder(top, g.TopoKeepsOrder())), "trial %d:\n%s", trial, text.String())
	}
	assert.Greater(t, kept, 50, "enough graphs in order")
	assert.Less(t, kept, 280, "enough graphs out of order")
}

func names(nodes []*graph.Node) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.Name
	}
	return out
}
