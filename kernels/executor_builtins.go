package kernels

import (
	"errors"
	"fmt"
	"math"
	"strings"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/graph"
)

// bctx is what an executor built-in sees of one node execution.
type bctx struct {
	rs *runState
	n  *graph.Node
	in []slot
}

// builtin ops need the executor itself (frames, functions, state); they
// take precedence over registered kernels.
type builtinFunc func(b *bctx) ([]slot, error)

var builtins map[string]builtinFunc

func init() {
	builtins = map[string]builtinFunc{
		"Const":                  opConst,
		"HostConst":              opConst,
		"Placeholder":            opPlaceholder,
		"PlaceholderV2":          opPlaceholder,
		"PlaceholderWithDefault": passThrough,
		"Identity":               derefAll,
		"Snapshot":               derefAll,
		"StopGradient":           derefAll,
		"PreventGradient":        derefAll,
		"IdentityN":              derefAll,
		"RefIdentity":            passThrough,
		"DebugIdentity":          derefAll,
		"EnsureShape":            opEnsureShape,
		"CheckNumerics":          opCheckNumerics,
		"CheckNumericsV2":        opCheckNumerics,
		"Assert":                 opAssert,
		"Print":                  opPrint,
		"PrintV2":                noOutputs,
		"NoOp":                   noOutputs,
		"ControlTrigger":         noOutputs,
		"_Arg":                   opArg,
		"_Retval":                noOutputs,
	}
	for name, fn := range controlFlowBuiltins() {
		builtins[name] = fn
	}
	for name, fn := range variableBuiltins() {
		builtins[name] = fn
	}
	for name, fn := range lookupBuiltins() {
		builtins[name] = fn
	}
}

// IsBuiltin reports whether the executor itself runs op (control flow,
// function calls, variables, tables, constants and identities) rather than
// a registered kernel.
func IsBuiltin(op string) bool {
	_, ok := builtins[op]
	return ok
}

func (b *bctx) attrs() (map[string]*attrpb.AttrValue, error) { return b.rs.attrsFor(b.n) }

func (b *bctx) errorf(format string, args ...any) error {
	return fmt.Errorf("%s (%s): %s", nodePath(b.n), b.n.Op, fmt.Sprintf(format, args...))
}

// input returns data input i as a tensor (reading a ref).
func (b *bctx) input(i int) (*Tensor, error) {
	if i >= len(b.in) {
		return nil, b.errorf("expects at least %d inputs, has %d", i+1, len(b.in))
	}
	return b.rs.deref(b.in[i], b.n)
}

func (b *bctx) scalarInt(i int) (int64, error) {
	t, err := b.input(i)
	if err != nil {
		return 0, err
	}
	if t.NumElements() != 1 {
		return 0, b.errorf("input %d must be a scalar, has shape %v", i, t.Shape)
	}
	switch d := t.Data.(type) {
	case []int32:
		return int64(d[0]), nil
	case []int64:
		return d[0], nil
	}
	return 0, b.errorf("input %d must be int32 or int64, is %s", i, dtName(t.DType))
}

func passThrough(b *bctx) ([]slot, error) { return append([]slot(nil), b.in...), nil }

func derefAll(b *bctx) ([]slot, error) {
	out := make([]slot, len(b.in))
	for i := range b.in {
		t, err := b.input(i)
		if err != nil {
			return nil, err
		}
		out[i] = slot{t: t}
	}
	return out, nil
}

func noOutputs(*bctx) ([]slot, error) { return nil, nil }

func opConst(b *bctx) ([]slot, error) {
	t, err := b.rs.e.constValue(b.n)
	if err != nil {
		return nil, err
	}
	return []slot{{t: t}}, nil
}

func opPlaceholder(b *bctx) ([]slot, error) {
	return nil, &MissingFeedError{Node: b.n.Name, Op: b.n.Op, Path: nodePath(b.n), DType: b.n.Attrs["dtype"].GetType()}
}

// MissingFeedError says that a run needs a Placeholder that was not fed
// (TensorFlow's "You must feed a value for placeholder tensor"); callers
// that know the model's signature can name the input it stands for.
type MissingFeedError struct {
	Node, Op, Path string
	DType          tpb.DataType
}

func (e *MissingFeedError) Error() string {
	return fmt.Sprintf("%s (%s): placeholder %q (%s) must be fed", e.Path, e.Op, e.Node, dtName(e.DType))
}

func opArg(b *bctx) ([]slot, error) {
	idx := int(b.n.Attrs["index"].GetI())
	if idx < 0 || idx >= len(b.rs.args) {
		return nil, b.errorf("_Arg index %d has no argument (the graph's arguments must be fed)", idx)
	}
	return []slot{b.rs.args[idx]}, nil
}

func opEnsureShape(b *bctx) ([]slot, error) {
	t, err := b.input(0)
	if err != nil {
		return nil, err
	}
	if s := b.n.Attrs["shape"].GetShape(); s != nil && !s.GetUnknownRank() {
		ok := len(s.GetDim()) == len(t.Shape)
		for i := 0; ok && i < len(t.Shape); i++ {
			if d := s.GetDim()[i].GetSize(); d >= 0 && int(d) != t.Shape[i] {
				ok = false
			}
		}
		if !ok {
			return nil, b.errorf("shape of tensor %v is not compatible with expected shape %s", t.Shape, shapeString(s.GetDim()))
		}
	}
	return []slot{{t: t}}, nil
}

func opCheckNumerics(b *bctx) ([]slot, error) {
	t, err := b.input(0)
	if err != nil {
		return nil, err
	}
	if vals, ok := t.Float64s(); ok && IsFloat(t.DType) {
		for _, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, b.errorf("%s : Tensor had NaN or Inf values", string(b.n.Attrs["message"].GetS()))
			}
		}
	}
	return []slot{{t: t}}, nil
}

func opAssert(b *bctx) ([]slot, error) {
	c, err := b.input(0)
	if err != nil {
		return nil, err
	}
	d, ok := c.Data.([]bool)
	if !ok || len(d) != 1 {
		return nil, b.errorf("condition must be a bool scalar")
	}
	if !d[0] {
		var parts []string
		for i := 1; i < len(b.in); i++ {
			if t, err := b.input(i); err == nil {
				if s, ok := t.Data.([][]byte); ok && len(s) > 0 {
					parts = append(parts, string(s[0]))
				}
			}
		}
		return nil, b.errorf("assertion failed: %s", strings.Join(parts, " "))
	}
	return nil, nil
}

func opPrint(b *bctx) ([]slot, error) {
	t, err := b.input(0)
	if err != nil {
		return nil, err
	}
	return []slot{{t: t}}, nil
}

// exec runs one live node instance.
func (rs *runState) exec(n *graph.Node, t task) ([]slot, error) {
	if fn, ok := builtins[n.Op]; ok {
		return fn(&bctx{rs: rs, n: n, in: t.in})
	}
	if f := rs.e.g.FunctionByName[n.Op]; f != nil {
		return rs.callNode(n, f, n.Attrs, t.in, 0)
	}
	inputs := make([]*Tensor, len(t.in))
	for i, s := range t.in {
		v, err := rs.deref(s, n)
		if err != nil {
			return nil, err
		}
		inputs[i] = v
	}
	kernel := Lookup(n.Op)
	if kernel == nil {
		return nil, &UnsupportedError{Op: n.Op, Path: nodePath(n), What: "inputs " + dtypeList(inputs)}
	}
	attrs, err := rs.attrsFor(n)
	if err != nil {
		return nil, err
	}
	emu := rs.e.opts.Emu
	if rs.e.opts.NodeEmu != nil {
		emu = rs.e.opts.NodeEmu(n)
		inputs = roundInputs(inputs, emu)
	}
	if rs.e.opts.BeforeKernel != nil {
		rs.e.opts.BeforeKernel(n, inputs)
	}
	c := &Context{Op: n.Op, Path: nodePath(n), Attrs: attrs, Inputs: inputs, Emu: emu}
	outs, err := kernel(c)
	if err != nil {
		var ue *UnsupportedError
		if errors.As(err, &ue) || strings.HasPrefix(err.Error(), nodePath(n)) {
			return nil, err
		}
		return nil, fmt.Errorf("%s (%s): %w", nodePath(n), n.Op, err)
	}
	if nout := len(n.OutputTypes); (n.OpDef != nil) && len(outs) != nout {
		return nil, fmt.Errorf("%s (%s): kernel returned %d outputs, the op has %d (a tfscan bug)", nodePath(n), n.Op, len(outs), nout)
	}
	res := make([]slot, len(outs))
	for i, o := range outs {
		if err := o.Validate(); err != nil {
			return nil, fmt.Errorf("%s (%s): output %d: %v (a tfscan bug)", nodePath(n), n.Op, i, err)
		}
		if rs.e.opts.Compute == tpb.DataType_DT_DOUBLE && IsFloat(o.DType) && o.DType != tpb.DataType_DT_DOUBLE {
			// Ops whose output dtype is fixed (ResizeBilinear's float,
			// a Cast to half) stay in float64 in a float64 run.
			if o, err = rs.e.enterTensor(o); err != nil {
				return nil, fmt.Errorf("%s (%s): output %d: %w", nodePath(n), n.Op, i, err)
			}
		}
		if rs.e.opts.NodeEmu != nil {
			roundWith(o, emu)
		} else {
			rs.e.roundInPlace(o)
		}
		res[i] = slot{t: o}
	}
	return res, nil
}

func dtypeList(ts []*Tensor) string {
	if len(ts) == 0 {
		return "none"
	}
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = dtName(t.DType)
	}
	return strings.Join(parts, ", ")
}

// attrsFor returns the attrs a kernel sees: float dtypes promoted in
// float64 mode, "$name" placeholders bound from the calling node.
func (rs *runState) attrsFor(n *graph.Node) (map[string]*attrpb.AttrValue, error) {
	i := rs.sc.local[n]
	attrs := n.Attrs
	if a := rs.sc.attrs[i]; a != nil {
		attrs = a
	}
	if !rs.sc.hasPlaceholder[i] {
		return attrs, nil
	}
	out := make(map[string]*attrpb.AttrValue, len(attrs))
	for k, a := range n.Attrs {
		if p := a.GetPlaceholder(); p != "" {
			v, ok := rs.callAttrs[p]
			if !ok {
				return nil, fmt.Errorf("%s (%s): attr %s refers to $%s, which the caller does not set", nodePath(n), n.Op, k, p)
			}
			a = v
		}
		out[k] = a
	}
	if rs.e.opts.Compute == tpb.DataType_DT_DOUBLE {
		if p := promoteAttrs(out); p != nil {
			out = p
		}
	}
	return out, nil
}

// deref returns the tensor in a slot, reading a variable reference.
func (rs *runState) deref(s slot, n *graph.Node) (*Tensor, error) {
	if s.dead {
		return nil, fmt.Errorf("%s (%s): input is dead", nodePath(n), n.Op)
	}
	if s.ref != nil {
		if s.ref.val == nil {
			return nil, fmt.Errorf("%s (%s): attempting to use uninitialized value %s", nodePath(n), n.Op, s.ref.name)
		}
		return s.ref.val, nil
	}
	if s.t == nil {
		return nil, fmt.Errorf("%s (%s): missing input value", nodePath(n), n.Op)
	}
	return s.t, nil
}

// constValue returns a Const node's tensor: the TF.js weight of that name
// when the model has one, else the value attr; converted once for float64
// runs and storage rounding, then cached.
func (e *Executor) constValue(n *graph.Node) (*Tensor, error) {
	if t, ok := e.consts[n]; ok {
		return t, nil
	}
	var t *Tensor
	var err error
	if w := e.tfjsWeight(n); w != nil {
		t, err = weightTensor(w.DType, w.Shape, w.Data, w.Strings)
		if err != nil {
			return nil, fmt.Errorf("%s (%s): weight %q: %w", nodePath(n), n.Op, w.Name, err)
		}
	} else {
		v, ok := n.Attrs["value"]
		if !ok || v.GetTensor() == nil {
			return nil, fmt.Errorf("%s (%s): constant has no value", nodePath(n), n.Op)
		}
		t, err = FromProto(v.GetTensor())
		if err != nil {
			return nil, fmt.Errorf("%s (%s): %w", nodePath(n), n.Op, err)
		}
	}
	t, err = e.enterTensor(t)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", nodePath(n), n.Op, err)
	}
	e.consts[n] = t
	return t, nil
}

// enterTensor prepares a tensor that comes from outside the computation
// (constant, weight, feed, checkpoint value): promoted to float64 in
// float64 mode, rounded to the storage format under emulation. The input
// is never modified.
func (e *Executor) enterTensor(t *Tensor) (*Tensor, error) {
	if e.opts.Compute == tpb.DataType_DT_DOUBLE && IsFloat(t.DType) && t.DType != tpb.DataType_DT_DOUBLE {
		vals, ok := t.Float64s()
		if !ok {
			return nil, fmt.Errorf("cannot convert %s to float64", dtName(t.DType))
		}
		return &Tensor{DType: tpb.DataType_DT_DOUBLE, Shape: append([]int{}, t.Shape...), Data: vals}, nil
	}
	if e.opts.Emu != nil && e.opts.Emu.RoundStorage != nil && t.DType == tpb.DataType_DT_FLOAT {
		c := t.Clone()
		e.roundInPlace(c)
		return c, nil
	}
	return t, nil
}

func (e *Executor) roundInPlace(t *Tensor) {
	if e.opts.Emu == nil || e.opts.Emu.RoundStorage == nil {
		return
	}
	if d, ok := t.Data.([]float32); ok {
		r := e.opts.Emu.RoundStorage
		for i, v := range d {
			d[i] = r(v)
		}
	}
}
