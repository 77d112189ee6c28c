package executor

import (
	"errors"
	"fmt"
	"math"
	"strings"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/savedmodel"
)

// Intrinsics are the ops the executor runs itself rather than through a
// registered kernel, as TensorFlow's executor treats its control-flow
// nodes specially: dataflow primitives and function calls (they need
// frames and the function library, controlflow.go), constants, _Arg and
// Placeholders (fed by the run), and the ops that forward their inputs
// unchanged (identities and checks), which pass TF1 variable references
// on and take no part in precision emulation.

// ictx is what an intrinsic sees of one node execution.
type ictx struct {
	rs *runState
	n  *graph.Node
	in []slot
}

type intrinsicFunc func(b *ictx) ([]slot, error)

var intrinsics map[string]intrinsicFunc

func init() {
	intrinsics = map[string]intrinsicFunc{
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
	for name, fn := range controlFlowIntrinsics() {
		intrinsics[name] = fn
	}
}

// IsIntrinsic reports whether the executor itself runs op (control flow,
// function calls, constants, placeholders, identities) rather than a kernel
// of the registry.
func IsIntrinsic(op string) bool {
	_, ok := intrinsics[op]
	return ok
}

func (b *ictx) attrs() (map[string]*attrpb.AttrValue, error) { return b.rs.attrsFor(b.n) }

func (b *ictx) errorf(format string, args ...any) error {
	return fmt.Errorf("%s (%s): %s", nodePath(b.n), b.n.Op, fmt.Sprintf(format, args...))
}

// input returns data input i as a tensor (reading a ref).
func (b *ictx) input(i int) (*kernels.Tensor, error) {
	if i >= len(b.in) {
		return nil, b.errorf("expects at least %d inputs, has %d", i+1, len(b.in))
	}
	return b.rs.deref(b.in[i], b.n)
}

func (b *ictx) scalarInt(i int) (int64, error) {
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

func passThrough(b *ictx) ([]slot, error) { return append([]slot(nil), b.in...), nil }

func derefAll(b *ictx) ([]slot, error) {
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

func noOutputs(*ictx) ([]slot, error) { return nil, nil }

func opConst(b *ictx) ([]slot, error) {
	t, err := b.rs.e.constValue(b.n)
	if err != nil {
		return nil, err
	}
	return []slot{{t: t}}, nil
}

func opPlaceholder(b *ictx) ([]slot, error) {
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

func opArg(b *ictx) ([]slot, error) {
	idx := int(b.n.Attrs["index"].GetI())
	if idx < 0 || idx >= len(b.rs.args) {
		return nil, b.errorf("_Arg index %d has no argument (the graph's arguments must be fed)", idx)
	}
	return []slot{b.rs.args[idx]}, nil
}

func opEnsureShape(b *ictx) ([]slot, error) {
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

func opCheckNumerics(b *ictx) ([]slot, error) {
	t, err := b.input(0)
	if err != nil {
		return nil, err
	}
	if vals, ok := t.Float64s(); ok && dtype.IsFloat(t.DType) {
		for _, v := range vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, b.errorf("%s : Tensor had NaN or Inf values", string(b.n.Attrs["message"].GetS()))
			}
		}
	}
	return []slot{{t: t}}, nil
}

func opAssert(b *ictx) ([]slot, error) {
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

func opPrint(b *ictx) ([]slot, error) {
	t, err := b.input(0)
	if err != nil {
		return nil, err
	}
	return []slot{{t: t}}, nil
}

// exec runs one live node instance: an intrinsic, a call of a library
// function by name, or the kernel the registry has for the op.
func (rs *runState) exec(n *graph.Node, t task) ([]slot, error) {
	if fn, ok := intrinsics[n.Op]; ok {
		return fn(&ictx{rs: rs, n: n, in: t.in})
	}
	if f := rs.e.g.FunctionByName[n.Op]; f != nil {
		return rs.callNode(n, f, n.Attrs, t.in, 0)
	}
	k := kernels.Find(n.Op)
	if k != nil && k.Stateful {
		return rs.execStateful(t.node, k, t.in)
	}
	inputs := make([]*kernels.Tensor, len(t.in))
	for i, s := range t.in {
		v, err := rs.deref(s, n)
		if err != nil {
			return nil, err
		}
		inputs[i] = v
	}
	if k == nil {
		return nil, &kernels.UnsupportedError{Op: n.Op, Path: nodePath(n), What: "inputs " + dtypeList(inputs)}
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
	var outs []*kernels.Tensor
	if rd := rs.reciprocalDivFor(t.node); rd != nil {
		outs, err = rs.execReciprocalDiv(n, t.node, attrs, inputs, emu)
	} else {
		kc := rs.context(t.node, attrs, inputs, emu)
		kc.Owned = rs.owned(t.node)
		if kc.Stable = rs.stable(t.node); kc.Stable != 0 {
			kc.Packs = rs.e.packs
		}
		outs, err = k.Fn(kc)
	}
	if err != nil {
		var ue *kernels.UnsupportedError
		if errors.As(err, &ue) || strings.HasPrefix(err.Error(), nodePath(n)) {
			return nil, err
		}
		return nil, fmt.Errorf("%s (%s): %w", nodePath(n), n.Op, err)
	}
	if nout := len(n.OutputTypes()); (n.OpDef != nil) && len(outs) != nout {
		return nil, fmt.Errorf("%s (%s): kernel returned %d outputs, the op has %d (a tfscan bug)", nodePath(n), n.Op, len(outs), nout)
	}
	res := make([]slot, len(outs))
	for i, o := range outs {
		if err := o.Validate(); err != nil {
			return nil, fmt.Errorf("%s (%s): output %d: %v (a tfscan bug)", nodePath(n), n.Op, i, err)
		}
		if rs.e.num.Float64() && dtype.IsFloat(o.DType) && o.DType != tpb.DataType_DT_DOUBLE {
			// Ops whose output dtype is fixed (ResizeBilinear's float,
			// a Cast to half) stay in float64 in a float64 run.
			if o, err = rs.e.num.Import(o); err != nil {
				return nil, fmt.Errorf("%s (%s): output %d: %w", nodePath(n), n.Op, i, err)
			}
		}
		if rs.e.opts.NodeEmu != nil {
			roundWith(o, emu)
		} else {
			rs.e.num.Round(o)
		}
		res[i] = slot{t: o}
	}
	return res, nil
}

// execStateful runs a stateful kernel the way kernels.Kernel.Stateful
// describes: inputs, the node's attrs, the run's emulation, outputs and
// errors pass as they are; TF1 variable references go in through
// Context.Refs and come out through Context.RefOutputs.
func (rs *runState) execStateful(i int, k *kernels.Kernel, in []slot) ([]slot, error) {
	c := rs.context(i, rs.sc.nodes[i].Attrs, make([]*kernels.Tensor, len(in)), rs.e.opts.Emu)
	for j, s := range in {
		if s.ref != nil {
			if c.Refs == nil {
				c.Refs = make([]*kernels.RefVar, len(in))
			}
			c.Refs[j] = s.ref
			c.Inputs[j] = s.ref.Value
			continue
		}
		c.Inputs[j] = s.t
	}
	outs, err := k.Fn(c)
	if err != nil {
		return nil, err
	}
	res := make([]slot, len(outs))
	for j, o := range outs {
		if j < len(c.RefOutputs) && c.RefOutputs[j] != nil {
			res[j] = slot{ref: c.RefOutputs[j]}
			continue
		}
		res[j] = slot{t: o}
	}
	return res, nil
}

// context is the kernel context of the scope's node i: what it computes
// on, and the session's resources and numerics.
func (rs *runState) context(i int, attrs map[string]*attrpb.AttrValue, inputs []*kernels.Tensor, emu *kernels.Emulation) *kernels.Context {
	n := rs.sc.nodes[i]
	c := &kernels.Context{Op: n.Op, Path: rs.sc.path(i), Attrs: attrs, Inputs: inputs, Emu: emu,
		Resources: rs.e.res, Numerics: rs.e.num, Node: n.Name, NodeID: n.ID}
	if n.Func != nil {
		c.Func = n.Func.Name
	}
	if rs.reusing() {
		c.Buffers = rs.e.pool
	}
	return c
}

func dtypeList(ts []*kernels.Tensor) string {
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
	if rs.e.num.Float64() {
		if p := promoteAttrs(out); p != nil {
			out = p
		}
	}
	return out, nil
}

// deref returns the tensor in a slot, reading a variable reference.
func (rs *runState) deref(s slot, n *graph.Node) (*kernels.Tensor, error) {
	if s.dead {
		return nil, fmt.Errorf("%s (%s): input is dead", nodePath(n), n.Op)
	}
	if s.ref != nil {
		if s.ref.Value == nil {
			return nil, fmt.Errorf("%s (%s): attempting to use uninitialized value %s", nodePath(n), n.Op, s.ref.Name)
		}
		return s.ref.Value, nil
	}
	if s.t == nil {
		return nil, fmt.Errorf("%s (%s): missing input value", nodePath(n), n.Op)
	}
	return s.t, nil
}

// constValue returns a Const node's tensor: the TF.js weight of that name
// when the model has one, else the value attr; converted once for float64
// runs and storage rounding, then cached.
func (e *Executor) constValue(n *graph.Node) (*kernels.Tensor, error) {
	if t, ok := e.consts[n]; ok {
		return t, nil
	}
	var t *kernels.Tensor
	var err error
	if w := e.tfjsWeight(n); w != nil {
		t, err = kernels.WeightTensor(w.DType, w.Shape, w.Data, w.Strings)
		if err != nil {
			return nil, fmt.Errorf("%s (%s): weight %q: %w", nodePath(n), n.Op, w.Name, err)
		}
	} else {
		v, ok := n.Attrs["value"]
		if !ok || v.GetTensor() == nil {
			return nil, fmt.Errorf("%s (%s): constant has no value", nodePath(n), n.Op)
		}
		if savedmodel.Unread(v.GetTensor()) {
			// A NodeDef of a lazily loaded model in a model New could
			// not materialize (savedmodel/lazy.go): never run it as zeros.
			return nil, fmt.Errorf("%s (%s): the constant's value was left in its model's file and not read", nodePath(n), n.Op)
		}
		t, err = kernels.FromProto(v.GetTensor())
		if err != nil {
			return nil, fmt.Errorf("%s (%s): %w", nodePath(n), n.Op, err)
		}
	}
	t, err = e.num.Import(t)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", nodePath(n), n.Op, err)
	}
	e.consts[n] = t
	return t, nil
}

// tfjsWeight returns the TF.js weight that gives a top-level Const its value.
func (e *Executor) tfjsWeight(n *graph.Node) *savedmodel.Weight {
	if n.Func != nil || e.g.Model == nil || e.g.Model.Weights == nil {
		return nil
	}
	return e.g.Model.Weights[n.Name]
}
