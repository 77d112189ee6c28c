package parity

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode/utf8"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tspb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
)

// Vector is one test case for a kernel: the inputs a node received and
// the outputs the reference kernels computed for it, in the model's own
// dtypes. Nodes with the same op, dtypes, attrs and shapes share one
// vector.
type Vector struct {
	Op     string
	DTypes []string
	// Attrs are the node's attrs (internal "_" attrs left out) as JSON
	// values: see AttrJSON.
	Attrs         map[string]any
	InputShapes   [][]int
	OutputShapes  [][]int
	InputDTypes   []string
	OutputDTypes  []string
	Nodes         []string // the paths of the nodes it stands for, sorted
	Inputs        []*kernels.Tensor
	Outputs       []*kernels.Tensor
	key           string
	firstExecuted int
}

// CaptureVectors runs the model once in its own dtypes and records the
// inputs and outputs of every node want selects that runs a kernel. It
// returns the vectors in order of first execution, deduplicated, and the
// paths of the selected nodes that never ran (not needed by the fetches,
// in an untaken branch, or not a computation: an executor intrinsic or a
// stateful kernel, which the executor does not show to BeforeKernel),
// sorted.
func CaptureVectors(ctx context.Context, m Model, want func(*graph.Node) bool, maxIterations int) ([]*Vector, []string, error) {
	pending := map[*graph.Node][]*kernels.Tensor{}
	byKey := map[string]*Vector{}
	ran := map[*graph.Node]bool{}
	var vecs []*Vector
	opts := executor.Options{
		MaxIterations: maxIterations,
		BeforeKernel: func(n *graph.Node, in []*kernels.Tensor) {
			if !want(n) {
				return
			}
			c := make([]*kernels.Tensor, len(in))
			for i, t := range in {
				c[i] = t.Clone()
			}
			pending[n] = c
		},
		AfterNode: func(n *graph.Node, outs []*kernels.Tensor) {
			in, ok := pending[n]
			if !ok {
				return
			}
			delete(pending, n)
			ran[n] = true
			v := newVector(n, in, outs)
			if prev := byKey[v.key]; prev != nil {
				if p := n.Path(); !contains(prev.Nodes, p) {
					prev.Nodes = append(prev.Nodes, p)
				}
				return
			}
			for i, o := range v.Outputs {
				v.Outputs[i] = o.Clone()
			}
			v.firstExecuted = len(vecs)
			byKey[v.key] = v
			vecs = append(vecs, v)
		},
	}
	e, err := executor.New(m.Graph, m.Weights, opts)
	if err != nil {
		return nil, nil, err
	}
	if _, err := e.Run(ctx, m.Feeds, m.Fetches); err != nil {
		return nil, nil, err
	}
	var missed []string
	for _, n := range m.Graph.Nodes {
		if want(n) && !ran[n] {
			missed = append(missed, n.Path())
		}
	}
	sort.Strings(missed)
	for _, v := range vecs {
		sort.Strings(v.Nodes)
	}
	return vecs, missed, nil
}

func newVector(n *graph.Node, in, outs []*kernels.Tensor) *Vector {
	v := &Vector{Op: n.Op, DTypes: n.DTypes(), Attrs: map[string]any{}, Nodes: []string{n.Path()}, Inputs: in}
	if v.DTypes == nil {
		v.DTypes = []string{}
	}
	for k, a := range n.Attrs {
		if strings.HasPrefix(k, "_") {
			continue
		}
		v.Attrs[k] = AttrJSON(a)
	}
	for _, t := range in {
		v.InputShapes = append(v.InputShapes, shapeOf(t))
		v.InputDTypes = append(v.InputDTypes, dtype.Name(t.DType))
	}
	for _, t := range outs {
		if t == nil { // a dead output
			t = &kernels.Tensor{DType: tpb.DataType_DT_INVALID}
		}
		v.Outputs = append(v.Outputs, t)
		v.OutputShapes = append(v.OutputShapes, shapeOf(t))
		v.OutputDTypes = append(v.OutputDTypes, dtype.Name(t.DType))
	}
	k, _ := json.Marshal([]any{v.Op, v.DTypes, v.Attrs, v.InputDTypes, v.InputShapes, v.OutputShapes})
	v.key = string(k)
	return v
}

func shapeOf(t *kernels.Tensor) []int {
	return append([]int{}, t.Shape...)
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// AttrJSON turns an attr value into plain JSON data: strings (bytes that
// are not UTF-8 as {"base64": ...} via encoding/json's []byte), ints,
// floats (non-finite ones as the strings "nan", "inf", "-inf"), bools,
// dtype names, shapes as dimension lists (-1 unknown; null for unknown
// rank), tensors as {"dtype", "shape"}, function names as {"func": name},
// and lists of these.
func AttrJSON(a *attrpb.AttrValue) any {
	switch v := a.GetValue().(type) {
	case *attrpb.AttrValue_S:
		return bytesJSON(v.S)
	case *attrpb.AttrValue_I:
		return v.I
	case *attrpb.AttrValue_F:
		return floatJSON(v.F)
	case *attrpb.AttrValue_B:
		return v.B
	case *attrpb.AttrValue_Type:
		return dtype.Name(v.Type)
	case *attrpb.AttrValue_Shape:
		return shapeJSON(v.Shape.GetUnknownRank(), v.Shape.GetDim())
	case *attrpb.AttrValue_Tensor:
		return map[string]any{"dtype": dtype.Name(v.Tensor.GetDtype()),
			"shape": shapeJSON(v.Tensor.GetTensorShape().GetUnknownRank(), v.Tensor.GetTensorShape().GetDim())}
	case *attrpb.AttrValue_Func:
		return map[string]any{"func": v.Func.GetName()}
	case *attrpb.AttrValue_Placeholder:
		return map[string]any{"placeholder": v.Placeholder}
	case *attrpb.AttrValue_List:
		l := v.List
		out := []any{}
		for _, s := range l.GetS() {
			out = append(out, bytesJSON(s))
		}
		for _, i := range l.GetI() {
			out = append(out, i)
		}
		for _, f := range l.GetF() {
			out = append(out, floatJSON(f))
		}
		for _, b := range l.GetB() {
			out = append(out, b)
		}
		for _, t := range l.GetType() {
			out = append(out, dtype.Name(t))
		}
		for _, s := range l.GetShape() {
			out = append(out, shapeJSON(s.GetUnknownRank(), s.GetDim()))
		}
		for _, t := range l.GetTensor() {
			out = append(out, map[string]any{"dtype": dtype.Name(t.GetDtype())})
		}
		for _, f := range l.GetFunc() {
			out = append(out, map[string]any{"func": f.GetName()})
		}
		return out
	}
	return nil
}

func bytesJSON(b []byte) any {
	if utf8.Valid(b) {
		return string(b)
	}
	return map[string]any{"base64": b}
}

func floatJSON(f float32) any {
	switch {
	case math.IsNaN(float64(f)):
		return "nan"
	case math.IsInf(float64(f), 1):
		return "inf"
	case math.IsInf(float64(f), -1):
		return "-inf"
	}
	// Shortest decimal that round-trips the float32.
	var x json.Number = json.Number(fmt.Sprint(f))
	return x
}

func shapeJSON(unknownRank bool, dims []*tspb.TensorShapeProto_Dim) any {
	if unknownRank {
		return nil
	}
	out := make([]int64, len(dims))
	for i, d := range dims {
		out[i] = d.GetSize()
	}
	return out
}
