package graph

import "slices"

// isNextIteration tells the back edge of a TF1 while loop: NextIteration
// feeds Merge at the top of the loop, the one cycle TensorFlow's executor
// allows (tensorflow/core/common_runtime/immutable_executor_state.cc).
func isNextIteration(n *Node) bool { return n.Op == "NextIteration" || n.Op == "RefNextIteration" }

// topoOrder orders nodes (all of one scope) so that every node comes after
// its data and control inputs from the same scope, breaking v1 loops at
// NextIteration → Merge edges. Ties keep Node.ID order (Kahn's algorithm
// with a FIFO seeded in ID order). Nodes left on a cycle are appended in ID
// order and returned as cyclic. It walks the consumers the build indexed
// (Graph.Consumers), each once per producer: a node becomes ready when its
// last producer is taken, as it would if every edge were counted.
func topoOrder(g *Graph, nodes []*Node) (order, cyclic []*Node) {
	if len(nodes) == 0 {
		return nil, nil
	}
	base := nodes[0].ID
	in := func(n *Node) bool { return n.ID >= base && n.ID < base+len(nodes) && nodes[n.ID-base] == n }
	// follows tells whether consumer c waits for producer p: through a
	// control edge, or a data edge other than a loop's back edge.
	follows := func(p, c *Node) bool {
		return !isNextIteration(p) || !isMergeLike(c) || slices.Contains(c.ControlInputs, p)
	}
	indeg := make([]int32, len(nodes))
	for _, p := range nodes {
		for _, c := range g.Consumers(p) {
			if in(c) && follows(p, c) {
				indeg[c.ID-base]++
			}
		}
	}
	order = make([]*Node, 0, len(nodes))
	for _, n := range nodes {
		if indeg[n.ID-base] == 0 {
			order = append(order, n)
		}
	}
	for head := 0; head < len(order); head++ {
		p := order[head]
		for _, c := range g.Consumers(p) {
			if in(c) && follows(p, c) {
				if indeg[c.ID-base]--; indeg[c.ID-base] == 0 {
					order = append(order, c)
				}
			}
		}
	}
	if len(order) == len(nodes) {
		return order, nil
	}
	for _, n := range nodes {
		if indeg[n.ID-base] > 0 {
			cyclic = append(cyclic, n)
			order = append(order, n)
		}
	}
	return order, cyclic
}

// isMergeLike is graph_constructor.cc:65-68 IsMerge.
func isMergeLike(n *Node) bool { return n.Op == "Merge" || n.Op == "RefMerge" || n.Op == "_XlaMerge" }

// cycles orders the top-level graph and each function and refuses cycles
// that are not TF1 while loops, in the importer's words
// (graph_constructor.cc:1346-1349: the count is of the nodes that never
// became ready, on a cycle or behind one). A function body is imported the
// same way when it is loaded.
func (b *builder) cycles() {
	g := b.g
	var cyclic []*Node
	g.topo, cyclic = topoOrder(g, g.Nodes[:g.TopLevel])
	if len(cyclic) > 0 {
		b.fatalNode("cycle", rankConvert, cyclic[0], "%d nodes in a cycle", len(cyclic))
	}
	for _, f := range g.Functions {
		f.topo, cyclic = topoOrder(g, f.Nodes)
		if len(cyclic) > 0 {
			b.fatalNode("cycle", rankBody, cyclic[0], "%d nodes in a cycle", len(cyclic))
		}
	}
}

// Topo returns the top-level nodes in topological order (inputs before
// consumers, data and control edges, TF1 loops broken at NextIteration →
// Merge). Nodes on an illegal cycle come last, in ID order. The slice is
// shared; do not modify it.
func (g *Graph) Topo() []*Node { return g.topo }

// Topo returns the function body's nodes in topological order, like
// Graph.Topo.
func (f *Function) Topo() []*Node { return f.topo }
