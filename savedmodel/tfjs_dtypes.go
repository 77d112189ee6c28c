package savedmodel

import (
	"encoding/binary"
	"fmt"

	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// RestoredDType is a TF.js weight the loader gave back the dtype its Const
// declares. The tfjs-converter writes float16 arrays as float32
// (tensorflowjs/write_weights.py, _AUTO_DTYPE_CONVERSION) but keeps the
// graph as TensorFlow made it: the Const still declares DT_HALF, and so do
// the Casts and the Conv2D/MatMul of a mixed_float16 model. TF.js runs
// that graph in float32 (tfjs-converter operation_mapper.ts,
// parseDtypeParam maps DT_HALF to 'float32'); TensorFlow runs it in
// float16. Widening float16 to float32 is exact, so narrowing the stored
// values back gives TensorFlow's weights bit for bit, and the graph then
// runs as TensorFlow runs it.
type RestoredDType struct {
	// Node is the Const's name.
	Node string
	// Stored is the dtype of the manifest entry (after any dequantization),
	// DType the one the Const declares and the weight now has.
	Stored, DType tpb.DataType
}

// RestoredDTypesNote says in one line what the loader did to rs, for
// inspect's output; "" when rs is empty.
func RestoredDTypesNote(rs []RestoredDType) string {
	if len(rs) == 0 {
		return ""
	}
	what, them := fmt.Sprintf("%d float16 Consts (first %s) are", len(rs), rs[0].Node), "them"
	if len(rs) == 1 {
		what, them = fmt.Sprintf("the float16 Const %s is", rs[0].Node), "it"
	}
	return what + " stored as float32 in the TF.js weights (the converter widens float16 arrays; TF.js computes float16 " +
		"as float32): tfscan reads " + them + " back as float16, exactly, and runs the graph's float16 ops as TensorFlow does"
}

// restoreTFJSDTypes gives each top-level Const of gd whose weight the
// converter stored as float32 while the Const declares DT_HALF its float16
// values back, when every stored value is exactly a float16 (always, for
// what the converter wrote). A weight with a value float16 cannot hold is
// left as it is: it is not what the converter wrote from a float16 array,
// and rounding it would make numbers the file does not hold. What it
// restores is listed in m.RestoredDTypes, in graph order.
func restoreTFJSDTypes(m *Model, gd *gpb.GraphDef) {
	for _, n := range gd.GetNode() {
		if n.GetOp() != "Const" {
			continue
		}
		w, ok := m.Weights[n.GetName()]
		if !ok || w.DType != tpb.DataType_DT_FLOAT {
			continue
		}
		declared := n.GetAttr()["dtype"].GetType()
		if declared == tpb.DataType_DT_INVALID {
			declared = n.GetAttr()["value"].GetTensor().GetDtype()
		}
		if declared != tpb.DataType_DT_HALF {
			continue
		}
		half, ok := exactHalves(w.Data)
		if !ok {
			continue
		}
		// A fresh Weight: one loaded model's weights may be shared by
		// readers that hold the float32 one.
		m.Weights[n.GetName()] = &Weight{Name: w.Name, DType: tpb.DataType_DT_HALF, Shape: w.Shape, Data: half}
		m.RestoredDTypes = append(m.RestoredDTypes, RestoredDType{Node: n.GetName(), Stored: w.DType, DType: tpb.DataType_DT_HALF})
	}
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
