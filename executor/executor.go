// Package executor runs a graph.Graph with TensorFlow's semantics, in Go:
// it plays the part of TensorFlow's DirectSession and executor
// (tensorflow/core/common_runtime/direct_session.cc, executor.cc,
// propagator_state.cc) for one CPU device. Only the nodes that fetches need
// run; v1 control flow (Switch, Merge, Enter, Exit, NextIteration) runs as
// dataflow with frames, iterations and dead tensors; function calls and
// functional control flow (If, Case, While) run library functions. These,
// constants, placeholders and the identities that forward TF1 variable
// references are the executor's own (intrinsics.go); every other op runs
// the kernel the op library (package kernels) registers for it, found
// only through the registry, with the session's resource manager and
// numerics in its Context. A node without a kernel stops the run with a
// *kernels.UnsupportedError, never a wrong number.
package executor

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/graph/shape"
	"github.com/tfscan/tfscan/kernels"
)

// Options configures an Executor.
type Options struct {
	// Emu is passed to every kernel's Context. When Emu.RoundStorage is
	// set the executor also rounds every float32 tensor that enters or
	// leaves a node (constants, weights, feeds, variable reads and kernel
	// outputs) with it, emulating a device that stores float32 tensors in
	// a narrower format.
	Emu *kernels.Emulation
	// AfterNode, when set, observes every executed node with its outputs
	// (nil entries for dead outputs), in execution order. Nodes inside
	// functions are reported with their body node. The tensors must not be
	// modified.
	AfterNode func(n *graph.Node, outs []*kernels.Tensor)
	// NodeEmu, when set, chooses the emulation of each kernel node
	// instead of Emu (see nodeemu.go): a device that runs some
	// nodes in a narrower format and others (CPU fallbacks, ops auto mixed
	// precision leaves in float32) exactly. A nil result runs the node in
	// its own dtypes.
	NodeEmu func(n *graph.Node) *kernels.Emulation
	// BeforeKernel, when set, observes the inputs of every node that runs
	// a registered kernel, just before the kernel runs (after NodeEmu's
	// input rounding). The tensors must not be modified.
	BeforeKernel func(n *graph.Node, inputs []*kernels.Tensor)
	// Compute, when DT_DOUBLE, runs the whole model in float64: every
	// float32, float16 and bfloat16 constant, weight, variable and feed is
	// converted to float64 before use and every float dtype attr (T,
	// dtype, DstT, ...) is rewritten to DT_DOUBLE, so that kernels compute
	// in float64. Fetched float tensors then come back as float64. This is
	// the reference pass of precision parity. DT_INVALID (the default)
	// runs in the model's own dtypes.
	Compute tpb.DataType
	// MaxIterations bounds the iterations of one loop (v1 frames and While
	// ops); 0 means DefaultMaxIterations. A model that loops longer fails
	// with an error rather than run forever.
	MaxIterations int
	// MaxCallDepth bounds nested function calls; 0 means the number of
	// functions in the library, which no valid model exceeds: graph.Build
	// refuses recursion, so a chain of calls holds each function at most
	// once. (TensorFlow sets no depth limit; a chain of any depth runs,
	// see callFunction.)
	MaxCallDepth int
}

// DefaultMaxIterations is the loop bound when Options.MaxIterations is 0.
const DefaultMaxIterations = 1 << 20

// Executor runs one graph. Like a TensorFlow session it keeps state across
// Run calls: variables, hash tables. It is not safe for concurrent use.
type Executor struct {
	g    *graph.Graph
	opts Options
	// num is how the run holds floats (Compute, Emu), res the session's
	// state; kernels reach both through their Context.
	num *kernels.Numerics
	res *kernels.ResourceMgr

	// maxCallDepth is Options.MaxCallDepth, or the library's size.
	maxCallDepth int

	// pool holds the buffers of dead tensors for later kernels' outputs
	// (buffers.go); nil recycles nothing.
	pool *bufPool
	// packs keeps what kernels derive from stable inputs (stable.go);
	// nil keeps nothing.
	packs *kernels.PackCache

	top    *scope
	scopes map[*graph.Function]*scope
	consts map[*graph.Node]*kernels.Tensor
	byName map[string]*graph.Node // top-level nodes by name

	// vocab is what seeded strings draw from (Vocabulary), read once.
	vocabOnce sync.Once
	vocab     [][]byte

	// shapes are the graph's static shapes, inferred on first use
	// (Grappler's folding size limit, grappler_div.go).
	shapesOnce sync.Once
	shapes     *shape.Shapes
	// folded is which nodes Grappler's folding makes constant, decided
	// on first use (grappler_div.go).
	folded *constness
}

// New prepares g for running. weights is the model's checkpoint
// (nil when it has none, e.g. frozen GraphDefs and TF.js models, whose
// weights are constants). When the model has a checkpoint the executor
// restores its variables the way TensorFlow's SavedModel loader does
// (tensorflow/cc/saved_model/loader.cc): it runs the MetaGraphDef's
// saver_def.restore_op_name with the checkpoint prefix fed to
// filename_tensor_name (the RestoreV2 op reads from weights), then the
// model's init op (the "__saved_model_init_op" signature or the
// saved_model_main_op / legacy_init_op collections) with asset paths fed.
// Without a saver_def, variables whose name (VariableV2: the node name;
// VarHandleOp: shared_name) is a checkpoint key are initialized from it.
func New(g *graph.Graph, weights kernels.WeightSource, opts Options) (*Executor, error) {
	if g == nil {
		return nil, errors.New("executor.New: nil graph")
	}
	if opts.Compute != tpb.DataType_DT_INVALID && opts.Compute != tpb.DataType_DT_DOUBLE {
		return nil, fmt.Errorf("executor.New: Compute must be DT_INVALID or DT_DOUBLE, not %s", opts.Compute)
	}
	if opts.MaxIterations <= 0 {
		opts.MaxIterations = DefaultMaxIterations
	}
	// Constants the load left in the model's file (savedmodel/lazy.go)
	// are read now: a run needs their values.
	if g.Model != nil {
		if err := g.Model.Materialize(); err != nil {
			return nil, err
		}
	}
	e := &Executor{
		g: g, opts: opts,
		num:    &kernels.Numerics{Compute: opts.Compute, Emu: opts.Emu},
		res:    kernels.NewResourceMgr(weights),
		scopes: map[*graph.Function]*scope{},
		consts: map[*graph.Node]*kernels.Tensor{},
		byName: topByName(g),
		pool:   &bufPool{},
		packs:  newPackCache(),
	}
	e.maxCallDepth = opts.MaxCallDepth
	if e.maxCallDepth <= 0 {
		e.maxCallDepth = len(g.Functions)
	}
	e.top = newScope(e, nil, g.Nodes[:g.TopLevel])
	if err := e.initialize(context.Background()); err != nil {
		return nil, err
	}
	return e, nil
}

// Graph returns the graph the executor runs.
func (e *Executor) Graph() *graph.Graph { return e.g }

// TensorRef names one output of a top-level node: "name:index".
type TensorRef struct {
	Node   *graph.Node
	Output int
}

// ParseTensorName reads a tensor name with graph.ParseTensorName ("name:3"
// is output 3 of name, a name without an index output 0) and refuses what
// cannot be fed or fetched: an empty name and a control input ("^name",
// use targets).
func ParseTensorName(s string) (string, int, error) {
	if s == "" {
		return "", 0, errors.New("empty tensor name")
	}
	node, port, ctl := graph.ParseTensorName(s)
	if ctl {
		return "", 0, fmt.Errorf("tensor name %q: control inputs cannot be fed or fetched", s)
	}
	return node, port, nil
}

// Resolve finds the top-level tensor a name like "x", "x:0" or "split:1"
// refers to.
func (e *Executor) Resolve(name string) (TensorRef, error) { return resolve(e.byName, name) }

func resolve(byName map[string]*graph.Node, name string) (TensorRef, error) {
	node, idx, err := ParseTensorName(name)
	if err != nil {
		return TensorRef{}, err
	}
	n := byName[node]
	if n == nil {
		return TensorRef{}, fmt.Errorf("no node %q in the graph", node)
	}
	if nout := numOutputs(n); nout >= 0 && idx >= nout {
		return TensorRef{}, fmt.Errorf("node %q (%s) has %d outputs; %q asks for output %d", node, n.Op, nout, name, idx)
	}
	return TensorRef{Node: n, Output: idx}, nil
}

// topByName indexes g's top-level nodes by name, the first of a name
// winning.
func topByName(g *graph.Graph) map[string]*graph.Node {
	byName := make(map[string]*graph.Node, g.TopLevel)
	for _, n := range g.Nodes[:g.TopLevel] {
		if _, dup := byName[n.Name]; !dup {
			byName[n.Name] = n
		}
	}
	return byName
}

// numOutputs returns the node's output count, or -1 when unknown.
func numOutputs(n *graph.Node) int {
	if n.OutputTypes() != nil || n.OpDef != nil || len(n.Calls()) > 0 {
		return len(n.OutputTypes())
	}
	return -1
}

// Run feeds tensors by name ("x" or "x:0"), runs what the fetches need and
// returns the fetched tensors keyed by the names given. A fetch naming a
// node without outputs (e.g. an init NoOp) runs it as a target and returns
// nothing for it. A feed's dtype must equal the fed output's dtype.
//
// As in TensorFlow's Session.run, any tensor can be fed, not only a
// Placeholder: its consumers read the fed value, and its producer runs only
// when something else needs it (another of its outputs, or a control edge:
// a fed Placeholder hands its control edges to the feed, so they fire with
// it; see feedTakesControl). Nodes needed only to compute fed tensors do
// not run. A fetched tensor that is also fed is the fed tensor, as
// session.py returns it.
func (e *Executor) Run(ctx context.Context, feeds map[string]*kernels.Tensor, fetches []string) (map[string]*kernels.Tensor, error) {
	fr := make([]feed, 0, len(feeds))
	for _, name := range slices.Sorted(maps.Keys(feeds)) {
		ref, err := e.Resolve(name)
		if err != nil {
			return nil, fmt.Errorf("feed %q: %w", name, err)
		}
		t := feeds[name]
		if t == nil {
			return nil, fmt.Errorf("feed %q: nil tensor", name)
		}
		if err := t.Validate(); err != nil {
			return nil, fmt.Errorf("feed %q: %w", name, err)
		}
		if want := outputType(ref.Node, ref.Output); want != tpb.DataType_DT_INVALID && dtype.Base(want) != t.DType {
			return nil, fmt.Errorf("feed %q: tensor has dtype %s but %s (%s) produces %s", name, dtName(t.DType), ref.Node.Name, ref.Node.Op, dtName(dtype.Base(want)))
		}
		if err := checkPlaceholderShape(ref.Node, t); err != nil {
			return nil, fmt.Errorf("feed %q: %w", name, err)
		}
		if err := e.checkFeedable(ref); err != nil {
			return nil, fmt.Errorf("feed %q: %w", name, err)
		}
		for _, prev := range fr {
			if prev.ref == ref {
				// subgraph.cc, RewriteGraphForExecution.
				return nil, fmt.Errorf("feed %q: endpoint \"%s:%d\" fed more than once", name, ref.Node.Name, ref.Output)
			}
		}
		fr = append(fr, feed{ref: ref, t: t})
	}
	var outs []TensorRef
	var outNames []string
	var targets []*graph.Node
	for _, name := range fetches {
		node, _, err := ParseTensorName(name)
		if err != nil {
			return nil, err
		}
		if n := e.byName[node]; n != nil && numOutputs(n) == 0 {
			targets = append(targets, n)
			continue
		}
		ref, err := e.Resolve(name)
		if err != nil {
			return nil, fmt.Errorf("fetch %q: %w", name, err)
		}
		outs = append(outs, ref)
		outNames = append(outNames, name)
	}
	vals, err := e.run(ctx, fr, outs, targets)
	if err != nil {
		return nil, err
	}
	res := make(map[string]*kernels.Tensor, len(outs))
	for i, name := range outNames {
		res[name] = vals[i]
	}
	return res, nil
}

// CallFunction runs the library function name on args and returns its
// results, as a call node (PartitionedCall) without attrs would: a
// function body evaluated on its own. The arguments enter the run as feeds
// do (promoted in a float64 run, rounded under storage emulation).
func (e *Executor) CallFunction(ctx context.Context, name string, args []*kernels.Tensor) ([]*kernels.Tensor, error) {
	f := e.g.FunctionByName[name]
	if f == nil {
		return nil, fmt.Errorf("no function %q in the library", name)
	}
	in := make([]*kernels.Tensor, len(args))
	for i, a := range args {
		if a == nil {
			return nil, fmt.Errorf("function %s: argument %d is nil", name, i)
		}
		if err := a.Validate(); err != nil {
			return nil, fmt.Errorf("function %s: argument %d: %w", name, i, err)
		}
		t, err := e.num.Import(a)
		if err != nil {
			return nil, fmt.Errorf("function %s: argument %d: %w", name, i, err)
		}
		in[i] = t
	}
	rs := &runState{e: e, ctx: ctx, sc: e.top, fed: map[outKey]bool{}}
	return rs.callFunction(f, in, nil, &graph.Node{Name: name, Op: name})
}

// RunNode executes one node of the graph, top-level or in a function body,
// on the given data inputs, as a run executes it (exec: an intrinsic, a
// call of a library function, or the registry's kernel, with the run's
// numerics): what Grappler's constant folding does with EvaluateNode on
// one node's constant inputs (constant_folding.cc:1355-1399). The inputs
// enter as feeds do (promoted in a float64 run, rounded under storage
// emulation); attrs the node's caller would bind ("$T") are an error, as
// no caller is given. No AfterNode or BeforeKernel hook sees the node.
func (e *Executor) RunNode(ctx context.Context, n *graph.Node, inputs []*kernels.Tensor) ([]*kernels.Tensor, error) {
	sc := e.top
	if n.Func != nil {
		sc = e.scopeFor(n.Func)
	}
	i, ok := sc.local[n]
	if !ok {
		return nil, fmt.Errorf("%s is not a node of the executor's graph", nodePath(n))
	}
	if len(inputs) != len(n.Inputs) {
		return nil, fmt.Errorf("%s (%s): %d inputs given, the node takes %d", nodePath(n), n.Op, len(inputs), len(n.Inputs))
	}
	in := make([]slot, len(inputs))
	for k, a := range inputs {
		if a == nil {
			return nil, fmt.Errorf("%s (%s): input %d is nil", nodePath(n), n.Op, k)
		}
		t, err := e.num.Import(a)
		if err != nil {
			return nil, fmt.Errorf("%s (%s): input %d: %w", nodePath(n), n.Op, k, err)
		}
		in[k] = slot{t: t}
	}
	rs := &runState{e: e, ctx: ctx, sc: sc, fed: map[outKey]bool{}}
	outs, err := rs.execSafe(n, task{node: i, in: in})
	if err != nil {
		return nil, err
	}
	res := make([]*kernels.Tensor, len(outs))
	for k, o := range outs {
		if o.dead {
			return nil, fmt.Errorf("%s (%s): output %d is dead", nodePath(n), n.Op, k)
		}
		if res[k], err = rs.deref(o, n); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// checkFeedable refuses a tensor inside a v1 while loop: TensorFlow's
// feed node lives in the root frame, so the loop body's nodes it would
// feed get inputs from two frames, which BuildControlFlowInfo refuses
// (tensorflow/core/graph/control_flow.cc).
func (e *Executor) checkFeedable(ref TensorRef) error {
	if f := e.top.outputFrames()[e.top.local[ref.Node]]; f != "" {
		return fmt.Errorf("%s (%s) is inside the while loop frame %q; a tensor of a loop body cannot be fed (TensorFlow: its consumers would have inputs from different frames)", ref.Node.Name, ref.Node.Op, f)
	}
	return nil
}

// RunSignature runs the signature with key sigKey of the graph's
// MetaGraph: inputs are keyed by the signature's input keys, the result by
// its output keys.
func (e *Executor) RunSignature(ctx context.Context, sigKey string, inputs map[string]*kernels.Tensor) (map[string]*kernels.Tensor, error) {
	sig := FindSignature(e.g.Signatures, sigKey)
	if sig == nil {
		return nil, fmt.Errorf("no signature %q (have %s)", sigKey, strings.Join(signatureKeys(e.g.Signatures), ", "))
	}
	feeds := map[string]*kernels.Tensor{}
	for _, in := range sig.Inputs {
		t, ok := inputs[in.Key]
		if !ok {
			return nil, fmt.Errorf("signature %q: input %q is missing", sigKey, in.Key)
		}
		feeds[in.Name] = t
	}
	for k := range inputs {
		if findInfo(sig.Inputs, k) == nil {
			return nil, fmt.Errorf("signature %q has no input %q", sigKey, k)
		}
	}
	var fetches []string
	for _, out := range sig.Outputs {
		fetches = append(fetches, out.Name)
	}
	vals, err := e.Run(ctx, feeds, fetches)
	if err != nil {
		return nil, err
	}
	res := map[string]*kernels.Tensor{}
	for _, out := range sig.Outputs {
		res[out.Key] = vals[out.Name]
	}
	return res, nil
}

func outputType(n *graph.Node, i int) tpb.DataType {
	if i < len(n.OutputTypes()) {
		return n.OutputTypes()[i]
	}
	return tpb.DataType_DT_INVALID
}

func dtName(t tpb.DataType) string { return dtype.Name(t) }

// checkPlaceholderShape checks a feed against a Placeholder's shape attr
// (unknown dims and unknown rank match anything), as TensorFlow does.
func checkPlaceholderShape(n *graph.Node, t *kernels.Tensor) error {
	if n.Op != "Placeholder" {
		return nil
	}
	a, ok := n.Attrs["shape"]
	if !ok || a.GetShape() == nil || a.GetShape().GetUnknownRank() {
		return nil
	}
	dims := a.GetShape().GetDim()
	if len(dims) == 0 && len(a.GetShape().GetDim()) == 0 && !hasShapeAttrSet(n) {
		return nil
	}
	if len(dims) != len(t.Shape) {
		return fmt.Errorf("shape %v does not match placeholder %s's shape %s", t.Shape, n.Name, shapeString(a.GetShape().GetDim()))
	}
	for i, d := range dims {
		if d.GetSize() >= 0 && int(d.GetSize()) != t.Shape[i] {
			return fmt.Errorf("shape %v does not match placeholder %s's shape %s", t.Shape, n.Name, shapeString(dims))
		}
	}
	return nil
}

// hasShapeAttrSet tells a real scalar shape attr from the empty default
// ("shape: {unknown_rank: true}" is the OpDef default; older graphs write no
// shape at all, which also parses as a scalar proto).
func hasShapeAttrSet(n *graph.Node) bool {
	_, ok := n.Def.GetAttr()["shape"]
	return ok
}
