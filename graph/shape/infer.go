package shape

import (
	"fmt"
	"slices"
	"sort"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tspb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/csr"
	"github.com/tfscan/tfscan/internal/hugepage"
	"github.com/tfscan/tfscan/internal/lastfew"
	"github.com/tfscan/tfscan/savedmodel/bundle"
)

// Shapes holds the inferred output of every node and function argument.
type Shapes struct {
	// outs are the inferred nodes' output tensors, packed (most have
	// neither values nor handle data): node n's are its
	// len(n.OutputTypes()) from index at[n.ID]-1 on, shared with the nodes
	// alike (inferred).
	outs  packedOuts
	extra []packedExtra
	// at is each node's state by graph.Node.ID: pending (0), inferring,
	// else where its outputs start in outs, plus one. Appending the
	// outputs as nodes are inferred needs no walk to count them first.
	at []int32
	// fns is what inference knows of each function, by slot (slot).
	fns []body
	// others are the slots of the functions met that g.Functions does not
	// hold at their Index (those of a graph assembled by hand).
	others map[*graph.Function]int
	// bodies is the memory of the bodies' arguments and results, which
	// live as long as s: carved from arrays of a few hundred
	// (bodyTensors) rather than allocated two for every function.
	bodies []Tensor
	// AssumedDims lists every assumption made, e.g.
	// "x: dim 0 = 1 (default batch)", sorted.
	AssumedDims []string

	g       *graph.Graph
	inputs  map[string][]int64
	dims    map[string]int64
	ckpt    *bundle.Reader
	assumed map[string]bool
	// captured is the handle data of the arguments a SavedModel's object
	// graph binds to each function's captures, by function name.
	captured map[string][][]ShapeAndType
	// ins is the memory of the nodes' input tensors, taken and given back
	// like a stack (a call's rule infers the callee's nodes while its own
	// inputs are in use).
	ins []Tensor
	// reference infers every scope in walkOrder (scopeOrder) and runs
	// every node's rule (no alike): the plain inference the shortcuts are
	// tested against.
	reference bool
	// consts are the shapes and values of the last few Const tensors
	// (constOf), outputShapes the `_output_shapes` of the last few attr
	// maps (outputShapesOf).
	consts       lastfew.Cache[constKey, constAnswer]
	outputShapes lastfew.Cache[uintptr, []*tspb.TensorShapeProto]
	// alike holds, for the last few ops and attr maps, the last
	// inference of the op whose outputs follow from the op, the attrs and
	// the inputs alone (alikeOp), with the inputs it was made from, or
	// that the op's do not (node).
	alike lastfew.Cache[alikeKey, alikeAnswer]
}

// alikeKey is an op and its node's attr map (by address: the build hands
// nodes whose attrs are alike one map).
type alikeKey struct {
	attrs uintptr
	op    string
}

type alikeAnswer struct {
	ins []Tensor
	// packed are ins as outs would keep them, for the inputs without a
	// value or handle data, which sameInputs compares where they are kept.
	packed []packed
	// at is where the outputs start in Shapes.outs, outs how many there
	// are: a node alike takes the same ones (inferred).
	at, outs int32
	// never: the op's rule reads more than the op, attrs and inputs
	// (alikeOp is false), told once while the key is held.
	never bool
}

// outputShapesOf is attrs["_output_shapes"]'s list of shapes, remembered
// for the last few attr maps: the build hands nodes whose attrs are alike
// one map, and a layer's nodes come together. The maps are the inferred
// graph's, alive while it is: an address stands for one map.
func (s *Shapes) outputShapesOf(attrs map[string]*attrpb.AttrValue) []*tspb.TensorShapeProto {
	if len(attrs) == 0 {
		return nil
	}
	id := graph.AttrsID(attrs)
	if l, ok := s.outputShapes.Get(id); ok {
		return l
	}
	l := attrs["_output_shapes"].GetList().GetShape()
	s.outputShapes.Put(id, l)
	return l
}

// The states of a node before it is inferred (Shapes.at).
const (
	pending   = 0
	inferring = -1
)

// body is what inference knows of one function's body.
type body struct {
	// args are the arguments it is inferred with, from enter on; rets its
	// results, from leave on.
	args, rets []Tensor
	state      bodyState
	// calls: the body holds a node that calls a function (callingScopes).
	calls bool
}

// bodyState is how far a body's inference is.
type bodyState uint8

const (
	bodyPending bodyState = iota
	// bodyBusy from enter to leave: a recursive call sees no results.
	bodyBusy
	bodyDone
)

// Options are what inference knows besides the graph.
type Options struct {
	// Inputs gives shapes of fed tensors by tensor name ("x:0") or node
	// name, with -1 for unknown dimensions.
	Inputs map[string][]int64
	// Dims gives values for unknown dimensions by input name, or "batch"
	// for dimension 0 of every input (default 1).
	Dims map[string]int64
	// Checkpoint is the index of the model's checkpoint, nil when it has
	// none: what it records is ground truth for the tensors restored from
	// it (checkpoint.go).
	Checkpoint *bundle.Reader
}

// Infer walks g (the top-level graph, then every function, each in
// topological order) and infers output shapes.
func Infer(g *graph.Graph, o Options) *Shapes {
	return infer(g, o, false)
}

// scopeOrder is the order a scope's nodes (the top level's, or a body's)
// are inferred in, topo its topological order from the build (Graph.Topo,
// Function.Topo: data and control edges, loops broken at NextIteration).
// Where no node of the scope calls a function, any topological order gives
// every node the same inputs, and the build's is at hand. Where one does
// (calls), the order decides which caller's arguments a callee's body is
// inferred with (function), and the walk's data-edge order (walkOrder)
// stays the one; so it does for every scope under reference.
func scopeOrder(nodes, topo []*graph.Node, walkOnly, calls bool) []*graph.Node {
	if walkOnly || calls || len(topo) != len(nodes) {
		return walkOrder(nodes)
	}
	return topo
}

// callingScopes marks the bodies that hold a node that calls a function
// (body.calls), and tells whether the top level does: the scopes of every
// function's callers (graph.Function.Callers), rather than a read of every
// node's calls.
func (s *Shapes) callingScopes() (top bool) {
	for _, f := range s.g.Functions {
		for _, c := range f.Callers {
			if c.Func == nil {
				top = true
			} else {
				s.fns[s.slot(c.Func)].calls = true
			}
		}
	}
	return top
}

// slot is where s.fns keeps what inference knows of f: at f's Index where
// g.Functions holds f there, as it does every function of a built graph,
// else past those, taken when f is first met.
func (s *Shapes) slot(f *graph.Function) int {
	if k, ok := s.known(f); ok {
		return k
	}
	if s.others == nil {
		s.others = map[*graph.Function]int{}
	}
	k := len(s.fns)
	s.fns = append(s.fns, body{})
	s.others[f] = k
	return k
}

// known is f's slot, when f has one.
func (s *Shapes) known(f *graph.Function) (int, bool) {
	if k := f.Index(); s.g != nil && k >= 0 && k < len(s.g.Functions) && s.g.Functions[k] == f {
		return k, true
	}
	k, ok := s.others[f]
	return k, ok
}

// infer is Infer; reference walks every scope in walkOrder and runs every
// node's rule: the plain inference that scopeOrder's choice and the alike
// shortcut are tested against.
func infer(g *graph.Graph, o Options, reference bool) *Shapes {
	// Filled in one pass, at is backed by huge pages where it spans them
	// (hugepage.Make); a node's entry is read before it is written, so its
	// pages are written first (hugepage.Touch).
	s := &Shapes{
		outs:      packedOuts{first: len(g.Nodes) + 16},
		at:        hugepage.Touch(hugepage.Make[int32](len(g.Nodes))),
		fns:       make([]body, len(g.Functions)),
		g:         g,
		inputs:    o.Inputs,
		dims:      o.Dims,
		ckpt:      o.Checkpoint,
		assumed:   map[string]bool{},
		captured:  capturedHandles(g),
		reference: reference,
	}
	top := g.Nodes[:min(g.TopLevel, len(g.Nodes))]
	s.run(frame{order: scopeOrder(top, g.Topo(), reference, s.callingScopes())})
	for _, f := range g.Functions {
		s.function(f, nil)
	}
	for k := range s.assumed {
		s.AssumedDims = append(s.AssumedDims, k)
	}
	sort.Strings(s.AssumedDims)
	s.inputs, s.dims, s.ckpt, s.captured = nil, nil, nil, nil
	return s
}

// state is node n's entry in at; inferring, which never ends, for a node
// of no graph.
func (s *Shapes) state(n *graph.Node) int32 {
	if n.ID < 0 || n.ID >= len(s.at) {
		return inferring
	}
	return s.at[n.ID]
}

// packedOutput is output i of n as outs keeps it, once n is inferred.
func (s *Shapes) packedOutput(n *graph.Node, i int) (*packed, bool) {
	if s == nil || n == nil || i < 0 || i >= len(n.OutputTypes()) {
		return nil, false
	}
	k := int(s.state(n)) - 1 + i
	if k < i {
		return nil, false
	}
	return s.outs.at(k)
}

// Output returns what is known about output i of n.
func (s *Shapes) Output(n *graph.Node, i int) (Tensor, bool) {
	p, ok := s.packedOutput(n, i)
	if !ok {
		return Tensor{}, false
	}
	return s.unpack(*p), true
}

// Bytes is the size of output i of n, when known.
func (s *Shapes) Bytes(n *graph.Node, i int) (int64, bool) {
	t, ok := s.Output(n, i)
	if !ok {
		return 0, false
	}
	return t.Bytes()
}

// Assumed reports whether output i of n rests on an assumed dimension.
func (s *Shapes) Assumed(n *graph.Node, i int) bool {
	t, ok := s.Output(n, i)
	return ok && t.Assumed
}

// Arg returns what is known about argument i of f.
func (s *Shapes) Arg(f *graph.Function, i int) (Tensor, bool) {
	if s == nil {
		return Tensor{}, false
	}
	k, ok := s.known(f)
	if !ok {
		return Tensor{}, false
	}
	a := s.fns[k].args
	if i < 0 || i >= len(a) {
		return Tensor{}, false
	}
	return a[i], true
}

// ArgBytes is the size of argument i of f, when known.
func (s *Shapes) ArgBytes(f *graph.Function, i int) (int64, bool) {
	t, ok := s.Arg(f, i)
	if !ok {
		return 0, false
	}
	return t.Bytes()
}

// function infers f's body once; args (from the first caller) win over
// the arg_attr `_output_shapes` (argHandle says where a resource
// argument's handle data comes from). It returns the results.
func (s *Shapes) function(f *graph.Function, args []Tensor) []Tensor {
	k := s.slot(f)
	if s.fns[k].state == bodyPending {
		s.run(s.enter(f, args))
	}
	return s.fns[k].rets
}

// frame is one body being inferred: the nodes in the order walk visits
// them and the next one to infer. f is nil for the top-level graph.
type frame struct {
	f     *graph.Function
	order []*graph.Node
	next  int
}

// run infers root's nodes, and the bodies of the functions they call, with
// an explicit stack of frames rather than Go recursion: a model may nest
// 10,000 or more calls, and a goroutine's stack is finite. Before a node
// that calls a function not yet inferred, the callee's body is inferred
// with the arguments the call passes (pendingCall), so that callRule finds
// its results; the order is that of recursing into the callee at the node.
func (s *Shapes) run(root frame) {
	stack := []frame{root}
	for len(stack) > 0 {
		fr := &stack[len(stack)-1]
		if fr.next == len(fr.order) {
			if fr.f != nil {
				s.leave(fr.f)
			}
			stack = stack[:len(stack)-1]
			continue
		}
		n := fr.order[fr.next]
		mark := len(s.ins)
		if f, args := s.pendingCall(n); f != nil {
			stack = append(stack, s.enter(f, args))
			s.ins = s.ins[:mark]
			continue
		}
		s.node(n)
		fr.next++
	}
}

// enter starts inferring f's body: its arguments, and the frame that walks
// it. f stays busy (a recursive call sees no results) until leave. args
// are copied: they may be on s.ins.
func (s *Shapes) enter(f *graph.Function, args []Tensor) frame {
	k := s.slot(f)
	s.fns[k].state = bodyBusy
	sig := f.Def.GetSignature()
	in := s.bodyTensors(len(sig.GetInputArg()))
	for i, a := range sig.GetInputArg() {
		t := Tensor{Shape: unknownRank()}
		if i < len(f.ArgTypes) {
			t.DType = f.ArgTypes[i]
		}
		if i < len(args) && args[i].Shape.Rank() >= 0 {
			t = args[i]
		} else if aa := f.Def.GetArgAttr()[uint32(i)]; aa != nil {
			if l := aa.GetAttr()["_output_shapes"].GetList().GetShape(); len(l) > 0 {
				t.Shape, t.Assumed = s.fill(fromProto(l[0]), a.GetName())
			}
		}
		if t.Handle == nil {
			t.Handle = s.argHandle(f, i)
		}
		in[i] = t
	}
	s.fns[k].args = in
	return frame{f: f, order: scopeOrder(f.Nodes, f.Topo(), s.reference, s.fns[k].calls)}
}

// leave takes f's results (graph.Function.Rets) from its inferred body.
func (s *Shapes) leave(f *graph.Function) {
	b := &s.fns[s.slot(f)]
	in := b.args
	rets := s.bodyTensors(len(f.Rets))
	for i, r := range f.Rets {
		rets[i] = Tensor{Shape: unknownRank()}
		if i < len(f.RetTypes) {
			rets[i].DType = f.RetTypes[i]
		}
		switch {
		case r.Node != nil:
			if t, ok := s.Output(r.Node, int(r.Output)); ok {
				rets[i] = t
			}
		case r.Arg >= 0 && int(r.Arg) < len(in):
			rets[i] = in[r.Arg]
		}
	}
	b.rets, b.state = rets, bodyDone
}

// walkOrder is the order nodes are inferred in: topological over data edges
// (cycles through NextIteration are cut, ties in the given order), then the
// nodes left on a cycle, in the given order.
func walkOrder(nodes []*graph.Node) []*graph.Node {
	pos := positions(nodes)
	edge := func(in graph.Input) (int, bool) {
		if in.Node == nil || in.Node.Op == "NextIteration" {
			return 0, false
		}
		return pos(in.Node)
	}
	// Each node's consumers, in the order the loop meets them, and its
	// number of producers.
	indeg := make([]int32, len(nodes))
	outs := csr.Build(len(nodes), func(add func(int, int32)) {
		for i, n := range nodes {
			for _, in := range n.Inputs {
				if j, ok := edge(in); ok {
					add(j, int32(i))
				}
			}
		}
	})
	for j := range nodes {
		for _, i := range outs.Of(j) {
			indeg[i]++
		}
	}
	queue := make([]int32, 0, len(nodes))
	for i := range nodes {
		if indeg[i] == 0 {
			queue = append(queue, int32(i))
		}
	}
	order := make([]*graph.Node, 0, len(nodes))
	placed := make([]bool, len(nodes))
	for head := 0; head < len(queue); head++ {
		i := queue[head]
		placed[i] = true
		order = append(order, nodes[i])
		for _, j := range outs.Of(int(i)) {
			indeg[j]--
			if indeg[j] == 0 {
				queue = append(queue, j)
			}
		}
	}
	for i, n := range nodes {
		if !placed[i] {
			order = append(order, n)
		}
	}
	return order
}

func (s *Shapes) input(n *graph.Node, i int) Tensor {
	in := n.Inputs[i]
	if in.Node == nil {
		if n.Func != nil {
			if t, ok := s.Arg(n.Func, int(in.Arg)); ok {
				return t
			}
		}
		return Tensor{Shape: unknownRank()}
	}
	if t, ok := s.Output(in.Node, int(in.Output)); ok {
		return t
	}
	t := Tensor{Shape: unknownRank()}
	if int(in.Output) < len(in.Node.OutputTypes()) {
		t.DType = in.Node.OutputTypes()[in.Output]
	}
	return t
}

func (s *Shapes) node(n *graph.Node) {
	if s.state(n) != pending {
		return
	}
	// A layer's nodes repeat: a node of an op whose rule reads nothing but
	// the op, the attrs and the inputs takes the outputs of the last node
	// of its op and attr map (one of the last few such pairs) when its
	// inputs are the same, compared where they are kept (sameInputs).
	key := alikeKey{graph.AttrsID(n.Attrs), n.Op}
	a, known := s.alike.Get(key)
	alike := known && !a.never && !s.reference && len(n.Calls()) == 0 && int(a.outs) == len(n.OutputTypes())
	if alike && s.sameInputs(n, a) {
		s.inferred(n, a)
		return
	}
	s.at[n.ID] = inferring
	mark := len(s.ins)
	ins := s.takeIns(len(n.Inputs))
	assumed := false
	for i := range n.Inputs {
		ins[i] = s.input(n, i)
		assumed = assumed || ins[i].Assumed
	}
	// The rule writes whole Tensors on top of s.ins; they are packed into
	// s.outs once final.
	if alike && sameTensors(a.ins, ins) {
		s.inferred(n, a)
		s.ins = s.ins[:mark]
		return
	}
	outs := s.takeIns(len(n.OutputTypes()))
	for i := range outs {
		outs[i] = Tensor{DType: n.OutputTypes()[i], Shape: unknownRank()}
	}
	s.rule(n, ins, outs)
	// Fill what the rules left unknown from `_output_shapes`.
	if l := s.outputShapesOf(n.Attrs); len(l) > 0 {
		for i := range outs {
			if i < len(l) {
				outs[i].Shape = merge(outs[i].Shape, fromProto(l[i]))
			}
		}
	}
	at, kept := s.outs.add(len(outs))
	for i := range outs {
		outs[i].Assumed = outs[i].Assumed || assumed
		if len(outs[i].Value) > maxValue {
			outs[i].Value = nil
		}
		kept[i] = s.pack(outs[i])
	}
	// A node that calls functions is never alike, and its attr map is its
	// own (its function attr names the callee): an answer kept for it would
	// only push out of the few kept the bodies' answers, which every
	// function's nodes ask for again.
	switch {
	case !known && len(n.Calls()) == 0 && !s.alikeOp(n.Op):
		s.alike.Put(key, alikeAnswer{never: true})
	case !a.never && len(n.Calls()) == 0 && !slices.ContainsFunc(ins, hasHandle):
		s.alike.Put(key, s.answer(ins, at, len(outs)))
	}
	s.at[n.ID] = int32(at + 1)
	s.ins = s.ins[:mark]
}

// answer is what the alike cache keeps of a node inferred from ins to
// the outs outputs from index at of s.outs on.
func (s *Shapes) answer(ins []Tensor, at, outs int) alikeAnswer {
	a := alikeAnswer{ins: slices.Clone(ins), packed: make([]packed, len(ins)), at: int32(at), outs: int32(outs)}
	for i, t := range ins {
		a.packed[i] = packPlain(t)
	}
	return a
}

// inferred gives n the outputs of a, where they are kept: the outputs of
// nodes alike are one copy in s.outs, never written once packed, so a
// layer repeated over a graph adds nothing to s.outs past its first.
func (s *Shapes) inferred(n *graph.Node, a alikeAnswer) {
	s.at[n.ID] = a.at + 1
}

// alikeOp tells whether op's rule reads only the op, the node's attrs and
// its input tensors (node remembers it only for inputs without handle
// data, which resourceRule forwards): not the node's name, its inputs'
// nodes or its calls, as the Placeholder, checkpoint, example-parsing and
// call rules do, and the Const rule where a TF.js model's weights give
// the values by node name (tfjsWeight).
func (s *Shapes) alikeOp(op string) bool {
	if op == "Const" {
		return s.g.Model == nil || s.g.Model.Weights == nil
	}
	return unaryOps[op] || binaryOps[op] || reduceOps[op] ||
		op == "MatMul" || op == "_FusedMatMul" || op == "MatMulV2" ||
		op == "BatchMatMul" || op == "BatchMatMulV2" || op == "BatchMatMulV3" ||
		op == "Conv2D" || op == "_FusedConv2D" || op == "DepthwiseConv2dNative" ||
		op == "FusedBatchNorm" || op == "FusedBatchNormV2" || op == "FusedBatchNormV3"
}

func hasHandle(t Tensor) bool { return t.Handle != nil }

// sameTensors tells whether a and b are the same tensors as inference
// knows them (sameTensor).
func sameTensors(a, b []Tensor) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameTensor(&a[i], &b[i]) {
			return false
		}
	}
	return true
}

// sameTensor tells whether x, a remembered inference's input, and y are
// the same tensor as inference knows it. Handle data is never compared: no
// input of a remembered inference has any.
func sameTensor(x, y *Tensor) bool {
	return x.DType == y.DType && x.Assumed == y.Assumed && x.Shape.UnknownRank == y.Shape.UnknownRank &&
		y.Handle == nil && (x.Shape.Dims == nil) == (y.Shape.Dims == nil) && slices.Equal(x.Shape.Dims, y.Shape.Dims) &&
		(x.Value == nil) == (y.Value == nil) && slices.Equal(x.Value, y.Value)
}

// sameInputs is sameTensors(a.ins, the inputs of n) for a node whose
// inputs are all inferred outputs of other nodes, each read where it is
// kept (packedOutput) rather than taken into s.ins, and compared packed
// where neither side has a value or handle data (a.packed); false
// otherwise, where node takes and compares the inputs.
func (s *Shapes) sameInputs(n *graph.Node, a alikeAnswer) bool {
	if len(a.ins) != len(n.Inputs) {
		return false
	}
	for i, in := range n.Inputs {
		if in.Node == nil {
			return false
		}
		p, ok := s.packedOutput(in.Node, int(in.Output))
		switch {
		case !ok:
			return false
		case !p.plain() || !a.packed[i].plain():
			if t := s.unpack(*p); !sameTensor(&a.ins[i], &t) {
				return false
			}
		case !p.same(&a.packed[i]):
			return false
		}
	}
	return true
}

// takeIns is room for n input tensors on top of s.ins; s.ins[:mark] gives
// them back. When s.ins is full it starts a new array at least twice as
// large (so a mark taken on the old one still fits), and the slices taken
// from the old one stay valid.
func (s *Shapes) takeIns(n int) []Tensor {
	if cap(s.ins)-len(s.ins) < n {
		s.ins = make([]Tensor, 0, max(2*cap(s.ins), n, 64))
	}
	k := len(s.ins)
	s.ins = s.ins[:k+n]
	return s.ins[k : k+n : k+n]
}

// bodyTensors is room for n tensors of a body's arguments or results
// (s.bodies).
func (s *Shapes) bodyTensors(n int) []Tensor {
	if cap(s.bodies)-len(s.bodies) < n {
		s.bodies = make([]Tensor, 0, max(n, 256))
	}
	k := len(s.bodies)
	s.bodies = s.bodies[:k+n]
	return s.bodies[k : k+n : k+n]
}

// merge takes dimensions from b where a does not know them.
func merge(a, b Shape) Shape {
	if a.UnknownRank {
		return b
	}
	if b.UnknownRank || len(a.Dims) != len(b.Dims) {
		return a
	}
	out := append([]int64(nil), a.Dims...)
	for i := range out {
		if out[i] < 0 {
			out[i] = b.Dims[i]
		}
	}
	return Shape{Dims: out}
}

func fromProto(p *tspb.TensorShapeProto) Shape {
	if p == nil || p.GetUnknownRank() {
		return unknownRank()
	}
	if len(p.GetDim()) > 1<<10 {
		return unknownRank()
	}
	d := make([]int64, len(p.GetDim()))
	for i, x := range p.GetDim() {
		d[i] = x.GetSize()
		if d[i] < 0 || d[i] > maxElems {
			d[i] = Unknown
		}
	}
	return Shape{Dims: d}
}

// fill replaces unknown dimensions of an input: dims[name] for every
// unknown dimension, else dims["batch"] (default 1) for dimension 0.
func (s *Shapes) fill(sh Shape, names ...string) (Shape, bool) {
	if sh.UnknownRank {
		return sh, false
	}
	out := append([]int64(nil), sh.Dims...)
	assumed := false
	for i, d := range out {
		if d >= 0 {
			continue
		}
		set := false
		for _, nm := range names {
			if v, ok := s.dims[nm]; ok && nm != "" {
				out[i], set = clampDim(v), true
				s.assumed[fmt.Sprintf("%s: dim %d = %d (--dim %s)", names[0], i, v, nm)] = true
				break
			}
		}
		if !set && i == 0 {
			v, ok := s.dims["batch"]
			how := "--dim batch"
			if !ok {
				v, how = 1, "default batch"
			}
			out[i], set = clampDim(v), true
			s.assumed[fmt.Sprintf("%s: dim 0 = %d (%s)", names[0], v, how)] = true
		}
		assumed = assumed || set
	}
	return Shape{Dims: out}, assumed
}

func clampDim(v int64) int64 {
	if v < 0 || v > maxElems {
		return Unknown
	}
	return v
}

func attrShape(a *attrpb.AttrValue) Shape {
	if a == nil || a.GetShape() == nil {
		return unknownRank()
	}
	return fromProto(a.GetShape())
}

// positions tells where a node stands in nodes: its ID less the first
// node's where the node found there is the node (graph.Build numbers a
// graph's and a body's nodes one after the other), else through a map,
// made when first needed. It reads no node's ID before it is asked.
func positions(nodes []*graph.Node) func(*graph.Node) (int, bool) {
	var pos map[*graph.Node]int
	return func(n *graph.Node) (int, bool) {
		if len(nodes) == 0 {
			return 0, false
		}
		if j := n.ID - nodes[0].ID; j >= 0 && j < len(nodes) && nodes[j] == n {
			return j, true
		}
		if pos == nil {
			pos = make(map[*graph.Node]int, len(nodes))
			for i, n := range nodes {
				pos[n] = i
			}
		}
		j, ok := pos[n]
		return j, ok
	}
}
