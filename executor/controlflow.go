package executor

import (
	"fmt"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
)

// Control flow run by the executor: TF1's dataflow primitives (their frame
// and dead-tensor handling lives in the engine, dataflow.go; here
// they only pass values on) and TF2's functional ops, which call library
// functions (tensorflow/core/kernels/functional_ops.cc).

func controlFlowIntrinsics() map[string]intrinsicFunc {
	return map[string]intrinsicFunc{
		"Switch":                  opSwitch,
		"RefSwitch":               opSwitch,
		"Merge":                   passThrough, // the engine passes (value, value_index)
		"RefMerge":                passThrough,
		"Enter":                   passThrough,
		"RefEnter":                passThrough,
		"Exit":                    passThrough,
		"RefExit":                 passThrough,
		"NextIteration":           passThrough,
		"RefNextIteration":        passThrough,
		"LoopCond":                passThrough,
		"PartitionedCall":         opCall,
		"StatefulPartitionedCall": opCall,
		"If":                      opIf,
		"StatelessIf":             opIf,
		"Case":                    opCase,
		"StatelessCase":           opCase,
		"While":                   opWhile,
		"StatelessWhile":          opWhile,
	}
}

// opSwitch forwards its data to output 1 when pred is true, else output
// 0; the other output is dead.
func opSwitch(b *ictx) ([]slot, error) {
	if len(b.in) != 2 {
		return nil, b.errorf("expects 2 inputs, has %d", len(b.in))
	}
	pred, err := b.input(1)
	if err != nil {
		return nil, err
	}
	p, ok := pred.Data.([]bool)
	if !ok || len(p) != 1 {
		return nil, b.errorf("pred must be a bool scalar, is %s %v", dtName(pred.DType), pred.Shape)
	}
	out := []slot{{dead: true}, {dead: true}}
	if p[0] {
		out[1] = b.in[0]
	} else {
		out[0] = b.in[0]
	}
	return out, nil
}

// funcAttr returns the function a func-valued attr names.
func (b *ictx) funcAttr(name string) (*graph.Function, map[string]*attrpb.AttrValue, error) {
	a, ok := b.n.Attrs[name]
	if !ok || a.GetFunc() == nil {
		return nil, nil, b.errorf("missing function attr %q", name)
	}
	return b.lookupFunc(a.GetFunc())
}

func (b *ictx) lookupFunc(na *attrpb.NameAttrList) (*graph.Function, map[string]*attrpb.AttrValue, error) {
	f := b.rs.e.g.FunctionByName[na.GetName()]
	if f == nil {
		return nil, nil, b.errorf("calls function %q, which the library does not define", na.GetName())
	}
	return f, na.GetAttr(), nil
}

func (b *ictx) tensors(from int) ([]*kernels.Tensor, error) {
	out := make([]*kernels.Tensor, 0, len(b.in)-from)
	for i := from; i < len(b.in); i++ {
		t, err := b.input(i)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func slots(ts []*kernels.Tensor) []slot {
	out := make([]slot, len(ts))
	for i, t := range ts {
		out[i] = slot{t: t}
	}
	return out
}

func opCall(b *ictx) ([]slot, error) {
	f, attrs, err := b.funcAttr("f")
	if err != nil {
		return nil, err
	}
	return b.rs.callNode(b.n, f, attrs, b.in, 0)
}

// callNode calls f with the node's inputs from index from on.
func (rs *runState) callNode(n *graph.Node, f *graph.Function, attrs map[string]*attrpb.AttrValue, in []slot, from int) ([]slot, error) {
	b := &ictx{rs: rs, n: n, in: in}
	args, err := b.tensors(from)
	if err != nil {
		return nil, err
	}
	outs, err := rs.callFunction(f, args, attrs, n)
	if err != nil {
		return nil, err
	}
	return slots(outs), nil
}

// toBool is TensorFlow's ToBool for If and While predicates: a scalar is
// true when non-zero (strings: non-empty), any other tensor when it has
// elements.
func toBool(t *kernels.Tensor) (bool, error) {
	if len(t.Shape) != 0 {
		return t.NumElements() > 0, nil
	}
	switch d := t.Data.(type) {
	case []bool:
		return d[0], nil
	case [][]byte:
		return len(d[0]) > 0, nil
	case []float32, []float64, []int32, []uint8, []int16, []int8, []int64:
		v, _ := t.Float64s()
		return v[0] != 0, nil
	}
	return false, fmt.Errorf("%s cannot be converted to a boolean", dtName(t.DType))
}

func opIf(b *ictx) ([]slot, error) {
	cond, err := b.input(0)
	if err != nil {
		return nil, err
	}
	v, err := toBool(cond)
	if err != nil {
		return nil, b.errorf("%v", err)
	}
	branch := "else_branch"
	if v {
		branch = "then_branch"
	}
	f, attrs, err := b.funcAttr(branch)
	if err != nil {
		return nil, err
	}
	return b.rs.callNode(b.n, f, attrs, b.in, 1)
}

// opCase calls branches[branch_index]; an index out of range calls the
// last branch, as the Case op documents.
func opCase(b *ictx) ([]slot, error) {
	idx, err := b.scalarInt(0)
	if err != nil {
		return nil, err
	}
	branches := b.n.Attrs["branches"].GetList().GetFunc()
	if len(branches) == 0 {
		return nil, b.errorf("has no branches")
	}
	if idx < 0 || idx >= int64(len(branches)) {
		idx = int64(len(branches) - 1)
	}
	f, attrs, err := b.lookupFunc(branches[idx])
	if err != nil {
		return nil, err
	}
	return b.rs.callNode(b.n, f, attrs, b.in, 1)
}

// opWhile runs body while cond holds on the loop variables.
func opWhile(b *ictx) ([]slot, error) {
	condF, condAttrs, err := b.funcAttr("cond")
	if err != nil {
		return nil, err
	}
	bodyF, bodyAttrs, err := b.funcAttr("body")
	if err != nil {
		return nil, err
	}
	vars, err := b.tensors(0)
	if err != nil {
		return nil, err
	}
	for iter := 0; ; iter++ {
		if err := b.rs.ctx.Err(); err != nil {
			return nil, err
		}
		if iter >= b.rs.e.opts.MaxIterations {
			return nil, b.errorf("loop ran more than %d iterations", b.rs.e.opts.MaxIterations)
		}
		c, err := b.rs.callFunction(condF, vars, condAttrs, b.n)
		if err != nil {
			return nil, err
		}
		if len(c) != 1 {
			return nil, b.errorf("cond function %s returned %d values, want 1", condF.Name, len(c))
		}
		ok, err := toBool(c[0])
		if err != nil {
			return nil, b.errorf("cond: %v", err)
		}
		if !ok {
			return slots(vars), nil
		}
		next, err := b.rs.callFunction(bodyF, vars, bodyAttrs, b.n)
		if err != nil {
			return nil, err
		}
		if len(next) != len(vars) {
			return nil, b.errorf("body function %s returned %d values for %d loop variables", bodyF.Name, len(next), len(vars))
		}
		vars = next
	}
}
