package placement

import (
	"errors"
	"fmt"
	"strings"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/graph/shape"
	"github.com/tfscan/tfscan/internal/csr"
)

// sim is one simulation's state.
type sim struct {
	g        *graph.Graph
	opts     Options
	soft     bool
	devs     []string // device names, e.g. "XPU:0", "CPU:0"
	types    []string // device types
	tgt, cpu int
	matchers []coverage.Matcher

	// nodes are the flattened graph's, shared with other simulations
	// (flat) until the simulation changes one (own).
	nodes    []*pnode
	units    []*unit
	flat     *flattened
	ownNodes bool
	// links are the nodes' inputs and control inputs (the flattened
	// graph's: a simulation's own copy of a node keeps them).
	links
	// hasEnter: the build added an Enter or RefEnter node that is no
	// ghost (computeFrames).
	hasEnter bool
	// inputsMet counts the inputs of the nodes the build added, which
	// resolveAll turns into pins; outCounts are the out edges of each
	// node (by index plus one) it counted as it did, which outEdges
	// groups them by.
	inputsMet int
	outCounts []int32
	// classOf and classes are the nodes' lookup classes (classer),
	// which resolveAll works out as it meets each node.
	classOf []int32
	classes int
	// ownSpecial are the special nodes of a simulation whose nodes' types
	// differ from the flattened graph's (sim.special).
	ownSpecial *special
	// resArgs are the resource arguments bind places.
	resArgs []resArg
	// crossings are the resource inputs that reach their producer through
	// a session-graph call's argument, crossAt the same by (node, input).
	crossings []crossing
	crossAt   map[[2]int32]int32
	// first placement node of each graph node (graph.Node.ID), -1 if none
	firstOf []int32

	// per node
	// rowOf is node i's row of kernel lookups and priorities (rowTable):
	// sups holds each row's kernel priority on each device (-1:
	// unsupported), len(devs) a row, see sup; mtab the distinct kernel
	// lookups and rowMidx each row's on device d at r*len(devs)+d (-1:
	// none), see match.
	rowOf   []int32
	sups    []int
	mtab    []coverage.Match
	rowMidx []int32
	// dev is each node's device, an index in devs (-1: none yet); int8,
	// as maxDevs allows, so that the passes over edges that read their
	// ends' devices read from an array a cache holds.
	dev []int8
	// reasons are node i's reasons: reasonLists[reasons[i]], the first
	// list nil (see reasonsOf). Most nodes give one reason many give alike.
	reasons     []int32
	reasonLists [][]string
	parent      []int32
	// gslab holds each colocation group at its root's index (group); the
	// others' are not live.
	gslab []group
	// specTab are the device requests groups hold, each once (specID,
	// specIDs), the empty one first; ownPrios the device priorities of
	// the groups that have their own (setPrio).
	specTab  []devSpec
	specIDs  map[devSpec]int32
	ownPrios [][]int
	// mergeNote is why a node joined its group (first merge), for the
	// nodes that did.
	mergeNote map[int]string

	shapes *shape.Shapes
	amp    map[int]tpb.DataType

	errs     []string
	warnings []string

	topFetches []fetchRef
	outs       edges
	// fused memoizes fusedCovered: the lookups of a fused op repeat for
	// every chain in the graph.
	fused map[fusedKey]bool
	// whatIf overrides node matches during a what-if re-placement.
	whatIf map[int][]coverage.Match
	// edits and ignoredMsg hold the reasons many nodes give alike (edit,
	// ignored).
	edits map[reasonEdit]int32
	// recentEdits are the last edits made, tried before edits: nodes one
	// after the other often give the same few reasons (a layer's ops, its
	// constants).
	recentEdits [4]struct {
		e reasonEdit
		k int32
	}
	nextRecent int
	// generatorWhy is, by device, why a generator went where its
	// consumers are, as says gives it.
	generatorWhy []string
	ignoredMsg   map[devSpec]string
	// classSafe tells, per device, that its matcher answers a lookup class
	// alike (lookupKernels); devMemOnly memoizes deviceMemoryOnly by lookup
	// class and device (0: not yet, 1: yes, -1: no) on those devices.
	classSafe  []bool
	devMemOnly []int8
	// candLists are the groups' candidate device lists, each once, and
	// candBuf the buffer candidates fills (internCands).
	candLists [][]int
	candBuf   []int
	// recentCands are the candidates of the last groups without a
	// request, by key (candidates).
	recentCands [4]recentCand
	nextCands   int
	// specs are the device requests of nodes, each once (spec), and
	// lastSpec the last one asked for: nodes one after the other mostly
	// request the same device.
	specs    map[devSpec]*devSpec
	lastSpec *devSpec
	// said holds describe's texts (says), kernelTexts those of kernelOn,
	// by device, as says gives them.
	said        map[saysKey]string
	kernelTexts [][2]string
	// loweredSaid holds the reasons of nodes covered in a lower
	// precision (lowered).
	loweredSaid map[loweredKey]string
}

type attrValue = attrpb.AttrValue

// Simulate predicts the placement of g on a machine with the target device
// and a CPU, following TensorFlow 2.15's placer and partitioner. target and
// cpu answer kernel lookups for their device types.
func Simulate(g *graph.Graph, target, cpu coverage.Matcher, opts Options) (*Result, error) {
	if g == nil {
		return nil, errors.New("placement: nil graph")
	}
	if target == nil || cpu == nil {
		return nil, errors.New("placement: a target and a CPU matcher are needed")
	}
	switch opts.Precision {
	case "", PrecisionMixedFloat16, PrecisionMixedBFloat16:
	default:
		return nil, fmt.Errorf("placement: unknown precision %q (want mixed_float16 or mixed_bfloat16)", opts.Precision)
	}
	s := newSim(g, target, cpu, opts)
	if err := s.flatten(); err != nil {
		return nil, err
	}
	s.inferShapes()
	s.applyAMP()
	s.lookupKernels()
	s.colocate()
	s.assignAll()
	s.fixControlFlow()
	s.oneCluster()
	res := s.result()
	return res, nil
}

func newSim(g *graph.Graph, target, cpu coverage.Matcher, opts Options) *sim {
	s := &sim{g: g, opts: opts, soft: !opts.NoSoftPlacement}
	tt := strings.ToUpper(target.DeviceType())
	if tt == "CPU" {
		s.devs = []string{"CPU:0"}
		s.types = []string{"CPU"}
		s.matchers = []coverage.Matcher{target}
		s.tgt, s.cpu = 0, 0
		return s
	}
	s.devs = []string{tt + ":0", "CPU:0"}
	s.types = []string{tt, "CPU"}
	s.matchers = []coverage.Matcher{target, cpu}
	s.tgt, s.cpu = 0, 1
	// Device order by type priority, then name (device_set.cc:74-97).
	if typePriority(tt) < typePriority("CPU") {
		s.devs[0], s.devs[1] = s.devs[1], s.devs[0]
		s.types[0], s.types[1] = s.types[1], s.types[0]
		s.matchers[0], s.matchers[1] = s.matchers[1], s.matchers[0]
		s.tgt, s.cpu = 1, 0
	}
	return s
}

func (s *sim) opDef(op string) *opdefpb.OpDef {
	if d := s.g.Ops.Lookup(op); d != nil {
		return d
	}
	return builtinOpDefs[op]
}

// build flattens the graph into placement units, with devices as roles
// (share.go).
func (s *sim) build() error {
	s.firstOf = flatArray[int32](s.opts.Scratch, len(s.g.Nodes))
	for i := range s.firstOf {
		s.firstOf[i] = -1
	}
	budget := 4 * len(s.g.Nodes)
	if budget < 1_000_000 {
		budget = 1_000_000
	}
	b := &builder{s: s, budget: budget, lowers: s.g.HasAnyOp(functionalOp)}
	// Every node of the model, most once, and the nodes the flattening
	// adds (a call's arguments and results), with lentRoom's room for them.
	s.nodes = make([]*pnode, 0, lentRoom(len(s.g.Nodes), len(s.g.Functions) > 0))
	top := s.g.Nodes[:min(s.g.TopLevel, len(s.g.Nodes))]
	if len(top) > 0 {
		s.units = append(s.units, &unit{kind: unitTopLevel, first: 0})
		inst := &instance{dflt: -1, unit: 0, single: -1}
		b.addInstance(inst, top, s.g.TopoKeepsOrder())
		b.drain()
		s.markFeeds(top, b.placeholders)
	}
	// Functions not instantiated from the top level: bodies of non-lowered
	// control flow and XLA units run single-device under their op; dataset
	// functions run on the host; the rest are placed as TF2 functions.
	remaining := make([]*graph.Function, 0)
	for _, f := range s.g.Functions {
		if !s.instantiated(f) {
			remaining = append(remaining, f)
		}
	}
	for progress := true; progress && len(remaining) > 0; {
		progress = false
		var next []*graph.Function
		for _, f := range remaining {
			if s.instantiated(f) {
				progress = true
				continue
			}
			caller, why, host := s.bodyCaller(f)
			switch {
			case host:
				s.addFunctionUnit(b, f, unitBody, -1, why)
			case caller >= 0:
				s.addFunctionUnit(b, f, unitBody, caller, why)
			default:
				next = append(next, f)
				continue
			}
			progress = true
		}
		remaining = next
	}
	for _, f := range remaining {
		if s.instantiated(f) {
			continue
		}
		s.addFunctionUnit(b, f, unitFunction, -1, "")
	}
	if b.budget <= 0 {
		s.warnings = append(s.warnings, "the flattened graph hit tfscan's size limit; further calls were left un-inlined")
	}
	s.resolveAll()
	s.computeFrames()
	return nil
}

func (s *sim) instantiated(f *graph.Function) bool {
	for _, n := range f.Nodes {
		if s.firstOf[n.ID] >= 0 {
			return true
		}
	}
	return false
}

// datasetOp reports whether an op takes functions that run inside tf.data
// (docs/placement.md#dataset-functions).
func datasetOp(op string) bool {
	return strings.Contains(op, "Dataset")
}

// bodyCaller finds how a not-yet-instantiated function runs: under a placed
// caller (single-device body), on the host (dataset function), or on its
// own (-1, false).
func (s *sim) bodyCaller(f *graph.Function) (int, string, bool) {
	for _, c := range f.Callers {
		if datasetOp(c.Op) {
			return -1, fmt.Sprintf("dataset function of %s: runs inside tf.data on the host (docs/placement.md#dataset-functions)", c.Op), true
		}
	}
	for _, c := range f.Callers {
		pi := s.firstOf[c.ID]
		if pi < 0 {
			continue
		}
		p := s.nodes[pi]
		if p.is(pGhost) {
			continue
		}
		switch {
		case isXLAMarked(c):
			return int(pi), fmt.Sprintf("body of XLA-compiled %s %s: no per-op placement (docs/placement.md#xla-compiled-functions)", c.Op, c.Name), false
		case ifOps[c.Op] || caseOps[c.Op] || whileOps[c.Op]:
			return int(pi), fmt.Sprintf("body of non-lowered %s %s: runs single-device (functional_ops.cc:45-56, function.cc:930-951)", c.Op, c.Name), false
		case callOps[c.Op] || c.OpDef == nil:
			// an un-inlined call (recursion, size limit): its own function
			continue
		default:
			return int(pi), fmt.Sprintf("function of %s %s runs on its device", c.Op, c.Name), false
		}
	}
	return -1, "", false
}

func (s *sim) addFunctionUnit(b *builder, f *graph.Function, kind unitKind, caller int, why string) {
	u := &unit{kind: kind, fn: f, first: len(s.nodes), why: why}
	s.units = append(s.units, u)
	ui := len(s.units) - 1
	inst := &instance{fn: f, dflt: -1, unit: ui, single: -1}
	switch {
	case kind == unitBody && caller < 0:
		inst.host, inst.singleK = true, why
	case kind == unitBody:
		inst.single, inst.singleK = caller, why
	default:
		inst.dflt = s.functionRole()
	}
	// _Arg nodes: pinned to their input device (optimize_function_graph_utils.cc:294-457).
	inst.args = make([]ref, len(f.Def.GetSignature().GetInputArg()))
	for i := range inst.args {
		t := tpb.DataType_DT_INVALID
		if i < len(f.ArgTypes) {
			t = f.ArgTypes[i]
		}
		name := f.Def.GetSignature().GetInputArg()[i].GetName()
		p := &pnode{x: &pextra{name: name, path: f.Name + "/" + name},
			assigned: roleCPU, dflt: -1, ghostOf: -1}
		resource := false
		switch {
		case kind == unitBody && caller >= 0:
			p.assigned = -2 // resolved to the caller's device at assignment
		case kind == unitBody:
			p.assigned = roleCPU
		case t == tpb.DataType_DT_RESOURCE:
			// Where depends on the target: bind places it.
			resource = true
		default:
			p.flags |= pIO
			p.x.note = "argument: fed from the host (execute.cc:335-392)"
		}
		p.x.look = &graph.Node{ID: -1, Name: name, Op: "_Arg", OpDef: s.opDef("_Arg")}
		p.x.look.SetTypes(nil, []tpb.DataType{t})
		idx := b.newNode(inst, p)
		p.ghostOf = int32(inst.single)
		inst.args[i] = ref{pn: idx}
		if resource {
			s.resArgs = append(s.resArgs, resArg{pn: idx, f: f, i: i})
		}
	}
	b.addInstance(inst, f.Nodes, f.TopoKeepsOrder())
	b.drain()
	// _Retval nodes: fetched results.
	rets := b.retRefs(inst, f)
	for i, r := range rets {
		t := tpb.DataType_DT_INVALID
		if i < len(f.RetTypes) {
			t = f.RetTypes[i]
		}
		name := fmt.Sprintf("%s_retval_%d", f.Name, i)
		p := &pnode{x: &pextra{name: name, path: f.Name + "/" + name, rin: []ref{r}},
			assigned: -1, dflt: int8(inst.dflt), ghostOf: -1, flags: pPassthrough}
		p.mark(pFetch, kind == unitFunction)
		p.x.look = &graph.Node{ID: -1, Name: name, Op: "_Retval", OpDef: s.opDef("_Retval"),
			Attrs: map[string]*attrValue{"T": typeAttr(t)}}
		p.x.look.SetTypes([]tpb.DataType{t}, nil)
		b.newNode(inst, p)
	}
}

// varDevice is where a TF2 loader creates a float variable: the target when
// it has a float VarHandleOp kernel, else CPU (docs/placement.md#resource-arguments), as a
// role.
func (s *sim) varDevice(dt tpb.DataType) int {
	if dt == tpb.DataType_DT_INVALID {
		dt = tpb.DataType_DT_FLOAT
	}
	n := &graph.Node{ID: -1, Name: "VarHandleOp", Op: "VarHandleOp", OpDef: s.opDef("VarHandleOp"),
		Attrs: map[string]*attrValue{"dtype": typeAttr(dt), "shape": {}, "container": strAttr(""),
			"shared_name": strAttr(""), "allowed_devices": {}}}
	n.SetTypes(nil, []tpb.DataType{tpb.DataType_DT_RESOURCE})
	if supportedReason(s.matchers[s.tgt].Match(n).Reason) {
		return roleTarget
	}
	return roleCPU
}

// resourceArgDevice is where (as a role) the resource behind argument i of f lives: a
// variable where a TF2 loader creates one of its dtype; any other resource
// (a lookup table, an iterator) where its creating op ran, which tfscan
// cannot see, so it goes by the body's consumers of the handle, through
// the nested calls that pass it on (their bodies are inlined): CPU when
// one of them has no kernel on the target (they must share its device,
// colocation_graph.cc:707-785; table and iterator creators are CPU
// kernels), else the target.
func (s *sim) resourceArgDevice(f *graph.Function, i int) (int, string) {
	if dt := resourceArgDType(f, i); dt != tpb.DataType_DT_INVALID {
		return s.varDevice(dt), "resource argument: pinned to the variable's device (docs/placement.md#resource-arguments)"
	}
	if n := s.hostOnlyUser(f, i, 0); n != nil {
		return roleCPU, fmt.Sprintf("resource argument: pinned to CPU, where a resource %s %s uses must live (%s has no %s kernel)", n.Op, n.Name, n.Op, s.types[s.tgt])
	}
	return s.varDevice(tpb.DataType_DT_INVALID), "resource argument: pinned to the variable's device (docs/placement.md#resource-arguments)"
}

// hostOnlyUser is a node that reads argument i of f, directly or through
// nested calls, and has no kernel on the target; nil for none.
func (s *sim) hostOnlyUser(f *graph.Function, i, depth int) *graph.Node {
	for _, n := range f.Nodes {
		for k, in := range n.Inputs {
			if in.Node != nil || int(in.Arg) != i {
				continue
			}
			if g := calledFn(n); g != nil {
				if depth < maxInlineDepth {
					if u := s.hostOnlyUser(g, k, depth+1); u != nil {
						return u
					}
				}
				continue
			}
			if n.OpDef != nil && !supportedReason(s.matchers[s.tgt].Match(n).Reason) {
				return n
			}
		}
	}
	return nil
}

// resourceArgDType guesses the dtype of the variable behind resource
// argument i: the arg_attr "_handle_dtypes" when present, else the "dtype"
// (or "T") attr of the first body node reading or updating it.
func resourceArgDType(f *graph.Function, i int) tpb.DataType {
	if aa := f.Def.GetArgAttr()[uint32(i)]; aa != nil {
		if ts := aa.GetAttr()["_handle_dtypes"].GetList().GetType(); len(ts) > 0 {
			return ts[0]
		}
	}
	for _, n := range f.Nodes {
		for _, in := range n.Inputs {
			if in.Node != nil || int(in.Arg) != i {
				continue
			}
			for _, k := range []string{"dtype", "T"} {
				if a, ok := n.Attrs[k]; ok && a.GetType() != tpb.DataType_DT_INVALID && a.GetType() != tpb.DataType_DT_RESOURCE {
					return a.GetType()
				}
			}
		}
	}
	return tpb.DataType_DT_INVALID
}

func supportedReason(r coverage.Reason) bool { return r.Covered() }

// signature picks the signature whose inputs are fed.
func (s *sim) signature() *savedSig { return signatureOf(s.g, s.opts.Signature) }

// signatureOf picks g's signature named want ("": serving_default), else
// its first one.
func signatureOf(g *graph.Graph, want string) *savedSig {
	sigs := g.Signatures
	if len(sigs) == 0 {
		return nil
	}
	pick := sigs[0]
	if want == "" {
		want = "serving_default"
	}
	for _, sg := range sigs {
		if sg.Key == want {
			pick = sg
		}
	}
	out := &savedSig{key: pick.Key}
	for _, in := range pick.Inputs {
		out.inputs = append(out.inputs, sigTensor{key: in.Key, name: in.Name, shape: in.Shape, unknownRank: in.UnknownRank, dtype: in.DType})
	}
	for _, o := range pick.Outputs {
		out.outputs = append(out.outputs, sigTensor{key: o.Key, name: o.Name, dtype: o.DType})
	}
	return out
}

type savedSig struct {
	key             string
	inputs, outputs []sigTensor
}

type sigTensor struct {
	key, name   string
	shape       []int64
	unknownRank bool
	dtype       tpb.DataType
}

// tensorName is the node and port a signature tensor name reads
// (graph.ParseTensorName; "^x" reads x).
func tensorName(name string) (string, int) {
	node, port, _ := graph.ParseTensorName(name)
	return node, port
}

// markFeeds marks fed Placeholders and records the fetches of the chosen
// signature for the top-level unit (or Options.Fetches); without signatures
// the Placeholders (the top-level ones the flattening added) are fed and
// the outputs summarize_graph would take are fetched.
func (s *sim) markFeeds(top, placeholders []*graph.Node) {
	sig := s.signature()
	fetches := s.opts.Fetches
	if fetches == nil && sig == nil {
		for _, n := range s.g.PossibleOutputs() {
			if k, known := n.NumOutputs(); k > 0 || !known {
				fetches = append(fetches, graph.Tensor{Node: n, Output: 0})
			}
		}
	}
	for _, t := range fetches {
		s.topFetches = append(s.topFetches, fetchRef{ref: ref{inst: nil, pn: s.firstOf2(t.Node), port: t.Output}, name: t.Name()})
	}
	if sig == nil {
		for _, n := range placeholders {
			if pi := s.firstOf2(n); pi >= 0 {
				s.nodes[pi].flags |= pFed
			}
		}
		return
	}
	// The nodes the signature names, found in one pass (a signature
	// names a few of a model's nodes).
	byName := map[string]*graph.Node{}
	for _, ts := range [][]sigTensor{sig.inputs, sig.outputs} {
		for _, t := range ts {
			nm, _ := tensorName(t.name)
			byName[nm] = nil
		}
	}
	for _, n := range top {
		if _, ok := byName[n.Name]; ok {
			byName[n.Name] = n
		}
	}
	for _, in := range sig.inputs {
		nm, _ := tensorName(in.name)
		if n := byName[nm]; n != nil {
			if pi := s.firstOf2(n); pi >= 0 && !s.nodes[pi].is(pGhost) {
				s.nodes[pi].flags |= pFed
			}
		}
	}
	if s.opts.Fetches != nil {
		return
	}
	for _, o := range sig.outputs {
		nm, port := tensorName(o.name)
		if n := byName[nm]; n != nil {
			s.topFetches = append(s.topFetches, fetchRef{ref: ref{inst: nil, pn: s.firstOf2(n), port: port}, name: o.name})
		}
	}
}

type fetchRef struct {
	ref  ref
	name string
}

func (s *sim) firstOf2(n *graph.Node) int {
	if n.ID < 0 || n.ID >= len(s.firstOf) {
		return -1
	}
	return int(s.firstOf[n.ID])
}

// computeFrames assigns while-frame ids: Enter opens a frame named by its
// frame_name, Exit returns to the parent, other nodes take the frame of
// their first data input (graph/control_flow.cc BuildControlFlowInfo).
func (s *sim) computeFrames() {
	// Without an Enter (the builder notes one as it adds it) every node
	// stays in the root frame (0), where pnodes start.
	if !s.hasEnter {
		return
	}
	order := s.topo()
	type fr struct {
		parent int
		key    string
	}
	frames := []fr{{parent: -1}}
	byKey := map[string]int{"": 0}
	frameFor := func(parent int, key string) int {
		k := fmt.Sprintf("%d/%s", parent, key)
		if id, ok := byKey[k]; ok {
			return id
		}
		frames = append(frames, fr{parent: parent, key: key})
		byKey[k] = len(frames) - 1
		return len(frames) - 1
	}
	hint := map[string]int{}
	for _, i := range order {
		p := s.nodes[i]
		if p.is(pGhost) {
			continue
		}
		inFrame := -1
		for _, q := range s.inputs(p) {
			if q.n >= 0 && !s.nodes[q.n].isNextIteration() {
				inFrame = int(s.nodes[q.n].frame)
				break
			}
		}
		switch {
		case p.op() == "Enter" || p.op() == "RefEnter":
			parent := max(inFrame, 0)
			key := string(p.look().Attrs["frame_name"].GetS())
			p.frame = int32(frameFor(parent, key))
			if p.frameHint() != "" {
				hint[p.frameHint()] = int(p.frame)
			}
		case p.op() == "Exit" || p.op() == "RefExit":
			if inFrame > 0 {
				p.frame = int32(frames[inFrame].parent)
			}
		case inFrame >= 0:
			p.frame = int32(inFrame)
		default:
			if w := s.waits(p); len(w) > 0 {
				p.frame = s.nodes[w[0]].frame
			} else if id, ok := hint[p.frameHint()]; ok && p.frameHint() != "" {
				p.frame = int32(id)
			}
		}
	}
}

func (p *pnode) isNextIteration() bool {
	return p.op() == "NextIteration" || p.op() == "RefNextIteration"
}

// eachNeighbour calls f with every node j is joined to: its producers (data,
// -1 for an unresolved input, and control) and its consumers (outs, from
// outEdges).
func (s *sim) eachNeighbour(j int, outs edges, f func(k int)) {
	for _, q := range s.inputs(s.nodes[j]) {
		f(int(q.n))
	}
	for _, c := range s.waits(s.nodes[j]) {
		f(int(c))
	}
	for _, e := range outs.Of(j) {
		f(int(e.dst))
	}
}

// components labels the connected components, over data, control and
// out edges taken both ways, of the nodes k for which in(seed, k) holds,
// seed being the lowest-numbered node of the component being grown.
// comp[i] is the component's number (in order of their seeds) or -1, and
// sizes[c] the number of nodes in component c. comp is buf, an array of
// len(s.nodes).
func (s *sim) components(buf []int32, in func(seed, k int) bool) (comp []int32, sizes []int) {
	outs := s.outEdges()
	comp = buf
	for i := range comp {
		comp[i] = -1
	}
	for i := range s.nodes {
		if comp[i] >= 0 || !in(i, i) {
			continue
		}
		id := len(sizes)
		sizes = append(sizes, 0)
		stack := []int{i}
		comp[i] = int32(id)
		visit := func(k int) {
			if k >= 0 && comp[k] < 0 && in(i, k) {
				comp[k] = int32(id)
				stack = append(stack, k)
			}
		}
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			sizes[id]++
			s.eachNeighbour(j, outs, visit)
		}
	}
	return comp, sizes
}

// topo returns node indices in a topological order (back edges from
// NextIteration ignored), ties by index; nodes on cycles last.
func (s *sim) topo() []int {
	n := len(s.nodes)
	indeg := make([]int, n)
	outs := s.outEdges()
	for i, p := range s.nodes {
		for _, q := range s.inputs(p) {
			if q.n >= 0 && !s.nodes[q.n].isNextIteration() {
				indeg[i]++
			}
		}
		indeg[i] += int(p.ctrl.n)
	}
	h := &intHeap{}
	for i := range s.nodes {
		if indeg[i] == 0 {
			h.push(i)
		}
	}
	order := make([]int, 0, n)
	done := make([]bool, n)
	for h.len() > 0 {
		i := h.pop()
		done[i] = true
		order = append(order, i)
		if s.nodes[i].isNextIteration() {
			for _, e := range outs.Of(i) {
				if e.isCtrl() {
					indeg[e.dst]--
					if indeg[e.dst] == 0 {
						h.push(int(e.dst))
					}
				}
			}
			continue
		}
		for _, e := range outs.Of(i) {
			indeg[e.dst]--
			if indeg[e.dst] == 0 {
				h.push(int(e.dst))
			}
		}
	}
	for i := range s.nodes {
		if !done[i] {
			order = append(order, i)
		}
	}
	return order
}

// outEdge is one consumer of a node: data (port → dst input dstIn) or
// control (dstIn -1). Twelve bytes: a graph has an edge or two a node.
type outEdge struct {
	port, dst, dstIn int32
}

// isCtrl tells a control edge.
func (e outEdge) isCtrl() bool { return e.dstIn < 0 }

// edges are every node's consumers, by node, in the order the nodes'
// inputs give them.
type edges = csr.Groups[outEdge]

func (s *sim) outEdges() edges {
	if s.outs.Keys() > 0 || len(s.nodes) == 0 {
		return s.outs
	}
	each := func(add func(int, outEdge)) {
		for i, p := range s.nodes {
			for j, q := range s.inputs(p) {
				if q.n >= 0 {
					add(int(q.n), outEdge{port: q.port, dst: int32(i), dstIn: int32(j)})
				}
			}
			for _, c := range s.waits(p) {
				add(int(c), outEdge{dst: int32(i), dstIn: -1})
			}
		}
	}
	if c := s.outCounts; len(c) == len(s.nodes)+1 {
		// counted by resolveAll
		s.outs = csr.BuildCounted(c, func(total int) []outEdge { return flatArray[outEdge](s.opts.Scratch, total) }, each)
	} else {
		s.outs = csr.Build(len(s.nodes), each)
	}
	s.outCounts = nil
	return s.outs
}
