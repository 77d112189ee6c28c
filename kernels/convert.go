package kernels

import (
	"encoding/binary"
	"fmt"
	"math"

	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
	tspb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// FromProto decodes a TensorProto the way TensorFlow's Tensor::FromProto
// does (tensorflow/core/framework/tensor.cc):
//
//   - a non-empty tensor_content holds exactly N little-endian elements
//     (strings: all varint32 lengths, then the bytes, as
//     port::EncodeStringList writes them);
//   - otherwise the typed field for the dtype (float_val, double_val,
//     int_val for int8/16/32, uint8/16 and the quantized types, int64_val,
//     uint32_val, uint64_val, bool_val, string_val, half_val for half and
//     bfloat16 bits, scomplex_val and dcomplex_val as real, imaginary
//     pairs for complex64 and complex128) holds the values: an empty field
//     means zeros, a short one is padded by repeating its last value, extra
//     values are ignored (a complex field's odd last number too: its
//     element count is half the field's length, ProtoHelper<complex64>).
//
// Shapes are checked before anything is allocated (negative or unknown
// dimensions and more than MaxElements elements are errors).
func FromProto(p *tensorpb.TensorProto) (*Tensor, error) {
	if p == nil {
		return nil, fmt.Errorf("missing tensor value")
	}
	dt := p.GetDtype()
	shape, err := ShapeFromProto(p.GetTensorShape())
	if err != nil {
		return nil, err
	}
	n, err := CheckShape(shape)
	if err != nil {
		return nil, err
	}
	switch dt {
	case tpb.DataType_DT_INVALID:
		return nil, fmt.Errorf("tensor has dtype DT_INVALID")
	case tpb.DataType_DT_RESOURCE, tpb.DataType_DT_VARIANT:
		if n == 0 {
			return NewTensor(dt, shape)
		}
		return nil, fmt.Errorf("constant tensors of dtype %s are not supported", dt)
	}
	if dtype.Size(dt) == 0 && dt != tpb.DataType_DT_STRING {
		return nil, fmt.Errorf("constant tensors of dtype %s are not supported", dt)
	}
	if content := p.GetTensorContent(); len(content) > 0 {
		if dt == tpb.DataType_DT_STRING {
			return decodeStringList(content, shape, n)
		}
		return DecodeRaw(dt, shape, content)
	}
	t, err := NewTensor(dt, shape)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return t, nil
	}
	switch d := t.Data.(type) {
	case []float32:
		fill(d, p.GetFloatVal(), func(v float32) float32 { return v })
	case []float64:
		fill(d, p.GetDoubleVal(), func(v float64) float64 { return v })
	case []int32:
		fill(d, p.GetIntVal(), func(v int32) int32 { return v })
	case []int16:
		fill(d, p.GetIntVal(), func(v int32) int16 { return int16(v) })
	case []int8:
		fill(d, p.GetIntVal(), func(v int32) int8 { return int8(v) })
	case []uint8:
		fill(d, p.GetIntVal(), func(v int32) uint8 { return uint8(v) })
	case []uint16:
		fill(d, p.GetIntVal(), func(v int32) uint16 { return uint16(v) })
	case []int64:
		fill(d, p.GetInt64Val(), func(v int64) int64 { return v })
	case []uint32:
		fill(d, p.GetUint32Val(), func(v uint32) uint32 { return v })
	case []uint64:
		fill(d, p.GetUint64Val(), func(v uint64) uint64 { return v })
	case []bool:
		fill(d, p.GetBoolVal(), func(v bool) bool { return v })
	case [][]byte:
		fill(d, p.GetStringVal(), func(v []byte) []byte { return v })
	case []Float16:
		fill(d, p.GetHalfVal(), func(v int32) Float16 { return Float16(uint16(v)) })
	case []BFloat16:
		fill(d, p.GetHalfVal(), func(v int32) BFloat16 { return BFloat16(uint16(v)) })
	case []complex64:
		fill(d, pairs(p.GetScomplexVal(), func(re, im float32) complex64 { return complex(re, im) }), identityT[complex64])
	case []complex128:
		fill(d, pairs(p.GetDcomplexVal(), func(re, im float64) complex128 { return complex(re, im) }), identityT[complex128])
	default:
		return nil, fmt.Errorf("constant tensors of dtype %s are not supported", dt)
	}
	return t, nil
}

// fill copies src into dst with TensorFlow's padding rule.
func fill[S, D any](dst []D, src []S, conv func(S) D) {
	if len(src) == 0 {
		return // zeros
	}
	for i := range dst {
		if i < len(src) {
			dst[i] = conv(src[i])
		} else {
			dst[i] = dst[len(src)-1]
		}
	}
}

// pairs reads a complex field of interleaved real and imaginary parts; an
// odd last number has no pair and is dropped, as TensorFlow's
// ProtoHelper<complex64>::NumElements (size / 2) drops it.
func pairs[F float32 | float64, C any](v []F, mk func(re, im F) C) []C {
	out := make([]C, len(v)/2)
	for i := range out {
		out[i] = mk(v[2*i], v[2*i+1])
	}
	return out
}

// ShapeFromProto converts a TensorShapeProto of a concrete tensor. Unknown
// rank or unknown (-1) dimensions are errors: a tensor value has a full shape.
func ShapeFromProto(s *tspb.TensorShapeProto) ([]int, error) {
	if s.GetUnknownRank() {
		return nil, fmt.Errorf("tensor value has unknown rank")
	}
	shape := make([]int, 0, len(s.GetDim()))
	for _, d := range s.GetDim() {
		if d.GetSize() < 0 {
			return nil, fmt.Errorf("tensor value has unknown dimension %d", d.GetSize())
		}
		if d.GetSize() > MaxElements {
			return nil, &ShapeError{Shape: shape, What: fmt.Sprintf("dimension %d is too large", d.GetSize())}
		}
		shape = append(shape, int(d.GetSize()))
	}
	return shape, nil
}

// ShapeToProto converts a shape to a TensorShapeProto.
func ShapeToProto(shape []int) *tspb.TensorShapeProto {
	s := &tspb.TensorShapeProto{}
	for _, d := range shape {
		s.Dim = append(s.Dim, &tspb.TensorShapeProto_Dim{Size: int64(d)})
	}
	return s
}

// ToProto encodes t as a TensorProto: numeric dtypes in tensor_content (as
// TensorFlow's AsProtoTensorContent), strings in string_val.
func ToProto(t *Tensor) (*tensorpb.TensorProto, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	p := &tensorpb.TensorProto{Dtype: t.DType, TensorShape: ShapeToProto(t.Shape)}
	if d, ok := t.Data.([][]byte); ok {
		for _, s := range d {
			p.StringVal = append(p.StringVal, append([]byte(nil), s...))
		}
		return p, nil
	}
	raw, err := EncodeRaw(t)
	if err != nil {
		return nil, err
	}
	if len(raw) > 0 {
		p.TensorContent = raw
	}
	return p, nil
}

// DecodeRaw decodes little-endian element bytes of a fixed-size dtype (the
// encoding of tensor_content, checkpoint shards, TF.js weights and .npy
// data). raw must hold exactly the shape's elements.
func DecodeRaw(dt tpb.DataType, shape []int, raw []byte) (*Tensor, error) {
	n, err := CheckShape(shape)
	if err != nil {
		return nil, err
	}
	size := dtype.Size(dt)
	if size == 0 {
		return nil, fmt.Errorf("dtype %s has no fixed-size encoding", dt)
	}
	if len(raw) != n*size {
		return nil, fmt.Errorf("%s tensor of shape %v needs %d bytes, have %d", dt, shape, n*size, len(raw))
	}
	t, err := NewTensor(dt, shape)
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	switch d := t.Data.(type) {
	case []float32:
		for i := range d {
			d[i] = math.Float32frombits(le.Uint32(raw[4*i:]))
		}
	case []float64:
		for i := range d {
			d[i] = math.Float64frombits(le.Uint64(raw[8*i:]))
		}
	case []Float16:
		for i := range d {
			d[i] = Float16(le.Uint16(raw[2*i:]))
		}
	case []BFloat16:
		for i := range d {
			d[i] = BFloat16(le.Uint16(raw[2*i:]))
		}
	case []int8:
		for i := range d {
			d[i] = int8(raw[i])
		}
	case []uint8:
		copy(d, raw)
	case []int16:
		for i := range d {
			d[i] = int16(le.Uint16(raw[2*i:]))
		}
	case []uint16:
		for i := range d {
			d[i] = le.Uint16(raw[2*i:])
		}
	case []int32:
		for i := range d {
			d[i] = int32(le.Uint32(raw[4*i:]))
		}
	case []uint32:
		for i := range d {
			d[i] = le.Uint32(raw[4*i:])
		}
	case []int64:
		for i := range d {
			d[i] = int64(le.Uint64(raw[8*i:]))
		}
	case []uint64:
		for i := range d {
			d[i] = le.Uint64(raw[8*i:])
		}
	case []bool:
		for i := range d {
			d[i] = raw[i] != 0
		}
	case []complex64:
		for i := range d {
			d[i] = complex(math.Float32frombits(le.Uint32(raw[8*i:])), math.Float32frombits(le.Uint32(raw[8*i+4:])))
		}
	case []complex128:
		for i := range d {
			d[i] = complex(math.Float64frombits(le.Uint64(raw[16*i:])), math.Float64frombits(le.Uint64(raw[16*i+8:])))
		}
	default:
		return nil, fmt.Errorf("dtype %s has no fixed-size encoding", dt)
	}
	return t, nil
}

// EncodeRaw returns t's elements as little-endian bytes (the inverse of
// DecodeRaw).
func EncodeRaw(t *Tensor) ([]byte, error) {
	size := dtype.Size(t.DType)
	if size == 0 {
		return nil, fmt.Errorf("dtype %s has no fixed-size encoding", t.DType)
	}
	n := t.DataLen()
	if n < 0 {
		return nil, fmt.Errorf("%s tensor holds %T", t.DType, t.Data)
	}
	raw := make([]byte, n*size)
	le := binary.LittleEndian
	switch d := t.Data.(type) {
	case []float32:
		for i, v := range d {
			le.PutUint32(raw[4*i:], math.Float32bits(v))
		}
	case []float64:
		for i, v := range d {
			le.PutUint64(raw[8*i:], math.Float64bits(v))
		}
	case []Float16:
		for i, v := range d {
			le.PutUint16(raw[2*i:], uint16(v))
		}
	case []BFloat16:
		for i, v := range d {
			le.PutUint16(raw[2*i:], uint16(v))
		}
	case []int8:
		for i, v := range d {
			raw[i] = byte(v)
		}
	case []uint8:
		copy(raw, d)
	case []int16:
		for i, v := range d {
			le.PutUint16(raw[2*i:], uint16(v))
		}
	case []uint16:
		for i, v := range d {
			le.PutUint16(raw[2*i:], v)
		}
	case []int32:
		for i, v := range d {
			le.PutUint32(raw[4*i:], uint32(v))
		}
	case []uint32:
		for i, v := range d {
			le.PutUint32(raw[4*i:], v)
		}
	case []int64:
		for i, v := range d {
			le.PutUint64(raw[8*i:], uint64(v))
		}
	case []uint64:
		for i, v := range d {
			le.PutUint64(raw[8*i:], v)
		}
	case []bool:
		for i, v := range d {
			if v {
				raw[i] = 1
			}
		}
	case []complex64:
		for i, v := range d {
			le.PutUint32(raw[8*i:], math.Float32bits(real(v)))
			le.PutUint32(raw[8*i+4:], math.Float32bits(imag(v)))
		}
	case []complex128:
		for i, v := range d {
			le.PutUint64(raw[16*i:], math.Float64bits(real(v)))
			le.PutUint64(raw[16*i+8:], math.Float64bits(imag(v)))
		}
	default:
		return nil, fmt.Errorf("%s tensor holds %T", t.DType, t.Data)
	}
	return raw, nil
}

// decodeStringList decodes port::EncodeStringList: n varint32 lengths, then
// the concatenated bytes (tensorflow/core/platform/coding.cc).
func decodeStringList(b []byte, shape []int, n int) (*Tensor, error) {
	lens := make([]uint64, 0, min(n, len(b)))
	pos := 0
	for i := 0; i < n; i++ {
		v, k := binary.Uvarint(b[pos:])
		if k <= 0 || v > math.MaxUint32 {
			return nil, fmt.Errorf("string tensor_content: bad length %d", i)
		}
		lens = append(lens, v)
		pos += k
	}
	out := make([][]byte, n)
	for i, l := range lens {
		if uint64(len(b)-pos) < l {
			return nil, fmt.Errorf("string tensor_content: element %d runs past the end", i)
		}
		out[i] = b[pos : pos+int(l)]
		pos += int(l)
	}
	if pos != len(b) {
		return nil, fmt.Errorf("string tensor_content: %d trailing bytes", len(b)-pos)
	}
	return &Tensor{DType: tpb.DataType_DT_STRING, Shape: shape, Data: out}, nil
}
