package kernels

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
	tspb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

func shapeProto(dims ...int64) *tspb.TensorShapeProto {
	s := &tspb.TensorShapeProto{}
	for _, d := range dims {
		s.Dim = append(s.Dim, &tspb.TensorShapeProto_Dim{Size: d})
	}
	return s
}

func TestFromProto(t *testing.T) {
	tests := []struct {
		name  string
		proto *tensorpb.TensorProto
		want  *Tensor
	}{
		{"float scalar", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_FLOAT, TensorShape: shapeProto(), FloatVal: []float32{2.5}},
			&Tensor{DType: tpb.DataType_DT_FLOAT, Shape: []int{}, Data: []float32{2.5}}},
		{"float padded with last value", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_FLOAT, TensorShape: shapeProto(2, 2), FloatVal: []float32{1, 7}},
			&Tensor{DType: tpb.DataType_DT_FLOAT, Shape: []int{2, 2}, Data: []float32{1, 7, 7, 7}}},
		{"empty field is zeros", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_INT32, TensorShape: shapeProto(3)},
			&Tensor{DType: tpb.DataType_DT_INT32, Shape: []int{3}, Data: []int32{0, 0, 0}}},
		{"extra values ignored", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_INT64, TensorShape: shapeProto(1), Int64Val: []int64{4, 5}},
			&Tensor{DType: tpb.DataType_DT_INT64, Shape: []int{1}, Data: []int64{4}}},
		{"int8 from int_val", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_INT8, TensorShape: shapeProto(2), IntVal: []int32{-3, 127}},
			&Tensor{DType: tpb.DataType_DT_INT8, Shape: []int{2}, Data: []int8{-3, 127}}},
		{"uint8 from int_val", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_UINT8, TensorShape: shapeProto(2), IntVal: []int32{255, 1}},
			&Tensor{DType: tpb.DataType_DT_UINT8, Shape: []int{2}, Data: []uint8{255, 1}}},
		{"int16", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_INT16, TensorShape: shapeProto(1), IntVal: []int32{-300}},
			&Tensor{DType: tpb.DataType_DT_INT16, Shape: []int{1}, Data: []int16{-300}}},
		{"uint16", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_UINT16, TensorShape: shapeProto(1), IntVal: []int32{60000}},
			&Tensor{DType: tpb.DataType_DT_UINT16, Shape: []int{1}, Data: []uint16{60000}}},
		{"uint32", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_UINT32, TensorShape: shapeProto(2), Uint32Val: []uint32{1 << 31}},
			&Tensor{DType: tpb.DataType_DT_UINT32, Shape: []int{2}, Data: []uint32{1 << 31, 1 << 31}}},
		{"uint64", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_UINT64, TensorShape: shapeProto(1), Uint64Val: []uint64{1 << 63}},
			&Tensor{DType: tpb.DataType_DT_UINT64, Shape: []int{1}, Data: []uint64{1 << 63}}},
		{"double", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_DOUBLE, TensorShape: shapeProto(1), DoubleVal: []float64{math.Pi}},
			&Tensor{DType: tpb.DataType_DT_DOUBLE, Shape: []int{1}, Data: []float64{math.Pi}}},
		{"bool", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_BOOL, TensorShape: shapeProto(3), BoolVal: []bool{false, true}},
			&Tensor{DType: tpb.DataType_DT_BOOL, Shape: []int{3}, Data: []bool{false, true, true}}},
		{"string", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_STRING, TensorShape: shapeProto(2), StringVal: [][]byte{[]byte("a"), []byte("bc")}},
			&Tensor{DType: tpb.DataType_DT_STRING, Shape: []int{2}, Data: [][]byte{[]byte("a"), []byte("bc")}}},
		{"half bits in half_val", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_HALF, TensorShape: shapeProto(2), HalfVal: []int32{0x3c00, 0xc000}},
			&Tensor{DType: tpb.DataType_DT_HALF, Shape: []int{2}, Data: []Float16{0x3c00, 0xc000}}},
		{"bfloat16 bits in half_val", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_BFLOAT16, TensorShape: shapeProto(1), HalfVal: []int32{0x3f80}},
			&Tensor{DType: tpb.DataType_DT_BFLOAT16, Shape: []int{1}, Data: []BFloat16{0x3f80}}},
		{"tensor_content float", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_FLOAT, TensorShape: shapeProto(2), TensorContent: []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0}},
			&Tensor{DType: tpb.DataType_DT_FLOAT, Shape: []int{2}, Data: []float32{1, -2}}},
		{"tensor_content int64", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_INT64, TensorShape: shapeProto(1), TensorContent: []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
			&Tensor{DType: tpb.DataType_DT_INT64, Shape: []int{1}, Data: []int64{-1}}},
		{"tensor_content strings", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_STRING, TensorShape: shapeProto(2), TensorContent: []byte{1, 2, 'x', 'y', 'z'}},
			&Tensor{DType: tpb.DataType_DT_STRING, Shape: []int{2}, Data: [][]byte{[]byte("x"), []byte("yz")}}},
		{"empty tensor", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_FLOAT, TensorShape: shapeProto(0, 3)},
			&Tensor{DType: tpb.DataType_DT_FLOAT, Shape: []int{0, 3}, Data: []float32{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FromProto(tt.proto)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			require.NoError(t, got.Validate())
		})
	}
}

func TestFromProtoErrors(t *testing.T) {
	tests := []struct {
		name  string
		proto *tensorpb.TensorProto
		want  string
	}{
		{"nil", nil, "missing"},
		{"invalid dtype", &tensorpb.TensorProto{TensorShape: shapeProto(1)}, "DT_INVALID"},
		{"unknown rank", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_FLOAT, TensorShape: &tspb.TensorShapeProto{UnknownRank: true}}, "unknown rank"},
		{"unknown dim", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_FLOAT, TensorShape: shapeProto(-1)}, "unknown dimension"},
		{"absurd shape", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_FLOAT, TensorShape: shapeProto(1<<20, 1<<20, 1<<20), FloatVal: []float32{1}}, "elements"},
		{"huge dim", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_FLOAT, TensorShape: shapeProto(1 << 62)}, "too large"},
		{"short content", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_FLOAT, TensorShape: shapeProto(2), TensorContent: []byte{1, 2, 3, 4}}, "needs 8 bytes"},
		{"bad string content", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_STRING, TensorShape: shapeProto(1), TensorContent: []byte{9, 'a'}}, "past the end"},
		{"resource const", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_RESOURCE, TensorShape: shapeProto(1)}, "not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromProto(tt.proto)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestProtoRoundTrip(t *testing.T) {
	tensors := []*Tensor{
		{DType: tpb.DataType_DT_FLOAT, Shape: []int{2, 1}, Data: []float32{1.5, float32(math.Inf(-1))}},
		{DType: tpb.DataType_DT_HALF, Shape: []int{1}, Data: []Float16{0x7bff}},
		{DType: tpb.DataType_DT_BFLOAT16, Shape: []int{1}, Data: []BFloat16{0xff80}},
		{DType: tpb.DataType_DT_INT8, Shape: []int{2}, Data: []int8{-128, 5}},
		{DType: tpb.DataType_DT_UINT64, Shape: []int{1}, Data: []uint64{math.MaxUint64}},
		{DType: tpb.DataType_DT_BOOL, Shape: []int{}, Data: []bool{true}},
		{DType: tpb.DataType_DT_STRING, Shape: []int{2}, Data: [][]byte{[]byte("p"), nil}},
		{DType: tpb.DataType_DT_DOUBLE, Shape: []int{0}, Data: []float64{}},
		{DType: tpb.DataType_DT_COMPLEX64, Shape: []int{2}, Data: []complex64{1 - 2i, complex(float32(math.Inf(1)), 0.5)}},
		{DType: tpb.DataType_DT_COMPLEX128, Shape: []int{1, 1}, Data: []complex128{complex(math.Pi, -1e300)}},
	}
	for _, in := range tensors {
		t.Run(in.DType.String(), func(t *testing.T) {
			p, err := ToProto(in)
			require.NoError(t, err)
			out, err := FromProto(p)
			require.NoError(t, err)
			assert.Equal(t, in, out)
		})
	}
}

func TestNewTensorGuards(t *testing.T) {
	_, err := NewTensor(tpb.DataType_DT_FLOAT, []int{-1})
	assert.ErrorContains(t, err, "negative")
	_, err = NewTensor(tpb.DataType_DT_FLOAT, []int{MaxElements, 2})
	assert.ErrorContains(t, err, "elements")
	_, err = NewTensor(tpb.DataType_DT_FLOAT8_E5M2, []int{1})
	assert.ErrorContains(t, err, "no tensor representation")
	x, err := NewTensor(tpb.DataType_DT_HALF, []int{2, 3})
	require.NoError(t, err)
	assert.Len(t, x.Data, 6)
	c := x.Clone()
	c.Data.([]Float16)[0] = 1
	assert.Equal(t, Float16(0), x.Data.([]Float16)[0], "Clone copies data")
	bad := &Tensor{DType: tpb.DataType_DT_FLOAT, Shape: []int{2}, Data: []float64{1, 2}}
	assert.ErrorContains(t, bad.Validate(), "holds []float64")
}

func FuzzFromProto(f *testing.F) {
	f.Add(int32(tpb.DataType_DT_FLOAT), int64(2), int64(3), []byte{1, 2, 3, 4}, int32(5))
	f.Add(int32(tpb.DataType_DT_STRING), int64(2), int64(1), []byte{1, 0, 'a'}, int32(0))
	f.Fuzz(func(t *testing.T, dt int32, d0, d1 int64, content []byte, iv int32) {
		p := &tensorpb.TensorProto{Dtype: tpb.DataType(dt), TensorShape: shapeProto(d0, d1), TensorContent: content, IntVal: []int32{iv}}
		x, err := FromProto(p)
		if err == nil {
			if verr := x.Validate(); verr != nil {
				t.Fatal(verr)
			}
		}
	})
}

// TestComplexFromProto checks scomplex_val and dcomplex_val: real,
// imaginary pairs, padded with the last pair, an odd last number dropped
// (ProtoHelper<complex64>::NumElements is the field's size / 2).
func TestComplexFromProto(t *testing.T) {
	shape := ShapeToProto([]int{3})
	tests := []struct {
		name string
		p    *tensorpb.TensorProto
		want any
	}{
		{"complex64 padded", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_COMPLEX64, TensorShape: shape,
			ScomplexVal: []float32{1, 2, 3, 4}}, []complex64{1 + 2i, 3 + 4i, 3 + 4i}},
		{"complex64 odd count", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_COMPLEX64, TensorShape: shape,
			ScomplexVal: []float32{1, 2, 9}}, []complex64{1 + 2i, 1 + 2i, 1 + 2i}},
		{"complex64 empty is zeros", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_COMPLEX64, TensorShape: shape},
			[]complex64{0, 0, 0}},
		{"complex128", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_COMPLEX128, TensorShape: shape,
			DcomplexVal: []float64{-1, 0.5, 2, -3, 4, 5}}, []complex128{-1 + 0.5i, 2 - 3i, 4 + 5i}},
		{"complex64 tensor_content", &tensorpb.TensorProto{Dtype: tpb.DataType_DT_COMPLEX64,
			TensorShape: ShapeToProto([]int{1}), TensorContent: []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0}},
			[]complex64{1 - 2i}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FromProto(tt.p)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Data)
		})
	}
	_, err := FromProto(&tensorpb.TensorProto{Dtype: tpb.DataType_DT_COMPLEX128, TensorShape: ShapeToProto([]int{1}),
		TensorContent: make([]byte, 8)})
	assert.ErrorContains(t, err, "needs 16 bytes")
}
