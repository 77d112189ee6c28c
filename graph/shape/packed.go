package shape

import (
	"slices"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// packed is a Tensor as Shapes keeps it for every output of a graph: 32
// bytes where a Tensor is 88. Values and handle data, which few outputs
// have, are in Shapes.extra.
type packed struct {
	dims  []int64
	dtype tpb.DataType
	// bits is packedUnknownRank and packedAssumed, and above them the
	// position in Shapes.extra plus one (0: no value nor handle data).
	bits uint32
}

// packedExtra is the part of a Tensor that few outputs have.
type packedExtra struct {
	value  []int64
	handle []ShapeAndType
}

const (
	packedUnknownRank = 1 << iota
	packedAssumed
	packedShift = iota
)

// pack is t as s.outs keeps it: packPlain's, its value and handle data
// in s.extra.
func (s *Shapes) pack(t Tensor) packed {
	p := packPlain(t)
	if !p.plain() {
		s.extra = append(s.extra, packedExtra{value: t.Value, handle: t.Handle})
		p.bits = p.bits&^notPlain | uint32(len(s.extra))<<packedShift
	}
	return p
}

// notPlain marks a packed tensor with a value or handle data that
// packPlain left out.
const notPlain = 1 << packedShift

// packPlain is t packed without its value and handle data, which it
// marks as there (plain is false) rather than keeping.
func packPlain(t Tensor) packed {
	p := packed{dims: t.Shape.Dims, dtype: t.DType}
	if t.Shape.UnknownRank {
		p.bits |= packedUnknownRank
	}
	if t.Assumed {
		p.bits |= packedAssumed
	}
	if t.Value != nil || t.Handle != nil {
		p.bits |= notPlain
	}
	return p
}

// plain tells a packed tensor without a value or handle data.
func (p *packed) plain() bool { return p.bits>>packedShift == 0 }

// same tells two plain packed tensors alike, as sameTensor tells them.
func (p *packed) same(q *packed) bool {
	return p.dtype == q.dtype && p.bits == q.bits && (p.dims == nil) == (q.dims == nil) && slices.Equal(p.dims, q.dims)
}

// unpack is the Tensor p keeps.
func (s *Shapes) unpack(p packed) Tensor {
	t := Tensor{
		Shape:   Shape{Dims: p.dims, UnknownRank: p.bits&packedUnknownRank != 0},
		DType:   p.dtype,
		Assumed: p.bits&packedAssumed != 0,
	}
	if k := p.bits >> packedShift; k > 0 {
		x := &s.extra[k-1]
		t.Value, t.Handle = x.value, x.handle
	}
	return t
}
