package graph

import (
	"slices"

	varpb "github.com/wamuir/graft/tensorflow/core/framework/variable_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
	"google.golang.org/protobuf/proto"

	"github.com/tfscan/tfscan/internal/lastfew"
)

// Phase says when a node runs in the life of a served model. A migration
// is judged on the step: work done once at load (restoring variables,
// initialising tables) or only when a checkpoint is written costs little
// wherever it runs.
type Phase uint8

// Phases in increasing precedence: a node several phases need is counted
// in the highest, because it runs on every step if the step needs it.
const (
	// PhaseUnreachable nodes run neither on a step nor at load nor at save
	// (dead code, Keras' own traced functions a server never calls).
	PhaseUnreachable Phase = iota
	// PhaseSave nodes write a checkpoint: the saver's save tensor and the
	// save functions of saveable objects.
	PhaseSave
	// PhaseLoad nodes run once when the model is loaded (or torn down): the
	// restore op, the init op, table, asset and variable initialisation,
	// and the resource functions of the object graph.
	PhaseLoad
	// PhaseStep nodes run on every call of a served signature.
	PhaseStep
)

var phaseNames = [...]string{"unreachable", "save", "load", "step"}

// String is the name reports use: step, load, save or unreachable.
func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return "unreachable"
}

// PhaseNames lists the phase names, step first.
func PhaseNames() []string { return []string{"step", "load", "save", "unreachable"} }

// SavedModel names TensorFlow's loader and Python API read from a MetaGraph
// (tensorflow/cc/saved_model/constants.h, tensorflow/python/framework/ops.py
// GraphKeys).
const (
	initOpSignatureKey = "__saved_model_init_op" // kSavedModelInitOpSignatureKey
	mainOpKey          = "saved_model_main_op"   // kSavedModelMainOpKey
	legacyInitOpKey    = "legacy_init_op"        // kSavedModelLegacyInitOpKey
	assetsKey          = "saved_model_assets"    // kSavedModelAssetsKey
)

// loadCollections are the node_list collections whose nodes run at load:
// the SavedModel init ops (loader_util.cc GetInitOp), tf.compat.v1's
// INIT_OP, LOCAL_INIT_OP, TABLE_INITIALIZERS and ASSET_FILEPATHS.
var loadCollections = []string{mainOpKey, legacyInitOpKey, "init_op", "local_init_op", "table_initializer", "asset_filepaths"}

// variableCollections hold VariableDef protos (GraphKeys' variable
// collections); each names its initializer op.
var variableCollections = []string{"variables", "local_variables", "trainable_variables", "model_variables",
	"moving_average_variables", "metric_variables"}

// Object-graph children by local name whose concrete functions run at load
// or at save (tensorflow/python/saved_model/load.py restores resources with
// _create_resource and _initialize; _destroy_resource runs when the model is
// released; TF 2.10+ trackables save and restore through
// _serialize_to_tensors and _restore_from_tensors).
var (
	loadChildren = []string{"_create_resource", "_initialize", "_destroy_resource", "_restore_from_tensors"}
	saveChildren = []string{"_serialize_to_tensors"}
)

// Ops that only a saver uses (tensorflow/core/ops/io_ops.cc): how a graph
// without metadata still tells its saver apart.
var (
	restoreOps = []string{"RestoreV2", "Restore", "RestoreSlice"}
	saveOps    = []string{"SaveV2", "Save", "SaveSlices", "MergeV2Checkpoints"}
	// initOps, as sinks, initialise a variable or a table.
	initOps = []string{"Assign", "AssignVariableOp", "InitializeTable", "InitializeTableV2",
		"InitializeTableFromTextFile", "InitializeTableFromTextFileV2", "InitializeTableFromDataset",
		"LookupTableImport", "LookupTableImportV2"}
)

// Phases returns the phase of every node, indexed by Node.ID.
//
// The step is what the signature's outputs need; with signature "" it is
// what any served signature needs (every signature but the init op's). A
// model without served signatures (a frozen GraphDef, a TF.js model, a
// checkpoint MetaGraph) steps through its top-level sinks, except the sinks
// that are saver or initialisation work.
//
// Load work is the saver_def's restore op, the init op (the
// __saved_model_init_op signature, else saved_model_main_op, else
// legacy_init_op, as loader_util.cc GetInitOp reads them, plus the other
// initialisation collections), asset tensors (GetAssetFileDefs), variable
// initializers (VariableDef.initializer_name) and the resource and restore
// functions of the TF2 object graph. Save work is the saver_def's save
// tensor and the object graph's save functions.
//
// A walk follows data and control inputs; a node calling a function brings
// in what the function body runs: the nodes its returns, control returns,
// stateful ops and control-flow ops need (PruneFunctionBody,
// tensorflow/core/common_runtime/function.cc:899-927). Functions nobody calls
// that the object graph names are entered the same way. Walks run in the
// order step, load, save, and a node keeps the first phase that reaches it.
// Where the step's walk is the build's reachability (stepIsReachable) the
// phases are read from Node.Reachable instead, or, where it reached every
// node, need no node read.
func (g *Graph) Phases(signature string) []Phase {
	r := g.phaseRoots(signature)
	phase := make([]Phase, len(g.Nodes))
	if g.stepIsReachable(r) {
		if g.reachable == len(g.Nodes) {
			// Every node (a frozen graph's, as a rule): none read.
			for i := range phase {
				phase[i] = PhaseStep
			}
			return phase
		}
		for i, n := range g.Nodes {
			if n.Reachable {
				phase[i] = PhaseStep
			}
		}
		return phase
	}
	w := &phaseWalk{g: g, phase: phase, entered: map[*Function]bool{}}
	w.walk(PhaseStep, r.step, nil)
	w.walk(PhaseLoad, r.load, r.loadFns)
	w.walk(PhaseSave, r.save, r.saveFns)
	return w.phase
}

// phaseRoots are where each phase's walk starts.
type phaseRoots struct {
	step, load, save []*Node
	loadFns, saveFns []*Function
}

// phaseRoots finds the roots of each phase (Phases).
func (g *Graph) phaseRoots(signature string) phaseRoots {
	// The roots are named by tensor: the names are gathered first and
	// found in one pass over the top-level nodes (topNodes), without an
	// index of every node's name.
	var loadT, saveT, stepT []string
	var load, save []*Node
	var loadFns, saveFns []*Function
	var def *mgpb.MetaGraphDef
	if g.MetaGraph != nil {
		def = g.MetaGraph.Def
	}
	savers := []*mgpb.SaverDef{def.GetSaverDef()}
	for _, b := range def.GetCollectionDef()["savers"].GetBytesList().GetValue() {
		sd := &mgpb.SaverDef{}
		if proto.Unmarshal(b, sd) == nil {
			savers = append(savers, sd)
		}
	}
	for _, sd := range savers {
		loadT = append(loadT, sd.GetRestoreOpName())
		saveT = append(saveT, sd.GetSaveTensorName())
	}
	var step []*Node
	served := false
	for _, sig := range g.Signatures {
		if sig.Key == initOpSignatureKey {
			for _, o := range sig.Outputs {
				loadT = append(loadT, o.Name)
			}
			continue
		}
		served = true
		if signature == "" || sig.Key == signature {
			for _, o := range sig.Outputs {
				stepT = append(stepT, o.Name)
			}
		}
	}
	colls := def.GetCollectionDef()
	for _, k := range loadCollections {
		loadT = append(loadT, colls[k].GetNodeList().GetValue()...)
	}
	for _, a := range def.GetAssetFileDef() {
		loadT = append(loadT, a.GetTensorInfo().GetName())
	}
	for _, a := range colls[assetsKey].GetAnyList().GetValue() {
		afd := &mgpb.AssetFileDef{}
		if a.UnmarshalTo(afd) == nil {
			loadT = append(loadT, afd.GetTensorInfo().GetName())
		}
	}
	for _, k := range variableCollections {
		for _, b := range colls[k].GetBytesList().GetValue() {
			vd := &varpb.VariableDef{}
			if proto.Unmarshal(b, vd) == nil {
				loadT = append(loadT, vd.GetInitializerName())
			}
		}
	}
	top := g.topNodes(stepT, loadT, saveT)
	byTensor := func(names []string) []*Node {
		var out []*Node
		for _, s := range names {
			if n := top[tensorNode(s)]; n != nil && s != "" {
				out = append(out, n)
			}
		}
		return out
	}
	step, load, save = byTensor(stepT), byTensor(loadT), byTensor(saveT)
	loadFns, saveFns = g.objectGraphFunctions()
	if !served {
		var moreLoad, moreSave []*Node
		step, moreLoad, moreSave = g.sinkSteps(load, save)
		load, save = append(load, moreLoad...), append(save, moreSave...)
	}
	return phaseRoots{step: step, load: load, save: save, loadFns: loadFns, saveFns: saveFns}
}

// stepIsReachable tells that the step's walk would reach what the build's
// reachability did and no other walk has roots: the step starts where
// reachability started, no load or save work has roots, and each
// function's body runs only what its results need (no stateful or
// control-flow node PruneFunctionBody keeps), which both walks find
// alike. Both walks then follow the same edges from the same nodes, so
// that a model's phases need no walk of their own.
func (g *Graph) stepIsReachable(r phaseRoots) bool {
	if !g.reached || len(r.load) > 0 || len(r.save) > 0 || len(r.loadFns) > 0 || len(r.saveFns) > 0 ||
		!sameNodes(r.step, g.reachRoots) {
		return false
	}
	for _, f := range g.Functions {
		if !f.pruneKnown || len(f.unpruned) > 0 || !sameNodes(retNodes(f), f.returns) {
			return false
		}
	}
	return true
}

// sameNodes tells whether a and b hold the same nodes, in any order and
// number.
func sameNodes(a, b []*Node) bool {
	ids := func(ns []*Node) []int {
		out := make([]int, len(ns))
		for i, n := range ns {
			out[i] = n.ID
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	return slices.Equal(ids(a), ids(b))
}

// topNodes maps the node name of every tensor name in lists to the first
// top-level node of that name, where there is one.
func (g *Graph) topNodes(lists ...[]string) map[string]*Node {
	top := map[string]*Node{}
	for _, names := range lists {
		for _, s := range names {
			// No node has an empty name: a model without a saver names
			// none, and its nodes are not read.
			if name := tensorNode(s); name != "" {
				top[name] = nil
			}
		}
	}
	if len(top) == 0 {
		return top
	}
	for _, n := range g.Nodes[:g.TopLevel] {
		if first, wanted := top[n.Name]; wanted && first == nil {
			top[n.Name] = n
		}
	}
	return top
}

// objectGraphFunctions lists the concrete functions the TF2 object graph
// runs at load and at save.
func (g *Graph) objectGraphFunctions() (load, save []*Function) {
	if g.MetaGraph == nil {
		return nil, nil
	}
	nodes := g.MetaGraph.Def.GetObjectGraphDef().GetNodes()
	fns := func(id int32) []*Function {
		if id < 0 || int(id) >= len(nodes) {
			return nil
		}
		o := nodes[id]
		names := o.GetFunction().GetConcreteFunctions()
		if n := o.GetBareConcreteFunction().GetConcreteFunctionName(); n != "" {
			names = append(names, n)
		}
		var out []*Function
		for _, name := range names {
			if f := g.FunctionByName[name]; f != nil {
				out = append(out, f)
			}
		}
		return out
	}
	for _, o := range nodes {
		for _, c := range o.GetChildren() {
			switch {
			case slices.Contains(loadChildren, c.GetLocalName()):
				load = append(load, fns(c.GetNodeId())...)
			case slices.Contains(saveChildren, c.GetLocalName()):
				save = append(save, fns(c.GetNodeId())...)
			}
		}
		for _, so := range o.GetSaveableObjects() {
			save = append(save, fns(so.GetSaveFunction())...)
			load = append(load, fns(so.GetRestoreFunction())...)
		}
	}
	return load, save
}

// phaseWalk marks the nodes each phase reaches.
type phaseWalk struct {
	g       *Graph
	phase   []Phase
	reached []bool
	entered map[*Function]bool
}

// walk gives phase p to every node roots and fns need that no earlier walk
// reached.
func (w *phaseWalk) walk(p Phase, roots []*Node, fns []*Function) {
	if w.reached == nil {
		w.reached = make([]bool, len(w.g.Nodes))
	}
	stack := slices.Clone(roots)
	for _, f := range fns {
		stack = w.enter(f, stack)
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if w.reached[n.ID] {
			continue
		}
		w.reached[n.ID] = true
		w.phase[n.ID] = p
		for _, in := range n.Inputs {
			if in.Node != nil && !w.reached[in.Node.ID] {
				stack = append(stack, in.Node)
			}
		}
		for _, c := range n.ControlInputs() {
			if !w.reached[c.ID] {
				stack = append(stack, c)
			}
		}
		for _, f := range n.Calls() {
			stack = w.enter(f, stack)
		}
	}
}

// enter pushes what a call of f runs, once per function.
func (w *phaseWalk) enter(f *Function, stack []*Node) []*Node {
	if w.entered[f] {
		return stack
	}
	w.entered[f] = true
	for _, n := range retNodes(f) {
		stack = append(stack, n)
	}
	return append(stack, f.unprunedNodes()...)
}

// unprunedNodes are f's body nodes that run whatever its results need
// (runsUnpruned): the build's list, else worked out.
func (f *Function) unprunedNodes() []*Node {
	if f.pruneKnown {
		return f.unpruned
	}
	var out []*Node
	for _, n := range f.Nodes {
		if runsUnpruned(n) {
			out = append(out, n)
		}
	}
	return out
}

// retNodes are the nodes f's results (Function.Rets) and control results
// name, the last node of a name where names repeat. A body has few control
// results: they are looked for among its nodes, without a map of every
// node's name, unless there are many.
func retNodes(f *Function) []*Node {
	out := make([]*Node, 0, len(f.Rets))
	for _, r := range f.Rets {
		if r.Node != nil {
			out = append(out, r.Node)
		}
	}
	var names []string
	for _, name := range f.Def.GetControlRet() {
		names = append(names, name)
	}
	if len(names) == 0 {
		return out
	}
	ctrl := make([]*Node, len(names))
	if len(names) > 8 {
		byName := make(map[string]*Node, len(f.Nodes))
		for _, n := range f.Nodes {
			byName[n.Name] = n
		}
		for k, name := range names {
			ctrl[k] = byName[name]
		}
	} else {
		for i := len(f.Nodes) - 1; i >= 0; i-- {
			for k, name := range names {
				if ctrl[k] == nil && f.Nodes[i].Name == name {
					ctrl[k] = f.Nodes[i]
				}
			}
		}
	}
	for _, n := range ctrl {
		if n != nil {
			out = append(out, n)
		}
	}
	return out
}

// runsUnpruned tells the body nodes PruneFunctionBody keeps whatever the
// returns need: stateful ops other than _Arg and control-flow ops. An op no
// registry knows is kept too: TensorFlow would keep it unless its OpDef said
// it is stateless.
func runsUnpruned(n *Node) bool {
	switch n.Op {
	case "_Arg":
		return false
	case "Switch", "RefSwitch", "_SwitchN", "Merge", "RefMerge", "Enter", "RefEnter", "Exit", "RefExit",
		"NextIteration", "RefNextIteration":
		return true
	}
	if n.OpDef != nil {
		return n.OpDef.GetIsStateful()
	}
	for _, f := range n.Calls() {
		if f.Def.GetSignature().GetName() == n.Op {
			return f.Def.GetSignature().GetIsStateful()
		}
	}
	return n.Unknown
}

// sinkSteps are the step roots of a model without served signatures: the
// top-level sinks, less the load and save roots and the sinks that are
// evidently saver or initialisation work (a closure holding a restore or
// save op, an initializer op, or a NoOp grouping only such sinks). Those
// are returned as further load and save roots.
func (g *Graph) sinkSteps(load, save []*Node) (step, moreLoad, moreSave []*Node) {
	known := map[*Node]bool{}
	for _, n := range load {
		known[n] = true
	}
	for _, n := range save {
		known[n] = true
	}
	const (
		restores = 1 << iota
		saves
	)
	// What an op is (a restore, a save, an initializer) is worked out
	// once per op: a graph has few ops and many nodes of each. The last
	// few ops are tried before the map.
	const initializes = saves << 1
	byOp := map[string]uint8{}
	var recent lastfew.Cache[string, uint8]
	kind := func(op string) uint8 {
		if k, ok := recent.Get(op); ok {
			return k
		}
		k, ok := byOp[op]
		if !ok {
			switch {
			case slices.Contains(restoreOps, op):
				k = restores
			case slices.Contains(saveOps, op):
				k = saves
			}
			if slices.Contains(initOps, op) {
				k |= initializes
			}
			byOp[op] = k
		}
		recent.Put(op, k)
		return k
	}
	// flags tell what each node depends on; inits mark initializer ops
	// and NoOps grouping only initializers. Both in topological order, so
	// that each node is decided once.
	// Without any of these ops no node depends on one, and no NoOp
	// groups only initializers: both stay nil.
	var flags []uint8
	var inits []bool
	if g.HasAnyOp(func(op string) bool { return kind(op) != 0 }) {
		flags, inits = make([]uint8, g.TopLevel), make([]bool, g.TopLevel)
		for _, n := range g.Topo() {
			k := kind(n.Op)
			f := k &^ initializes
			for _, in := range n.Inputs {
				if in.Node != nil && in.Node.ID < g.TopLevel {
					f |= flags[in.Node.ID]
				}
			}
			for _, c := range n.ControlInputs() {
				if c.ID < g.TopLevel {
					f |= flags[c.ID]
				}
			}
			flags[n.ID] = f
			switch {
			case k&initializes != 0:
				inits[n.ID] = true
			case n.Op == "NoOp" && len(n.ControlInputs()) > 0 && len(n.Inputs) == 0:
				inits[n.ID] = !slices.ContainsFunc(n.ControlInputs(), func(c *Node) bool { return c.ID >= g.TopLevel || !inits[c.ID] })
			}
		}
	}
	// A consumed node is told by the consumer index alone, without
	// reading the node: Build numbers the nodes by position.
	for i, n := range g.Nodes[:g.TopLevel] {
		if i < g.edges.Keys() && len(g.edges.Of(i)) > 0 || known[n] {
			continue
		}
		switch {
		case flags == nil:
			step = append(step, n)
		case flags[n.ID]&restores != 0:
			moreLoad = append(moreLoad, n)
		case flags[n.ID]&saves != 0:
			moreSave = append(moreSave, n)
		case inits[n.ID]:
			moreLoad = append(moreLoad, n)
		default:
			step = append(step, n)
		}
	}
	return step, moreLoad, moreSave
}
