package modelgen

import (
	"encoding/binary"
	"math"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
	shapepb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	versionspb "github.com/wamuir/graft/tensorflow/core/framework/versions_go_proto"
)

// graphDefVersion is TF_GRAPH_DEF_VERSION of TensorFlow 2.15
// (tensorflow/core/public/version.h), the producer the models claim.
const graphDefVersion = 1645

func versions() *versionspb.VersionDef { return &versionspb.VersionDef{Producer: graphDefVersion} }

type attrs = map[string]*attrpb.AttrValue

func node(name, op string, inputs []string, a attrs) *nodepb.NodeDef {
	return &nodepb.NodeDef{Name: name, Op: op, Input: inputs, Attr: a}
}

func aType(dt tpb.DataType) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_Type{Type: dt}}
}

func aTypes(dts ...tpb.DataType) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{Type: dts}}}
}

func aInts(v ...int64) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{I: v}}}
}

func aFloats(v ...float32) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{F: v}}}
}

func aInt(v int64) *attrpb.AttrValue { return &attrpb.AttrValue{Value: &attrpb.AttrValue_I{I: v}} }

func aBool(v bool) *attrpb.AttrValue { return &attrpb.AttrValue{Value: &attrpb.AttrValue_B{B: v}} }

func aStr(s string) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_S{S: []byte(s)}}
}

func aFunc(name string) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_Func{Func: &attrpb.NameAttrList{Name: name}}}
}

func aShape(dims ...int64) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_Shape{Shape: shape(dims...)}}
}

func aShapes(shapes ...*shapepb.TensorShapeProto) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{Shape: shapes}}}
}

func aEmptyList() *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{}}}
}

func shape(dims ...int64) *shapepb.TensorShapeProto {
	s := &shapepb.TensorShapeProto{}
	for _, d := range dims {
		s.Dim = append(s.Dim, &shapepb.TensorShapeProto_Dim{Size: d})
	}
	return s
}

func aTensor(t *tensorpb.TensorProto) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_Tensor{Tensor: t}}
}

// constNode is a Const with its value, and dtype set as TensorFlow does.
func constNode(name string, t *tensorpb.TensorProto) *nodepb.NodeDef {
	return node(name, "Const", nil, attrs{"dtype": aType(t.Dtype), "value": aTensor(t)})
}

// f32Tensor stores values in tensor_content (little-endian), as TensorFlow
// does for tensors of more than one element; scalars use float_val.
func f32Tensor(dims []int64, vals []float32) *tensorpb.TensorProto {
	t := &tensorpb.TensorProto{Dtype: tpb.DataType_DT_FLOAT, TensorShape: shape(dims...)}
	if len(dims) == 0 {
		t.FloatVal = vals
		return t
	}
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	t.TensorContent = b
	return t
}

func i32Tensor(dims []int64, vals []int32) *tensorpb.TensorProto {
	t := &tensorpb.TensorProto{Dtype: tpb.DataType_DT_INT32, TensorShape: shape(dims...)}
	if len(dims) == 0 {
		t.IntVal = vals
		return t
	}
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
	}
	t.TensorContent = b
	return t
}

func strTensor(dims []int64, vals ...string) *tensorpb.TensorProto {
	t := &tensorpb.TensorProto{Dtype: tpb.DataType_DT_STRING, TensorShape: shape(dims...)}
	for _, v := range vals {
		t.StringVal = append(t.StringVal, []byte(v))
	}
	return t
}

// rng is a fixed-seed linear congruential generator (Knuth's MMIX
// constants), so that generated weights are the same everywhere.
type rng uint64

// uniform returns n values in [-scale, scale), rounded to multiples of
// 1/1024 so that they print exactly.
func (r *rng) uniform(n int, scale float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		*r = *r*6364136223846793005 + 1442695040888963407
		u := float32(uint64(*r)>>53) / float32(1<<11) // [0, 1) in steps of 1/2048
		out[i] = float32(math.Round(float64((2*u-1)*scale)*1024) / 1024)
	}
	return out
}
