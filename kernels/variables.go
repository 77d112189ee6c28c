package kernels

import (
	"fmt"
	"slices"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/savedmodel/bundle"
)

// WeightSource is a model's checkpoint: the tensors that RestoreV2 reads
// (through ResourceMgr.Weights) and the executor restores variables from.
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
		return WeightTensor(tpb.DataType_DT_STRING, shape, nil, s)
	}
	dt, shape, raw, err := c.r.Read(key)
	if err != nil {
		return nil, err
	}
	t, err := WeightTensor(dt, shape, raw, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: tensor %q: %w", bundle.IndexPath(c.r.Prefix()), key, err)
	}
	return t, nil
}

// WeightTensor builds a tensor from a checkpoint's or a TF.js weight
// shard's little-endian bytes, or from strings.
func WeightTensor(dt tpb.DataType, shape64 []int64, raw []byte, strs [][]byte) (*Tensor, error) {
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

// Variables (tensorflow/core/kernels/variable_ops.cc,
// resource_variable_ops.cc) and checkpoint restore (save_restore_v2_ops.cc):
// stateful kernels whose variables live in Context.Resources, so that what
// the restore or init op assigns is there for later runs.

func init() {
	for op, fn := range map[string]KernelFunc{
		"VariableV2":            kVariableV2,
		"Variable":              kVariableV2,
		"Assign":                kAssign,
		"AssignAdd":             kAssignArith("AddV2"),
		"AssignSub":             kAssignArith("Sub"),
		"IsVariableInitialized": kIsVariableInitialized,
		"VarHandleOp":           kVarHandle,
		"ReadVariableOp":        kReadVariable,
		"AssignVariableOp":      kAssignVariable,
		"AssignAddVariableOp":   kAssignVariableArith("AddV2"),
		"AssignSubVariableOp":   kAssignVariableArith("Sub"),
		"VarIsInitializedOp":    kVarIsInitialized,
		"VariableShape":         kVariableShape,
		"DestroyResourceOp":     kDestroyResource,
		"ResourceGather":        kResourceGather,
		"RestoreV2":             kRestoreV2,
	} {
		RegisterStateful(op, fn)
	}
}

// kDestroyResource deletes the resource behind a handle
// (resource_variable_ops.cc, DestroyResourceOp). A resource variable exists
// from its first assignment on (VarHandleOp only names it), so destroying
// one never assigned, or one destroyed, is a lookup error, ignored with
// ignore_lookup_error (the default).
func kDestroyResource(c *Context) ([]*Tensor, error) {
	t, err := stateInput(c, 0)
	if err != nil {
		return nil, err
	}
	rs, ok := t.Data.([]*Resource)
	if !ok || len(rs) != 1 || rs[0] == nil {
		return nil, c.Errorf("input 0 must be a resource handle")
	}
	r := rs[0]
	if r.Destroyed && c.Resources != nil {
		if live := c.Resources.live(r); live != nil {
			r = live
		}
	}
	exists := !r.Destroyed
	if v, ok := r.Value.(*Variable); ok && v.Value == nil {
		exists = false
	}
	if !exists {
		if a, ok := c.Attrs["ignore_lookup_error"]; ok && !a.GetB() {
			return nil, c.Errorf("resource %s does not exist", r.Name)
		}
		return nil, nil
	}
	c.Resources.Destroy(r)
	return nil, nil
}

func kVariableV2(c *Context) ([]*Tensor, error) {
	r := LookupOrCreate(c.Resources, c.resourceName(), func() *RefVar {
		return &RefVar{Name: c.Node, DType: dtype.Base(c.Attrs["dtype"].GetType())}
	})
	return refOutput(c, r.Value.(*RefVar)), nil
}

func kAssign(c *Context) ([]*Tensor, error) {
	ref, err := refInput(c, 0)
	if err != nil {
		return nil, err
	}
	val, err := stateInput(c, 1)
	if err != nil {
		return nil, err
	}
	if a, ok := c.Attrs["validate_shape"]; (!ok || a.GetB()) && ref.Value != nil && !slices.Equal(ref.Value.Shape, val.Shape) {
		return nil, c.Errorf("assigning shape %v to variable %s of shape %v", val.Shape, ref.Name, ref.Value.Shape)
	}
	ref.Value = val
	return refOutput(c, ref), nil
}

// arith runs a registered binary kernel (AddV2, Sub) on two tensors, with
// the run's emulation, and rounds the result for storage.
func arith(c *Context, op string, x, y *Tensor) (*Tensor, error) {
	k := Lookup(op)
	if k == nil {
		return nil, &UnsupportedError{Op: c.Op, Path: c.Path, What: "needs the " + op + " kernel"}
	}
	kc := &Context{Op: op, Path: c.Path, Inputs: []*Tensor{x, y}, Emu: c.Emu,
		Attrs: map[string]*attrpb.AttrValue{"T": {Value: &attrpb.AttrValue_Type{Type: x.DType}}}}
	out, err := k(kc)
	if err != nil {
		return nil, err
	}
	if len(out) != 1 {
		return nil, c.Errorf("%s returned %d outputs", op, len(out))
	}
	c.Numerics.Round(out[0])
	return out[0], nil
}

func kAssignArith(op string) KernelFunc {
	return func(c *Context) ([]*Tensor, error) {
		ref, err := refInput(c, 0)
		if err != nil {
			return nil, err
		}
		cur, err := stateInput(c, 0)
		if err != nil {
			return nil, err
		}
		val, err := stateInput(c, 1)
		if err != nil {
			return nil, err
		}
		if !slices.Equal(cur.Shape, val.Shape) {
			// dense_update_ops.cc, DenseUpdateOp: no broadcasting.
			return nil, c.Errorf("parameters and update must be the same size: %v against %v", cur.Shape, val.Shape)
		}
		sum, err := arith(c, op, cur, val)
		if err != nil {
			return nil, err
		}
		ref.Value = sum
		return refOutput(c, ref), nil
	}
}

func kIsVariableInitialized(c *Context) ([]*Tensor, error) {
	ref, err := refInput(c, 0)
	if err != nil {
		return nil, err
	}
	return []*Tensor{ScalarBool(ref.Value != nil)}, nil
}

func kVarHandle(c *Context) ([]*Tensor, error) {
	key := VarHandleName(c.Attrs)
	r := LookupOrCreate(c.Resources, key, func() *Variable {
		return &Variable{Name: key, DType: c.Attrs["dtype"].GetType()}
	})
	return []*Tensor{ScalarResource(r)}, nil
}

// variable returns the variable behind resource handle input i.
func variable(c *Context, i int) (*Variable, error) {
	t, err := stateInput(c, i)
	if err != nil {
		return nil, err
	}
	return handleOf[Variable](c, t, i, "a resource handle", "a variable")
}

func kReadVariable(c *Context) ([]*Tensor, error) {
	v, err := variable(c, 0)
	if err != nil {
		return nil, err
	}
	if v.Value == nil {
		if c.Resources == nil || c.Resources.Weights == nil {
			return nil, c.Errorf("reading variable %s, which is not initialized: the model has no checkpoint (variables/) to restore it from", v.Name)
		}
		return nil, c.Errorf("reading variable %s, which is not initialized (was the checkpoint restored?)", v.Name)
	}
	return []*Tensor{v.Value}, nil
}

func kAssignVariable(c *Context) ([]*Tensor, error) {
	if t, err := stateInput(c, 0); err == nil && c.Resources != nil {
		// Assigning through the handle of a destroyed variable creates it
		// again under its name (LookupOrCreate in AssignVariableOp).
		if rs, ok := t.Data.([]*Resource); ok && len(rs) == 1 && rs[0] != nil && rs[0].Destroyed {
			if old, ok := rs[0].Value.(*Variable); ok {
				LookupOrCreate(c.Resources, rs[0].Name, func() *Variable { return &Variable{Name: old.Name, DType: old.DType} })
			}
		}
	}
	v, err := variable(c, 0)
	if err != nil {
		return nil, err
	}
	val, err := stateInput(c, 1)
	if err != nil {
		return nil, err
	}
	want := c.Numerics.DType(v.DType)
	if want != tpb.DataType_DT_INVALID && val.DType != want {
		return nil, c.Errorf("assigning a %s value to variable %s of dtype %s", dtName(val.DType), v.Name, dtName(want))
	}
	if c.Attrs["validate_shape"].GetB() && v.Value != nil && !slices.Equal(v.Value.Shape, val.Shape) {
		// resource_variable_ops.cc, AssignVariableOp with validate_shape.
		return nil, c.Errorf("trying to assign to variable %s with tensor with wrong shape: expected %v got %v", v.Name, v.Value.Shape, val.Shape)
	}
	v.Value = val
	return nil, nil
}

func kAssignVariableArith(op string) KernelFunc {
	return func(c *Context) ([]*Tensor, error) {
		v, err := variable(c, 0)
		if err != nil {
			return nil, err
		}
		if v.Value == nil {
			return nil, c.Errorf("updating variable %s, which is not initialized", v.Name)
		}
		val, err := stateInput(c, 1)
		if err != nil {
			return nil, err
		}
		if !slices.Equal(v.Value.Shape, val.Shape) {
			// resource_variable_ops.cc, AssignUpdateVariableOp: no broadcasting.
			return nil, c.Errorf("cannot update variable %s with shape %v using a tensor with shape %v, shapes must be equal", v.Name, v.Value.Shape, val.Shape)
		}
		sum, err := arith(c, op, v.Value, val)
		if err != nil {
			return nil, err
		}
		v.Value = sum
		return nil, nil
	}
}

func kVarIsInitialized(c *Context) ([]*Tensor, error) {
	if t, err := stateInput(c, 0); err == nil {
		if rs, ok := t.Data.([]*Resource); ok && len(rs) == 1 && rs[0] != nil && rs[0].Destroyed &&
			(c.Resources == nil || c.Resources.live(rs[0]) == nil) {
			return []*Tensor{ScalarBool(false)}, nil
		}
	}
	v, err := variable(c, 0)
	if err != nil {
		return nil, err
	}
	return []*Tensor{ScalarBool(v.Value != nil)}, nil
}

func kVariableShape(c *Context) ([]*Tensor, error) {
	v, err := variable(c, 0)
	if err != nil {
		return nil, err
	}
	if v.Value == nil {
		return nil, c.Errorf("variable %s is not initialized", v.Name)
	}
	dt := c.Attrs["out_type"].GetType()
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
	return []*Tensor{st}, nil
}

func kResourceGather(c *Context) ([]*Tensor, error) {
	v, err := variable(c, 0)
	if err != nil {
		return nil, err
	}
	if v.Value == nil {
		return nil, c.Errorf("gathering from variable %s, which is not initialized", v.Name)
	}
	idx, err := stateInput(c, 1)
	if err != nil {
		return nil, err
	}
	k := Lookup("GatherV2")
	if k == nil {
		return nil, &UnsupportedError{Op: c.Op, Path: c.Path, What: "needs the GatherV2 kernel"}
	}
	attrs := map[string]*attrpb.AttrValue{
		"batch_dims": {Value: &attrpb.AttrValue_I{I: c.Attrs["batch_dims"].GetI()}},
		"Tparams":    {Value: &attrpb.AttrValue_Type{Type: v.Value.DType}},
		"Tindices":   {Value: &attrpb.AttrValue_Type{Type: idx.DType}},
		"Taxis":      {Value: &attrpb.AttrValue_Type{Type: tpb.DataType_DT_INT32}},
	}
	gc := &Context{Op: "GatherV2", Path: c.Path, Attrs: attrs, Inputs: []*Tensor{v.Value, idx, ScalarInt32(int32(c.Attrs["batch_dims"].GetI()))}, Emu: c.Emu}
	return k(gc)
}

// kRestoreV2 reads tensors from the checkpoint: the session's
// (Resources.Weights), else the one at the prefix input. Slices
// (partitioned variables) are not supported.
func kRestoreV2(c *Context) ([]*Tensor, error) {
	prefix, err := stateInput(c, 0)
	if err != nil {
		return nil, err
	}
	names, err := stateInput(c, 1)
	if err != nil {
		return nil, err
	}
	slices, err := stateInput(c, 2)
	if err != nil {
		return nil, err
	}
	nm, ok1 := names.Data.([][]byte)
	sl, ok2 := slices.Data.([][]byte)
	if !ok1 || !ok2 || len(nm) != len(sl) {
		return nil, c.Errorf("tensor_names and shape_and_slices must be string vectors of one length")
	}
	dtypes := c.Attrs["dtypes"].GetList().GetType()
	if len(dtypes) != len(nm) {
		return nil, c.Errorf("%d dtypes for %d tensors", len(dtypes), len(nm))
	}
	w := c.Resources.Weights
	if w == nil {
		p := ""
		if s, ok := prefix.Data.([][]byte); ok && len(s) == 1 {
			p = string(s[0])
		}
		ck, err := OpenCheckpoint(p)
		if err != nil {
			return nil, c.Errorf("%v", err)
		}
		w = ck
	}
	out := make([]*Tensor, len(nm))
	for i, name := range nm {
		if len(sl[i]) != 0 {
			return nil, &UnsupportedError{Op: c.Op, Path: c.Path, What: fmt.Sprintf("restoring slice %q of %q (partitioned variable)", sl[i], name)}
		}
		t, err := w.ReadTensor(string(name))
		if err != nil {
			return nil, err
		}
		if t.DType != dtypes[i] {
			return nil, c.Errorf("checkpoint tensor %q has dtype %s, the graph expects %s", name, dtName(t.DType), dtName(dtypes[i]))
		}
		if out[i], err = c.Numerics.Import(t); err != nil {
			return nil, err
		}
	}
	return out, nil
}
