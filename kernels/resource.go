package kernels

import (
	"reflect"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// Resource is the value behind a DT_RESOURCE handle: a variable, a hash
// table, or another stateful object.
type Resource struct {
	Name  string
	Value any
	// Destroyed is set by DestroyResourceOp: the manager no longer holds
	// it and ops through a handle to it fail.
	Destroyed bool
}

// ResourceMgr holds the state of a session that outlives one run: TF1
// reference variables, resource variables and hash tables, keyed by their
// type and their container/shared_name as TensorFlow's ResourceMgr keys
// them (tensorflow/core/framework/resource_mgr.h), and the model's
// checkpoint that RestoreV2 reads. The executor owns one and hands it to
// every kernel as Context.Resources; it is not safe for concurrent use.
// Step-scoped objects stay out of it: a TensorArray lives in its handle for
// the run (TensorFlow keeps it in the step container), and a TensorList is
// a value.
type ResourceMgr struct {
	// Weights is the model's checkpoint, nil when it has none (RestoreV2
	// then opens the prefix it is given).
	Weights WeightSource
	items   map[resourceKey]*Resource
}

type resourceKey struct {
	typ  reflect.Type
	name string
}

// NewResourceMgr returns an empty resource manager over the model's
// checkpoint (nil for none).
func NewResourceMgr(weights WeightSource) *ResourceMgr {
	return &ResourceMgr{Weights: weights, items: map[resourceKey]*Resource{}}
}

// LookupOrCreate returns the resource of type T named name, creating it
// with create when there is none, as ResourceMgr::LookupOrCreate does.
func LookupOrCreate[T any](m *ResourceMgr, name string, create func() *T) *Resource {
	k := resourceKey{reflect.TypeFor[T](), name}
	if r := m.items[k]; r != nil {
		return r
	}
	r := &Resource{Name: name, Value: create()}
	m.items[k] = r
	return r
}

// Create makes v the resource of type T named name, replacing any.
func Create[T any](m *ResourceMgr, name string, v *T) *Resource {
	r := &Resource{Name: name, Value: v}
	m.items[resourceKey{reflect.TypeFor[T](), name}] = r
	return r
}

// Destroy removes r from the manager, as ResourceMgr::Delete does; the
// handles that still point at it see it Destroyed.
func (m *ResourceMgr) Destroy(r *Resource) {
	for k, v := range m.items {
		if v == r {
			delete(m.items, k)
		}
	}
	r.Destroyed = true
}

// live returns the resource made again under the name and type of the
// destroyed r, or nil.
func (m *ResourceMgr) live(r *Resource) *Resource {
	t := reflect.TypeOf(r.Value)
	if t == nil || t.Kind() != reflect.Pointer {
		return nil
	}
	return m.items[resourceKey{t.Elem(), r.Name}]
}

// All returns every resource of type T, in no particular order: what a
// caller that looks at the session's state as a whole (the executor's
// seeding vocabulary) reads.
func All[T any](m *ResourceMgr) []*T {
	var out []*T
	typ := reflect.TypeFor[T]()
	for k, r := range m.items {
		if v, ok := r.Value.(*T); ok && k.typ == typ {
			out = append(out, v)
		}
	}
	return out
}

// ResourceName is the resource-manager key of a stateful node:
// container/shared_name, the node's name (inside a function,
// function/node) standing in for an empty shared_name, as
// ContainerInfo::Init with use_node_name_as_default does.
func ResourceName(attrs map[string]*attrpb.AttrValue, node, fn string) string {
	name := string(attrs["shared_name"].GetS())
	if name == "" {
		name = node
		if fn != "" {
			name = fn + "/" + node
		}
	}
	return string(attrs["container"].GetS()) + "/" + name
}

// VarHandleName is the resource-manager key of a VarHandleOp:
// container/shared_name with no fallback to the node's name, so that
// every handle with an empty shared_name names one variable, as
// resource_variable_ops.cc's VarHandleOp does.
func VarHandleName(attrs map[string]*attrpb.AttrValue) string {
	return string(attrs["container"].GetS()) + "/" + string(attrs["shared_name"].GetS())
}

// resourceName is ResourceName for the kernel's node.
func (c *Context) resourceName() string { return ResourceName(c.Attrs, c.Node, c.Func) }

// handleOf returns the *T behind the resource handle t (input i); handle
// and kind describe what the op expects, for the errors.
func handleOf[T any](c *Context, t *Tensor, i int, handle, kind string) (*T, error) {
	rs, ok := t.Data.([]*Resource)
	if !ok || len(rs) != 1 || rs[0] == nil {
		return nil, c.Errorf("input %d must be %s", i, handle)
	}
	r := rs[0]
	if r.Destroyed {
		// A handle names its resource: one made again under the name
		// after the destroy is the one it reaches.
		if c.Resources == nil {
			return nil, c.Errorf("resource %s does not exist (it has been destroyed)", r.Name)
		}
		live := c.Resources.items[resourceKey{reflect.TypeFor[T](), r.Name}]
		if live == nil {
			return nil, c.Errorf("resource %s does not exist (it has been destroyed)", r.Name)
		}
		r = live
	}
	v, ok := r.Value.(*T)
	if !ok {
		return nil, c.Errorf("resource %s is not %s", r.Name, kind)
	}
	return v, nil
}

// stateInput returns input i of a stateful kernel, reading a reference
// variable's value.
func stateInput(c *Context, i int) (*Tensor, error) {
	if i >= len(c.Inputs) {
		return nil, c.Errorf("expects at least %d inputs, has %d", i+1, len(c.Inputs))
	}
	if t := c.Inputs[i]; t != nil {
		return t, nil
	}
	if i < len(c.Refs) && c.Refs[i] != nil {
		return nil, c.Errorf("attempting to use uninitialized value %s", c.Refs[i].Name)
	}
	return nil, c.Errorf("missing input value")
}

// refInput returns the reference variable behind input i.
func refInput(c *Context, i int) (*RefVar, error) {
	if i >= len(c.Refs) || c.Refs[i] == nil {
		return nil, c.Errorf("input %d must be a variable reference", i)
	}
	return c.Refs[i], nil
}

// refOutput returns v as a kernel's only output, a reference.
func refOutput(c *Context, v *RefVar) []*Tensor {
	c.RefOutputs = []*RefVar{v}
	return []*Tensor{nil}
}

// RefVar is a TF1 reference variable (VariableV2): ops take and return
// references to it, not its value.
type RefVar struct {
	Name  string
	DType tpb.DataType
	Value *Tensor // nil until assigned
}

// Variable is the value behind a resource variable's handle (VarHandleOp).
type Variable struct {
	Name  string
	DType tpb.DataType
	Value *Tensor // nil until assigned
}
