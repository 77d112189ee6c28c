package savedmodel

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/tfscan/tfscan/dtype"

	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// RestoredDType is a TF.js weight the loader gave back the dtype its Const
// declares. The tfjs-converter writes float16 and float64 arrays as
// float32 and int64 ones as int32 (tensorflowjs/write_weights.py,
// _AUTO_DTYPE_CONVERSION) but keeps the graph as TensorFlow made it: the
// Const still declares DT_HALF, DT_DOUBLE or DT_INT64, and so do the ops
// that read it (the Casts and Conv2D/MatMul of a mixed_float16 model).
// TF.js runs such a graph in float32 and int32 (tfjs-converter
// operation_mapper.ts, parseDtypeParam); TensorFlow runs it in the
// declared dtypes, and so does tfscan once the weights have them again.
//
// Widening float16 to float32 is exact, so the float16 values come back
// bit for bit (Exact). The float64 and int64 values are the ones the
// converter kept, rounded to float32 or wrapped to int32, widened exactly:
// the model's own values where those fit.
type RestoredDType struct {
	// Node is the Const's name.
	Node string
	// Stored is the dtype of the manifest entry (after any dequantization),
	// DType the one the Const declares and the weight now has.
	Stored, DType tpb.DataType
	// Exact is set when the restored values are the model's own (float16).
	Exact bool
}

// tfjsNarrowed are the converter's automatic conversions the loader
// undoes: the declared dtype, the stored one, and how the stored values
// come back.
var tfjsNarrowed = map[tpb.DataType]struct {
	stored tpb.DataType
	// restore gives the declared dtype's bytes, or false when the stored
	// values cannot be what the converter wrote.
	restore func([]byte) ([]byte, bool)
	exact   bool
	// kept says what the converter did to the values ("" when exact).
	kept string
}{
	tpb.DataType_DT_HALF:   {tpb.DataType_DT_FLOAT, exactHalves, true, ""},
	tpb.DataType_DT_DOUBLE: {tpb.DataType_DT_FLOAT, widenFloats, false, "rounded to float32"},
	tpb.DataType_DT_INT64:  {tpb.DataType_DT_INT32, widenInts, false, "wrapped to int32"},
}

// RestoredDTypesNote says in one line what the loader did to rs, for
// inspect's output; "" when rs is empty.
func RestoredDTypesNote(rs []RestoredDType) string {
	if len(rs) == 0 {
		return ""
	}
	var parts []string
	for _, dt := range []tpb.DataType{tpb.DataType_DT_HALF, tpb.DataType_DT_DOUBLE, tpb.DataType_DT_INT64} {
		var n int
		var first string
		for _, r := range rs {
			if r.DType == dt {
				if n == 0 {
					first = r.Node
				}
				n++
			}
		}
		if n == 0 {
			continue
		}
		c := tfjsNarrowed[dt]
		how := "the values exactly"
		if !c.exact {
			how = "the values as the converter kept them, " + c.kept
		}
		parts = append(parts, fmt.Sprintf("%d %s (first %s) stored as %s, %s", n, dtype.Name(dt), first, dtype.Name(c.stored), how))
	}
	return "Consts stored in the TF.js weights in a narrower dtype than they declare (the converter's automatic conversion; " +
		"TF.js computes them in float32 and int32) are read back in their declared dtypes, and the graph runs as in " +
		"TensorFlow: " + strings.Join(parts, "; ")
}

// restoreTFJSDTypes gives each top-level Const of gd whose weight the
// converter narrowed (tfjsNarrowed) the dtype it declares, and lists it in
// m.RestoredDTypes, in graph order. A float16 weight with a value float16
// cannot hold is left as it is: it is not what the converter wrote from a
// float16 array, and rounding it would make numbers the file does not hold.
func restoreTFJSDTypes(m *Model, gd *gpb.GraphDef) {
	for _, n := range gd.GetNode() {
		if n.GetOp() != "Const" {
			continue
		}
		w, ok := m.Weights[n.GetName()]
		if !ok {
			continue
		}
		declared := n.GetAttr()["dtype"].GetType()
		if declared == tpb.DataType_DT_INVALID {
			declared = n.GetAttr()["value"].GetTensor().GetDtype()
		}
		c, ok := tfjsNarrowed[declared]
		if !ok || w.DType != c.stored {
			continue
		}
		data, ok := c.restore(w.Data)
		if !ok {
			continue
		}
		m.Weights[n.GetName()] = &Weight{Name: w.Name, DType: declared, Shape: w.Shape, Data: data}
		m.RestoredDTypes = append(m.RestoredDTypes, RestoredDType{Node: n.GetName(), Stored: w.DType, DType: declared, Exact: c.exact})
	}
}

// widenFloats widens little-endian float32 values to float64 ones, as
// TensorFlow's Cast does.
func widenFloats(f32 []byte) ([]byte, bool) {
	if len(f32)%4 != 0 {
		return nil, false
	}
	out := make([]byte, 2*len(f32))
	for i := 0; i < len(f32)/4; i++ {
		v := math.Float32frombits(binary.LittleEndian.Uint32(f32[4*i:]))
		binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(float64(v)))
	}
	return out, true
}

// widenInts sign-extends little-endian int32 values to int64 ones.
func widenInts(i32 []byte) ([]byte, bool) {
	if len(i32)%4 != 0 {
		return nil, false
	}
	out := make([]byte, 2*len(i32))
	for i := 0; i < len(i32)/4; i++ {
		binary.LittleEndian.PutUint64(out[8*i:], uint64(int64(int32(binary.LittleEndian.Uint32(i32[4*i:])))))
	}
	return out, true
}

// exactHalves narrows little-endian float32 values to little-endian
// float16 ones, reporting false unless each converts back (as TF.js's
// decoder converts float16, Float16Bits) to the same float32 bits: a
// lossless narrowing, NaN payloads included.
func exactHalves(f32 []byte) ([]byte, bool) {
	if len(f32)%4 != 0 {
		return nil, false
	}
	out := make([]byte, len(f32)/2)
	for i := 0; i < len(f32)/4; i++ {
		b := binary.LittleEndian.Uint32(f32[4*i:])
		h, ok := halfOf(b)
		if !ok {
			return nil, false
		}
		binary.LittleEndian.PutUint16(out[2*i:], h)
	}
	return out, true
}

// halfOf is the float16 whose float32 value has the bits b, if there is
// one.
func halfOf(b uint32) (uint16, bool) {
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	mant := b & 0x7fffff
	var h uint16
	switch e := exp - 127; {
	case exp == 0xff: // Inf or NaN: the top 10 mantissa bits
		h = sign | 0x7c00 | uint16(mant>>13)
	case exp == 0 && mant == 0:
		h = sign
	case e >= -14 && e <= 15: // a float16 normal
		h = sign | uint16(e+15)<<10 | uint16(mant>>13)
	case e >= -24 && e < -14: // a float16 subnormal, k·2^-24
		h = sign | uint16((mant|0x800000)>>uint(-e-1))
	default:
		return 0, false
	}
	return h, Float16Bits(h) == b
}
