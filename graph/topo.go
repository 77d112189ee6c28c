package graph

import (
	"slices"
	"unsafe"
)

// isNextIteration tells the back edge of a TF1 while loop: NextIteration
// feeds Merge at the top of the loop, the one cycle TensorFlow's executor
// allows (tensorflow/core/common_runtime/immutable_executor_state.cc).
func isNextIteration(n *Node) bool { return n.Op == "NextIteration" || n.Op == "RefNextIteration" }

// topoOrder orders nodes (all of one scope) so that every node comes after
// its data and control inputs from the same scope, breaking v1 loops at
// NextIteration → Merge edges. Where every node comes after its inputs
// already, the order is the nodes' own; else ties keep Node.ID order
// (Kahn's algorithm with a FIFO seeded in ID order). Nodes left on a cycle
// are appended in ID order and returned as cyclic. It walks the consumers
// the build indexed (Graph.Consumers), each once per producer: a node
// becomes ready when its last producer is taken, as it would if every edge
// were counted.
//
// ids, when set, tells a node's ID from its address without reading the
// node, and loops whether the graph has a NextIteration at all: without
// one, no node is read but those the walk takes.
func topoOrder(g *Graph, nodes []*Node, ids *storeIDs, loops bool) (order, cyclic []*Node) {
	if len(nodes) == 0 {
		return nil, nil
	}
	base := nodes[0].ID
	pos := func(n *Node) int { return ids.id(n) - base }
	in := func(n *Node) bool {
		i := pos(n)
		return i >= 0 && i < len(nodes) && nodes[i] == n
	}
	// follows tells whether consumer c waits for producer p: through a
	// control edge, or a data edge other than a loop's back edge.
	follows := func(p, c *Node) bool {
		return !loops || !isNextIteration(p) || !isMergeLike(c) || slices.Contains(c.ControlInputs(), p)
	}
	indeg := make([]int32, len(nodes))
	forward := true
	for i, p := range nodes {
		for _, c := range g.edges.Of(base + i) {
			if in(c) && follows(p, c) {
				j := pos(c)
				indeg[j]++
				forward = forward && j > i
			}
		}
	}
	if forward {
		// Most GraphDefs list every node after its inputs: their own
		// order is one, and Topo shares their array.
		return nodes[:len(nodes):len(nodes)], nil
	}
	order = make([]*Node, 0, len(nodes))
	for i, n := range nodes {
		if indeg[i] == 0 {
			order = append(order, n)
		}
	}
	for head := 0; head < len(order); head++ {
		p := order[head]
		for _, c := range g.edges.Of(ids.id(p)) {
			if in(c) && follows(p, c) {
				if indeg[pos(c)]--; indeg[pos(c)] == 0 {
					order = append(order, c)
				}
			}
		}
	}
	if len(order) == len(nodes) {
		return order, nil
	}
	for i, n := range nodes {
		if indeg[i] > 0 {
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
	var ids *storeIDs
	if !b.plain && b.topByName != nil && len(b.topByName.nodes) > 0 {
		store := b.topByName.nodes
		ids = &storeIDs{base: uintptr(unsafe.Pointer(&store[0])), n: len(store)}
	}
	loops := b.plain || b.ops["NextIteration"] != nil || b.ops["RefNextIteration"] != nil
	var cyclic []*Node
	g.topo, cyclic = topoOrder(g, g.Nodes[:g.TopLevel], ids, loops)
	if len(cyclic) > 0 {
		b.fatalNode("cycle", rankConvert, cyclic[0], "%d nodes in a cycle", len(cyclic))
	}
	for _, f := range g.Functions {
		f.topo, cyclic = topoOrder(g, f.Nodes, ids, loops)
		if len(cyclic) > 0 {
			b.fatalNode("cycle", rankBody, cyclic[0], "%d nodes in a cycle", len(cyclic))
		}
	}
}

// Topo returns the top-level nodes in topological order (inputs before
// consumers, data and control edges, TF1 loops broken at NextIteration →
// Merge): their own order when it is one (TopoKeepsOrder). Nodes on an
// illegal cycle come last, in ID order. The slice is shared; do not modify
// it.
func (g *Graph) Topo() []*Node { return g.topo }

// Topo returns the function body's nodes in topological order, like
// Graph.Topo.
func (f *Function) Topo() []*Node { return f.topo }

// TopoKeepsOrder tells whether Topo is the top-level nodes in their own
// order: every node comes after its inputs from the top level (bar a TF1
// loop's back edges), as in most GraphDefs. A pass that needs to know so
// then need not check every edge.
func (g *Graph) TopoKeepsOrder() bool {
	return sameArray(g.topo, g.Nodes[:min(g.TopLevel, len(g.Nodes))])
}

// TopoKeepsOrder tells whether Topo is the body's nodes in their own
// order, like Graph.TopoKeepsOrder.
func (f *Function) TopoKeepsOrder() bool { return sameArray(f.topo, f.Nodes) }

// sameArray tells whether a and b are the same elements of one array.
func sameArray(a, b []*Node) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// storeIDs tells the ID of a node of the build's one backing array (whose
// position there is its ID) from its address, without reading the node.
type storeIDs struct {
	base uintptr
	n    int
}

// id is n's ID; a nil storeIDs, or a node from elsewhere, reads it.
func (s *storeIDs) id(n *Node) int {
	if s == nil {
		return n.ID
	}
	off := uintptr(unsafe.Pointer(n)) - s.base
	if off >= uintptr(s.n)*unsafe.Sizeof(Node{}) {
		return n.ID
	}
	return int(off / unsafe.Sizeof(Node{}))
}
