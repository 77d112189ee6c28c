package graph

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTopoOrderCountsEveryEdge checks the order Build gives, which walks
// each producer's consumers once, against Kahn's algorithm over every edge
// (topoOrderEveryEdge), and each node's consumers against a plain count,
// on random graphs with repeated inputs, control inputs, nodes of many
// inputs, cycles and loops' NextIteration → Merge back edges.
func TestTopoOrderCountsEveryEdge(t *testing.T) {
	ops := []string{"AddN", "Merge", "NextIteration", "NoOp"}
	for trial := range 200 {
		r := rand.New(rand.NewPCG(uint64(trial), 7))
		n := 2 + r.IntN(12)
		var text strings.Builder
		text.WriteString("graph_def {\n")
		for i := range n {
			op := ops[r.IntN(len(ops))]
			fmt.Fprintf(&text, "node { name: \"n%d\" op: %q", i, op)
			data := 0
			switch op {
			case "AddN", "Merge":
				data = 1 + r.IntN(3)
				if r.IntN(8) == 0 {
					data = fewProducers + r.IntN(4)
				}
			case "NextIteration":
				data = 1
			}
			for range data {
				// Mostly earlier nodes; now and then a later one (a cycle).
				j := r.IntN(i + 1)
				if r.IntN(5) == 0 {
					j = r.IntN(n)
				}
				fmt.Fprintf(&text, " input: \"n%d\"", j)
			}
			for range r.IntN(3) {
				fmt.Fprintf(&text, " input: \"^n%d\"", r.IntN(n))
			}
			switch op {
			case "AddN", "Merge":
				fmt.Fprintf(&text, ` attr { key: "N" value { i: %d } } attr { key: "T" value { type: DT_FLOAT } }`, data)
			case "NextIteration":
				text.WriteString(` attr { key: "T" value { type: DT_FLOAT } }`)
			}
			text.WriteString(" }\n")
		}
		text.WriteString("}\n")
		g, _ := buildErr(t, text.String())
		want, cyclic := topoOrderEveryEdge(g.Nodes[:g.TopLevel])
		assert.Equal(t, names(want), names(g.Topo()), "trial %d:\n%s", trial, text.String())
		assert.Equal(t, len(cyclic) == 0 && slices.Equal(want, g.Nodes[:g.TopLevel]), g.TopoKeepsOrder(), "trial %d", trial)
		for _, p := range g.Nodes {
			var consumers []*Node
			for _, c := range g.Nodes {
				if slices.ContainsFunc(c.Inputs, func(in Input) bool { return in.Node == p }) || slices.Contains(c.ControlInputs(), p) {
					consumers = append(consumers, c)
				}
			}
			assert.Equal(t, names(consumers), names(g.Consumers(p)), "trial %d: consumers of %s", trial, p.Name)
		}
	}
}

// topoOrderEveryEdge is the nodes' own order when every data and control
// edge of one scope runs forward in it, else Kahn's algorithm over every
// edge, each counted as often as it is written, with a FIFO seeded in ID
// order; nodes left on a cycle come last in ID order.
func topoOrderEveryEdge(nodes []*Node) (order, cyclic []*Node) {
	base := nodes[0].ID
	in := func(n *Node) bool { return n.ID >= base && n.ID < base+len(nodes) && nodes[n.ID-base] == n }
	indeg := make([]int, len(nodes))
	out := make([][]*Node, len(nodes))
	forward := true
	for _, n := range nodes {
		edge := func(p *Node) {
			indeg[n.ID-base]++
			out[p.ID-base] = append(out[p.ID-base], n)
			forward = forward && p.ID < n.ID
		}
		for _, i := range n.Inputs {
			if i.Node != nil && in(i.Node) && !(isNextIteration(i.Node) && isMergeLike(n)) {
				edge(i.Node)
			}
		}
		for _, c := range n.ControlInputs() {
			if in(c) {
				edge(c)
			}
		}
	}
	if forward {
		return nodes, nil
	}
	for _, n := range nodes {
		if indeg[n.ID-base] == 0 {
			order = append(order, n)
		}
	}
	for head := 0; head < len(order); head++ {
		for _, c := range out[order[head].ID-base] {
			if indeg[c.ID-base]--; indeg[c.ID-base] == 0 {
				order = append(order, c)
			}
		}
	}
	for _, n := range nodes {
		if indeg[n.ID-base] > 0 {
			cyclic = append(cyclic, n)
			order = append(order, n)
		}
	}
	return order, cyclic
}
