package rewrite

import (
	"context"
	"fmt"
	"strings"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/savedmodel"
)

// Constants: what Grappler's constant folding would compute before the
// graph runs (grappler/optimizers/constant_folding.cc). A node is constant
// when it is a Const, or foldable (MaybeFoldable, constant_folding.cc:
// 1053-1140) with data inputs that are all constant (IsFoldable 955-1051;
// control inputs do not matter there). Grappler folds chains: FoldGraph
// (1644-1707) queues every foldable node, and each node it folds queues
// its foldable fanout, which now reads a Const; Optimize (4085-4092)
// repeats the pass until the graph stops changing. So a node fed by
// folded nodes is folded in turn, at top level and in a function body
// alike (meta_optimizer.cc:1162-1245 optimizes each body as a graph of its
// own). Top-level values come from running the original graph in the
// executor, which prunes a fetch to its ancestors: the Consts and the
// foldable ops between them. A body node's value comes from executing it
// alone on its constant inputs (executor.RunNode), each computed the same
// way, as Grappler's EvaluateNode does node by node. A node between
// Consts is constant only where Grappler's IsFoldable would fold it: none
// of its inputs a string constant (988-993), and no output larger than its
// inputs and than kMaxConstantSize (1007-1046): at top level by the static
// shapes, where known (foldsAtTop), in a body by the value, which must be
// computable (a node whose attrs its caller binds, "$T", is not: Grappler
// skips parametrized functions; foldsInBody). The recursion visits each
// node once (constness and values are memoized, a cycle is not constant),
// so it ends on any graph: that is the fixed point Grappler's loop
// reaches.

// isConst says whether n's output is a constant.
func (p *planner) isConst(n *graph.Node) bool {
	if n == nil {
		return false
	}
	switch p.constness[n] {
	case 1:
		return true
	case -1:
		return false
	}
	p.constness[n] = -1 // a cycle is not constant
	ok := false
	if n.Op == "Const" {
		ok = true
	} else if why := unfoldable(n); why == "" && len(n.Inputs) > 0 {
		ok = true
		for _, in := range n.Inputs {
			if in.Node == nil || in.Node.Func != n.Func || !p.isConst(in.Node) {
				ok = false
				break
			}
		}
		if ok && n.Func != nil {
			ok = p.foldsInBody(n)
		} else if ok {
			ok = p.foldsAtTop(n)
		}
	}
	if ok {
		p.constness[n] = 1
	}
	return ok
}

// foldsAtTop says whether Grappler folds the top-level node n, whose
// inputs are constant: no string constant among them, and no output
// larger than its inputs and than kMaxConstantSize where the static
// shapes tell (IsFoldable checks the shapes GraphProperties infers, and
// only where it knows them: constant_folding.cc:1007-1046).
func (p *planner) foldsAtTop(n *graph.Node) bool {
	shapes := p.staticShapes()
	in := int64(0)
	for k, e := range n.Inputs {
		if k < len(n.InputTypes()) && n.InputTypes()[k] == tpb.DataType_DT_STRING {
			return false
		}
		if b, ok := shapes.Bytes(e.Node, int(e.Output)); ok && !shapes.Assumed(e.Node, int(e.Output)) {
			in += b
		}
	}
	for j := range n.OutputTypes() {
		if b, ok := shapes.Bytes(n, j); ok && !shapes.Assumed(n, j) && overFoldLimit(b, in) {
			return false
		}
	}
	return true
}

// foldsInBody says whether Grappler folds the body node n, whose inputs
// are constant: no string constant among them, a value the executor
// computes, within the size limit (see above).
func (p *planner) foldsInBody(n *graph.Node) bool {
	in := int64(0)
	for k := range n.Inputs {
		v := p.constInput(n, k)
		if v == nil || v.DType == tpb.DataType_DT_STRING {
			return false
		}
		in += tensorBytes(v)
	}
	outs, err := p.evalBody(n)
	if err != nil {
		return false
	}
	for _, v := range outs {
		if overFoldLimit(tensorBytes(v), in) {
			return false
		}
	}
	return true
}

// unfoldable says why Grappler does not fold n ("" when it may):
// MaybeFoldable's conditions.
func unfoldable(n *graph.Node) string {
	def := n.OpDef
	switch {
	case def == nil:
		return "its op is not registered"
	case def.GetIsStateful():
		return "it is stateful"
	case n.Op == "Placeholder" || n.Op == "PlaceholderWithDefault" || n.Op == "FakeParam":
		return "it is a placeholder"
	case n.Op == "Enter" || n.Op == "RefEnter" || n.Op == "Exit" || n.Op == "RefExit" || n.Op == "NextIteration" ||
		n.Op == "RefNextIteration" || n.Op == "LoopCond" || n.Op == "Switch" || n.Op == "RefSwitch" ||
		n.Op == "Merge" || n.Op == "RefMerge" || n.Op == "AccumulateNV2":
		return "it is control flow"
	case strings.Contains(n.Op, "Save") || strings.Contains(n.Op, "Restore") || strings.Contains(n.Op, "Reader"),
		strings.Contains(n.Op, "Quantized") || strings.HasPrefix(n.Op, "Sparse"):
		return "Grappler does not fold " + n.Op
	case len(def.GetOutputArg()) == 0:
		return "it has no outputs"
	}
	for _, a := range def.GetOutputArg() {
		if a.GetType() == tpb.DataType_DT_VARIANT {
			return "it outputs a variant"
		}
	}
	for _, t := range n.OutputTypes() {
		if dtype.IsRef(t) || t == tpb.DataType_DT_RESOURCE {
			return "it outputs a reference"
		}
	}
	return ""
}

// constInput is the value of n's data input i when it is a constant: a
// constant node (isConst: a Const, or the foldable nodes between Consts,
// which Grappler folds in turn) of n's own graph or function body
// (Grappler's IsReallyConstant, constant_folding.cc:379-385, 987, holds
// for each once folded), whose value the executor gives.
func (p *planner) constInput(n *graph.Node, i int) *kernels.Tensor {
	if n.ID < 0 || i >= len(n.Inputs) {
		return nil
	}
	in := n.Inputs[i]
	if in.Node == nil || in.Node.Func != n.Func || !p.isConst(in.Node) {
		return nil
	}
	t, err := p.eval(in.Node, int(in.Output))
	if err != nil {
		return nil
	}
	return t
}

// eval computes output i of n as the original graph does: a top-level
// node by running the graph for it (the executor prunes the run to its
// ancestors), a node of a function body by executing it alone on its
// constant inputs (evalBody).
func (p *planner) eval(n *graph.Node, i int) (*kernels.Tensor, error) {
	if n.Func != nil {
		outs, err := p.evalBody(n)
		if err != nil {
			return nil, err
		}
		if i >= len(outs) || outs[i] == nil {
			return nil, fmt.Errorf("%s has no output %d", n.Path(), i)
		}
		return outs[i], nil
	}
	if i == 0 {
		if t, ok := p.consts[n]; ok {
			return t, nil
		}
	}
	if err := p.executor(); err != nil {
		return nil, err
	}
	name := fmt.Sprintf("%s:%d", n.Name, i)
	out, err := p.ex.Run(context.Background(), nil, []string{name})
	if err != nil {
		return nil, err
	}
	t := out[name]
	if t == nil {
		return nil, fmt.Errorf("%s was not computed", name)
	}
	if i == 0 {
		p.consts[n] = t
	}
	return t, nil
}

// evalBody executes the body node n alone on its constant inputs
// (executor.RunNode), as Grappler's EvaluateNode does
// (constant_folding.cc:1355-1399); its outputs are memoized, as its
// failure.
func (p *planner) evalBody(n *graph.Node) ([]*kernels.Tensor, error) {
	if r, ok := p.bodyOuts[n]; ok {
		return r.outs, r.err
	}
	outs, err := p.runBodyNode(n)
	p.bodyOuts[n] = bodyResult{outs, err}
	return outs, err
}

func (p *planner) runBodyNode(n *graph.Node) ([]*kernels.Tensor, error) {
	in := make([]*kernels.Tensor, len(n.Inputs))
	for k := range n.Inputs {
		if in[k] = p.constInput(n, k); in[k] == nil {
			return nil, fmt.Errorf("input %d of %s is not a constant", k, n.Path())
		}
	}
	if err := p.executor(); err != nil {
		return nil, err
	}
	return p.ex.RunNode(context.Background(), n, in)
}

// executor starts the executor on the original graph, once.
func (p *planner) executor() error {
	if p.ex == nil && p.exErr == nil {
		p.ex, p.exErr = executor.New(p.g, p.opts.Weights, executor.Options{})
	}
	return p.exErr
}

// bodyResult is what executing a body node alone gave.
type bodyResult struct {
	outs []*kernels.Tensor
	err  error
}

// constControls are the control inputs Grappler gives the Const a folded
// node becomes (FoldNode, constant_folding.cc:1548-1565): the node's own
// and those of its constant inputs, which at top level carry those of
// the constant nodes before them (folded in turn, each forwarding its
// inputs'). They keep the Const in the frame and on the branch its
// inputs were in (a Const inside a v1 loop or cond hangs on a control
// edge from its pivot). Names as "^name", without repeats, in input
// order.
func constControls(n *graph.Node) []string {
	seen := map[*graph.Node]bool{}
	var out []string
	add := func(c *graph.Node) {
		if !seen[c] {
			seen[c] = true
			out = append(out, "^"+c.Name)
		}
	}
	for _, c := range n.ControlInputs() {
		add(c)
	}
	visited := map[*graph.Node]bool{}
	var walk func(m *graph.Node)
	walk = func(m *graph.Node) {
		if m == nil || visited[m] {
			return
		}
		visited[m] = true
		for _, c := range m.ControlInputs() {
			add(c)
		}
		if m.Op != "Const" {
			for _, in := range m.Inputs {
				walk(in.Node)
			}
		}
	}
	for _, in := range n.Inputs {
		walk(in.Node)
	}
	return out
}

// evalNodes builds a small graph of nodes and runs it for fetch, with the
// executor's kernels: the arithmetic a folded constant is computed with.
func evalNodes(ops *graph.OpRegistry, nodes []*nodepb.NodeDef, fetch string) (*kernels.Tensor, error) {
	m := &savedmodel.Model{Format: savedmodel.FormatGraphDef, File: "(folded constant)"}
	mg := &savedmodel.MetaGraph{Def: &mgpb.MetaGraphDef{GraphDef: &gpb.GraphDef{Node: nodes}}}
	m.MetaGraphs = []*savedmodel.MetaGraph{mg}
	g, err := graph.Build(m, mg)
	if err != nil {
		return nil, err
	}
	ex, err := executor.New(g, nil, executor.Options{})
	if err != nil {
		return nil, err
	}
	out, err := ex.Run(context.Background(), nil, []string{fetch})
	if err != nil {
		return nil, err
	}
	return out[fetch], nil
}

// constNode is a Const NodeDef holding t.
func constNode(name string, t *kernels.Tensor) *nodepb.NodeDef {
	p, err := kernels.ToProto(t)
	if err != nil {
		p = &tensorpb.TensorProto{Dtype: t.DType}
	}
	return &nodepb.NodeDef{Name: name, Op: "Const", Attr: map[string]*attrpb.AttrValue{
		"dtype": typeAttr(t.DType),
		"value": {Value: &attrpb.AttrValue_Tensor{Tensor: p}},
	}}
}

// int32Tensor is an int32 TensorProto.
func int32Tensor(shape []int, vals []int32) *tensorpb.TensorProto {
	p, _ := kernels.ToProto(kernels.Int32Tensor(shape, vals))
	return p
}

// reshapeProto is t as a TensorProto, reshaped to bshape (with its one -1
// taking the rest) when bshape is set.
func reshapeProto(t *kernels.Tensor, bshape []int32) *tensorpb.TensorProto {
	c := *t
	if bshape != nil {
		n := t.NumElements()
		c.Shape = make([]int, len(bshape))
		for i, d := range bshape {
			if d < 0 {
				c.Shape[i] = n
			} else {
				c.Shape[i] = int(d)
			}
		}
	}
	p, _ := kernels.ToProto(&c)
	return p
}

// isInt says whether t is an integer dtype.
func isInt(t tpb.DataType) bool {
	switch t {
	case tpb.DataType_DT_INT8, tpb.DataType_DT_INT16, tpb.DataType_DT_INT32, tpb.DataType_DT_INT64,
		tpb.DataType_DT_UINT8, tpb.DataType_DT_UINT16, tpb.DataType_DT_UINT32, tpb.DataType_DT_UINT64:
		return true
	}
	return false
}
