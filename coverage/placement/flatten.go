package placement

import (
	"fmt"
	"sort"
	"unsafe"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/graph"
)

// pin is one output port of a placement node.
type pin struct{ n, port int32 }

var noPin = pin{-1, 0}

// ref is a not yet resolved input: either a graph input seen from an
// instance, or a direct port of a placement node (pn >= 0).
type ref struct {
	inst *instance
	in   graph.Input
	pn   int
	port int
}

// instance is one instantiation of a function body (or the top-level graph).
type instance struct {
	fn    *graph.Function
	nodes nodeIndex
	args  []ref
	req   devSpec // requested device given to body nodes without one
	dflt  int     // default device, -1 for none
	unit  int
	depth int
	// parent is the instance whose call this one's body stands for (nil
	// for the top-level graph and a function placed on its own): the
	// functions being called are the fns up its chain (onStack), which no
	// instance copies.
	parent *instance
	prefix string // TF's inliner prefixes body names with the caller's
	frame  string // frame hint for input-less nodes of a lowered loop body
	// single >= 0 assigns every body node to the device of that node
	// (bodies of non-lowered control flow, XLA units, dataset functions).
	single  int
	singleK string // why
	// host assigns every node to CPU (dataset functions).
	host bool
	// root is the top-level node this instance was inlined from; nil for
	// the top-level graph itself and for functions placed on their own.
	root *graph.Node
	// inlined marks a call's body tfscan inlined, and what it nests.
	inlined bool
	// sessionCall is 1 + the placement node of the call of a session graph
	// whose body this instance is, 0 for none: a session's placer sees the
	// call as one node, and the body meets its arguments at run time
	// (docs/placement.md#calls-in-a-session-graph).
	sessionCall int32
}

// nodeIndex maps an instance's graph nodes to their placement nodes: by
// position, a node's position being its ID less the first node's where
// the node found there is the node (graph.Build numbers a graph's and a
// body's nodes one after the other), else through a map. No pass over
// every node's ID is made first.
type nodeIndex struct {
	base  int
	nodes []*graph.Node
	pos   []int32 // -1: not placed
	m     map[*graph.Node]int
}

func newNodeIndex(sc *Scratch, nodes []*graph.Node) nodeIndex {
	x := nodeIndex{nodes: nodes, pos: flatArray[int32](sc, len(nodes))}
	if len(nodes) > 0 {
		x.base = nodes[0].ID
	}
	for k := range x.pos {
		x.pos[k] = -1
	}
	return x
}

// firstIndex is the nodeIndex of nodes, a run of the graph's nodes all
// (graph.Graph.Nodes, which Node.ID indexes), kept in firstOf
// (sim.firstOf) rather than in an array of its own while none of them has
// a placement node yet: in the first instance of a graph node, its
// placement node is its first (builder.newNode writes firstOf, then the
// instance's index, one value). Most of a model's nodes are in a first
// instance (all of a graph's without functions), which then need no
// second array of a word a node.
func firstIndex(sc *Scratch, nodes, all []*graph.Node, firstOf []int32) nodeIndex {
	if len(nodes) == 0 {
		return nodeIndex{}
	}
	base := nodes[0].ID
	if base < 0 || base > len(all)-len(nodes) || len(all) != len(firstOf) || &all[base] != &nodes[0] {
		return newNodeIndex(sc, nodes)
	}
	pos := firstOf[base : base+len(nodes) : base+len(nodes)]
	for _, k := range pos {
		if k >= 0 {
			return newNodeIndex(sc, nodes)
		}
	}
	return nodeIndex{base: base, nodes: nodes, pos: pos}
}

// at is n's position by its ID, -1 when n is not there.
func (x *nodeIndex) at(n *graph.Node) int {
	if k := n.ID - x.base; k >= 0 && k < len(x.nodes) && x.nodes[k] == n {
		return k
	}
	return -1
}

func (x *nodeIndex) set(n *graph.Node, idx int) {
	if k := x.at(n); k >= 0 {
		x.pos[k] = int32(idx)
		return
	}
	if x.m == nil {
		x.m = map[*graph.Node]int{}
	}
	x.m[n] = idx
}

func (x *nodeIndex) get(n *graph.Node) (int, bool) {
	if k := x.at(n); k >= 0 && x.pos[k] >= 0 {
		return int(x.pos[k]), true
	}
	idx, ok := x.m[n]
	return idx, ok
}

// unitKind tells how a placement unit is run.
type unitKind int

const (
	unitTopLevel unitKind = iota // the GraphDef, placed like a session graph
	unitFunction                 // a function instantiated on its own
	unitBody                     // a single-device body (no placer)
)

type unit struct {
	kind  unitKind
	fn    *graph.Function
	first int // first node index
	why   string
}

// pnode is one node of the flattened graph the placer sees. A flattened
// graph has a pnode per node of the model and of every inlined body, so
// its size counts: what is derived (the op and dtypes, from look; the
// unit, the frame hint and the single-device reason, from the instance;
// the inputs of a model node, from its graph node) is not stored, and what
// few nodes carry is kept apart (extra). It is 64 bytes, one cache line:
// the walks of a simulation read every node's.
type pnode struct {
	// src is the graph node this instance comes from (nil when synthetic).
	src *graph.Node
	// inst is the instance the node was added to.
	inst *instance
	x    *pextra
	// rq is the device the node requests (req), nil for none: few nodes
	// request one, and a devSpec is 64 bytes.
	rq *devSpec

	// in are the node's inputs and ctrl the nodes it waits for, ranges of
	// the flattened graph's arrays (links).
	in, ctrl span

	// The numbers of a node are int32: a node is small, and a model has
	// fewer than 2^31 of them.
	idx     int32
	ghostOf int32 // for body nodes of a single-device unit: the op they run under
	frame   int32
	// dflt and assigned are devices as roles (roleTarget, roleCPU; see
	// share.go), -1 for none; assigned -2 is the caller's device.
	dflt     int8
	assigned int8
	flags    pflags
}

// pflags are a pnode's flags, one bit each.
type pflags uint8

const (
	// pIO marks the client-side feed nodes (_Arg of a function unit).
	pIO pflags = 1 << iota
	// pFed marks a Placeholder fed by the chosen signature.
	pFed
	// pFetch marks _Retval nodes of a function unit.
	pFetch
	// pGhost marks inlined calls and lowered functional ops; they are
	// not placed themselves, their outputs alias the body's.
	pGhost
	// pPassthrough marks synthetic nodes that carry the bytes of input 0.
	pPassthrough
	// pHost marks the nodes of a host-only instance.
	pHost
	// pBadDevice: the node's device field does not parse (req ignores it).
	pBadDevice
	// pDevField: its graph node has a device field (pinOf reads it only
	// then: few nodes have one).
	pDevField
)

// is tells whether p has any of the flags f.
func (p *pnode) is(f pflags) bool { return p.flags&f != 0 }

// mark sets p's flags f when on, clears them when not.
func (p *pnode) mark(f pflags, on bool) {
	if on {
		p.flags |= f
	} else {
		p.flags &^= f
	}
}

// pextra is what only some placement nodes carry.
type pextra struct {
	// look is the node used for kernel lookups when it is not the graph
	// node (pnode.look()): a synthetic node's, or AMP's half-precision copy.
	look *graph.Node
	// rin are the not yet resolved inputs of a node that has no graph
	// node to read them from (synthetic nodes, a function's _Retval).
	rin   []ref
	alias []ref
	// note is an extra reason (inlined from, lowered from).
	note string
	// root is a synthetic top-level node's root (pnode.root).
	root *graph.Node
	// name is a synthetic node's name (pnode.name: an instance's node is
	// named by its prefix and graph node, made when a message needs it).
	name string
	path string
}

// look is the node used for kernel lookups; its op and dtypes are the
// node's: its graph node, unless extra holds another.
func (p *pnode) look() *graph.Node {
	if p.x != nil && p.x.look != nil {
		return p.x.look
	}
	return p.src
}

// unit is the index of the placement unit p is in, its instance's.
func (p *pnode) unit() int { return p.inst.unit }

func (p *pnode) op() string { return p.look().Op }

// req is the device the node requests (empty for none).
func (p *pnode) req() devSpec {
	if p.rq == nil {
		return devSpec{}
	}
	return *p.rq
}

// name is the node's name as TensorFlow's inliner names it: its graph
// node's with the instance's prefix (the caller's name and "/").
func (p *pnode) name() string {
	if p.src == nil {
		return p.x.name
	}
	return p.inst.prefix + p.src.Name
}

// root is the top-level node p stands under (itself at top level; for a
// node a top-level node was lowered into, that node); nil in functions
// placed on their own. See Options.Count.
func (p *pnode) root() *graph.Node {
	switch {
	case p.inst.root != nil:
		return p.inst.root
	case p.inst.fn != nil:
		return nil
	case p.src != nil:
		return p.src
	}
	return p.x.root
}

func (p *pnode) inTypes() []tpb.DataType  { return p.look().InputTypes() }
func (p *pnode) outTypes() []tpb.DataType { return p.look().OutputTypes() }
func (p *pnode) frameHint() string        { return p.inst.frame }
func (p *pnode) singleWhy() string        { return p.inst.singleK }
func (p *pnode) extra() *pextra {
	if p.x == nil {
		p.x = &pextra{}
	}
	return p.x
}
func (p *pnode) note() string {
	if p.x == nil {
		return ""
	}
	return p.x.note
}
func (p *pnode) alias() []ref {
	if p.x == nil {
		return nil
	}
	return p.x.alias
}

// deviceField is the device field of the node's NodeDef ("" for synthetic
// nodes).
func (p *pnode) deviceField() string {
	if p.src == nil {
		return ""
	}
	return p.src.Device
}

const (
	maxInlineDepth = 64
)

type builder struct {
	s     *sim
	slab  []pnode
	slabs int // slabs taken
	// queue are the instances whose bodies are still to add, each of its
	// fn's nodes.
	queue []*instance
	// What each inlined call adds besides its body's nodes (its instance,
	// its arguments and results, its node's extra) is cut from larger
	// arrays: a model of many small functions has a call every few nodes.
	insts  chunks[instance]
	refs   chunks[ref]
	extras chunks[pextra]
	budget int
	frames int
	// cur is the top-level node being added, the root of what it expands to.
	cur *graph.Node
	// placeholders are the top-level Placeholder nodes added, which a
	// graph without a signature feeds (markFeeds): noted while each node
	// is at hand rather than found in another walk of every node.
	placeholders []*graph.Node
	// lastDev is the last device string reqFor parsed, into lastSpec
	// (lastBad when it did not parse): nodes one after the other often
	// request the same device.
	lastDev  string
	lastSpec devSpec
	lastBad  bool
	// lowers tells that the graph may hold an op lowerable asks of: most
	// graphs hold none, whose nodes then need not be asked one by one.
	lowers bool
}

func isXLAMarked(n *graph.Node) bool {
	if a, ok := n.Attrs["_XlaMustCompile"]; ok && a.GetB() {
		return true
	}
	for _, k := range []string{"_xla_compile_id", "_tpu_replicate"} {
		if a, ok := n.Attrs[k]; ok && len(a.GetS()) > 0 {
			return true
		}
	}
	return false
}

var callOps = map[string]bool{"PartitionedCall": true, "StatefulPartitionedCall": true}

var ifOps = map[string]bool{"If": true, "StatelessIf": true}
var caseOps = map[string]bool{"Case": true, "StatelessCase": true}
var whileOps = map[string]bool{"While": true, "StatelessWhile": true}

func funcAttr(n *graph.Node, name string) *graph.Function {
	a := n.Attrs[name]
	if a == nil || a.GetFunc() == nil {
		return nil
	}
	return lookupFn(n, a.GetFunc().GetName())
}

func lookupFn(n *graph.Node, name string) *graph.Function {
	for _, f := range n.Calls() {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// calledFn returns the function an inlinable call node calls, or nil.
func calledFn(n *graph.Node) *graph.Function {
	if n.Op == "PartitionedCall" || n.Op == "StatefulPartitionedCall" { // callOps, without hashing every node's op
		return funcAttr(n, "f")
	}
	if n.OpDef == nil {
		return lookupFn(n, n.Op)
	}
	return nil
}

// lowerable tells a functional If, Case or While that TensorFlow lowers
// to Switch and Merge.
func lowerable(n *graph.Node) bool {
	if !functionalOp(n.Op) {
		return false
	}
	a, ok := n.Attrs["_lower_using_switch_merge"]
	return ok && a.GetB() && !isXLAMarked(n)
}

// functionalOp tells the ops lowerable lowers, without hashing the op
// (ifOps, caseOps, whileOps).
func functionalOp(op string) bool {
	switch op {
	case "If", "StatelessIf", "Case", "StatelessCase", "While", "StatelessWhile":
		return true
	}
	return false
}

// isPlaceholder tells the ops of a graph's feeds without a signature.
func isPlaceholder(op string) bool { return op == "Placeholder" || op == "PlaceholderV2" }

// onStack tells whether f is being called in inst: inst's function or
// one of those that called it.
func onStack(inst *instance, f *graph.Function) bool {
	for ; inst != nil; inst = inst.parent {
		if inst.fn == f {
			return true
		}
	}
	return false
}

// pnode is a new node from the builder's slab: a graph's nodes are
// allocated a thousand at a time.
func (b *builder) pnode() *pnode {
	if len(b.slab) == 0 {
		b.slab = b.s.opts.Scratch.pnodes(b.slabs)
		b.slabs++
	}
	p := &b.slab[0]
	b.slab = b.slab[1:]
	return p
}

// chunks cuts small arrays of T from larger ones, allocated about 16 KiB
// at a time.
type chunks[T any] struct{ free []T }

// cut is n zeroed elements, capped at n; an empty array for n 0, as make
// gives.
func (c *chunks[T]) cut(n int) []T {
	if n > len(c.free) {
		per := max(16<<10/int(unsafe.Sizeof(*new(T))), 1)
		if n > per/8 || n == 0 {
			return make([]T, n)
		}
		c.free = make([]T, per)
	}
	out := c.free[:n:n]
	c.free = c.free[n:]
	return out
}

// one is a new zeroed T.
func (c *chunks[T]) one() *T { return &c.cut(1)[0] }

func (b *builder) newNode(inst *instance, p *pnode) int {
	s := b.s
	p.idx = int32(len(s.nodes))
	p.inst = inst
	if p.src == nil && inst.root == nil && inst.fn == nil {
		p.x.root = b.cur
	}
	s.nodes = append(s.nodes, p)
	if p.inputsFromGraph() {
		s.inputsMet += len(p.src.Inputs)
	} else if p.x != nil {
		s.inputsMet += len(p.x.rin)
	}
	if p.src != nil {
		// The first placement node of a graph node speaks for it
		// (placedAt); its ID is read here, where the node was just read.
		if id := p.src.ID; id >= 0 && id < len(s.firstOf) && s.firstOf[id] < 0 {
			s.firstOf[id] = p.idx
		}
	}
	if !p.is(pGhost) && p.look() != nil && (p.look().Op == "Enter" || p.look().Op == "RefEnter") {
		s.hasEnter = true // computeFrames
	}
	if inst.host {
		p.flags |= pHost
	}
	if inst.single >= 0 || inst.host {
		p.ghostOf = int32(inst.single)
	}
	b.budget--
	return int(p.idx)
}

// addInstance creates placement nodes for nodes (one function body or the
// top-level graph) in the order GraphConstructor gives them ids; keeps is
// the build's word that they are in that order already (TopoKeepsOrder).
func (b *builder) addInstance(inst *instance, nodes []*graph.Node, keeps bool) {
	inst.nodes = firstIndex(b.s.opts.Scratch, nodes, b.s.g.Nodes, b.s.firstOf)
	for _, gn := range topoOrder(nodes, keeps) {
		b.addNode(inst, gn)
	}
}

// inOrder tells whether every edge topoOrder follows already runs
// forward in nodes (as in most GraphDefs): then the sort, which takes the
// first ready node in position order, keeps the order as it is. It reads
// positions from the IDs, and says no where they are not consecutive: it
// checks each node's ID as it passes, for a "no" is always safe (the
// sort) and a "yes" has then checked every one.
func inOrder(nodes []*graph.Node) bool {
	if len(nodes) == 0 {
		return true
	}
	base := nodes[0].ID
	forward := func(src *graph.Node, i int) bool {
		if src == nil || src.Op == "NextIteration" || src.Op == "RefNextIteration" {
			return true
		}
		j := src.ID - base
		return j < 0 || j >= len(nodes) || nodes[j] != src || j < i
	}
	for i, n := range nodes {
		if n.ID != base+i {
			return false
		}
		for _, in := range n.Inputs {
			if !forward(in.Node, i) {
				return false
			}
		}
		for _, c := range n.ControlInputs() {
			if !forward(c, i) {
				return false
			}
		}
	}
	return true
}

// topoOrder sorts nodes topologically over data and control edges inside
// the set, ties broken by position (graph_constructor.cc:365, 1181-1190);
// back edges into Merge from NextIteration are ignored. Nodes on a cycle
// come last in their original order. keeps tells that nodes are in order
// (the build's TopoKeepsOrder), without reading their edges.
func topoOrder(nodes []*graph.Node, keeps bool) []*graph.Node {
	if keeps || inOrder(nodes) {
		return nodes
	}
	return topoSort(nodes)
}

// topoSort is topoOrder without the shortcut.
func topoSort(nodes []*graph.Node) []*graph.Node {
	pos := make(map[*graph.Node]int, len(nodes))
	for i, n := range nodes {
		pos[n] = i
	}
	indeg := make([]int, len(nodes))
	outs := make([][]int, len(nodes))
	for i, n := range nodes {
		add := func(src *graph.Node) {
			if src == nil {
				return
			}
			j, ok := pos[src]
			if !ok || src.Op == "NextIteration" || src.Op == "RefNextIteration" {
				return
			}
			indeg[i]++
			outs[j] = append(outs[j], i)
		}
		for _, in := range n.Inputs {
			add(in.Node)
		}
		for _, c := range n.ControlInputs() {
			add(c)
		}
	}
	h := &intHeap{}
	for i := range nodes {
		if indeg[i] == 0 {
			h.push(i)
		}
	}
	out := make([]*graph.Node, 0, len(nodes))
	done := make([]bool, len(nodes))
	for h.len() > 0 {
		i := h.pop()
		done[i] = true
		out = append(out, nodes[i])
		for _, j := range outs[i] {
			indeg[j]--
			if indeg[j] == 0 {
				h.push(j)
			}
		}
	}
	for i, n := range nodes {
		if !done[i] {
			out = append(out, n)
		}
	}
	return out
}

// reqFor is the device a node requests: its own device field, with the
// unset fields filled from the caller's when the node was inlined
// (MultiDeviceFunctionBodyPlacer::BodyNodeDevice,
// inline_function_utils.cc:218-239), else the caller's. bad reports a device
// field TensorFlow cannot parse; the placer fails the node
// (colocation_graph.cc:225-229) and tfscan goes on as if it were not there.
// With Options.ClearDevices the top-level nodes' fields are gone, as after
// an import with clear_devices=True (meta_graph.py:776-780); function
// bodies keep theirs.
func (b *builder) reqFor(inst *instance, gn *graph.Node) (req devSpec, bad bool) {
	dev := gn.Device
	if dev == "" || b.s.opts.ClearDevices && gn.Func == nil {
		return inst.req, false
	}
	if dev != b.lastDev {
		d, err := parseDevice(dev)
		b.lastDev, b.lastSpec, b.lastBad = dev, d, err != nil
	}
	if b.lastBad {
		return inst.req, true
	}
	d := b.lastSpec
	if !inst.req.empty() {
		d = inst.req.specialize(d)
		d.raw = d.String()
	}
	return d, false
}

// inputRefs are the data inputs of a graph node added to inst, as refs
// (what a call's or a lowered op's body reads as its arguments).
func (b *builder) inputRefs(inst *instance, gn *graph.Node) []ref {
	rin := b.refs.cut(len(gn.Inputs))
	for i, in := range gn.Inputs {
		rin[i] = ref{inst: inst, in: in, pn: -1}
	}
	return rin
}

func (b *builder) addNode(inst *instance, gn *graph.Node) {
	if inst.fn == nil {
		b.cur = gn
		if isPlaceholder(gn.Op) {
			b.placeholders = append(b.placeholders, gn)
		}
	}
	// Field by field into the slab's zeroed node: a whole-struct copy
	// would pass every pointer word of it through the write barrier.
	p := b.pnode()
	p.src = gn
	p.dflt, p.assigned, p.ghostOf = int8(inst.dflt), -1, -1
	p.mark(pDevField, gn.Device != "")
	if gn.Device != "" || !inst.req.empty() {
		// Most nodes request no device, in an instance that requests
		// none: their rq stays nil without a devSpec made for them.
		req, bad := b.reqFor(inst, gn)
		p.rq = b.s.spec(req)
		p.mark(pBadDevice, bad)
	}
	canExpand := inst.single < 0 && !inst.host && b.budget > 0 && inst.depth < maxInlineDepth

	if f := calledFn(gn); f != nil && canExpand && !isXLAMarked(gn) && !onStack(inst, f) {
		b.inlineCall(inst, gn, p, f)
		return
	}
	if canExpand && b.lowers && lowerable(gn) {
		if b.lower(inst, gn, p) {
			return
		}
	}
	inst.nodes.set(gn, b.newNode(inst, p))
}

// child is the instance of f's body that caller, a node of inst, calls;
// its nodes' names start with prefix.
func (b *builder) child(inst *instance, f *graph.Function, caller *pnode, prefix string) *instance {
	c := b.insts.one()
	*c = instance{fn: f, req: caller.req(), dflt: inst.dflt, unit: inst.unit,
		depth: inst.depth + 1, parent: inst, prefix: prefix, frame: inst.frame, single: -1, root: caller.root(),
		inlined: inst.inlined}
	if c.req.empty() && c.dflt < 0 {
		// The call runs on its requested device, else the default
		// device, else the highest-priority device (docs/placement.md#nested-calls);
		// body nodes without a device prefer it.
		c.dflt = roleTarget
	}
	return c
}

// inlineCall replaces a (Stateful)PartitionedCall or a call by function name
// with its body (function_optimizer.cc:1211-1413,
// inline_function_utils.cc:203-247).
func (b *builder) inlineCall(inst *instance, gn *graph.Node, p *pnode, f *graph.Function) {
	p.flags |= pGhost
	x := b.extras.one()
	p.x = x
	x.note = "function call: body inlined (function_optimizer.cc:1211-1413)"
	idx := b.newNode(inst, p)
	inst.nodes.set(gn, idx)
	// The prefix is caller.name()'s and a slash, made in one string.
	c := b.child(inst, f, p, inst.prefix+gn.Name+"/")
	c.args = b.inputRefs(inst, gn)
	c.inlined = true
	if b.s.units[inst.unit].kind == unitTopLevel && !inst.inlined && !lowerAsMultiDevice(gn) {
		c.sessionCall = int32(idx) + 1
	}
	x.alias = b.retRefs(c, f)
	b.queue = append(b.queue, c)
}

// lowerAsMultiDevice reports a call LowerFunctionalOpsPass inlines before a
// session's placer runs (lower_functional_ops.cc:170-176): one carrying
// _lower_as_multi_device_function, as the calls If and While lowering make.
// A session leaves do_function_inlining off, so it inlines no other call.
func lowerAsMultiDevice(gn *graph.Node) bool {
	a, ok := gn.Attrs["_lower_as_multi_device_function"]
	return ok && a.GetB()
}

// retRefs are f's results (graph.Function.Rets) as refs of instance c;
// a result that names nothing is pn -2.
func (b *builder) retRefs(c *instance, f *graph.Function) []ref {
	out := b.refs.cut(len(f.Rets))
	for i, r := range f.Rets {
		out[i] = ref{pn: -2}
		if r.Node != nil || r.Arg >= 0 {
			out[i] = ref{inst: c, in: r, pn: -1}
		}
	}
	return out
}

// argSize is the number of tensors of an arg whose length is an attr's.
func argSize(attrs map[string]*attrpb.AttrValue, numberAttr, typeListAttr string) int {
	switch {
	case numberAttr != "":
		v := attrs[numberAttr].GetI()
		if v < 0 || v > 1<<20 {
			return 0
		}
		return int(v)
	case typeListAttr != "":
		return len(attrs[typeListAttr].GetList().GetType())
	}
	return 1
}

// synth makes a synthetic node (lowered control flow) with a lookup node.
func (b *builder) synth(inst *instance, name, op string, attrs map[string]*attrpb.AttrValue, ins []ref, inT, outT []tpb.DataType, req devSpec) int {
	look := &graph.Node{ID: -1, Name: name, Op: op, OpDef: b.s.opDef(op), Attrs: attrs,
		Def: &nodepb.NodeDef{Name: name, Op: op, Attr: attrs}}
	look.SetTypes(inT, outT)
	p := &pnode{x: &pextra{look: look, name: name, rin: ins},
		rq: b.s.spec(req), dflt: int8(inst.dflt), assigned: -1, ghostOf: -1}
	p.mark(pPassthrough, op != "LoopCond")
	return b.newNode(inst, p)
}

func typeAttr(t tpb.DataType) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_Type{Type: t}}
}

func intAttr(i int64) *attrpb.AttrValue { return &attrpb.AttrValue{Value: &attrpb.AttrValue_I{I: i}} }

func strAttr(s string) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_S{S: []byte(s)}}
}

func boolAttr(v bool) *attrpb.AttrValue { return &attrpb.AttrValue{Value: &attrpb.AttrValue_B{B: v}} }

func inType(gn *graph.Node, i int) tpb.DataType {
	if i < len(gn.InputTypes()) {
		return gn.InputTypes()[i]
	}
	return tpb.DataType_DT_INVALID
}

func outType(gn *graph.Node, i int) tpb.DataType {
	if i < len(gn.OutputTypes()) {
		return gn.OutputTypes()[i]
	}
	return tpb.DataType_DT_INVALID
}

// lower rewrites If/Case/While carrying _lower_using_switch_merge into
// Switch/Merge (and Enter/Exit/NextIteration/LoopCond) and inlines the
// branches and bodies (lower_if_op.cc, lower_case_op.cc, lower_while_op.cc;
// docs/placement.md#control-flow-v2). It reports false when a function is missing.
func (b *builder) lower(inst *instance, gn *graph.Node, p *pnode) bool {
	var fns []*graph.Function
	switch {
	case ifOps[gn.Op]:
		fns = []*graph.Function{funcAttr(gn, "then_branch"), funcAttr(gn, "else_branch")}
	case caseOps[gn.Op]:
		for _, fa := range gn.Attrs["branches"].GetList().GetFunc() {
			fns = append(fns, lookupFn(gn, fa.GetName()))
		}
	default:
		fns = []*graph.Function{funcAttr(gn, "cond"), funcAttr(gn, "body")}
	}
	if len(fns) == 0 {
		return false
	}
	for _, f := range fns {
		if f == nil || onStack(inst, f) {
			return false
		}
	}
	p.flags |= pGhost
	p.extra().note = "lowered to Switch/Merge (lower_functional_ops.cc:101-213)"
	idx := b.newNode(inst, p)
	inst.nodes.set(gn, idx)
	name := inst.prefix + gn.Name
	if whileOps[gn.Op] {
		b.lowerWhile(inst, gn, p, name, fns[0], fns[1])
		return true
	}
	// If / Case: one Switch (or _SwitchN) per data input, one Merge per output.
	rin := b.inputRefs(inst, gn)
	pred := rin[0]
	data := rin[1:]
	nb := len(fns)
	sw := make([]int, len(data))
	for i, r := range data {
		t := inType(gn, i+1)
		if nb == 2 && ifOps[gn.Op] {
			sw[i] = b.synth(inst, fmt.Sprintf("%s/switch_%d", name, i), "Switch",
				map[string]*attrpb.AttrValue{"T": typeAttr(t)}, []ref{r, pred},
				[]tpb.DataType{t, tpb.DataType_DT_BOOL}, []tpb.DataType{t, t}, p.req())
		} else {
			outs := make([]tpb.DataType, nb)
			for k := range outs {
				outs[k] = t
			}
			sw[i] = b.synth(inst, fmt.Sprintf("%s/switch_%d", name, i), "_SwitchN",
				map[string]*attrpb.AttrValue{"T": typeAttr(t), "num_outs": intAttr(int64(nb))}, []ref{r, pred},
				[]tpb.DataType{t, tpb.DataType_DT_INT32}, outs, p.req())
		}
	}
	rets := make([][]ref, nb)
	for k, f := range fns {
		c := b.child(inst, f, p, fmt.Sprintf("%s/branch_%d/", name, k))
		port := k
		if nb == 2 && ifOps[gn.Op] {
			port = 1 - k // then_branch takes Switch's true output (port 1)
		}
		c.args = make([]ref, len(sw))
		for i := range sw {
			c.args[i] = ref{pn: sw[i], port: port}
		}
		rets[k] = b.retRefs(c, f)
		b.queue = append(b.queue, c)
	}
	p.x.alias = make([]ref, len(gn.OutputTypes()))
	for j := range p.x.alias {
		ins := make([]ref, nb)
		inT := make([]tpb.DataType, nb)
		t := outType(gn, j)
		for k := range fns {
			if j < len(rets[k]) {
				ins[k] = rets[k][j]
			} else {
				ins[k] = ref{pn: -2}
			}
			inT[k] = t
		}
		m := b.synth(inst, fmt.Sprintf("%s/merge_%d", name, j), "Merge",
			map[string]*attrpb.AttrValue{"T": typeAttr(t), "N": intAttr(int64(nb))}, ins,
			inT, []tpb.DataType{t, tpb.DataType_DT_INT32}, p.req())
		p.x.alias[j] = ref{pn: m, port: 0}
	}
	return true
}

func (b *builder) lowerWhile(inst *instance, gn *graph.Node, p *pnode, name string, cond, body *graph.Function) {
	b.frames++
	frame := fmt.Sprintf("%s#%d", name, b.frames)
	rin := b.inputRefs(inst, gn)
	n := len(rin)
	enter := make([]int, n)
	merge := make([]int, n)
	next := make([]int, n)
	inner := *inst
	inner.frame = frame
	for i, r := range rin {
		t := inType(gn, i)
		enter[i] = b.synth(&inner, fmt.Sprintf("%s/enter_%d", name, i), "Enter",
			map[string]*attrpb.AttrValue{"T": typeAttr(t), "frame_name": strAttr(frame),
				"is_constant": boolAttr(false), "parallel_iterations": intAttr(10)},
			[]ref{r}, []tpb.DataType{t}, []tpb.DataType{t}, p.req())
		// Merge's second input is the NextIteration back edge, filled below.
		merge[i] = b.synth(&inner, fmt.Sprintf("%s/merge_%d", name, i), "Merge",
			map[string]*attrpb.AttrValue{"T": typeAttr(t), "N": intAttr(2)},
			[]ref{{pn: enter[i]}, {pn: -2}}, []tpb.DataType{t, t}, []tpb.DataType{t, tpb.DataType_DT_INT32}, p.req())
	}
	cc := b.child(&inner, cond, p, name+"/cond/")
	cc.args = make([]ref, n)
	for i := range merge {
		cc.args[i] = ref{pn: merge[i]}
	}
	cr := b.retRefs(cc, cond)
	predRef := ref{pn: -2}
	if len(cr) > 0 {
		predRef = cr[0]
	}
	lc := b.synth(&inner, name+"/loop_cond", "LoopCond", nil, []ref{predRef},
		[]tpb.DataType{tpb.DataType_DT_BOOL}, []tpb.DataType{tpb.DataType_DT_BOOL}, p.req())
	sw := make([]int, n)
	p.x.alias = make([]ref, n)
	outer := *inst
	for i := range merge {
		t := inType(gn, i)
		sw[i] = b.synth(&inner, fmt.Sprintf("%s/switch_%d", name, i), "Switch",
			map[string]*attrpb.AttrValue{"T": typeAttr(t)}, []ref{{pn: merge[i]}, {pn: lc}},
			[]tpb.DataType{t, tpb.DataType_DT_BOOL}, []tpb.DataType{t, t}, p.req())
		ex := b.synth(&outer, fmt.Sprintf("%s/exit_%d", name, i), "Exit",
			map[string]*attrpb.AttrValue{"T": typeAttr(t)}, []ref{{pn: sw[i]}},
			[]tpb.DataType{t}, []tpb.DataType{t}, p.req())
		p.x.alias[i] = ref{pn: ex}
	}
	bc := b.child(&inner, body, p, name+"/body/")
	bc.args = make([]ref, n)
	for i := range sw {
		bc.args[i] = ref{pn: sw[i], port: 1}
	}
	br := b.retRefs(bc, body)
	for i := range merge {
		t := inType(gn, i)
		r := ref{pn: -2}
		if i < len(br) {
			r = br[i]
		}
		next[i] = b.synth(&inner, fmt.Sprintf("%s/next_iteration_%d", name, i), "NextIteration",
			map[string]*attrpb.AttrValue{"T": typeAttr(t)}, []ref{r},
			[]tpb.DataType{t}, []tpb.DataType{t}, p.req())
		b.s.nodes[merge[i]].x.rin[1] = ref{pn: next[i]}
	}
	b.queue = append(b.queue, cc, bc)
}

// drain expands queued bodies breadth-first, in creation order.
func (b *builder) drain() {
	for len(b.queue) > 0 {
		c := b.queue[0]
		b.queue = b.queue[1:]
		b.addInstance(c, c.fn.Nodes, c.fn.TopoKeepsOrder())
	}
}

// resolve follows aliases of inlined calls and function arguments to the
// producing port. Bad references resolve to noPin.
func (s *sim) resolve(r ref) pin {
	q, _ := s.resolveVia(r)
	return q
}

// resolveVia is resolve that also tells the last session-graph call
// (sessionCall, 0 for none) whose argument the reference passed through.
func (s *sim) resolveVia(r ref) (pin, int32) {
	var via int32
	for depth := 0; depth < 100000; depth++ {
		switch {
		case r.pn == -2:
			return noPin, via
		case r.pn >= 0:
			p := s.nodes[r.pn]
			if !p.is(pGhost) {
				return pin{int32(r.pn), int32(r.port)}, via
			}
			alias := p.alias()
			if r.port < 0 || r.port >= len(alias) {
				return noPin, via
			}
			r = alias[r.port]
		case r.inst == nil:
			return noPin, via
		case r.in.Node == nil:
			if r.in.Arg < 0 || int(r.in.Arg) >= len(r.inst.args) {
				return noPin, via
			}
			if r.inst.sessionCall > 0 {
				via = r.inst.sessionCall
			}
			r = r.inst.args[r.in.Arg]
		default:
			idx, ok := r.inst.nodes.get(r.in.Node)
			if !ok {
				return noPin, via
			}
			r = ref{pn: idx, port: int(r.in.Output)}
		}
	}
	return noPin, via
}

// plainInput is resolveVia's answer for an input from a node of inst
// itself that is placed as it is (no inlined call or lowered op), the
// input of nearly every node, found without its walk: false for the
// others, which resolveVia follows.
func (s *sim) plainInput(inst *instance, in graph.Input) (pin, bool) {
	if in.Node == nil {
		return pin{}, false
	}
	idx, ok := inst.nodes.get(in.Node)
	if !ok || s.nodes[idx].is(pGhost) {
		return pin{}, false
	}
	return pin{int32(idx), in.Output}, true
}

// inputsFromGraph tells a node whose inputs are its graph node's, not
// refs of its own (pextra.rin).
func (p *pnode) inputsFromGraph() bool { return p.src != nil && (p.x == nil || p.x.rin == nil) }

// resolveAll turns every node's inputs into pins: a model node's from its
// graph node, the others' from their refs.
func (s *sim) resolveAll() {
	// The array of inputs is made to the size newNode counted.
	// The out edges each node will have (outEdges) are counted as the
	// inputs are resolved.
	s.links = links{pins: flatArray[pin](s.opts.Scratch, s.inputsMet)[:0]}
	outs := flatArray[int32](s.opts.Scratch, len(s.nodes)+1)
	var buf []int
	cl := newClasser(s.opts.Scratch, s.nodes)
	for i, p := range s.nodes {
		cl.add(i, p)
		p.in.off = int32(len(s.pins))
		if p.inputsFromGraph() {
			gn := p.src
			for i, in := range gn.Inputs {
				q, ok := s.plainInput(p.inst, in)
				if !ok {
					var via int32
					q, via = s.resolveVia(ref{inst: p.inst, in: in, pn: -1})
					s.noteCrossing(p, i, via)
				}
				s.pins = append(s.pins, q)
				if q.n >= 0 {
					outs[q.n+1]++
				}
			}
			if len(gn.ControlInputs()) > 0 {
				buf = buf[:0]
				for _, c := range gn.ControlInputs() {
					buf = s.resolveCtrl(buf, p.inst, c)
				}
				sort.Ints(buf)
				buf = dedupInts(buf)
				p.ctrl = span{int32(len(s.ctrls)), int32(len(buf))}
				for _, c := range buf {
					s.ctrls = append(s.ctrls, int32(c))
					outs[c+1]++
				}
			}
		} else if p.x != nil {
			for i, r := range p.x.rin {
				q, via := s.resolveVia(r)
				s.pins = append(s.pins, q)
				if q.n >= 0 {
					outs[q.n+1]++
				}
				s.noteCrossing(p, i, via)
			}
			p.x.rin = nil
		}
		p.in.n = int32(len(s.pins)) - p.in.off
	}
	s.outCounts = outs
	s.classOf, s.classes = cl.classes()
}

// resolveCtrl appends what a control input from c (a node of inst) makes
// the node wait for.
func (s *sim) resolveCtrl(ctrl []int, inst *instance, c *graph.Node) []int {
	if q, ok := s.plainInput(inst, graph.Input{Node: c}); ok {
		return append(ctrl, int(q.n))
	}
	q := s.resolve(ref{inst: inst, in: graph.Input{Node: c}, pn: -1})
	if q.n >= 0 {
		return append(ctrl, int(q.n))
	}
	if inst != nil && c != nil {
		// control input on an inlined call: depend on its outputs
		if idx, ok := inst.nodes.get(c); ok && s.nodes[idx].is(pGhost) {
			for _, a := range s.nodes[idx].alias() {
				if q := s.resolve(a); q.n >= 0 {
					ctrl = append(ctrl, int(q.n))
				}
			}
		}
	}
	return ctrl
}

// span is a range of one of links' arrays.
type span struct{ off, n int32 }

// links are the flattened graph's inputs and control inputs, in two
// arrays: a node's are a span of each (pnode.in, pnode.ctrl), 16 bytes
// where two slice headers are 48, and neither array holds a pointer for
// the collector to follow.
type links struct {
	pins  []pin
	ctrls []int32
}

// inputs are node p's inputs, in order.
func (l *links) inputs(p *pnode) []pin {
	return l.pins[p.in.off : p.in.off+p.in.n : p.in.off+p.in.n]
}

// waits are the nodes node p waits for (its control inputs), ascending.
func (l *links) waits(p *pnode) []int32 {
	return l.ctrls[p.ctrl.off : p.ctrl.off+p.ctrl.n : p.ctrl.off+p.ctrl.n]
}

func dedupInts(xs []int) []int {
	if len(xs) < 2 {
		return xs
	}
	out := xs[:1]
	for _, x := range xs[1:] {
		if x != out[len(out)-1] {
			out = append(out, x)
		}
	}
	return out
}

// intHeap is a min-heap of ints.
type intHeap struct{ a []int }

func (h *intHeap) len() int { return len(h.a) }
func (h *intHeap) push(x int) {
	h.a = append(h.a, x)
	i := len(h.a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h.a[p] <= h.a[i] {
			break
		}
		h.a[p], h.a[i] = h.a[i], h.a[p]
		i = p
	}
}
func (h *intHeap) pop() int {
	x := h.a[0]
	n := len(h.a) - 1
	h.a[0] = h.a[n]
	h.a = h.a[:n]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < n && h.a[l] < h.a[m] {
			m = l
		}
		if r < n && h.a[r] < h.a[m] {
			m = r
		}
		if m == i {
			break
		}
		h.a[i], h.a[m] = h.a[m], h.a[i]
		i = m
	}
	return x
}
