package graph

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	fpb "github.com/wamuir/graft/tensorflow/core/framework/function_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/internal/hugepage"
	"github.com/tfscan/tfscan/internal/slab"
	"github.com/tfscan/tfscan/savedmodel"
)

// maxListLen bounds the element count a number_attr or list attr may claim
// when dtypes are expanded, so that a hostile NodeDef ("N: 1e12") cannot make
// Build allocate without bound. No real op has anywhere near this many inputs.
const maxListLen = 1 << 16

// SelectMetaGraph picks the MetaGraph to analyse. With no tags it is the one
// tagged "serve" (TensorFlow Serving's default; an exact {"serve"} tag set
// wins over a larger set containing "serve"), else the first. With tags it is
// the one whose tag set equals them, in any order.
func SelectMetaGraph(m *savedmodel.Model, tags []string) (*savedmodel.MetaGraph, error) {
	if m == nil || len(m.MetaGraphs) == 0 {
		file := ""
		if m != nil {
			file = m.File
		}
		return nil, fmt.Errorf("%s: model has no meta graph", file)
	}
	if len(tags) == 0 {
		var withServe *savedmodel.MetaGraph
		for _, mg := range m.MetaGraphs {
			if len(mg.Tags) == 1 && mg.Tags[0] == "serve" {
				return mg, nil
			}
			if withServe == nil && contains(mg.Tags, "serve") {
				withServe = mg
			}
		}
		if withServe != nil {
			return withServe, nil
		}
		return m.MetaGraphs[0], nil
	}
	want := sortedSet(tags)
	var have []string
	for _, mg := range m.MetaGraphs {
		got := sortedSet(mg.Tags)
		if strings.Join(got, ",") == strings.Join(want, ",") {
			return mg, nil
		}
		have = append(have, "["+strings.Join(got, ",")+"]")
	}
	return nil, fmt.Errorf("%s: no meta graph tagged [%s] (have %s)", m.File, strings.Join(want, ","), strings.Join(have, " "))
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func sortedSet(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if x = strings.TrimSpace(x); x != "" && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}

// Build turns one MetaGraph of m into the analysis graph: every node of the
// top-level graph and of every library function, with OpDefs, completed
// attrs, resolved dtypes, data and control edges, call edges, stable paths
// and reachability. Every problem found becomes a Diagnostic. When
// TensorFlow would refuse the graph (duplicate or invalid names, inputs
// naming no node, cycles outside while loops, conflicting or missing
// functions, recursion; validate.go), Build returns the graph together with
// a *savedmodel.Error naming the file and wrapping an *InvalidGraphError:
// only a caller that lists the problems should use that graph.
func Build(m *savedmodel.Model, mg *savedmodel.MetaGraph) (*Graph, error) {
	return BuildWith(m, mg, nil)
}

// BuildWith is Build with extra OpDefs for ops that neither the model's
// op list nor the embedded registry knows (a live dump's vendor ops).
func BuildWith(m *savedmodel.Model, mg *savedmodel.MetaGraph, extra []*opdefpb.OpDef) (*Graph, error) {
	return buildGraph(m, mg, extra, false)
}

// buildGraph is BuildWith, plain: without the shortcuts (builder.plain).
func buildGraph(m *savedmodel.Model, mg *savedmodel.MetaGraph, extra []*opdefpb.OpDef, plain bool) (*Graph, error) {
	if m == nil || mg == nil {
		return nil, errors.New("graph.Build: nil model or meta graph")
	}
	if mg.Def == nil {
		return nil, fmt.Errorf("%s: meta graph has no definition", m.File)
	}
	b := &builder{g: &Graph{
		Model:      m,
		MetaGraph:  mg,
		Ops:        NewOpRegistry(mg.Def.GetMetaInfoDef().GetStrippedOpList()).WithExtra(extra),
		Signatures: mg.Signatures,
		outputs:    new(outputsOnce),
	}}
	b.names = m.Format != savedmodel.FormatTFJS
	b.plain = plain
	b.build(mg.Def.GetGraphDef().GetNode(), mg.Def.GetGraphDef().GetLibrary().GetFunction())
	if err := b.invalid(); err != nil {
		return b.g, &savedmodel.Error{File: m.File, Err: err}
	}
	return b.g, nil
}

// builder carries the state of one Build.
type builder struct {
	g *Graph
	// topByName indexes the top-level nodes; funcNodes indexes the body
	// funcInputs is resolving (one map, cleared for each body).
	topByName    *nameIndex
	funcNodes    map[string]*Node
	funcNodesMax int
	ops          map[string]*opInfo
	// slab, typeSlab, edgeSlab and inputSlab hold the dtypes, dtype
	// pairs, rare edges and Inputs of many nodes.
	slab      []tpb.DataType
	typeSlab  slab.Of[dtypes]
	edgeSlab  slab.Of[rareEdges]
	inputSlab slab.Of[Input]
	setStats  attrSetStats
	// unknown are the nodes of ops no registry knows, in ID order.
	unknown []*Node
	// dupNames is set when a name occurs twice in the top-level graph or
	// in one function body.
	dupNames bool
	// plain turns off the shortcuts that give the same graph for less
	// (attr sets, paths known unique), for tests that check they do.
	plain bool
	// names is set when node names are checked as TensorFlow's importer
	// does (not for TF.js, whose runtime does not check them).
	names bool
}

func (b *builder) diag(kind, path, format string, args ...any) {
	b.g.Diagnostics = append(b.g.Diagnostics, Diagnostic{Kind: kind, Path: path, Message: fmt.Sprintf(format, args...)})
}

// diagNode records a problem with node n; its Path is filled in once paths
// are known.
func (b *builder) diagNode(kind string, n *Node, format string, args ...any) {
	b.g.Diagnostics = append(b.g.Diagnostics, Diagnostic{Kind: kind, Message: fmt.Sprintf(format, args...), node: n})
}

// libraryFunction adds fd to the library as TensorFlow's
// FunctionLibraryDefinition::AddHelper does (framework/function.cc:1374-1395,
// reached from graph_constructor.cc:1159-1173): a second copy equal to the
// first is dropped, a different one is refused, and so is a function named
// like one of TensorFlow's ops.
func (b *builder) libraryFunction(fd *fpb.FunctionDef) {
	g := b.g
	name := fd.GetSignature().GetName()
	if name == "" {
		b.diag("bad_function", "", "library function without a name")
		return
	}
	if prev, dup := g.FunctionByName[name]; dup {
		// Two copies compare by their constants too, which a lazy load
		// left in the file (savedmodel/lazy.go).
		if g.Model != nil {
			if err := g.Model.Materialize(); err != nil {
				b.fatalFunc("duplicate_function", rankLibrary, name, "Cannot compare the two definitions of function '%s': %v", name, err)
				return
			}
		}
		if !sameFunction(prev.Def, fd) {
			b.fatalFunc("duplicate_function", rankLibrary, name, "Cannot add function '%s' because a different function with the same name already exists.", name)
		}
		return
	}
	if Default().Lookup(name) != nil {
		b.fatalFunc("function_op_clash", rankLibrary, name, "Cannot add function '%s' because an op with the same name already exists.", name)
	}
	f := &Function{Name: name, Def: fd}
	g.FunctionByName[name] = f
	g.Functions = append(g.Functions, f)
}

func (b *builder) build(top []*nodepb.NodeDef, lib []*fpb.FunctionDef) {
	g := b.g
	// Functions first, so that nodes can tell calls from unknown ops.
	g.FunctionByName = make(map[string]*Function, len(lib))
	for _, fd := range lib {
		b.libraryFunction(fd)
	}
	sort.Slice(g.Functions, func(i, j int) bool { return g.Functions[i].Name < g.Functions[j].Name })
	for i, f := range g.Functions {
		f.index = i + 1
	}

	total := len(top)
	for _, f := range g.Functions {
		total += len(f.Def.GetNodeDef())
	}
	g.Nodes = make([]*Node, 0, total)
	// One backing array for all nodes: 200k nodes are one allocation,
	// written front to back, which huge pages back where it spans them.
	store := make([]Node, total)
	hugepage.Advise(store)

	b.topByName = newNameIndex(store, len(top))
	var dups map[int]*Node
	if !b.plain {
		for i, nd := range top {
			store[i].Name = nd.GetName()
		}
		dups = b.topByName.addAll(len(top))
	}
	for _, nd := range top {
		n := &store[len(g.Nodes)]
		b.newNode(n, nd, nil)
		b.checkNodeIndex(n, b.names)
		if b.plain {
			b.indexTop(n, b.topByName.add(n.ID))
		} else {
			b.indexTop(n, dups[n.ID])
		}
	}
	g.TopLevel = len(g.Nodes)
	for _, f := range g.Functions {
		for _, nd := range f.Def.GetNodeDef() {
			n := &store[len(g.Nodes)]
			b.newNode(n, nd, f)
		}
		f.Nodes = g.Nodes[len(g.Nodes)-len(f.Def.GetNodeDef()) : len(g.Nodes) : len(g.Nodes)]
		f.ArgTypes = argTypes(f.Def.GetSignature().GetInputArg(), nil)
		f.RetTypes = argTypes(f.Def.GetSignature().GetOutputArg(), nil)
	}

	// Edges.
	for _, n := range g.Nodes[:g.TopLevel] {
		b.topInputs(n)
	}
	for _, f := range g.Functions {
		b.funcInputs(f)
	}
	b.recursion()
	g.ops = b.ops
	if g.ops == nil {
		g.ops = map[string]*opInfo{} // no node: none of any op
	}
	b.index()
	b.paths()
	b.cycles()
	b.reachability()
	b.unknownOps()
	for i := range g.Diagnostics {
		if d := &g.Diagnostics[i]; d.node != nil {
			d.Path = d.node.Path()
		}
	}
}

// indexTop reports the top-level node n when dup, the node of its name
// that topByName keeps, is not nil: the first node of a name stays.
func (b *builder) indexTop(n *Node, dup *Node) {
	if dup != nil {
		b.fatalNode("duplicate_node", rankNodeIndex, n, "Node '%s' is not unique", n.Name)
		b.dupNames = true
	}
}

// opInfo is what newNode needs to know about an op name, looked up once
// per Build instead of once per node.
type opInfo struct {
	def    *opdefpb.OpDef
	callee *Function
	// defaults are the OpDef's attrs that have a default value.
	defaults []*opdefpb.OpDef_AttrDef
	// funcAttrs are the OpDef's func and list(func) attrs.
	funcAttrs []string
	// fixedTypes are the flattened dtypes when they need no attr (every
	// arg has a fixed type and no number or list attr); shared.
	fixedTypes *dtypes
	fixed      bool
	// sets is set when its nodes' attr sets are looked up (attrset.go);
	// known holds those met so far.
	sets  bool
	known map[attrKey]*attrSet
	// byMap holds the sets of attr maps met more than once.
	byMap map[unsafe.Pointer]*attrSet
}

func (b *builder) opInfo(op string) *opInfo {
	if oi, ok := b.ops[op]; ok {
		return oi
	}
	oi := &opInfo{callee: b.g.FunctionByName[op]}
	if oi.callee == nil {
		oi.def = b.g.Ops.Lookup(op)
	}
	if d := oi.def; d != nil {
		for _, a := range d.GetAttr() {
			if a.GetDefaultValue() != nil {
				oi.defaults = append(oi.defaults, a)
			}
			if a.GetType() == "func" || a.GetType() == "list(func)" {
				oi.funcAttrs = append(oi.funcAttrs, a.GetName())
			}
		}
		oi.fixed = fixedArgs(d.GetInputArg()) && fixedArgs(d.GetOutputArg())
		oi.sets = !b.plain && (!oi.fixed || len(oi.defaults) > 0) && setsFor(d.GetAttr())
		if oi.fixed {
			oi.fixedTypes = &dtypes{in: argTypes(d.GetInputArg(), nil), out: argTypes(d.GetOutputArg(), nil)}
		}
	}
	if b.ops == nil {
		b.ops = map[string]*opInfo{}
	}
	b.ops[op] = oi
	return oi
}

func fixedArgs(args []*opdefpb.OpDef_ArgDef) bool {
	for _, a := range args {
		if a.GetTypeAttr() != "" || a.GetNumberAttr() != "" || a.GetTypeListAttr() != "" {
			return false
		}
	}
	return true
}

// newNode fills n from nd and appends it to g.Nodes.
func (b *builder) newNode(n *Node, nd *nodepb.NodeDef, f *Function) {
	g := b.g
	n.ID = len(g.Nodes)
	n.Name = nd.GetName()
	n.Op = nd.GetOp()
	n.Func = f
	n.Def = nd
	n.Device = nd.GetDevice()
	g.Nodes = append(g.Nodes, n)

	oi := b.opInfo(n.Op)
	n.OpDef = oi.def
	attrs := nd.GetAttr()
	if set := b.attrSet(oi, attrs); set != nil {
		n.Attrs = attrs
		if set.attrs != nil {
			n.Attrs = set.attrs
		}
		n.types = set.types
	} else {
		n.Attrs = completeAttrs(attrs, oi.defaults)
		n.types = b.nodeTypes(oi, n.Attrs)
		n.Unknown = oi.def == nil && oi.callee == nil
	}

	// Calls: the op itself when it names a library function, then the
	// function-valued attrs in name order — the OpDef's func and list(func)
	// attrs, or, for an op without an OpDef, any attr holding functions.
	if oi.callee != nil {
		b.addCallee(n, oi.callee)
	}
	var names []string
	if oi.def != nil {
		for _, k := range oi.funcAttrs {
			if _, ok := attrs[k]; ok {
				names = append(names, k)
			}
		}
	} else {
		for k, v := range attrs {
			if v.GetFunc() != nil || len(v.GetList().GetFunc()) > 0 {
				names = append(names, k)
			}
		}
	}
	if len(names) > 1 {
		sort.Strings(names)
	}
	for _, k := range names {
		v := attrs[k]
		if v.GetFunc() != nil {
			b.addCall(n, k, v.GetFunc().GetName())
			continue
		}
		for _, fn := range v.GetList().GetFunc() {
			b.addCall(n, k, fn.GetName())
		}
	}
	// Nodes are made in ID order: each callee lists its callers in it.
	for _, f := range n.Calls() {
		f.Callers = append(f.Callers, n)
	}
	if n.Unknown {
		b.unknown = append(b.unknown, n)
	}
}

// nodeTypes resolves the input and output dtypes of a node of op oi with
// the completed attrs; nil for an unknown op.
func (b *builder) nodeTypes(oi *opInfo, attrs map[string]*attrpb.AttrValue) *dtypes {
	var in, out []*opdefpb.OpDef_ArgDef
	switch {
	case oi.fixed:
		return oi.fixedTypes
	case oi.def != nil:
		in, out = oi.def.GetInputArg(), oi.def.GetOutputArg()
	case oi.callee != nil:
		sig := oi.callee.Def.GetSignature()
		in, out = sig.GetInputArg(), sig.GetOutputArg()
	default:
		return nil
	}
	t := b.typeSlab.New()
	t.in, t.out = b.argTypes(in, attrs), b.argTypes(out, attrs)
	return t
}

// addCallee adds f to n's calls, and addControl src to its control
// inputs; the first of either gives n its rare edges.
func (b *builder) addCallee(n *Node, f *Function) {
	e := b.edgesOf(n)
	e.calls = append(e.calls, f)
}

func (b *builder) addControl(n *Node, src *Node) {
	e := b.edgesOf(n)
	e.control = append(e.control, src)
}

func (b *builder) edgesOf(n *Node) *rareEdges {
	if n.edges == nil {
		n.edges = b.edgeSlab.New()
	}
	return n.edges
}

// attrSet returns the completed attrs and dtypes of a node of op oi with
// attrs from the nodes before it with the same attr set (attrset.go),
// working them out for the first; nil when the set is not looked up.
func (b *builder) attrSet(oi *opInfo, attrs map[string]*attrpb.AttrValue) *attrSet {
	if !oi.sets || !b.setStats.useful() {
		return nil
	}
	// The decoder gives NodeDefs whose attr entries are the same bytes one
	// map: a map met before under this op is its set, without a key.
	id := reflect.ValueOf(attrs).UnsafePointer()
	if set, ok := oi.byMap[id]; ok && id != nil {
		b.setStats.hits++
		return set
	}
	key, ok := setKey(oi.def.GetAttr(), attrs)
	if !ok {
		return nil
	}
	if set, ok := oi.known[key]; ok {
		b.setStats.hits++
		if id != nil {
			if oi.byMap == nil {
				oi.byMap = map[unsafe.Pointer]*attrSet{}
			}
			oi.byMap[id] = set
		}
		return set
	}
	b.setStats.misses++
	set := &attrSet{}
	full := completeAttrs(attrs, oi.defaults)
	if len(full) != len(attrs) {
		set.attrs = full
	}
	set.types = b.nodeTypes(oi, full)
	if oi.known == nil {
		oi.known = map[attrKey]*attrSet{}
	}
	oi.known[key] = set
	return set
}

// argTypes is the package argTypes allocating from the builder's slab, so
// that 200,000 nodes do not mean 400,000 small allocations.
func (b *builder) argTypes(args []*opdefpb.OpDef_ArgDef, attrs map[string]*attrpb.AttrValue) []tpb.DataType {
	if len(args) == 0 {
		return nil
	}
	if cap(b.slab)-len(b.slab) < 256 {
		b.slab = make([]tpb.DataType, 0, 16384)
	}
	start := len(b.slab)
	b.slab = appendArgTypes(b.slab, args, attrs)
	if len(b.slab)-start > 256 {
		// A long list; give it its own array rather than overrun the slab's
		// neighbours (append already reallocated if needed).
		out := append([]tpb.DataType(nil), b.slab[start:]...)
		b.slab = b.slab[:start]
		return out
	}
	return b.slab[start:len(b.slab):len(b.slab)]
}

func (b *builder) addCall(n *Node, attr, name string) {
	if name == "" {
		return
	}
	f := b.g.FunctionByName[name]
	if f == nil {
		b.missingFunction(n, attr, name)
		return
	}
	if attr == "f" && (n.Op == "PartitionedCall" || n.Op == "StatefulPartitionedCall") {
		b.checkCallOutputs(n, f)
	}
	for _, c := range n.Calls() {
		if c == f {
			return
		}
	}
	b.addCallee(n, f)
}

// missingFunction reports a function-valued attr naming no library
// function. An op name is not refused: SymbolicGradient takes ops as well
// as functions (common_runtime/function.cc:795-806). Nor is a name in an
// attr of an op no registry knows, whose meaning is unknown. Anything else
// TensorFlow refuses when it places the call (placer_inspection_required_
// ops_utils.cc:80-91, for PartitionedCall's f) or instantiates the function
// (common_runtime/function.cc:808-811, every other function attr).
func (b *builder) missingFunction(n *Node, attr, name string) {
	switch {
	case b.g.Ops.Lookup(name) != nil:
	case n.OpDef == nil:
		b.diagNode("missing_function", n, "node %q attr %q names function %q, which is not in the library", nodeLabel(n), attr, name)
	case attr == "f" && (n.Op == "PartitionedCall" || n.Op == "StatefulPartitionedCall"):
		b.fatalNode("missing_function", rankCall, n, "Failed to find function \"%s\" in function library", name)
	default:
		b.fatalNode("missing_function", rankCall, n, "Function %s is not defined.", name)
	}
}

func nodeLabel(n *Node) string {
	if n.Func != nil {
		return n.Func.Name + "/" + n.Name
	}
	return n.Name
}

// completeAttrs adds the OpDef's default values for attrs the NodeDef leaves
// out (TensorFlow's AddDefaultsToNodeDef). It returns the NodeDef's own map
// (nil when the node has no attrs) when nothing is missing, so callers must
// not modify the result.
func completeAttrs(attrs map[string]*attrpb.AttrValue, defaults []*opdefpb.OpDef_AttrDef) map[string]*attrpb.AttrValue {
	missing := 0
	for _, a := range defaults {
		if _, ok := attrs[a.GetName()]; !ok {
			missing++
		}
	}
	if missing == 0 {
		return attrs
	}
	out := make(map[string]*attrpb.AttrValue, len(attrs)+missing)
	for k, v := range attrs {
		out[k] = v
	}
	for _, a := range defaults {
		if _, ok := out[a.GetName()]; !ok {
			out[a.GetName()] = a.GetDefaultValue()
		}
	}
	return out
}

// argCount is how many tensors one ArgDef stands for under attrs
// (number_attr N, the length of a type_list_attr, else 1); -1 when an attr
// it needs is missing or out of range.
func argCount(a *opdefpb.OpDef_ArgDef, attrs map[string]*attrpb.AttrValue) int {
	switch {
	case a.GetNumberAttr() != "":
		v, ok := attrs[a.GetNumberAttr()]
		if !ok || v.GetI() < 0 || v.GetI() > maxListLen {
			return -1
		}
		return int(v.GetI())
	case a.GetTypeListAttr() != "":
		v, ok := attrs[a.GetTypeListAttr()]
		if !ok || len(v.GetList().GetType()) > maxListLen {
			return -1
		}
		return len(v.GetList().GetType())
	}
	return 1
}

// argTypes flattens ArgDefs into one dtype per tensor, as TensorFlow's
// InOutTypesForNode does: fixed types, type_attr, number_attr repeats,
// type_list_attr lists, and Ref() args as reference types. An arg whose
// attrs are missing contributes one DT_INVALID.
func argTypes(args []*opdefpb.OpDef_ArgDef, attrs map[string]*attrpb.AttrValue) []tpb.DataType {
	if len(args) == 0 {
		return nil
	}
	return appendArgTypes(make([]tpb.DataType, 0, len(args)), args, attrs)
}

func appendArgTypes(out []tpb.DataType, args []*opdefpb.OpDef_ArgDef, attrs map[string]*attrpb.AttrValue) []tpb.DataType {
	for _, a := range args {
		n := argCount(a, attrs)
		if n < 0 {
			out = append(out, tpb.DataType_DT_INVALID)
			continue
		}
		if a.GetTypeListAttr() != "" {
			for _, t := range attrs[a.GetTypeListAttr()].GetList().GetType() {
				out = append(out, refIf(t, a.GetIsRef()))
			}
			continue
		}
		t := a.GetType()
		if a.GetTypeAttr() != "" {
			t = tpb.DataType_DT_INVALID
			if v, ok := attrs[a.GetTypeAttr()]; ok {
				t = v.GetType()
			}
		}
		t = refIf(t, a.GetIsRef())
		for i := 0; i < n; i++ {
			out = append(out, t)
		}
	}
	return out
}

func refIf(t tpb.DataType, ref bool) tpb.DataType {
	if ref && t != tpb.DataType_DT_INVALID {
		return dtype.Ref(t)
	}
	return t
}

// topInputs resolves a top-level node's "name", "name:i" and "^name" inputs.
func (b *builder) topInputs(n *Node) {
	in := n.Def.GetInput()
	if len(in) == 0 {
		return
	}
	ctl := 0
	for _, s := range in {
		if strings.HasPrefix(s, "^") {
			ctl++
		}
	}
	if len(in)-ctl > 0 {
		n.Inputs = b.inputs(len(in) - ctl)
	}
	for _, s := range in {
		name, idx, ctl := ParseTensorName(s)
		src := b.nearby(n, name)
		if src == nil {
			src = b.topByName.get(name)
		}
		if src == nil {
			// graph_constructor.cc:762-768 InitFromEdges
			b.fatalNode("dangling_input", rankEdges, n, "Node '%s': Unknown input node '%s'", n.Name, s)
		}
		switch {
		case ctl && src != nil:
			b.addControl(n, src)
		case ctl:
		case src == nil:
			n.Inputs = append(n.Inputs, Input{Arg: -1, Output: index32(idx)})
		default:
			in := Input{Node: src, Output: index32(idx)}
			b.checkOutputIndex(n, in)
			n.Inputs = append(n.Inputs, in)
		}
	}
	b.checkInputCount(n)
}

// nearbyNodes is how many top-level nodes before a node nearby looks at.
const nearbyNodes = 8

// nearby returns the top-level node named name among the few just before
// n, nil if none is or when names repeat. A GraphDef lists nodes as they
// were created, most inputs just before their consumers, so that most
// inputs resolve here, in nodes the build has just touched, without
// hashing the name and probing the index at random. With every name
// unique, the node found is the one the index holds.
func (b *builder) nearby(n *Node, name string) *Node {
	if b.dupNames || b.plain {
		return nil
	}
	nodes := b.topByName.nodes
	for i := n.ID - 1; i >= max(n.ID-nearbyNodes, 0); i-- {
		if c := &nodes[i]; c.Name == name {
			return c
		}
	}
	return nil
}

// inputs returns an empty slice of capacity n for a node's Inputs, cut
// from a chunk shared by many nodes (appending past n reallocates).
func (b *builder) inputs(n int) []Input { return b.inputSlab.Take(n)[:0] }

func (b *builder) checkInputCount(n *Node) {
	if n.InputTypes() == nil && n.OpDef == nil {
		return
	}
	for _, t := range n.InputTypes() {
		if t == tpb.DataType_DT_INVALID {
			return // counts unresolved; nothing to compare
		}
	}
	if len(n.Inputs) != len(n.InputTypes()) {
		b.diagNode("input_count", n, "node %q (%s) has %d data inputs; its op takes %d", nodeLabel(n), n.Op, len(n.Inputs), len(n.InputTypes()))
	}
}

// funcInputs resolves a function body's inputs, written in FunctionDef
// syntax (tensorflow/core/framework/function.proto): "arg" for a function
// argument, "node:out_arg:index" for a node output, "^node" for control.
func (b *builder) funcInputs(f *Function) {
	// Clearing costs the map's size: a body much smaller than the largest
	// so far gets a map of its own size.
	if b.funcNodes == nil || b.funcNodesMax > 4*len(f.Nodes)+256 {
		b.funcNodes = make(map[string]*Node, len(f.Nodes))
		b.funcNodesMax = len(f.Nodes)
	}
	b.funcNodesMax = max(b.funcNodesMax, len(f.Nodes))
	byName := b.funcNodes
	clear(byName)
	// tf.saved_model.load imports every function body as a graph
	// (python/framework/function_def_to_graph.py), so the importer's name
	// and op checks apply (graph_constructor.cc:689-697).
	for _, n := range f.Nodes {
		if n.Op == "" {
			b.fatalNode("empty_op", rankBody, n, "Node '%s' does not specify an operation", n.Name)
		}
		b.checkControlOrder(n)
		if _, dup := byName[n.Name]; dup {
			b.fatalNode("duplicate_node", rankBody, n, "Node '%s' is not unique", n.Name)
			b.dupNames = true
			continue
		}
		byName[n.Name] = n
	}
	args := map[string]int{}
	for i, a := range f.Def.GetSignature().GetInputArg() {
		args[a.GetName()] = i
	}
	// Reachability needs the return nodes after byName serves another body.
	f.returns = returnNodes(f, byName)
	f.Rets = b.funcRets(f, byName, args)
	for _, n := range f.Nodes {
		for i, s := range n.Def.GetInput() {
			if name, ok := strings.CutPrefix(s, "^"); ok {
				if src := byName[name]; src != nil {
					b.addControl(n, src)
				} else if _, arg := args[name]; !arg {
					// A control input on an argument is legal; anything
					// else naming no node is refused when the function is
					// instantiated (framework/function.cc:322-345).
					b.fatalNode("dangling_input", rankBody, n, "input[%d] == '%s', is not found.", i, s)
				}
				continue
			}
			if n.Inputs == nil {
				n.Inputs = b.inputs(len(n.Def.GetInput()))
			}
			n.Inputs = b.resolveFuncRef(n.Inputs, f, byName, args, n, s)
		}
		b.checkInputCount(n)
		if runsUnpruned(n) {
			f.unpruned = append(f.unpruned, n)
		}
	}
	f.pruneKnown = true
}

// resolveFuncRef resolves one FunctionDef tensor reference. "node:out_arg"
// without an index stands for every tensor of that output arg, as in
// TensorFlow's FunctionInstantiationHelper.
func (b *builder) resolveFuncRef(dst []Input, f *Function, byName map[string]*Node, args map[string]int, n *Node, s string) []Input {
	var parts [3]string
	np := 1
	parts[0] = s
	if a, rest, ok := strings.Cut(s, ":"); ok {
		parts[0], parts[1], np = a, rest, 2
		if a2, rest2, ok := strings.Cut(rest, ":"); ok {
			parts[1], parts[2], np = a2, rest2, 3
		}
	}
	if np == 1 {
		if i, ok := args[s]; ok {
			return append(dst, Input{Arg: index32(i)})
		}
		if src := byName[s]; src != nil { // lenient: a bare node name is output 0
			return append(dst, Input{Node: src})
		}
		b.notFound(n, s)
		return append(dst, Input{Arg: -1})
	}
	src := byName[parts[0]]
	if src == nil {
		b.notFound(n, s)
		return append(dst, Input{Arg: -1})
	}
	if np == 2 {
		if v, err := strconv.Atoi(parts[1]); err == nil && v >= 0 { // GraphDef-style "node:1"
			return append(dst, Input{Node: src, Output: index32(v)})
		}
	}
	start, count, ok := b.outputRange(src, parts[1])
	if !ok {
		idx := 0
		if np == 3 {
			idx, _ = strconv.Atoi(parts[2])
		}
		if !src.Unknown {
			b.notFound(n, s)
		}
		return append(dst, Input{Node: src, Output: index32(idx)})
	}
	if np == 3 {
		idx, err := strconv.Atoi(parts[2])
		if err != nil || idx < 0 || (count >= 0 && idx >= count) {
			b.notFound(n, s)
			idx = 0
		}
		return append(dst, Input{Node: src, Output: index32(start + idx)})
	}
	if count < 0 {
		count = 1
	}
	for i := 0; i < count; i++ {
		dst = append(dst, Input{Node: src, Output: index32(start + i)})
	}
	return dst
}

// funcRets resolves f's results (Function.Rets), once for every reader:
// shape inference, placement and the phases each take a function's
// results at every call of it.
func (b *builder) funcRets(f *Function, byName map[string]*Node, args map[string]int) []Input {
	oas := f.Def.GetSignature().GetOutputArg()
	if len(oas) == 0 {
		return nil
	}
	out := make([]Input, len(oas))
	for i, oa := range oas {
		s, ok := f.Def.GetRet()[oa.GetName()]
		out[i] = Input{Arg: -1}
		if ok {
			out[i] = b.funcRet(byName, args, strings.TrimPrefix(s, "^"))
		}
	}
	return out
}

// funcRet resolves one ret value, "arg", "node:index" or
// "node:out_arg:index", as resolveFuncRef resolves a body's input, without
// reporting what it cannot resolve (Arg -1): the body's inputs report
// what the function lacks.
func (b *builder) funcRet(byName map[string]*Node, args map[string]int, s string) Input {
	none := Input{Arg: -1}
	name, rest, colon := strings.Cut(s, ":")
	if !colon {
		if i, ok := args[s]; ok {
			return Input{Arg: index32(i)}
		}
		return none
	}
	src := byName[name]
	if src == nil {
		return none
	}
	arg, index, three := strings.Cut(rest, ":")
	idx := 0
	if three {
		v, err := strconv.Atoi(index)
		if err != nil || v < 0 {
			return none
		}
		idx = v
	} else if v, err := strconv.Atoi(rest); err == nil && v >= 0 {
		return Input{Node: src, Output: index32(v)}
	}
	start, _, ok := b.outputRange(src, arg)
	if !ok {
		return none
	}
	return Input{Node: src, Output: index32(start + idx)}
}

// notFound refuses a function body's data input that names no argument and
// no output of a node of the body, as instantiating the function does
// (framework/function.cc:287-294; FormatNodeDefForError writes the node as
// {{node name}}).
func (b *builder) notFound(n *Node, s string) {
	b.fatalNode("dangling_input", rankBody, n, "input %s is not found: {{node %s}}", s, n.Name)
}

// outputRange finds the flattened index range of a node's named output arg;
// count is -1 when the arg's length cannot be told.
func (b *builder) outputRange(n *Node, arg string) (start, count int, ok bool) {
	var outs []*opdefpb.OpDef_ArgDef
	switch {
	case n.OpDef != nil:
		outs = n.OpDef.GetOutputArg()
	case len(n.Calls()) > 0 && n.Calls()[0].Name == n.Op:
		outs = n.Calls()[0].Def.GetSignature().GetOutputArg()
	default:
		return 0, 0, false
	}
	for _, a := range outs {
		c := argCount(a, n.Attrs)
		if a.GetName() == arg {
			return start, c, true
		}
		if c < 0 {
			c = 1
		}
		start += c
	}
	return 0, 0, false
}

// recursion marks functions that can reach themselves through calls
// (Tarjan's strongly connected components, iteratively) and reports the
// cycles as TensorFlow refuses them.
func (b *builder) recursion() {
	fs := b.g.Functions
	if len(fs) == 0 {
		return
	}
	// Callees per function, deduplicated, in a stable order.
	callees := make([][]int, len(fs))
	for i, f := range fs {
		seen := map[int]bool{}
		for _, n := range f.Nodes {
			for _, c := range n.Calls() {
				j := c.Index()
				if !seen[j] {
					seen[j] = true
					callees[i] = append(callees[i], j)
				}
			}
		}
	}
	index := make([]int, len(fs))
	low := make([]int, len(fs))
	onStack := make([]bool, len(fs))
	for i := range index {
		index[i] = -1
	}
	var stack []int
	next := 0
	type frame struct{ v, child int }
	for root := range fs {
		if index[root] >= 0 {
			continue
		}
		work := []frame{{root, 0}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(work) > 0 {
			fr := &work[len(work)-1]
			v := fr.v
			if fr.child < len(callees[v]) {
				w := callees[v][fr.child]
				fr.child++
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					work = append(work, frame{w, 0})
				} else if onStack[w] && index[w] < low[v] {
					low[v] = index[w]
				}
				continue
			}
			work = work[:len(work)-1]
			if len(work) > 0 {
				p := work[len(work)-1].v
				if low[v] < low[p] {
					low[p] = low[v]
				}
			}
			if low[v] == index[v] {
				var comp []int
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp = append(comp, w)
					if w == v {
						break
					}
				}
				if len(comp) > 1 || containsInt(callees[v], v) {
					for _, w := range comp {
						fs[w].Recursive = true
					}
				}
			}
		}
	}
	b.recursionProblems(callees)
}

func containsInt(xs []int, v int) bool {
	for _, x := range xs {
		if x == v {
			return true
		}
	}
	return false
}
