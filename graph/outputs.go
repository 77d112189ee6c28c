package graph

import (
	"fmt"
	"strconv"
)

// unlikelyOutputOps are the ops summarize_graph never takes for an output
// even when nothing consumes them
// (tensorflow/tools/graph_transforms/summarize_graph_main.cc:180-181).
var unlikelyOutputOps = map[string]bool{"Const": true, "Assign": true, "NoOp": true, "Placeholder": true}

// PossibleOutputs are the outputs of a graph that does not say what it
// computes (a frozen GraphDef, a MetaGraphDef or SavedModel without
// signatures), taken as TensorFlow's summarize_graph tool takes them: the
// top-level nodes whose name no top-level node lists among its inputs, data
// or control (MapNodesToOutputs, transform_utils.cc:72-82), leaving out
// Const, Assign, NoOp and Placeholder nodes
// (summarize_graph_main.cc:177-187). The rule is TF's, exactly: it does
// not leave out PlaceholderV2, variables or a saver's nodes, nor look inside
// functions. The nodes come in GraphDef order.
//
// On a graph Build made the list is worked out once (a scan asks for it
// twice: for its report and for its placement's fetches) and shared: read
// it, do not modify it.
func (g *Graph) PossibleOutputs() []*Node {
	top := g.Nodes[:g.TopLevel]
	if len(g.Nodes) > 0 && g.edges.Keys() == len(g.Nodes) && g.outputs != nil {
		// The build's consumer index tells which nodes are consumed
		// without reading every node's inputs.
		g.outputs.once.Do(func() {
			for i, n := range top {
				if len(g.edges.Of(i)) == 0 && !unlikelyOutputOps[n.Op] {
					g.outputs.nodes = append(g.outputs.nodes, n)
				}
			}
		})
		return g.outputs.nodes
	}
	// A graph assembled by hand (tests, benchmarks) has no index: from
	// the nodes' own inputs.
	consumed := make([]bool, len(top))
	mark := func(n *Node) {
		if n != nil && n.ID >= 0 && n.ID < len(top) && top[n.ID] == n {
			consumed[n.ID] = true
		}
	}
	for _, n := range top {
		for _, in := range n.Inputs {
			mark(in.Node)
		}
		for _, c := range n.ControlInputs() {
			mark(c)
		}
	}
	var out []*Node
	for i, n := range top {
		if !consumed[i] && !unlikelyOutputOps[n.Op] {
			out = append(out, n)
		}
	}
	return out
}

// Tensor is one output of a top-level node, as a client fetches it.
type Tensor struct {
	Node   *Node
	Output int
}

// Name is the tensor's name, "node:output".
func (t Tensor) Name() string { return t.Node.Name + ":" + strconv.Itoa(t.Output) }

// NumOutputs is how many outputs n has, and whether that is known (it is
// not for an op in no registry).
func (n *Node) NumOutputs() (int, bool) {
	if n.Unknown {
		return 0, false
	}
	return len(n.OutputTypes()), true
}

// ResolveFetch finds the tensor a client fetch names in the top-level
// graph, as Session::Run does: "node:N" is output N, a name without a
// port is output 0 (ParseTensorName, tensorflow/core/graph/tensor_id.cc:34-63),
// and a node that is missing, has no outputs, or has fewer than N+1 is
// refused with FetchOutputs' errors (tensorflow/core/graph/subgraph.cc:128-157).
func (g *Graph) ResolveFetch(name string) (Tensor, error) {
	node, port, ctl := ParseTensorName(name)
	if ctl {
		return Tensor{}, fmt.Errorf("fetch %s names a control edge, not a tensor", name)
	}
	var n *Node
	for _, c := range g.Nodes[:g.TopLevel] {
		if c.Name == node {
			n = c
			break
		}
	}
	if n == nil {
		return Tensor{}, fmt.Errorf("FetchOutputs node %s: not found", name)
	}
	if k, known := n.NumOutputs(); known {
		if k == 0 {
			return Tensor{}, fmt.Errorf("Tried to fetch data for '%s', which produces no output.  To run to a node but not fetch any data, pass '%s' as an argument to the 'target_node_names' argument of the Session::Run API.", name, name)
		}
		if port >= k {
			return Tensor{}, fmt.Errorf("FetchOutputs %s: output index too large, must be < %d", name, k)
		}
	}
	return Tensor{Node: n, Output: port}, nil
}
