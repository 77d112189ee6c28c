package kernels

import (
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// Float16 is an IEEE 754 binary16 value, stored as its bits.
type Float16 uint16

// BFloat16 is a bfloat16 value (the top 16 bits of a float32), stored as its bits.
type BFloat16 uint16

// Tensor is a dense tensor. Data holds a typed slice chosen by DType:
//
//	DT_FLOAT []float32   DT_DOUBLE []float64   DT_HALF []Float16   DT_BFLOAT16 []BFloat16
//	DT_INT8 []int8       DT_UINT8 []uint8      DT_INT16 []int16    DT_UINT16 []uint16
//	DT_INT32 []int32     DT_INT64 []int64      DT_UINT32 []uint32  DT_UINT64 []uint64
//	DT_BOOL []bool       DT_STRING [][]byte    DT_RESOURCE []*Resource
//	DT_COMPLEX64 []complex64                   DT_COMPLEX128 []complex128
//	DT_VARIANT []any (e.g. *TensorList)
//
// Data is row-major with len equal to the product of Shape (1 for a scalar).
type Tensor struct {
	DType tpb.DataType
	Shape []int
	Data  any
}

// NumElements returns the product of the shape's dimensions.
func (t *Tensor) NumElements() int {
	n := 1
	for _, d := range t.Shape {
		n *= d
	}
	return n
}
