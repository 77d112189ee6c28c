package kernels

import (
	"reflect"
	"slices"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// TensorList is the DT_VARIANT value of TF2's list ops
// (tensorflow/core/kernels/list_kernels.{h,cc}). Lists are values: every op
// that changes one returns a new list and leaves its input as it was.
type TensorList struct {
	ElementDType tpb.DataType
	// ElementShape has -1 for unknown dimensions; nil with UnknownRank.
	ElementShape []int
	UnknownRank  bool
	// Items are the elements; nil marks an element not yet set (it reads
	// as zeros of ElementShape).
	Items []*Tensor
	// MaxNumElements bounds PushBack (EmptyTensorList's input); -1 or 0
	// for none.
	MaxNumElements int
}

// shapeCompatible reports whether a partial shape (-1 unknown; unknown
// rank) admits the concrete or partial shape s, as
// PartialTensorShape::IsCompatibleWith.
func shapeCompatible(partial []int, unknownRank bool, s []int) bool {
	if unknownRank || partial == nil {
		return true
	}
	if len(partial) != len(s) {
		return false
	}
	for i, d := range partial {
		if d >= 0 && s[i] >= 0 && d != s[i] {
			return false
		}
	}
	return true
}

// mergeShapes merges two partial shapes (nil for unknown rank) as
// PartialTensorShape::MergeWith; ok is false when they conflict.
func mergeShapes(a, b []int) ([]int, bool) {
	if a == nil {
		return b, true
	}
	if b == nil {
		return a, true
	}
	if len(a) != len(b) {
		return nil, false
	}
	out := make([]int, len(a))
	for i := range a {
		switch {
		case a[i] < 0:
			out[i] = b[i]
		case b[i] < 0 || a[i] == b[i]:
			out[i] = a[i]
		default:
			return nil, false
		}
	}
	return out, true
}

func fullyDefined(s []int) bool {
	if s == nil {
		return false
	}
	for _, d := range s {
		if d < 0 {
			return false
		}
	}
	return true
}

// TensorArray is the resource behind a TensorArrayV3 handle
// (tensorflow/core/kernels/tensor_array_ops.cc), mutated in place. Each
// TensorArrayV3 execution makes a new one that lives in its handle for the
// run, as TensorFlow's lives in the step's container; it is not kept in
// the ResourceMgr.
type TensorArray struct {
	DType   tpb.DataType
	Dynamic bool
	Items   []*Tensor
	// ElementShape from the op's attr (-1 unknown); nil with unknown rank.
	ElementShape []int
	// ClearAfterRead drops an element once read (the op's attr, true by
	// default); a second read of it is an error.
	ClearAfterRead bool
	// IdenticalShapes fixes the element shape at the first write.
	IdenticalShapes bool
	Closed          bool
	// written and cleared are per element: written once (a second write
	// is an error), cleared by a read with ClearAfterRead.
	written, cleared []bool
}

func init() {
	Register("EmptyTensorList", kEmptyTensorList)
	Register("TensorListReserve", kTensorListReserve)
	Register("TensorListFromTensor", kTensorListFromTensor)
	Register("TensorListSetItem", kTensorListSetItem)
	Register("TensorListGetItem", kTensorListGetItem)
	Register("TensorListStack", kTensorListStack)
	Register("TensorListLength", kTensorListLength)
	Register("TensorListPushBack", kTensorListPushBack)
	Register("TensorListPopBack", kTensorListPopBack)
	Register("TensorListElementShape", kTensorListElementShape)
	Register("TensorArrayV3", kTensorArrayV3)
	Register("TensorArrayWriteV3", kTensorArrayWriteV3)
	Register("TensorArrayReadV3", kTensorArrayReadV3)
	Register("TensorArrayGatherV3", kTensorArrayGatherV3)
	Register("TensorArrayScatterV3", kTensorArrayScatterV3)
	Register("TensorArraySizeV3", kTensorArraySizeV3)
	Register("TensorArrayCloseV3", kTensorArrayCloseV3)
}

// elementShapeInput reads an element_shape input: -1 scalar for unknown
// rank, else a vector with -1 for unknown dims.
func elementShapeInput(c *Context, t *Tensor) ([]int, bool, error) {
	var vals []int64
	switch d := t.Data.(type) {
	case []int32:
		for _, v := range d {
			vals = append(vals, int64(v))
		}
	case []int64:
		vals = d
	default:
		return nil, false, c.Errorf("element_shape must be int32 or int64")
	}
	if len(t.Shape) == 0 {
		if len(vals) == 1 && vals[0] == -1 {
			return nil, true, nil
		}
		return nil, false, c.Errorf("element_shape scalar must be -1")
	}
	shape := make([]int, len(vals))
	for i, v := range vals {
		if v < -1 || v > MaxElements {
			return nil, false, c.Errorf("bad element_shape dimension %d", v)
		}
		shape[i] = int(v)
	}
	return shape, false, nil
}

func listInput(c *Context, i int) (*TensorList, error) {
	if i >= len(c.Inputs) {
		return nil, c.Errorf("missing input %d", i)
	}
	d, ok := c.Inputs[i].Data.([]any)
	if !ok || len(d) != 1 {
		return nil, c.Errorf("input %d must be a scalar TensorList", i)
	}
	l, ok := d[0].(*TensorList)
	if !ok {
		return nil, c.Errorf("input %d holds %T, not a TensorList", i, d[0])
	}
	return l, nil
}

func listScalarIndex(c *Context, i int) (int, error) {
	if i >= len(c.Inputs) {
		return 0, c.Errorf("missing input %d", i)
	}
	t := c.Inputs[i]
	if t.NumElements() != 1 {
		return 0, c.Errorf("input %d must be a scalar", i)
	}
	switch d := t.Data.(type) {
	case []int32:
		return int(d[0]), nil
	case []int64:
		return int(d[0]), nil
	}
	return 0, c.Errorf("input %d must be int32 or int64", i)
}

func (l *TensorList) copyList() *TensorList {
	n := *l
	n.Items = append([]*Tensor(nil), l.Items...)
	return &n
}

func listOut(l *TensorList) *Tensor { return ScalarVariant(l) }

func kEmptyTensorList(c *Context) ([]*Tensor, error) {
	dt, err := c.AttrType("element_dtype")
	if err != nil {
		return nil, err
	}
	shape, unk, err := elementShapeInput(c, c.Inputs[0])
	if err != nil {
		return nil, err
	}
	maxN := -1
	if len(c.Inputs) > 1 {
		if m, err := listScalarIndex(c, 1); err == nil {
			maxN = m
		}
	}
	return []*Tensor{listOut(&TensorList{ElementDType: dt, ElementShape: shape, UnknownRank: unk, MaxNumElements: maxN})}, nil
}

func kTensorListReserve(c *Context) ([]*Tensor, error) {
	dt, err := c.AttrType("element_dtype")
	if err != nil {
		return nil, err
	}
	shape, unk, err := elementShapeInput(c, c.Inputs[0])
	if err != nil {
		return nil, err
	}
	n, err := listScalarIndex(c, 1)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > MaxElements {
		return nil, c.Errorf("num_elements %d is out of range", n)
	}
	return []*Tensor{listOut(&TensorList{ElementDType: dt, ElementShape: shape, UnknownRank: unk, Items: make([]*Tensor, n)})}, nil
}

func kTensorListFromTensor(c *Context) ([]*Tensor, error) {
	t := c.Inputs[0]
	if len(t.Shape) == 0 {
		return nil, c.Errorf("tensor must have rank >= 1")
	}
	shape, unk, err := elementShapeInput(c, c.Inputs[1])
	if err != nil {
		return nil, err
	}
	if !shapeCompatible(shape, unk, t.Shape[1:]) {
		return nil, c.Errorf("specified a list with shape %v from a tensor with shape %v", shape, t.Shape[1:])
	}
	l := &TensorList{ElementDType: t.DType, ElementShape: shape, UnknownRank: unk}
	if unk {
		l.ElementShape, l.UnknownRank = append([]int{}, t.Shape[1:]...), false
	}
	for i := 0; i < t.Shape[0]; i++ {
		l.Items = append(l.Items, listRowOf(t, i))
	}
	return []*Tensor{listOut(l)}, nil
}

// rowOf returns a copy of t[i] (the i-th slice along dimension 0).
func listRowOf(t *Tensor, i int) *Tensor {
	inner := 1
	for _, d := range t.Shape[1:] {
		inner *= d
	}
	v := reflect.ValueOf(t.Data).Slice(i*inner, (i+1)*inner)
	dst := reflect.MakeSlice(v.Type(), inner, inner)
	reflect.Copy(dst, v)
	return &Tensor{DType: t.DType, Shape: append([]int{}, t.Shape[1:]...), Data: dst.Interface()}
}

func kTensorListSetItem(c *Context) ([]*Tensor, error) {
	l, err := listInput(c, 0)
	if err != nil {
		return nil, err
	}
	i, err := listScalarIndex(c, 1)
	if err != nil {
		return nil, err
	}
	// A dynamic-size TensorArray writes past the end with
	// resize_if_index_out_of_bounds, which grows the list with unset
	// elements (list_kernels.cc:475).
	resize := c.Attrs["resize_if_index_out_of_bounds"].GetB()
	if i < 0 || (i >= len(l.Items) && !resize) {
		return nil, c.Errorf("index %d out of range for a list of %d elements", i, len(l.Items))
	}
	item := c.Inputs[2]
	if !shapeCompatible(l.ElementShape, l.UnknownRank, item.Shape) {
		return nil, c.Errorf("tried to set a tensor with incompatible shape at a list index: item element shape %v, list shape %v", item.Shape, l.ElementShape)
	}
	if item.DType != l.ElementDType && !(dtype.IsFloat(item.DType) && dtype.IsFloat(l.ElementDType)) {
		return nil, c.Errorf("item dtype %s does not match the list's %s", dtName(item.DType), dtName(l.ElementDType))
	}
	n := l.copyList()
	if i >= len(n.Items) {
		n.Items = append(n.Items, make([]*Tensor, i+1-len(n.Items))...)
	}
	n.Items[i] = item
	return []*Tensor{listOut(n)}, nil
}

// itemOrZeros returns item i, or zeros of the element shape for an unset
// element.
func listItemOrZeros(c *Context, l *TensorList, i int, shapeHint []int) (*Tensor, error) {
	if it := l.Items[i]; it != nil {
		return it, nil
	}
	shape := shapeHint
	if shape == nil {
		shape = l.ElementShape
	}
	for _, d := range shape {
		if d < 0 {
			return nil, c.Errorf("element %d is unset and its shape is not fully defined", i)
		}
	}
	if shape == nil && l.UnknownRank {
		return nil, c.Errorf("element %d is unset and its shape is unknown", i)
	}
	dt := l.ElementDType
	if a, ok := c.Attrs["element_dtype"]; ok {
		dt = a.GetType()
	}
	return NewTensor(dt, shape)
}

func kTensorListGetItem(c *Context) ([]*Tensor, error) {
	l, err := listInput(c, 0)
	if err != nil {
		return nil, err
	}
	i, err := listScalarIndex(c, 1)
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= len(l.Items) {
		return nil, c.Errorf("index %d out of range for a list of %d elements", i, len(l.Items))
	}
	var hint []int
	if len(c.Inputs) > 2 {
		if s, unk, err := elementShapeInput(c, c.Inputs[2]); err == nil && !unk {
			hint = s
		}
	}
	it, err := listItemOrZeros(c, l, i, hint)
	if err != nil {
		return nil, err
	}
	return []*Tensor{it}, nil
}

// stackItems stacks items (all the same shape) into one tensor.
func listStackItems(c *Context, dt tpb.DataType, items []*Tensor, elem []int) (*Tensor, error) {
	if len(items) > 0 {
		elem = items[0].Shape
	}
	for _, d := range elem {
		if d < 0 {
			return nil, c.Errorf("cannot stack an empty list whose element shape is not fully defined")
		}
	}
	shape := append([]int{len(items)}, elem...)
	out, err := NewTensor(dt, shape)
	if err != nil {
		return nil, c.Errorf("%v", err)
	}
	inner := 1
	for _, d := range elem {
		inner *= d
	}
	dst := reflect.ValueOf(out.Data)
	for i, it := range items {
		if !slices.Equal(it.Shape, elem) {
			return nil, c.Errorf("element %d has shape %v, element 0 has %v", i, it.Shape, elem)
		}
		if it.DType != dt {
			return nil, c.Errorf("element %d has dtype %s, want %s", i, dtName(it.DType), dtName(dt))
		}
		reflect.Copy(dst.Slice(i*inner, (i+1)*inner), reflect.ValueOf(it.Data))
	}
	return out, nil
}

func kTensorListStack(c *Context) ([]*Tensor, error) {
	l, err := listInput(c, 0)
	if err != nil {
		return nil, err
	}
	var hint []int
	if len(c.Inputs) > 1 {
		if s, unk, err := elementShapeInput(c, c.Inputs[1]); err == nil && !unk {
			hint = s
		}
	}
	if n := c.Attrs["num_elements"]; n != nil && n.GetI() != -1 && int(n.GetI()) != len(l.Items) {
		return nil, c.Errorf("operation expected a list with %d elements but got a list with %d elements", n.GetI(), len(l.Items))
	}
	// TensorListStack (list_kernels.h): the input's element shape merged
	// with the list's, completed by the first set element's.
	var listShape []int
	if !l.UnknownRank {
		listShape = l.ElementShape
	}
	elem, ok := mergeShapes(hint, listShape)
	if !ok {
		return nil, c.Errorf("incompatible shapes during merge: %v vs. %v", hint, listShape)
	}
	if !fullyDefined(elem) {
		for _, it := range l.Items {
			if it != nil {
				if m, ok := mergeShapes(elem, it.Shape); ok {
					elem = m
				}
				break
			}
		}
	}
	items := make([]*Tensor, len(l.Items))
	for i := range l.Items {
		if items[i], err = listItemOrZeros(c, l, i, elem); err != nil {
			return nil, err
		}
	}
	dt := l.ElementDType
	if a, ok := c.Attrs["element_dtype"]; ok {
		dt = a.GetType()
	}
	out, err := listStackItems(c, dt, items, elem)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

func kTensorListLength(c *Context) ([]*Tensor, error) {
	l, err := listInput(c, 0)
	if err != nil {
		return nil, err
	}
	return []*Tensor{ScalarInt32(int32(len(l.Items)))}, nil
}

func kTensorListPushBack(c *Context) ([]*Tensor, error) {
	l, err := listInput(c, 0)
	if err != nil {
		return nil, err
	}
	if len(l.Items) >= MaxElements {
		return nil, c.Errorf("list too long")
	}
	item := c.Inputs[1]
	if !shapeCompatible(l.ElementShape, l.UnknownRank, item.Shape) {
		return nil, c.Errorf("tried to append a tensor with incompatible shape to a list: element shape %v, list shape %v", item.Shape, l.ElementShape)
	}
	if l.MaxNumElements > 0 && len(l.Items) >= l.MaxNumElements {
		return nil, c.Errorf("tried to push item into a full list: list size %d, max_num_elements %d", len(l.Items), l.MaxNumElements)
	}
	n := l.copyList()
	n.Items = append(n.Items, item)
	return []*Tensor{listOut(n)}, nil
}

func kTensorListPopBack(c *Context) ([]*Tensor, error) {
	l, err := listInput(c, 0)
	if err != nil {
		return nil, err
	}
	if len(l.Items) == 0 {
		return nil, c.Errorf("trying to pop from an empty list")
	}
	var hint []int
	if len(c.Inputs) > 1 {
		if s, unk, err := elementShapeInput(c, c.Inputs[1]); err == nil && !unk {
			hint = s
		}
	}
	it, err := listItemOrZeros(c, l, len(l.Items)-1, hint)
	if err != nil {
		return nil, err
	}
	n := l.copyList()
	n.Items = n.Items[:len(n.Items)-1]
	return []*Tensor{listOut(n), it}, nil
}

func kTensorListElementShape(c *Context) ([]*Tensor, error) {
	l, err := listInput(c, 0)
	if err != nil {
		return nil, err
	}
	dt, err := c.AttrType("shape_type")
	if err != nil {
		return nil, err
	}
	if l.UnknownRank {
		if dt == tpb.DataType_DT_INT64 {
			return []*Tensor{ScalarInt64(-1)}, nil
		}
		return []*Tensor{ScalarInt32(-1)}, nil
	}
	out, err := NewTensor(dt, []int{len(l.ElementShape)})
	if err != nil {
		return nil, err
	}
	for i, d := range l.ElementShape {
		switch v := out.Data.(type) {
		case []int32:
			v[i] = int32(d)
		case []int64:
			v[i] = int64(d)
		}
	}
	return []*Tensor{out}, nil
}

// TensorArray (v1) ops. The flow tensors only order the ops; they carry a
// float scalar.

func taInput(c *Context) (*TensorArray, error) {
	ta, err := handleOf[TensorArray](c, c.Inputs[0], 0, "a TensorArray handle", "a TensorArray")
	if err == nil && ta.Closed {
		return nil, c.Errorf("TensorArray has already been closed")
	}
	return ta, err
}

func taFlow() *Tensor { return ScalarFloat(0) }

func kTensorArrayV3(c *Context) ([]*Tensor, error) {
	n, err := listScalarIndex(c, 0)
	if err != nil {
		return nil, err
	}
	if n < 0 || n > MaxElements {
		return nil, c.Errorf("size %d out of range", n)
	}
	dt, err := c.AttrType("dtype")
	if err != nil {
		return nil, err
	}
	ta := &TensorArray{DType: dt, Items: make([]*Tensor, n), Dynamic: c.Attrs["dynamic_size"].GetB(),
		IdenticalShapes: c.Attrs["identical_element_shapes"].GetB(), ClearAfterRead: true,
		written: make([]bool, n), cleared: make([]bool, n)}
	if a, ok := c.Attrs["clear_after_read"]; ok {
		ta.ClearAfterRead = a.GetB()
	}
	if s := c.Attrs["element_shape"].GetShape(); s != nil && !s.GetUnknownRank() {
		ta.ElementShape = []int{}
		for _, d := range s.GetDim() {
			ta.ElementShape = append(ta.ElementShape, int(d.GetSize()))
		}
	}
	name := string(c.Attrs["tensor_array_name"].GetS())
	return []*Tensor{ScalarResource(&Resource{Name: name, Value: ta}), taFlow()}, nil
}

func (ta *TensorArray) slot(c *Context, i int) error {
	if i < 0 {
		return c.Errorf("index %d is negative", i)
	}
	if i >= len(ta.Items) {
		if !ta.Dynamic {
			return c.Errorf("index %d out of range for a TensorArray of size %d", i, len(ta.Items))
		}
		if i >= MaxElements {
			return c.Errorf("index %d too large", i)
		}
		grow := i + 1 - len(ta.Items)
		ta.Items = append(ta.Items, make([]*Tensor, grow)...)
		ta.written = append(ta.written, make([]bool, grow)...)
		ta.cleared = append(ta.cleared, make([]bool, grow)...)
	}
	return nil
}

// write stores v at i as TensorArray::WriteOrAggregate does: once per
// element, compatible with the element shape.
func (ta *TensorArray) write(c *Context, i int, v *Tensor) error {
	if err := ta.slot(c, i); err != nil {
		return err
	}
	if ta.written[i] {
		return c.Errorf("could not write to TensorArray index %d because it has already been written to", i)
	}
	if !shapeCompatible(ta.ElementShape, false, v.Shape) {
		return c.Errorf("could not write to TensorArray index %d because the value shape is %v which is incompatible with the TensorArray's inferred element shape: %v", i, v.Shape, ta.ElementShape)
	}
	if ta.IdenticalShapes && !fullyDefined(ta.ElementShape) {
		ta.ElementShape = append([]int{}, v.Shape...)
	}
	ta.Items[i], ta.written[i] = v, true
	return nil
}

func kTensorArrayWriteV3(c *Context) ([]*Tensor, error) {
	ta, err := taInput(c)
	if err != nil {
		return nil, err
	}
	i, err := listScalarIndex(c, 1)
	if err != nil {
		return nil, err
	}
	if err := ta.write(c, i, c.Inputs[2]); err != nil {
		return nil, err
	}
	return []*Tensor{taFlow()}, nil
}

func (ta *TensorArray) read(c *Context, i int) (*Tensor, error) {
	if i < 0 || i >= len(ta.Items) {
		return nil, c.Errorf("index %d out of range for a TensorArray of size %d", i, len(ta.Items))
	}
	if ta.cleared[i] {
		return nil, c.Errorf("could not read index %d twice because it was cleared after a previous read (perhaps try setting clear_after_read = false?)", i)
	}
	if it := ta.Items[i]; it != nil {
		if ta.ClearAfterRead {
			ta.Items[i], ta.cleared[i] = nil, true
		}
		return it, nil
	}
	if ta.DType == tpb.DataType_DT_STRING {
		return nil, c.Errorf("element %d was never written: tensor_array::TensorSetZero type not supported: string", i)
	}
	for _, d := range ta.ElementShape {
		if d < 0 {
			return nil, c.Errorf("element %d was never written and the element shape is unknown", i)
		}
	}
	if ta.ElementShape == nil {
		return nil, c.Errorf("element %d was never written and the element shape is unknown", i)
	}
	return NewTensor(ta.DType, ta.ElementShape)
}

func kTensorArrayReadV3(c *Context) ([]*Tensor, error) {
	ta, err := taInput(c)
	if err != nil {
		return nil, err
	}
	i, err := listScalarIndex(c, 1)
	if err != nil {
		return nil, err
	}
	t, err := ta.read(c, i)
	if err != nil {
		return nil, err
	}
	return []*Tensor{t}, nil
}

func listIndexList(c *Context, t *Tensor) ([]int, error) {
	switch d := t.Data.(type) {
	case []int32:
		out := make([]int, len(d))
		for i, v := range d {
			out[i] = int(v)
		}
		return out, nil
	case []int64:
		out := make([]int, len(d))
		for i, v := range d {
			out[i] = int(v)
		}
		return out, nil
	}
	return nil, c.Errorf("indices must be int32 or int64")
}

func kTensorArrayGatherV3(c *Context) ([]*Tensor, error) {
	ta, err := taInput(c)
	if err != nil {
		return nil, err
	}
	idx, err := listIndexList(c, c.Inputs[1])
	if err != nil {
		return nil, err
	}
	items := make([]*Tensor, len(idx))
	for k, i := range idx {
		if items[k], err = ta.read(c, i); err != nil {
			return nil, err
		}
	}
	elem := ta.ElementShape
	if s := c.Attrs["element_shape"].GetShape(); s != nil && !s.GetUnknownRank() && elem == nil {
		for _, d := range s.GetDim() {
			elem = append(elem, int(d.GetSize()))
		}
	}
	dt := ta.DType
	if a, ok := c.Attrs["dtype"]; ok {
		dt = a.GetType()
	}
	out, err := listStackItems(c, dt, items, elem)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

func kTensorArrayScatterV3(c *Context) ([]*Tensor, error) {
	ta, err := taInput(c)
	if err != nil {
		return nil, err
	}
	idx, err := listIndexList(c, c.Inputs[1])
	if err != nil {
		return nil, err
	}
	v := c.Inputs[2]
	if len(v.Shape) == 0 || v.Shape[0] != len(idx) {
		return nil, c.Errorf("value's first dimension must match %d indices", len(idx))
	}
	for k, i := range idx {
		if err := ta.write(c, i, listRowOf(v, k)); err != nil {
			return nil, err
		}
	}
	return []*Tensor{taFlow()}, nil
}

func kTensorArraySizeV3(c *Context) ([]*Tensor, error) {
	ta, err := taInput(c)
	if err != nil {
		return nil, err
	}
	return []*Tensor{ScalarInt32(int32(len(ta.Items)))}, nil
}

func kTensorArrayCloseV3(c *Context) ([]*Tensor, error) {
	ta, err := taInput(c)
	if err != nil {
		return nil, err
	}
	ta.Closed = true
	return nil, nil
}
