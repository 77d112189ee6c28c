package kernels

import (
	"fmt"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// Attribute accessors. A missing attr is an error naming the node, because
// the executor completes attrs with OpDef defaults before kernels run: a
// missing attr means a malformed model, not a default to guess.

// AttrInt returns an int attr.
func (c *Context) AttrInt(name string) (int64, error) {
	a, ok := c.Attrs[name]
	if !ok {
		return 0, c.missing(name)
	}
	return a.GetI(), nil
}

// AttrFloat returns a float attr.
func (c *Context) AttrFloat(name string) (float32, error) {
	a, ok := c.Attrs[name]
	if !ok {
		return 0, c.missing(name)
	}
	return a.GetF(), nil
}

// AttrBool returns a bool attr.
func (c *Context) AttrBool(name string) (bool, error) {
	a, ok := c.Attrs[name]
	if !ok {
		return false, c.missing(name)
	}
	return a.GetB(), nil
}

// AttrString returns a string attr.
func (c *Context) AttrString(name string) (string, error) {
	a, ok := c.Attrs[name]
	if !ok {
		return "", c.missing(name)
	}
	return string(a.GetS()), nil
}

// AttrType returns a type attr.
func (c *Context) AttrType(name string) (tpb.DataType, error) {
	a, ok := c.Attrs[name]
	if !ok {
		return tpb.DataType_DT_INVALID, c.missing(name)
	}
	return a.GetType(), nil
}

// AttrInts returns a list(int) attr.
func (c *Context) AttrInts(name string) ([]int64, error) {
	a, ok := c.Attrs[name]
	if !ok {
		return nil, c.missing(name)
	}
	return a.GetList().GetI(), nil
}

// AttrFloats returns a list(float) attr.
func (c *Context) AttrFloats(name string) ([]float32, error) {
	a, ok := c.Attrs[name]
	if !ok {
		return nil, c.missing(name)
	}
	return a.GetList().GetF(), nil
}

// AttrStrings returns a list(string) attr.
func (c *Context) AttrStrings(name string) ([]string, error) {
	a, ok := c.Attrs[name]
	if !ok {
		return nil, c.missing(name)
	}
	var out []string
	for _, s := range a.GetList().GetS() {
		out = append(out, string(s))
	}
	return out, nil
}

// HasAttr reports whether the node has the attr.
func (c *Context) HasAttr(name string) bool {
	_, ok := c.Attrs[name]
	return ok
}

// Errorf returns an error naming the node and op.
func (c *Context) Errorf(format string, args ...any) error {
	return fmt.Errorf("%s (%s): %s", c.Path, c.Op, fmt.Sprintf(format, args...))
}

func (c *Context) missing(name string) error {
	return c.Errorf("missing attr %q", name)
}
