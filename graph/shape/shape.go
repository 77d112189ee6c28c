// Package shape infers static tensor shapes over a graph.Graph for the ops
// that carry most of a model's bytes, so that the placement simulator can
// put a size on every host↔device transfer. Unknown dimensions are filled
// from user-given values (or a batch of 1) and every figure that rests on
// such an assumption is marked. Arithmetic saturates: a dimension or a
// product too large for int64 becomes unknown, never a panic or an
// allocation.
package shape

import (
	"math/bits"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// Unknown marks an unknown dimension.
const Unknown int64 = -1

// maxElems bounds element counts; larger products are treated as unknown.
const maxElems = int64(1) << 62

// maxValue bounds how many integer values are tracked for a tensor
// (Const shapes, Shape outputs) so that big constants are never decoded.
const maxValue = 1 << 12

// Shape is a tensor shape; Dims holds Unknown (-1) for unknown dimensions.
type Shape struct {
	Dims []int64
	// UnknownRank is set when even the rank is unknown (Dims is nil).
	UnknownRank bool
}

// Tensor is what inference knows about one output.
type Tensor struct {
	Shape Shape
	// Value holds the contents of small integer tensors when known (a Const
	// shape operand, the output of Shape), else nil.
	Value []int64
	// Handle is what a resource tensor refers to, when known: TensorFlow's
	// handle data (InferenceContext::output_handle_shapes_and_types,
	// tensorflow/core/framework/shape_inference.h). A variable's handle
	// has one entry, its value's shape and dtype; a lookup table's has
	// two, its keys' and its values'.
	Handle []ShapeAndType
	DType  tpb.DataType
	// Assumed is set when the shape rests on an assumed dimension.
	Assumed bool
	// (DType and Assumed after the slices: 88 bytes so and 96 with them
	// first. Shapes keeps every output packed, packed.go.)
}

// ShapeAndType is one entry of a resource's handle data.
type ShapeAndType struct {
	Shape Shape
	DType tpb.DataType
}

// unknownRank is the shape of nothing known.
func unknownRank() Shape { return Shape{UnknownRank: true} }

func known(dims ...int64) Shape {
	if dims == nil {
		dims = []int64{}
	}
	return Shape{Dims: dims}
}

// Rank is the rank, or -1.
func (s Shape) Rank() int {
	if s.UnknownRank {
		return -1
	}
	return len(s.Dims)
}

// FullyKnown reports whether every dimension is known.
func (s Shape) FullyKnown() bool {
	if s.UnknownRank {
		return false
	}
	for _, d := range s.Dims {
		if d < 0 {
			return false
		}
	}
	return true
}

// NumElements is the product of the dimensions; ok is false when a
// dimension is unknown or the product exceeds 2^62.
func (s Shape) NumElements() (int64, bool) {
	if !s.FullyKnown() {
		return 0, false
	}
	n := int64(1)
	for _, d := range s.Dims {
		var ok bool
		if n, ok = mulSat(n, d); !ok {
			return 0, false
		}
	}
	return n, true
}

// mulSat multiplies non-negative values; ok is false past maxElems.
func mulSat(a, b int64) (int64, bool) {
	if a < 0 || b < 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > uint64(maxElems) {
		return 0, false
	}
	return int64(lo), true
}

// Bytes is elements × dtype size; ok is false when either is unknown.
func (t Tensor) Bytes() (int64, bool) {
	n, ok := t.Shape.NumElements()
	if !ok {
		return 0, false
	}
	sz := int64(dtype.Size(t.DType))
	if sz == 0 {
		return 0, false
	}
	return mulSat(n, sz)
}
