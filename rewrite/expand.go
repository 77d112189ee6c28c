package rewrite

import (
	"strconv"
	"strings"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
)

// expander builds the replacement of one node: new NodeDefs in the node's
// scope (the top-level graph or one function body), the last of which
// takes the node's name and gives its output 0, so that every consumer
// keeps reading the same tensor name.
type expander struct {
	n     *graph.Node
	scope *scope
	ops   *graph.OpRegistry
	// target answers whether a candidate op is covered, for rules that
	// choose between replacements.
	target coverage.Matcher
	// consts gives the value of the node's data input i when it is a
	// constant the rewrite may fold (nil otherwise).
	consts func(i int) *kernels.Tensor
	// shapes gives the static shape of the node's input i (nil if unknown).
	shapes func(i int) []int64
	// value computes the node's own output 0 (fold).
	value func() (*kernels.Tensor, error)
	nodes []*nodepb.NodeDef
	final bool
}

// scope is the names in use where the replacement goes.
type scope struct {
	fn   *graph.Function // nil at top level
	used map[string]bool
}

// name returns an unused node name built from base.
func (s *scope) name(base string) string {
	name := base
	for i := 1; s.used[name]; i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	s.used[name] = true
	return name
}

// in is the node's data input i as written in its NodeDef.
func (x *expander) in(i int) string {
	k := 0
	for _, s := range x.n.Def.GetInput() {
		if strings.HasPrefix(s, "^") {
			continue
		}
		if k == i {
			return s
		}
		k++
	}
	return ""
}

// numIn is the node's number of data inputs.
func (x *expander) numIn() int {
	k := 0
	for _, s := range x.n.Def.GetInput() {
		if !strings.HasPrefix(s, "^") {
			k++
		}
	}
	return k
}

// attr is the node's attr (OpDef defaults completed).
func (x *expander) attr(name string) *attrpb.AttrValue { return x.n.Attrs[name] }

// dtype is the node's T attr.
func (x *expander) dtype() tpb.DataType { return x.n.Attrs["T"].GetType() }

// add appends a node of op with the given inputs and attrs, named after
// the node being replaced and suffix, and returns the name of its output 0
// as its consumers in this scope write it.
func (x *expander) add(suffix, op string, inputs []string, attrs map[string]*attrpb.AttrValue) string {
	name := x.scope.name(x.n.Name + "/" + suffix)
	x.nodes = append(x.nodes, x.newNode(name, op, inputs, attrs))
	return x.ref(name, op, 0)
}

// finish appends the last node: it takes the replaced node's name.
func (x *expander) finish(op string, inputs []string, attrs map[string]*attrpb.AttrValue) {
	x.nodes = append(x.nodes, x.newNode(x.n.Name, op, inputs, attrs))
	x.final = true
}

// finishIdentity ends with an Identity of ref, for a replacement whose
// last computed tensor is already some node's output.
func (x *expander) finishIdentity(ref string, t tpb.DataType) {
	x.finish("Identity", []string{ref}, map[string]*attrpb.AttrValue{"T": typeAttr(t)})
}

// newNode makes a NodeDef that carries the replaced node's device, its
// colocation constraint and its control inputs.
func (x *expander) newNode(name, op string, inputs []string, attrs map[string]*attrpb.AttrValue) *nodepb.NodeDef {
	nd := &nodepb.NodeDef{Name: name, Op: op, Device: x.n.Def.GetDevice(), Attr: attrs}
	nd.Input = append(nd.Input, inputs...)
	for _, s := range x.n.Def.GetInput() {
		if strings.HasPrefix(s, "^") {
			nd.Input = append(nd.Input, s)
		}
	}
	if c := x.n.Def.GetAttr()["_class"]; c != nil {
		if nd.Attr == nil {
			nd.Attr = map[string]*attrpb.AttrValue{}
		}
		nd.Attr["_class"] = c
	}
	return nd
}

// constant adds a Const holding t.
func (x *expander) constant(suffix string, t *tensorpb.TensorProto) string {
	return x.add(suffix, "Const", nil, map[string]*attrpb.AttrValue{
		"dtype": typeAttr(t.GetDtype()),
		"value": {Value: &attrpb.AttrValue_Tensor{Tensor: t}},
	})
}

// scalar adds a scalar Const of dtype t with value v.
func (x *expander) scalar(suffix string, t tpb.DataType, v float64) string {
	return x.constant(suffix, scalarTensor(t, v))
}

// ref is how a consumer in this scope names output k of node name: "name"
// or "name:k" at top level, "name:arg:i" in a function body, where arg is
// the OpDef output arg holding flat output k.
func (x *expander) ref(name, op string, k int) string {
	if x.scope.fn == nil {
		if k == 0 {
			return name
		}
		return name + ":" + strconv.Itoa(k)
	}
	arg, i := outputArg(x.ops, op, k)
	return name + ":" + arg + ":" + strconv.Itoa(i)
}

// outputArg finds the output arg of op holding flat output k, for the ops
// rewrite writes (each output arg one tensor).
func outputArg(ops *graph.OpRegistry, op string, k int) (string, int) {
	def := ops.Lookup(op)
	if def == nil || len(def.GetOutputArg()) == 0 {
		return "output", k
	}
	args := def.GetOutputArg()
	if k < len(args) {
		return args[k].GetName(), 0
	}
	last := args[len(args)-1]
	return last.GetName(), k - len(args) + 1
}

// covers says whether the target has a kernel for a node of op with attrs.
func (x *expander) covers(op string, attrs map[string]*attrpb.AttrValue) bool {
	if x.target == nil {
		return true
	}
	n := x.ops.Standalone(&nodepb.NodeDef{Name: "probe", Op: op, Attr: attrs}, x.scope.fn)
	return covered(x.target.Match(n).Reason)
}

// Attr helpers.

func typeAttr(t tpb.DataType) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_Type{Type: t}}
}

func intAttr(v int64) *attrpb.AttrValue { return &attrpb.AttrValue{Value: &attrpb.AttrValue_I{I: v}} }

func boolAttr(v bool) *attrpb.AttrValue { return &attrpb.AttrValue{Value: &attrpb.AttrValue_B{B: v}} }

func floatAttr(v float32) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_F{F: v}}
}

func strAttr(s string) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_S{S: []byte(s)}}
}

func intsAttr(v []int64) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{I: append([]int64{}, v...)}}}
}

// tAttrs is {"T": t}.
func tAttrs(t tpb.DataType) map[string]*attrpb.AttrValue {
	return map[string]*attrpb.AttrValue{"T": typeAttr(t)}
}

// copyAttrs copies the named attrs of the node (OpDef defaults included)
// that are set.
func (x *expander) copyAttrs(dst map[string]*attrpb.AttrValue, names ...string) map[string]*attrpb.AttrValue {
	if dst == nil {
		dst = map[string]*attrpb.AttrValue{}
	}
	for _, k := range names {
		if a, ok := x.n.Attrs[k]; ok {
			dst[k] = a
		}
	}
	return dst
}

// scalarTensor is a scalar TensorProto of a float or integer dtype.
func scalarTensor(t tpb.DataType, v float64) *tensorpb.TensorProto {
	var k *kernels.Tensor
	switch t {
	case tpb.DataType_DT_FLOAT:
		k = kernels.ScalarFloat(float32(v))
	case tpb.DataType_DT_DOUBLE:
		k = kernels.ScalarDouble(v)
	case tpb.DataType_DT_HALF:
		k = kernels.ScalarHalf(float32(v))
	case tpb.DataType_DT_BFLOAT16:
		k = kernels.ScalarBFloat16(float32(v))
	case tpb.DataType_DT_INT64:
		k = kernels.ScalarInt64(int64(v))
	default:
		k = kernels.ScalarInt32(int32(v))
	}
	tp, err := kernels.ToProto(k)
	if err != nil {
		return &tensorpb.TensorProto{Dtype: t}
	}
	return tp
}

func dtName(t tpb.DataType) string { return dtype.Name(t) }
