package graph

import (
	"math"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// dtypes are a node's resolved input and output dtypes. The nodes of one
// op with the same attrs share one (attrset.go), and so do those of an op
// whose dtypes no attr sets (opInfo.fixed).
type dtypes struct{ in, out []tpb.DataType }

// rareEdges are the edges few nodes have: control inputs, and the
// functions a node calls.
type rareEdges struct {
	control []*Node
	calls   []*Function
}

// InputTypes are the resolved dtype of every input (DT_INVALID where it
// cannot be told). Nodes of the same op may share the slice: do not
// modify it.
func (n *Node) InputTypes() []tpb.DataType {
	if n.types == nil {
		return nil
	}
	return n.types.in
}

// OutputTypes are the resolved dtype of every output, like InputTypes.
func (n *Node) OutputTypes() []tpb.DataType {
	if n.types == nil {
		return nil
	}
	return n.types.out
}

// SetTypes gives the node these input and output dtypes, for a node made
// outside a build (a synthetic node, a half-precision copy of one).
func (n *Node) SetTypes(in, out []tpb.DataType) { n.types = &dtypes{in: in, out: out} }

// ControlInputs are the nodes named as ^inputs.
func (n *Node) ControlInputs() []*Node {
	if n.edges == nil {
		return nil
	}
	return n.edges.control
}

// Calls are the functions this node calls, through any function-valued
// attr or by naming a library function as its op.
func (n *Node) Calls() []*Function {
	if n.edges == nil {
		return nil
	}
	return n.edges.calls
}

// SetControlInputs gives the node these control inputs, for a node made
// outside a build.
func (n *Node) SetControlInputs(c []*Node) { n.ownEdges().control = c }

// SetCalls gives the node these callees, for a node made outside a build.
func (n *Node) SetCalls(c []*Function) { n.ownEdges().calls = c }

// ownEdges is n's edges to write: a copy of a node (Node is copied by
// value) shares its original's, which a write must not change.
func (n *Node) ownEdges() *rareEdges {
	e := &rareEdges{}
	if n.edges != nil {
		*e = *n.edges
	}
	n.edges = e
	return e
}

// index32 is v as an Input's Output or Arg: an index past int32's range
// (a hand-written "x:9999999999") stays past every node's outputs rather
// than wrapping into them.
func index32(v int) int32 {
	return int32(max(min(v, math.MaxInt32), math.MinInt32))
}
