package executor

import (
	"fmt"
	"strings"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/graph/shape"
	"github.com/tfscan/tfscan/kernels"
)

// Division by a constant, as TensorFlow's graph runtime computes it.
// Sessions and tf.function/SavedModel signatures alike run Grappler before
// executing, and its constant folding strength-reduces a floating-point or
// complex Div, RealDiv or Xdivy whose denominator is a Const (once folded) to a
// multiplication by the reciprocal: Div(x, c) becomes Mul(x, Reciprocal(c))
// and Xdivy(x, c) becomes MulNoNan(Reciprocal(c), x)
// (ConstantFolding::ReduceDivToReciprocalMul,
// tensorflow/core/grappler/optimizers/constant_folding.cc:3112-3155), and the
// next pass folds Reciprocal(c) into a Const computed by TensorFlow's
// Reciprocal kernel. x * fl(1/c) is not x / c: it differs by an ULP on
// a quarter to a third of float32 values (Keras's Normalization layer, GELU's
// x / sqrt(2)). The executor computes what the rewritten graph computes.
//
// The denominator is "really constant" (IsReallyConstant, 379-385: a Const
// nothing feeds) once Grappler's folding reaches its fixed point
// (FoldGraph 1644-1707 before SimplifyGraph in each pass, repeated until
// nothing changes: 4002-4092): a Const, or a foldable node (MaybeFoldable
// 1053-1140, IsFoldableUncached 967-1051) whose data inputs are all
// constant: not stateful, not control flow, not a placeholder, no string
// constant among its inputs, no output larger than its inputs and than
// kMaxConstantSize (100 KiB) where the static shapes tell. Control inputs
// do not matter. The rule applies at top level and in function bodies,
// which Grappler optimizes too (meta_optimizer.cc:1162-1245, and each
// instantiation a PartitionedCall makes: partitioned_function_ops.cc:194).
// A function argument is constant where every call of the function
// passes a constant: Grappler's function optimizer inlines
// (Stateful)PartitionedCall and direct calls into the caller's graph
// before it folds (function_optimizer.cc:1211-1413), so a Keras layer's
// captured constant reaches the body's division as a Const. A division
// whose T the caller binds ("$T") is not rewritten: the executor decides
// per body, not per instantiation.
//
// Not rewritten: integer Div (the rule skips it, 3129-3133; TensorFlow's
// CPU has no integer RealDiv kernel nor integer Reciprocal), a Div whose
// numerator is constant too (FoldGraph folds the whole division with
// TensorFlow's RealDiv kernel first), and a run that feeds a top-level
// node of the denominator's chain (a fed node is not constant; a feed of
// a constant a call passes into a body is not looked for).

// reciprocalDiv is a division the executor runs as TensorFlow's rewrite:
// chain lists the scope's local indices of the nodes the denominator's
// constness rests on (a run feeding one of them divides).
type reciprocalDiv struct {
	chain []int
}

// isDivOp says whether ReduceDivToReciprocalMul rewrites op.
func isDivOp(op string) bool { return op == "Div" || op == "RealDiv" || op == "Xdivy" }

// findReciprocalDivs marks the scope's divisions Grappler rewrites.
func (s *scope) findReciprocalDivs() {
	for i, n := range s.nodes {
		if !isDivOp(n.Op) || len(n.Inputs) != 2 || n.OpDef == nil {
			continue
		}
		if t := attrType(n.Attrs, "T"); !dtype.IsFloat(t) && t != tpb.DataType_DT_COMPLEX64 && t != tpb.DataType_DT_COMPLEX128 {
			continue // integer division
		}
		c := s.e.constness()
		if !c.isInputConst(n, 1) || c.isConst(n) {
			continue // a true division, or folded whole with one
		}
		if s.recip == nil {
			s.recip = map[int]*reciprocalDiv{}
		}
		s.recip[i] = &reciprocalDiv{chain: s.chain(n.Inputs[1].Node)}
	}
}

func attrType(attrs map[string]*attrpb.AttrValue, key string) tpb.DataType {
	if a := attrs[key]; a != nil {
		return a.GetType()
	}
	return tpb.DataType_DT_INVALID
}

// constness decides which nodes are constant after Grappler's folding
// (see above), function arguments included, memoized; a cycle is not
// constant. callers indexes the calls of each function.
type constness struct {
	e       *Executor
	state   map[*graph.Node]int8 // 1 constant, -1 not (or being decided)
	args    map[argKey]int8
	callers map[string][]*graph.Node
}

type argKey struct {
	f   *graph.Function
	arg int
}

func (e *Executor) constness() *constness {
	if e.folded == nil {
		c := &constness{e: e, state: map[*graph.Node]int8{}, args: map[argKey]int8{}, callers: map[string][]*graph.Node{}}
		for _, n := range e.g.Nodes {
			name := n.Op
			if n.Op == "PartitionedCall" || n.Op == "StatefulPartitionedCall" {
				name = n.Attrs["f"].GetFunc().GetName()
			}
			if e.g.FunctionByName[name] != nil {
				c.callers[name] = append(c.callers[name], n)
			}
		}
		e.folded = c
	}
	return e.folded
}

// isInputConst says whether n's data input k is constant.
func (c *constness) isInputConst(n *graph.Node, k int) bool {
	in := n.Inputs[k]
	if k < len(n.InputTypes()) && n.InputTypes()[k] == tpb.DataType_DT_STRING {
		return false
	}
	if in.Node == nil {
		return n.Func != nil && in.Arg >= 0 && c.isArgConst(n.Func, int(in.Arg))
	}
	return in.Node.Func == n.Func && c.isConst(in.Node)
}

func (c *constness) isArgConst(f *graph.Function, a int) bool {
	key := argKey{f, a}
	switch c.args[key] {
	case 1:
		return true
	case -1:
		return false
	}
	c.args[key] = -1
	calls := c.callers[f.Name]
	ok := len(calls) > 0
	for _, call := range calls {
		if a >= len(call.Inputs) || !c.isInputConst(call, a) {
			ok = false
			break
		}
	}
	if ok {
		c.args[key] = 1
	}
	return ok
}

func (c *constness) isConst(n *graph.Node) bool {
	switch c.state[n] {
	case 1:
		return true
	case -1:
		return false
	}
	c.state[n] = -1
	ok := n.Op == "Const"
	if !ok && foldable(n) && len(n.Inputs) > 0 {
		ok = true
		for k := range n.Inputs {
			if !c.isInputConst(n, k) {
				ok = false
				break
			}
		}
		ok = ok && c.withinFoldLimit(n)
	}
	if ok {
		c.state[n] = 1
	}
	return ok
}

// withinFoldLimit applies IsFoldableUncached's size check
// (constant_folding.cc:1007-1046) with tfscan's static shapes: no output
// larger than the inputs together and than kMaxConstantSize, where known.
func (c *constness) withinFoldLimit(n *graph.Node) bool {
	sh := c.e.staticShapes()
	in := int64(0)
	for _, e := range n.Inputs {
		if e.Node == nil {
			continue
		}
		if b, ok := sh.Bytes(e.Node, int(e.Output)); ok && !sh.Assumed(e.Node, int(e.Output)) {
			in += b
		}
	}
	for j := range n.OutputTypes() {
		if b, ok := sh.Bytes(n, j); ok && !sh.Assumed(n, j) && b > in && b > maxConstantSize {
			return false
		}
	}
	return true
}

// maxConstantSize is Grappler's kMaxConstantSize (constant_folding.cc:67).
const maxConstantSize = 100 * 1024

// chain lists the scope's local indices of n and the nodes before it.
func (s *scope) chain(n *graph.Node) []int {
	var out []int
	seen := map[int]bool{}
	var walk func(m *graph.Node)
	walk = func(m *graph.Node) {
		i, ok := s.local[m]
		if !ok || seen[i] {
			return
		}
		seen[i] = true
		out = append(out, i)
		for _, in := range m.Inputs {
			if in.Node != nil {
				walk(in.Node)
			}
		}
	}
	if n != nil {
		walk(n)
	}
	return out
}

// foldable is MaybeFoldable's test of the node itself
// (constant_folding.cc:1053-1140).
func foldable(n *graph.Node) bool {
	def := n.OpDef
	if def == nil || def.GetIsStateful() || len(def.GetOutputArg()) == 0 {
		return false
	}
	switch n.Op {
	case "Placeholder", "PlaceholderWithDefault", "FakeParam", "AccumulateNV2", "LoopCond",
		"Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration",
		"Switch", "RefSwitch", "Merge", "RefMerge":
		return false
	}
	if strings.Contains(n.Op, "Save") || strings.Contains(n.Op, "Restore") || strings.Contains(n.Op, "Reader") ||
		strings.Contains(n.Op, "Quantized") || strings.HasPrefix(n.Op, "Sparse") {
		return false
	}
	for _, a := range def.GetOutputArg() {
		if a.GetType() == tpb.DataType_DT_VARIANT {
			return false
		}
	}
	for _, t := range n.OutputTypes() {
		if dtype.IsRef(t) || t == tpb.DataType_DT_RESOURCE || t == tpb.DataType_DT_VARIANT {
			return false
		}
	}
	for _, t := range n.InputTypes() {
		if dtype.IsRef(t) {
			return false
		}
	}
	return true
}

// staticShapes infers the graph's shapes once, on first use.
func (e *Executor) staticShapes() *shape.Shapes {
	e.shapesOnce.Do(func() { e.shapes = shape.Infer(e.g, shape.Options{}) })
	return e.shapes
}

// reciprocalDivFor is the rewrite of the scope's node i in this run, or
// nil where the node divides.
func (rs *runState) reciprocalDivFor(i int) *reciprocalDiv {
	r := rs.sc.recip[i]
	if r == nil || rs.sc != rs.e.top || len(rs.fed) == 0 {
		return r
	}
	for _, j := range r.chain {
		for k := range rs.fed {
			if k.node == j {
				return nil
			}
		}
	}
	return r
}

// execReciprocalDiv computes the division n (inputs x, c) as Grappler's
// rewrite does: r = Reciprocal(c), folded on the host with TensorFlow's
// kernel and held as a Const (so rounded as a constant is under storage
// emulation), then Mul(x, r), or MulNoNan(r, x) for Xdivy, with the node's
// numerics.
func (rs *runState) execReciprocalDiv(n *graph.Node, i int, attrs map[string]*attrpb.AttrValue, inputs []*kernels.Tensor, emu *kernels.Emulation) ([]*kernels.Tensor, error) {
	rc := rs.context(i, attrs, []*kernels.Tensor{inputs[1]}, rs.e.opts.Emu)
	rc.Op = "Reciprocal"
	rk := kernels.Find("Reciprocal")
	op := "Mul"
	if n.Op == "Xdivy" {
		op = "MulNoNan"
	}
	mk := kernels.Find(op)
	if rk == nil || mk == nil {
		return nil, &kernels.UnsupportedError{Op: n.Op, Path: nodePath(n), What: "Reciprocal and " + op + " (Grappler's rewrite of a division by a constant)"}
	}
	r, err := rk.Fn(rc)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): the reciprocal of its constant denominator: %w", nodePath(n), n.Op, err)
	}
	if len(r) != 1 {
		return nil, fmt.Errorf("%s (%s): Reciprocal returned %d outputs (a tfscan bug)", nodePath(n), n.Op, len(r))
	}
	rs.e.num.Round(r[0])
	in := []*kernels.Tensor{inputs[0], r[0]}
	if n.Op == "Xdivy" {
		in = []*kernels.Tensor{r[0], inputs[0]}
	}
	if rs.e.opts.NodeEmu != nil {
		in = roundInputs(in, emu)
	}
	mc := rs.context(i, attrs, in, emu)
	mc.Op = op
	return mk.Fn(mc)
}
