package graph

// isNextIteration tells the back edge of a TF1 while loop: NextIteration
// feeds Merge at the top of the loop, the one cycle TensorFlow's executor
// allows (tensorflow/core/common_runtime/immutable_executor_state.cc).
func isNextIteration(n *Node) bool { return n.Op == "NextIteration" || n.Op == "RefNextIteration" }

// topoOrder orders nodes (all of one scope) so that every node comes after
// its data and control inputs from the same scope, breaking v1 loops at
// NextIteration → Merge edges. Ties keep Node.ID order (Kahn's algorithm
// with a FIFO seeded in ID order). Nodes left on a cycle are appended in ID
// order and returned as cyclic.
func topoOrder(nodes []*Node) (order, cyclic []*Node) {
	if len(nodes) == 0 {
		return nil, nil
	}
	base := nodes[0].ID
	in := func(n *Node) bool { return n.ID >= base && n.ID < base+len(nodes) && nodes[n.ID-base] == n }
	// Out-edges within the scope, as a flat list grouped by source.
	indeg := make([]int32, len(nodes))
	outCount := make([]int32, len(nodes)+1)
	deps := func(n *Node, visit func(src *Node)) {
		for _, i := range n.Inputs {
			if i.Node != nil && in(i.Node) && !(isNextIteration(i.Node) && isMergeLike(n)) {
				visit(i.Node)
			}
		}
		for _, c := range n.ControlInputs {
			if in(c) {
				visit(c)
			}
		}
	}
	for _, n := range nodes {
		deps(n, func(src *Node) {
			indeg[n.ID-base]++
			outCount[src.ID-base+1]++
		})
	}
	for i := 1; i < len(outCount); i++ {
		outCount[i] += outCount[i-1]
	}
	out := make([]int32, outCount[len(nodes)])
	fill := append([]int32(nil), outCount[:len(nodes)]...)
	for _, n := range nodes {
		deps(n, func(src *Node) {
			out[fill[src.ID-base]] = int32(n.ID - base)
			fill[src.ID-base]++
		})
	}
	order = make([]*Node, 0, len(nodes))
	for _, n := range nodes {
		if indeg[n.ID-base] == 0 {
			order = append(order, n)
		}
	}
	for head := 0; head < len(order); head++ {
		i := order[head].ID - base
		for _, c := range out[outCount[i]:outCount[i+1]] {
			indeg[c]--
			if indeg[c] == 0 {
				order = append(order, nodes[c])
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
	g.topo, cyclic = topoOrder(g.Nodes[:g.TopLevel])
	if len(cyclic) > 0 {
		b.fatalNode("cycle", rankConvert, cyclic[0], "%d nodes in a cycle", len(cyclic))
	}
	for _, f := range g.Functions {
		f.topo, cyclic = topoOrder(f.Nodes)
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
