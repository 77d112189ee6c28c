package kernels

import (
	"fmt"
	"slices"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/savedmodel/bundle"
)

// WeightSource gives the executor a model's checkpoint: the tensors that
// RestoreV2 reads.
type WeightSource interface {
	// Prefix is the bundle prefix (DIR/variables/variables) fed to the
	// saver's filename tensor.
	Prefix() string
	// ReadTensor returns the tensor saved under key (e.g. "a" or
	// "layer/kernel/.ATTRIBUTES/VARIABLE_VALUE").
	ReadTensor(key string) (*Tensor, error)
	// Has reports whether key is in the checkpoint.
	Has(key string) bool
}

// Checkpoint is a WeightSource over a tensor-bundle checkpoint.
type Checkpoint struct {
	r *bundle.Reader
}

// OpenCheckpoint opens the tensor bundle at prefix.
func OpenCheckpoint(prefix string) (*Checkpoint, error) {
	r, err := bundle.Open(prefix)
	if err != nil {
		return nil, err
	}
	return &Checkpoint{r: r}, nil
}

// Prefix implements WeightSource.
func (c *Checkpoint) Prefix() string { return c.r.Prefix() }

// Has implements WeightSource.
func (c *Checkpoint) Has(key string) bool {
	_, ok := c.r.Entry(key)
	return ok
}

// ReadTensor implements WeightSource.
func (c *Checkpoint) ReadTensor(key string) (*Tensor, error) {
	e, ok := c.r.Entry(key)
	if !ok {
		return nil, fmt.Errorf("%s: no tensor %q in the checkpoint", bundle.IndexPath(c.r.Prefix()), key)
	}
	if e.GetDtype() == tpb.DataType_DT_STRING {
		shape, s, err := c.r.ReadStrings(key)
		if err != nil {
			return nil, err
		}
		return weightTensor(tpb.DataType_DT_STRING, shape, nil, s)
	}
	dt, shape, raw, err := c.r.Read(key)
	if err != nil {
		return nil, err
	}
	t, err := weightTensor(dt, shape, raw, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: tensor %q: %w", bundle.IndexPath(c.r.Prefix()), key, err)
	}
	return t, nil
}

// weightTensor builds a tensor from little-endian bytes or strings.
func weightTensor(dt tpb.DataType, shape64 []int64, raw []byte, strs [][]byte) (*Tensor, error) {
	shape := make([]int, len(shape64))
	for i, d := range shape64 {
		if d < 0 || d > MaxElements {
			return nil, fmt.Errorf("bad dimension %d", d)
		}
		shape[i] = int(d)
	}
	if dt == tpb.DataType_DT_STRING {
		n, err := CheckShape(shape)
		if err != nil {
			return nil, err
		}
		if len(strs) != n {
			return nil, fmt.Errorf("%d strings for shape %v", len(strs), shape)
		}
		return &Tensor{DType: dt, Shape: shape, Data: strs}, nil
	}
	return DecodeRaw(dt, shape, raw)
}

// refVar is a TF1 variable (VariableV2): its outputs are references.
type refVar struct {
	name  string
	dtype tpb.DataType
	val   *Tensor
}

// Variable is the value behind a resource variable's handle (VarHandleOp).
type Variable struct {
	Name  string
	DType tpb.DataType
	Value *Tensor // nil until assigned
}

// resources is the executor's session state.
type resources struct {
	refs   map[string]*refVar
	vars   map[string]*Resource
	tables map[string]*Resource
}

func newResources() *resources {
	return &resources{refs: map[string]*refVar{}, vars: map[string]*Resource{}, tables: map[string]*Resource{}}
}

// sharedName is the resource-manager key of a stateful node: container and
// shared_name, the node name standing in for an empty shared_name (as
// ContainerInfo::Init with use_node_name_as_default does).
func sharedName(n *graph.Node) string {
	name := string(n.Attrs["shared_name"].GetS())
	if name == "" {
		name = n.Name
		if n.Func != nil {
			name = n.Func.Name + "/" + n.Name
		}
	}
	return string(n.Attrs["container"].GetS()) + "/" + name
}

func variableBuiltins() map[string]builtinFunc {
	return map[string]builtinFunc{
		"VariableV2":            opVariableV2,
		"Variable":              opVariableV2,
		"Assign":                opAssign,
		"AssignAdd":             opAssignArith("AddV2"),
		"AssignSub":             opAssignArith("Sub"),
		"IsVariableInitialized": opIsVariableInitialized,
		"VarHandleOp":           opVarHandle,
		"ReadVariableOp":        opReadVariable,
		"AssignVariableOp":      opAssignVariable,
		"AssignAddVariableOp":   opAssignVariableArith("AddV2"),
		"AssignSubVariableOp":   opAssignVariableArith("Sub"),
		"VarIsInitializedOp":    opVarIsInitialized,
		"VariableShape":         opVariableShape,
		"DestroyResourceOp":     noOutputs,
		"ResourceGather":        opResourceGather,
		"RestoreV2":             opRestoreV2,
	}
}

func opVariableV2(b *bctx) ([]slot, error) {
	key := sharedName(b.n)
	v := b.rs.e.res.refs[key]
	if v == nil {
		v = &refVar{name: b.n.Name, dtype: BaseType(b.n.Attrs["dtype"].GetType())}
		b.rs.e.res.refs[key] = v
	}
	return []slot{{ref: v}}, nil
}

func (b *bctx) refInput(i int) (*refVar, error) {
	if i >= len(b.in) || b.in[i].ref == nil {
		return nil, b.errorf("input %d must be a variable reference", i)
	}
	return b.in[i].ref, nil
}

func opAssign(b *bctx) ([]slot, error) {
	ref, err := b.refInput(0)
	if err != nil {
		return nil, err
	}
	val, err := b.input(1)
	if err != nil {
		return nil, err
	}
	if a, ok := b.n.Attrs["validate_shape"]; (!ok || a.GetB()) && ref.val != nil && !slices.Equal(ref.val.Shape, val.Shape) {
		return nil, b.errorf("assigning shape %v to variable %s of shape %v", val.Shape, ref.name, ref.val.Shape)
	}
	ref.val = val
	return []slot{{ref: ref}}, nil
}

// arith runs a registered binary kernel (AddV2, Sub) on two tensors.
func (b *bctx) arith(op string, x, y *Tensor) (*Tensor, error) {
	k := Lookup(op)
	if k == nil {
		return nil, &UnsupportedError{Op: b.n.Op, Path: nodePath(b.n), What: "needs the " + op + " kernel"}
	}
	c := &Context{Op: op, Path: nodePath(b.n), Inputs: []*Tensor{x, y}, Emu: b.rs.e.opts.Emu,
		Attrs: map[string]*attrpb.AttrValue{"T": {Value: &attrpb.AttrValue_Type{Type: x.DType}}}}
	out, err := k(c)
	if err != nil {
		return nil, err
	}
	if len(out) != 1 {
		return nil, b.errorf("%s returned %d outputs", op, len(out))
	}
	b.rs.e.roundInPlace(out[0])
	return out[0], nil
}

func opAssignArith(op string) builtinFunc {
	return func(b *bctx) ([]slot, error) {
		ref, err := b.refInput(0)
		if err != nil {
			return nil, err
		}
		cur, err := b.input(0)
		if err != nil {
			return nil, err
		}
		val, err := b.input(1)
		if err != nil {
			return nil, err
		}
		sum, err := b.arith(op, cur, val)
		if err != nil {
			return nil, err
		}
		ref.val = sum
		return []slot{{ref: ref}}, nil
	}
}

func opIsVariableInitialized(b *bctx) ([]slot, error) {
	ref, err := b.refInput(0)
	if err != nil {
		return nil, err
	}
	return []slot{{t: ScalarBool(ref.val != nil)}}, nil
}

func opVarHandle(b *bctx) ([]slot, error) {
	key := sharedName(b.n)
	r := b.rs.e.res.vars[key]
	if r == nil {
		r = &Resource{Name: key, Value: &Variable{Name: key, DType: b.n.Attrs["dtype"].GetType()}}
		b.rs.e.res.vars[key] = r
	}
	return []slot{{t: ScalarResource(r)}}, nil
}

func (b *bctx) variable(i int) (*Variable, error) {
	t, err := b.input(i)
	if err != nil {
		return nil, err
	}
	rs, ok := t.Data.([]*Resource)
	if !ok || len(rs) != 1 || rs[0] == nil {
		return nil, b.errorf("input %d must be a resource handle", i)
	}
	v, ok := rs[0].Value.(*Variable)
	if !ok {
		return nil, b.errorf("resource %s is not a variable", rs[0].Name)
	}
	return v, nil
}

func opReadVariable(b *bctx) ([]slot, error) {
	v, err := b.variable(0)
	if err != nil {
		return nil, err
	}
	if v.Value == nil {
		return nil, b.errorf("reading variable %s, which is not initialized (was the checkpoint restored?)", v.Name)
	}
	return []slot{{t: v.Value}}, nil
}

func opAssignVariable(b *bctx) ([]slot, error) {
	v, err := b.variable(0)
	if err != nil {
		return nil, err
	}
	val, err := b.input(1)
	if err != nil {
		return nil, err
	}
	want := b.rs.e.promoted(v.DType)
	if want != tpb.DataType_DT_INVALID && val.DType != want {
		return nil, b.errorf("assigning a %s value to variable %s of dtype %s", dtName(val.DType), v.Name, dtName(want))
	}
	v.Value = val
	return nil, nil
}

// promoted is the dtype a model dtype has in this run (float64 mode).
func (e *Executor) promoted(dt tpb.DataType) tpb.DataType {
	if e.opts.Compute == tpb.DataType_DT_DOUBLE && IsFloat(dt) {
		return tpb.DataType_DT_DOUBLE
	}
	return dt
}

func opAssignVariableArith(op string) builtinFunc {
	return func(b *bctx) ([]slot, error) {
		v, err := b.variable(0)
		if err != nil {
			return nil, err
		}
		if v.Value == nil {
			return nil, b.errorf("updating variable %s, which is not initialized", v.Name)
		}
		val, err := b.input(1)
		if err != nil {
			return nil, err
		}
		sum, err := b.arith(op, v.Value, val)
		if err != nil {
			return nil, err
		}
		v.Value = sum
		return nil, nil
	}
}

func opVarIsInitialized(b *bctx) ([]slot, error) {
	v, err := b.variable(0)
	if err != nil {
		return nil, err
	}
	return []slot{{t: ScalarBool(v.Value != nil)}}, nil
}

func opVariableShape(b *bctx) ([]slot, error) {
	v, err := b.variable(0)
	if err != nil {
		return nil, err
	}
	if v.Value == nil {
		return nil, b.errorf("variable %s is not initialized", v.Name)
	}
	dt := b.n.Attrs["out_type"].GetType()
	st := &Tensor{DType: tpb.DataType_DT_INT32, Shape: []int{len(v.Value.Shape)}}
	if dt == tpb.DataType_DT_INT64 {
		d := make([]int64, len(v.Value.Shape))
		for i, x := range v.Value.Shape {
			d[i] = int64(x)
		}
		st.DType, st.Data = dt, d
	} else {
		d := make([]int32, len(v.Value.Shape))
		for i, x := range v.Value.Shape {
			d[i] = int32(x)
		}
		st.Data = d
	}
	return []slot{{t: st}}, nil
}

func opResourceGather(b *bctx) ([]slot, error) {
	v, err := b.variable(0)
	if err != nil {
		return nil, err
	}
	if v.Value == nil {
		return nil, b.errorf("gathering from variable %s, which is not initialized", v.Name)
	}
	idx, err := b.input(1)
	if err != nil {
		return nil, err
	}
	k := Lookup("GatherV2")
	if k == nil {
		return nil, &UnsupportedError{Op: b.n.Op, Path: nodePath(b.n), What: "needs the GatherV2 kernel"}
	}
	attrs := map[string]*attrpb.AttrValue{
		"batch_dims": {Value: &attrpb.AttrValue_I{I: b.n.Attrs["batch_dims"].GetI()}},
		"Tparams":    {Value: &attrpb.AttrValue_Type{Type: v.Value.DType}},
		"Tindices":   {Value: &attrpb.AttrValue_Type{Type: idx.DType}},
		"Taxis":      {Value: &attrpb.AttrValue_Type{Type: tpb.DataType_DT_INT32}},
	}
	c := &Context{Op: "GatherV2", Path: nodePath(b.n), Attrs: attrs, Inputs: []*Tensor{v.Value, idx, ScalarInt32(int32(b.n.Attrs["batch_dims"].GetI()))}, Emu: b.rs.e.opts.Emu}
	out, err := k(c)
	if err != nil {
		return nil, err
	}
	return slots(out), nil
}

// opRestoreV2 reads tensors from the checkpoint. The prefix input is
// checked against the executor's checkpoint; slices (partitioned
// variables) are not supported.
func opRestoreV2(b *bctx) ([]slot, error) {
	prefix, err := b.input(0)
	if err != nil {
		return nil, err
	}
	names, err := b.input(1)
	if err != nil {
		return nil, err
	}
	slices, err := b.input(2)
	if err != nil {
		return nil, err
	}
	nm, ok1 := names.Data.([][]byte)
	sl, ok2 := slices.Data.([][]byte)
	if !ok1 || !ok2 || len(nm) != len(sl) {
		return nil, b.errorf("tensor_names and shape_and_slices must be string vectors of one length")
	}
	dtypes := b.n.Attrs["dtypes"].GetList().GetType()
	if len(dtypes) != len(nm) {
		return nil, b.errorf("%d dtypes for %d tensors", len(dtypes), len(nm))
	}
	w := b.rs.e.weights
	if w == nil {
		p := ""
		if s, ok := prefix.Data.([][]byte); ok && len(s) == 1 {
			p = string(s[0])
		}
		ck, err := OpenCheckpoint(p)
		if err != nil {
			return nil, b.errorf("%v", err)
		}
		w = ck
	}
	out := make([]slot, len(nm))
	for i, name := range nm {
		if len(sl[i]) != 0 {
			return nil, &UnsupportedError{Op: b.n.Op, Path: nodePath(b.n), What: fmt.Sprintf("restoring slice %q of %q (partitioned variable)", sl[i], name)}
		}
		t, err := w.ReadTensor(string(name))
		if err != nil {
			return nil, err
		}
		if t.DType != dtypes[i] {
			return nil, b.errorf("checkpoint tensor %q has dtype %s, the graph expects %s", name, dtName(t.DType), dtName(dtypes[i]))
		}
		t, err = b.rs.e.enterTensor(t)
		if err != nil {
			return nil, err
		}
		out[i] = slot{t: t}
	}
	return out, nil
}

// initVariablesByName initializes variables whose names are checkpoint
// keys, for graphs without a saver.
func (e *Executor) initVariablesByName() error {
	for _, n := range e.g.Nodes {
		var key string
		switch n.Op {
		case "VariableV2", "Variable":
			key = n.Name
		case "VarHandleOp":
			key = string(n.Attrs["shared_name"].GetS())
		default:
			continue
		}
		if key == "" || !e.weights.Has(key) {
			continue
		}
		t, err := e.weights.ReadTensor(key)
		if err != nil {
			return err
		}
		if t, err = e.enterTensor(t); err != nil {
			return err
		}
		if n.Op == "VarHandleOp" {
			k := sharedName(n)
			e.res.vars[k] = &Resource{Name: k, Value: &Variable{Name: k, DType: n.Attrs["dtype"].GetType(), Value: t}}
			continue
		}
		e.res.refs[sharedName(n)] = &refVar{name: n.Name, dtype: BaseType(n.Attrs["dtype"].GetType()), val: t}
	}
	return nil
}

// tfjsWeight returns the TF.js weight that gives a top-level Const its value.
func (e *Executor) tfjsWeight(n *graph.Node) *weightRef {
	if n.Func != nil || e.g.Model == nil || e.g.Model.Weights == nil {
		return nil
	}
	w := e.g.Model.Weights[n.Name]
	if w == nil {
		return nil
	}
	return &weightRef{Name: w.Name, DType: w.DType, Shape: w.Shape, Data: w.Data, Strings: w.Strings}
}

type weightRef struct {
	Name    string
	DType   tpb.DataType
	Shape   []int64
	Data    []byte
	Strings [][]byte
}
