package kernels

import (
	"fmt"
	"reflect"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// dtName is TensorFlow's name of a dtype ("float32", "int64_ref").
func dtName(t tpb.DataType) string { return dtype.Name(t) }

// MaxElements is the most elements NewTensor allocates for one tensor
// (2^28, i.e. 1 GiB of float32). A shape beyond it comes from a corrupt or
// hostile model (a Const whose one float_val is padded to a huge shape), or
// from a run far outside what a CPU reference executor is for; refusing it
// keeps a bad input from exhausting memory.
const MaxElements = 1 << 28

// ShapeError reports a shape that cannot be allocated.
type ShapeError struct {
	Shape []int
	What  string
}

func (e *ShapeError) Error() string { return fmt.Sprintf("shape %v: %s", e.Shape, e.What) }

// CheckShape returns the number of elements of shape, or an error for a
// negative dimension or a product above MaxElements (overflow-safe).
func CheckShape(shape []int) (int, error) {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return 0, &ShapeError{Shape: shape, What: "negative dimension"}
		}
		if d == 0 {
			n = 0
			continue
		}
		if n != 0 && d > MaxElements/n {
			return 0, &ShapeError{Shape: shape, What: fmt.Sprintf("more than %d elements", MaxElements)}
		}
		n *= d
	}
	return n, nil
}

// NewTensor allocates a zero tensor of dtype dt and shape. It returns an
// error for a dtype without a Go representation or a shape CheckShape
// refuses; it never allocates more than MaxElements elements.
func NewTensor(dt tpb.DataType, shape []int) (*Tensor, error) {
	n, err := CheckShape(shape)
	if err != nil {
		return nil, err
	}
	data, err := makeData(dt, n)
	if err != nil {
		return nil, err
	}
	return &Tensor{DType: dt, Shape: append([]int{}, shape...), Data: data}, nil
}

// MustTensor is NewTensor for shapes the caller already validated (kernel
// outputs derived from existing inputs); it panics on error.
func MustTensor(dt tpb.DataType, shape []int) *Tensor {
	t, err := NewTensor(dt, shape)
	if err != nil {
		panic(err)
	}
	return t
}

func makeData(dt tpb.DataType, n int) (any, error) {
	switch dtype.Base(dt) {
	case tpb.DataType_DT_FLOAT:
		return make([]float32, n), nil
	case tpb.DataType_DT_DOUBLE:
		return make([]float64, n), nil
	case tpb.DataType_DT_HALF:
		return make([]Float16, n), nil
	case tpb.DataType_DT_BFLOAT16:
		return make([]BFloat16, n), nil
	case tpb.DataType_DT_INT8, tpb.DataType_DT_QINT8:
		return make([]int8, n), nil
	case tpb.DataType_DT_UINT8, tpb.DataType_DT_QUINT8:
		return make([]uint8, n), nil
	case tpb.DataType_DT_INT16, tpb.DataType_DT_QINT16:
		return make([]int16, n), nil
	case tpb.DataType_DT_UINT16, tpb.DataType_DT_QUINT16:
		return make([]uint16, n), nil
	case tpb.DataType_DT_INT32, tpb.DataType_DT_QINT32:
		return make([]int32, n), nil
	case tpb.DataType_DT_INT64:
		return make([]int64, n), nil
	case tpb.DataType_DT_UINT32:
		return make([]uint32, n), nil
	case tpb.DataType_DT_UINT64:
		return make([]uint64, n), nil
	case tpb.DataType_DT_BOOL:
		return make([]bool, n), nil
	case tpb.DataType_DT_COMPLEX64:
		return make([]complex64, n), nil
	case tpb.DataType_DT_COMPLEX128:
		return make([]complex128, n), nil
	case tpb.DataType_DT_STRING:
		return make([][]byte, n), nil
	case tpb.DataType_DT_RESOURCE:
		return make([]*Resource, n), nil
	case tpb.DataType_DT_VARIANT:
		return make([]any, n), nil
	}
	return nil, fmt.Errorf("dtype %s has no tensor representation", dt)
}

// Scalar constructors, for kernels and tests.

// ScalarFloat returns a DT_FLOAT scalar.
func ScalarFloat(v float32) *Tensor {
	return &Tensor{DType: tpb.DataType_DT_FLOAT, Shape: []int{}, Data: []float32{v}}
}

// ScalarDouble returns a DT_DOUBLE scalar.
func ScalarDouble(v float64) *Tensor {
	return &Tensor{DType: tpb.DataType_DT_DOUBLE, Shape: []int{}, Data: []float64{v}}
}

// ScalarInt32 returns a DT_INT32 scalar.
func ScalarInt32(v int32) *Tensor {
	return &Tensor{DType: tpb.DataType_DT_INT32, Shape: []int{}, Data: []int32{v}}
}

// ScalarInt64 returns a DT_INT64 scalar.
func ScalarInt64(v int64) *Tensor {
	return &Tensor{DType: tpb.DataType_DT_INT64, Shape: []int{}, Data: []int64{v}}
}

// ScalarBool returns a DT_BOOL scalar.
func ScalarBool(v bool) *Tensor {
	return &Tensor{DType: tpb.DataType_DT_BOOL, Shape: []int{}, Data: []bool{v}}
}

// ScalarString returns a DT_STRING scalar.
func ScalarString(v string) *Tensor {
	return &Tensor{DType: tpb.DataType_DT_STRING, Shape: []int{}, Data: [][]byte{[]byte(v)}}
}

// ScalarHalf returns a DT_HALF scalar holding v rounded to binary16.
func ScalarHalf(v float32) *Tensor {
	return &Tensor{DType: tpb.DataType_DT_HALF, Shape: []int{}, Data: []Float16{Float16FromFloat32(v)}}
}

// ScalarBFloat16 returns a DT_BFLOAT16 scalar holding v rounded to bfloat16.
func ScalarBFloat16(v float32) *Tensor {
	return &Tensor{DType: tpb.DataType_DT_BFLOAT16, Shape: []int{}, Data: []BFloat16{BFloat16FromFloat32(v)}}
}

// ScalarVariant returns a DT_VARIANT scalar holding v (e.g. a *TensorList).
func ScalarVariant(v any) *Tensor {
	return &Tensor{DType: tpb.DataType_DT_VARIANT, Shape: []int{}, Data: []any{v}}
}

// ScalarResource returns a DT_RESOURCE scalar holding r.
func ScalarResource(r *Resource) *Tensor {
	return &Tensor{DType: tpb.DataType_DT_RESOURCE, Shape: []int{}, Data: []*Resource{r}}
}

// FloatTensor returns a DT_FLOAT tensor over data (not copied); it panics
// when len(data) does not match shape. For tests and kernels.
func FloatTensor(shape []int, data []float32) *Tensor {
	t := &Tensor{DType: tpb.DataType_DT_FLOAT, Shape: shape, Data: data}
	if t.NumElements() != len(data) {
		panic(fmt.Sprintf("FloatTensor: %d values for shape %v", len(data), shape))
	}
	return t
}

// Int32Tensor returns a DT_INT32 tensor over data (not copied); it panics
// when len(data) does not match shape.
func Int32Tensor(shape []int, data []int32) *Tensor {
	t := &Tensor{DType: tpb.DataType_DT_INT32, Shape: shape, Data: data}
	if t.NumElements() != len(data) {
		panic(fmt.Sprintf("Int32Tensor: %d values for shape %v", len(data), shape))
	}
	return t
}

// Clone returns a deep copy of t: a new shape and a new data slice. Strings
// are copied too; resources and variants are shared (they are handles).
func (t *Tensor) Clone() *Tensor {
	if t == nil {
		return nil
	}
	c := &Tensor{DType: t.DType, Shape: append([]int{}, t.Shape...)}
	switch d := t.Data.(type) {
	case []float32:
		c.Data = append([]float32(nil), d...)
	case []float64:
		c.Data = append([]float64(nil), d...)
	case []Float16:
		c.Data = append([]Float16(nil), d...)
	case []BFloat16:
		c.Data = append([]BFloat16(nil), d...)
	case []int8:
		c.Data = append([]int8(nil), d...)
	case []uint8:
		c.Data = append([]uint8(nil), d...)
	case []int16:
		c.Data = append([]int16(nil), d...)
	case []uint16:
		c.Data = append([]uint16(nil), d...)
	case []int32:
		c.Data = append([]int32(nil), d...)
	case []int64:
		c.Data = append([]int64(nil), d...)
	case []uint32:
		c.Data = append([]uint32(nil), d...)
	case []uint64:
		c.Data = append([]uint64(nil), d...)
	case []bool:
		c.Data = append([]bool(nil), d...)
	case []complex64:
		c.Data = append([]complex64(nil), d...)
	case []complex128:
		c.Data = append([]complex128(nil), d...)
	case [][]byte:
		s := make([][]byte, len(d))
		for i, b := range d {
			s[i] = append([]byte(nil), b...)
		}
		c.Data = s
	case []*Resource:
		c.Data = append([]*Resource(nil), d...)
	case []any:
		c.Data = append([]any(nil), d...)
	default:
		c.Data = t.Data
	}
	return c
}

// Reshaped returns a tensor sharing t's data with a new shape; the caller
// guarantees the element count matches.
func (t *Tensor) Reshaped(shape []int) *Tensor {
	return &Tensor{DType: t.DType, Shape: append([]int{}, shape...), Data: t.Data}
}

// DataLen returns len(t.Data) whatever its element type, or -1 when Data is
// not one of the slices Tensor documents.
func (t *Tensor) DataLen() int {
	switch d := t.Data.(type) {
	case []float32:
		return len(d)
	case []float64:
		return len(d)
	case []Float16:
		return len(d)
	case []BFloat16:
		return len(d)
	case []int8:
		return len(d)
	case []uint8:
		return len(d)
	case []int16:
		return len(d)
	case []uint16:
		return len(d)
	case []int32:
		return len(d)
	case []int64:
		return len(d)
	case []uint32:
		return len(d)
	case []uint64:
		return len(d)
	case []bool:
		return len(d)
	case []complex64:
		return len(d)
	case []complex128:
		return len(d)
	case [][]byte:
		return len(d)
	case []*Resource:
		return len(d)
	case []any:
		return len(d)
	}
	return -1
}

// Validate checks that Data's Go type matches DType and its length matches
// Shape. The executor calls it on kernel outputs so that a kernel bug is an
// error naming the node rather than a panic further on.
func (t *Tensor) Validate() error {
	if t == nil {
		return fmt.Errorf("nil tensor")
	}
	n, err := CheckShape(t.Shape)
	if err != nil {
		return err
	}
	want := dataTypeOf(t.DType)
	if want == nil {
		_, err := makeData(t.DType, 0)
		return err
	}
	if reflect.TypeOf(t.Data) != want {
		return fmt.Errorf("%s tensor holds %T", t.DType, t.Data)
	}
	if l := t.DataLen(); l != n {
		return fmt.Errorf("%s tensor of shape %v holds %d values", t.DType, t.Shape, l)
	}
	return nil
}

// dataTypes holds, by dtype, the Go type of its Data (makeData's slice
// type; nil where it has none), so that Validate, which runs on every
// kernel's inputs and outputs, compares types without allocating.
var dataTypes = func() (types [256]reflect.Type) {
	for v := range tpb.DataType_name {
		if v < 0 || int(v) >= len(types) {
			continue
		}
		if d, err := makeData(tpb.DataType(v), 0); err == nil {
			types[v] = reflect.TypeOf(d)
		}
	}
	return types
}()

// dataTypeOf returns dt's entry of dataTypes, nil for a dtype it lacks.
func dataTypeOf(dt tpb.DataType) reflect.Type {
	if dt < 0 || int(dt) >= len(dataTypes) {
		return nil
	}
	return dataTypes[dt]
}

// Float64s returns the tensor's values converted to float64, for any real
// numeric or bool dtype; ok is false for others.
func (t *Tensor) Float64s() (out []float64, ok bool) {
	switch d := t.Data.(type) {
	case []float32:
		out = make([]float64, len(d))
		for i, v := range d {
			out[i] = float64(v)
		}
	case []float64:
		out = append([]float64(nil), d...)
	case []Float16:
		out = make([]float64, len(d))
		for i, v := range d {
			out[i] = v.Float64()
		}
	case []BFloat16:
		out = make([]float64, len(d))
		for i, v := range d {
			out[i] = v.Float64()
		}
	case []int8:
		out = convertTo64(d)
	case []uint8:
		out = convertTo64(d)
	case []int16:
		out = convertTo64(d)
	case []uint16:
		out = convertTo64(d)
	case []int32:
		out = convertTo64(d)
	case []int64:
		out = convertTo64(d)
	case []uint32:
		out = convertTo64(d)
	case []uint64:
		out = convertTo64(d)
	case []bool:
		out = make([]float64, len(d))
		for i, v := range d {
			if v {
				out[i] = 1
			}
		}
	default:
		return nil, false
	}
	return out, true
}

func convertTo64[T int8 | uint8 | int16 | uint16 | int32 | int64 | uint32 | uint64](d []T) []float64 {
	out := make([]float64, len(d))
	for i, v := range d {
		out[i] = float64(v)
	}
	return out
}
