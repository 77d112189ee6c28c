package graph

import (
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
)

// Standalone returns the analysis node of nd as Build would make it —
// OpDef, attrs completed with the OpDef's defaults, resolved input and
// output dtypes — without a graph around it: no ID (-1), no edges, no
// calls. It answers kernel lookups about a node that is not in a graph
// yet, such as the nodes `tfscan rewrite` considers putting in place of
// another. fn is the function whose body the node would be in (nil at top
// level); it only sets Node.Func.
func (r *OpRegistry) Standalone(nd *nodepb.NodeDef, fn *Function) *Node {
	b := &builder{g: &Graph{Ops: r}}
	n := &Node{}
	b.newNode(n, nd, fn)
	n.ID = -1
	n.edges = nil
	return n
}
