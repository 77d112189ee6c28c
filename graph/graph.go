// Package graph is the model every later stage of tfscan walks: every node of
// the top-level graph and of every function in the library, with stable
// paths, call edges through function-valued attrs, reachability per
// signature, attrs completed with OpDef defaults and resolved dtypes.
package graph

import (
	"sync"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	fpb "github.com/wamuir/graft/tensorflow/core/framework/function_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/internal/csr"
	"github.com/tfscan/tfscan/savedmodel"
)

// Graph is one MetaGraph of a model, built for analysis.
type Graph struct {
	Model     *savedmodel.Model
	MetaGraph *savedmodel.MetaGraph
	// Nodes holds every node: the top-level graph's first, in GraphDef order,
	// then each function's, functions in name order. Node.ID indexes it.
	Nodes []*Node
	// TopLevel is the number of leading entries of Nodes that belong to the
	// top-level graph.
	TopLevel int
	// Functions in name order; FunctionByName indexes them.
	Functions      []*Function
	FunctionByName map[string]*Function
	Ops            *OpRegistry
	Signatures     []*savedmodel.Signature
	// Diagnostics are the problems found, in a deterministic order: those
	// TensorFlow refuses the graph for (Fatal; Build then also returns an
	// *InvalidGraphError) and those it does not (unknown ops, input counts).
	Diagnostics []Diagnostic

	edges csr.Groups[*Node] // consumers by producer (index)
	topo  []*Node           // top-level topological order
	// ops are the ops of the nodes, functions' included, as the build met
	// them (HasOp, HasAnyOp); nil for a graph Build did not make.
	ops map[string]*opInfo
	// reached tells that Build set every node's Reachable (reachability),
	// walking from reachRoots.
	reached    bool
	reachRoots []*Node
	// reachable counts the nodes reachability marked Reachable.
	reachable int
	// outputs are PossibleOutputs' nodes, worked out once; nil for a
	// graph Build did not make.
	outputs *outputsOnce
}

// outputsOnce holds PossibleOutputs' nodes once worked out (a pointer in
// Graph, which copies of a Graph share).
type outputsOnce struct {
	once  sync.Once
	nodes []*Node
}

// HasOp tells whether some node of the graph, a function's included, may
// be of op: false only when Build met none, so that a walk looking for a
// few ops skips a graph that has none of them. A Graph made otherwise may
// hold any op.
func (g *Graph) HasOp(op string) bool {
	if g.ops == nil {
		return true
	}
	_, ok := g.ops[op]
	return ok
}

// HasAnyOp tells whether some node of the graph may be of an op match
// accepts: HasOp for a set of ops told by a predicate rather than listed.
func (g *Graph) HasAnyOp(match func(op string) bool) bool {
	if g.ops == nil {
		return true
	}
	for op := range g.ops {
		if match(op) {
			return true
		}
	}
	return false
}

// Function is one FunctionDef of the library.
type Function struct {
	Name  string
	Def   *fpb.FunctionDef
	Nodes []*Node
	// ArgTypes and RetTypes are the resolved dtypes of the signature's
	// arguments and results (DT_INVALID where a polymorphic type is unbound).
	ArgTypes, RetTypes []tpb.DataType
	// Rets are the function's results in the signature's output_arg
	// order, each the body's output or argument its ret names, resolved
	// as a body node's input is: the node's output arg and index
	// flattened over its outputs. A result whose ret names nothing the
	// body has is Arg -1 (TensorFlow refuses to instantiate the function).
	Rets []Input
	// Callers are the nodes that call this function, in Node.ID order.
	Callers []*Node
	// Recursive is set when the function can reach itself through calls.
	Recursive bool

	// index is the function's position in Graph.Functions plus one, set
	// by Build: 0 for a Function made otherwise (Index).
	index int
	topo  []*Node
	// unpruned are the body's nodes that run whatever its results need
	// (runsUnpruned), listed by the build once pruneKnown.
	unpruned   []*Node
	pruneKnown bool
	// returns are the body nodes its ret and control_ret name, which the
	// build's reachability follows from a call (returnNodes).
	returns []*Node
	// caller is the node whose path prefixes this function's node paths
	// (the first caller of the walk in paths.go); nil for a function
	// nobody calls, whose nodes' paths start with its name. sig is the
	// signature key before a top-level caller's name, when viaSig.
	caller *Node
	sig    string
	viaSig bool
	// depth is the number of calls down to this function in its path (1
	// under a top-level caller or for a function nobody calls); head is
	// its ancestor pathHeadCalls+1 calls down, where a shortened path
	// leaves out calls (paths.go).
	depth int32
	head  *Function
}

// Index is f's position in the Functions of the graph Build made it for,
// -1 for a Function made otherwise or nil: a pass keeps what it knows of
// each function in a slice by Index rather than in a map. A graph
// assembled by hand may list a built function elsewhere, so a reader
// checks that the function at Index is f.
func (f *Function) Index() int {
	if f == nil {
		return -1
	}
	return f.index - 1
}

// Node is one NodeDef, in the top-level graph or in a function body.
type Node struct {
	ID   int
	Name string
	Op   string
	// Func is the function whose body holds the node; nil at top level.
	Func *Function
	Def  *nodepb.NodeDef
	// OpDef is nil for an op in no registry (a custom op) and for a call of
	// a library function by op name.
	OpDef *opdefpb.OpDef
	// Attrs are the NodeDef's attrs completed with the OpDef's defaults. It
	// is the NodeDef's own map when no default was missing (nil for a node
	// without attrs): read it, do not modify it.
	Attrs  map[string]*attrpb.AttrValue
	Device string
	// Inputs are the data inputs in order; ControlInputs the ^inputs.
	Inputs []Input
	// types are the node's dtypes (InputTypes, OutputTypes), edges its
	// control inputs and calls (ControlInputs, Calls): a pointer each keeps
	// a node small, which every walk over a graph's nodes reads the faster
	// for (nodeparts.go).
	types *dtypes
	edges *rareEdges
	// Reachable is set when some signature output (or, without signatures,
	// some sink) needs this node through data or control edges.
	Reachable bool
	// Unknown is set when the op is in no op registry and is no function.
	Unknown bool
	// dup is k ≥ 2 when the path carries a "#k" suffix to stay unique.
	dup int32
}

// Input is one data input edge.
type Input struct {
	// Node produces the value; nil when the input is a function argument.
	Node *Node
	// Output is the index of the producing output (flattened over the
	// OpDef's output args).
	Output int32
	// Arg is the function argument's index when Node is nil; -1 when the
	// input names nothing (a dangling input, also reported as a Diagnostic).
	Arg int32
}

// Diagnostic is a problem found while building the graph.
type Diagnostic struct {
	Kind string // "recursion", "unknown_op", "dangling_input", ...
	// Path is the node's Path(), or the function's name for a
	// function-level problem.
	Path string
	// Message is TensorFlow's own words where TensorFlow refuses the
	// graph for this problem.
	Message string
	// Fatal marks a problem TensorFlow refuses to import or load the graph
	// for (validate.go lists them and where TensorFlow checks each).
	Fatal bool

	node     *Node  // the node it is about
	function string // or the function
	rank     int    // when TensorFlow meets it, for a fatal one
}
