package savedmodel

import (
	"github.com/tfscan/tfscan/dtype"

	"fmt"
	"math/bits"
	"reflect"
	"slices"
	"unsafe"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
	shapepb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
)

// Limits on shapes read from a model. TensorFlow itself accepts up to 2^62
// elements; tfscan refuses shapes no real model has, so that no later stage
// is asked to allocate for them.
const (
	// MaxShapeElements bounds the element count of a shape's known
	// dimensions (shape attrs; a signature's shape over it is read as
	// unknown): 2^40.
	MaxShapeElements = 1 << 40
	// MaxTensorElements bounds the element count of a tensor stored in the
	// model (a Const value, a TF.js weight): 2^31, more than a 2 GiB file
	// can hold except by repeating one value.
	MaxTensorElements = 1 << 31
)

// validate checks what every later stage relies on: Consts have values,
// shapes are sane, tensor_content sizes match their shapes. Signature
// shapes are not checked here: decodeTensorInfo reads one no tensor has as
// unknown.
func validate(m *Model) error {
	for _, mg := range m.MetaGraphs {
		gd := mg.Def.GetGraphDef()
		checked := attrMaps{}
		for _, n := range gd.GetNode() {
			if err := checkNode(m, n, checked); err != nil {
				return err
			}
		}
		for _, f := range gd.GetLibrary().GetFunction() {
			for _, n := range f.GetNodeDef() {
				if err := checkNode(m, n, checked); err != nil {
					return fmt.Errorf("function %q: %w", f.GetSignature().GetName(), err)
				}
			}
		}
	}
	return nil
}

// checkNode checks one NodeDef: a Const must carry its value (TF.js Consts
// may take it from the weights instead), and every shape or tensor in its
// attrs must be sane. A map without tensors checked already (checked) is
// not checked again.
func checkNode(m *Model, n *nodepb.NodeDef, checked attrMaps) error {
	if n.GetOp() == "Const" {
		if _, ok := n.GetAttr()["value"]; !ok {
			if _, ok := m.Weights[n.GetName()]; !ok {
				return fmt.Errorf("node %q (Const) has no \"value\" attr", n.GetName())
			}
		}
	}
	if len(n.GetAttr()) == 0 || checked.met(n.GetAttr()) {
		return nil
	}
	var bad string
	var badErr error
	tensors := false
	for k, v := range n.GetAttr() {
		tensors = tensors || !Shareable(v)
		if err := checkAttr(m, k, v); err != nil && (bad == "" || k < bad) {
			bad, badErr = k, err
		}
	}
	if badErr != nil {
		return fmt.Errorf("node %q (%s) attr %q: %v", n.GetName(), n.GetOp(), bad, badErr)
	}
	if !tensors {
		checked.add(n.GetAttr())
	}
	return nil
}

// attrMaps are attr maps a walk over NodeDefs has read already: the
// decoder gives NodeDefs whose attr entries are the same bytes one map
// (wire.go, sharedMapMax), and what depends on a map alone is read once.
// Only maps without tensors (or funcs) are added, the ones the decoder
// shares, so that a graph of Consts does not fill it.
type attrMaps map[unsafe.Pointer]struct{}

func (s attrMaps) met(attrs map[string]*attrpb.AttrValue) bool {
	_, ok := s[reflect.ValueOf(attrs).UnsafePointer()]
	return ok
}

func (s attrMaps) add(attrs map[string]*attrpb.AttrValue) {
	s[reflect.ValueOf(attrs).UnsafePointer()] = struct{}{}
}

func checkAttr(m *Model, name string, v *attrpb.AttrValue) error {
	checkShape := func(sh *shapepb.TensorShapeProto) error {
		if name != symbolicShapesAttr || sh.GetUnknownRank() {
			return checkShapeProto(sh, true, MaxShapeElements)
		}
		// Symbolic dimensions are unknown ones.
		dims := make([]int64, len(sh.GetDim()))
		for i, d := range sh.GetDim() {
			dims[i] = max(d.GetSize(), -1)
		}
		return checkDims(dims, true, MaxShapeElements)
	}
	switch x := v.GetValue().(type) {
	case *attrpb.AttrValue_Shape:
		return checkShape(x.Shape)
	case *attrpb.AttrValue_Tensor:
		return checkTensor(m, x.Tensor)
	case *attrpb.AttrValue_List:
		for _, s := range x.List.GetShape() {
			if err := checkShape(s); err != nil {
				return err
			}
		}
		for _, t := range x.List.GetTensor() {
			if err := checkTensor(m, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// symbolicShapesAttr is the attr Grappler's remapper gives a node it fuses
// when oneDNN is on (TensorFlow's default on x86 Linux): its inputs' shapes
// as GraphProperties infers them, unknown dimensions as symbolic ones,
// -2, -3, ... (grappler/optimizers/remapper.cc:743-757, AddInputShapesAttr;
// graph_properties.cc:628). The tfjs-converter runs Grappler and keeps it.
// TensorFlow checks attrs against the op's OpDef only, and no OpDef
// declares an underscore attr, so it loads such a graph.
const symbolicShapesAttr = "_input_shapes"

// checkTensor checks a TensorProto's shape (fully defined, not absurd) and,
// for fixed-size dtypes, that tensor_content holds exactly the bytes the
// shape needs, as TensorFlow's Tensor::FromProto requires.
func checkTensor(m *Model, t *tensorpb.TensorProto) error {
	sh := t.GetTensorShape()
	if sh.GetUnknownRank() {
		return fmt.Errorf("tensor has an unknown rank")
	}
	if err := checkShapeProto(sh, false, MaxTensorElements); err != nil {
		return err
	}
	have := m.contentLen(t)
	if have == 0 {
		return nil
	}
	size := dtype.Size(t.GetDtype())
	if size == 0 {
		return nil
	}
	n := int64(1)
	for _, d := range sh.GetDim() {
		n *= d.GetSize()
	}
	if want := n * int64(size); have != want {
		return fmt.Errorf("tensor_content has %d bytes, shape %s of %s needs %d",
			have, shapeString(sh), t.GetDtype(), want)
	}
	return nil
}

func checkShapeProto(sh *shapepb.TensorShapeProto, allowUnknown bool, limit int64) error {
	if sh.GetUnknownRank() {
		return nil
	}
	// Most shapes are small: their dims are checked in an array on the
	// stack, and only an error copies them to the heap.
	var small [8]int64
	dims := small[:0]
	if len(sh.GetDim()) > len(small) {
		dims = make([]int64, 0, len(sh.GetDim()))
	}
	for _, d := range sh.GetDim() {
		dims = append(dims, d.GetSize())
	}
	if p, _ := dimsProblem(dims, allowUnknown, limit); p == dimsFine {
		return nil
	}
	return checkDims(slices.Clone(dims), allowUnknown, limit)
}

// checkDims rejects dimensions below -1 (or any negative one where the
// shape must be fully known) and shapes whose known dimensions multiply to
// more than limit elements.
func checkDims(dims []int64, allowUnknown bool, limit int64) error {
	switch p, d := dimsProblem(dims, allowUnknown, limit); p {
	case dimsNegative:
		return fmt.Errorf("shape %v has negative dimension %d", dims, d)
	case dimsOverLimit:
		return fmt.Errorf("shape %v has dimension %d, over the limit of %d elements", dims, d, limit)
	case dimsTooMany:
		return fmt.Errorf("shape %v has more than %d elements", dims, limit)
	}
	return nil
}

// The problems dimsProblem finds.
const (
	dimsFine = iota
	dimsNegative
	dimsOverLimit
	dimsTooMany
)

// dimsProblem is checkDims's test without its message (nor a reference to
// dims kept, so that they may lie on the caller's stack): the problem and
// the dimension it is about.
func dimsProblem(dims []int64, allowUnknown bool, limit int64) (int, int64) {
	n := uint64(1)
	overflow := false
	for _, d := range dims {
		switch {
		case d == -1 && allowUnknown:
			continue
		case d < 0:
			return dimsNegative, d
		case d > limit:
			return dimsOverLimit, d
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 {
			overflow = true
		}
		n = lo
	}
	if overflow || n > uint64(limit) {
		return dimsTooMany, 0
	}
	return dimsFine, 0
}

func shapeString(sh *shapepb.TensorShapeProto) string {
	dims := make([]int64, len(sh.GetDim()))
	for i, d := range sh.GetDim() {
		dims[i] = d.GetSize()
	}
	return fmt.Sprint(dims)
}
