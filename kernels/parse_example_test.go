package kernels

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	expb "github.com/wamuir/graft/tensorflow/core/example/example_protos_go_proto"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tspb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	"google.golang.org/protobuf/proto"
)

func exampleBytes(t *testing.T, feats map[string]*expb.Feature) string {
	t.Helper()
	b, err := proto.Marshal(&expb.Example{Features: &expb.Features{Feature: feats}})
	require.NoError(t, err)
	return string(b)
}

func floatFeature(v ...float32) *expb.Feature {
	return &expb.Feature{Kind: &expb.Feature_FloatList{FloatList: &expb.FloatList{Value: v}}}
}

func int64Feature(v ...int64) *expb.Feature {
	return &expb.Feature{Kind: &expb.Feature_Int64List{Int64List: &expb.Int64List{Value: v}}}
}

func parseExampleAttrs(sparse, dense []tpb.DataType, shapes ...[]int64) map[string]*attrpb.AttrValue {
	var sh []*tspb.TensorShapeProto
	for _, s := range shapes {
		p := &tspb.TensorShapeProto{}
		for _, d := range s {
			p.Dim = append(p.Dim, &tspb.TensorShapeProto_Dim{Size: d})
		}
		sh = append(sh, p)
	}
	list := func(l *attrpb.AttrValue_ListValue) *attrpb.AttrValue {
		return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: l}}
	}
	return map[string]*attrpb.AttrValue{
		"Nsparse":      {Value: &attrpb.AttrValue_I{I: int64(len(sparse))}},
		"Ndense":       {Value: &attrpb.AttrValue_I{I: int64(len(dense))}},
		"sparse_types": list(&attrpb.AttrValue_ListValue{Type: sparse}),
		"Tdense":       list(&attrpb.AttrValue_ListValue{Type: dense}),
		"dense_shapes": list(&attrpb.AttrValue_ListValue{Shape: sh}),
	}
}

func TestParseExample(t *testing.T) {
	ser := xstr([]int{3},
		exampleBytes(t, map[string]*expb.Feature{"x": floatFeature(1.5, 2), "ids": int64Feature(7, 8, 9)}),
		exampleBytes(t, map[string]*expb.Feature{"ids": int64Feature(4)}),
		exampleBytes(t, map[string]*expb.Feature{"x": floatFeature(-1, 0)}))
	attrs := parseExampleAttrs([]tpb.DataType{tpb.DataType_DT_INT64}, []tpb.DataType{tpb.DataType_DT_FLOAT}, []int64{2})
	out, err := xRun("ParseExample", attrs, ser, xstr([]int{0}), xstr([]int{}, "ids"), xstr([]int{}, "x"), xf32([]int{2}, 5, 6))
	require.NoError(t, err)
	require.Len(t, out, 4)
	assert.Equal(t, []int{4, 2}, out[0].Shape)
	assert.Equal(t, []int64{0, 0, 0, 1, 0, 2, 1, 0}, out[0].Data)
	assert.Equal(t, []int64{7, 8, 9, 4}, out[1].Data)
	assert.Equal(t, []int64{3, 3}, out[2].Data)
	assert.Equal(t, []int{3, 2}, out[3].Shape)
	assert.Equal(t, []float32{1.5, 2, 5, 6, -1, 0}, out[3].Data, "missing x takes the default")

	dense := parseExampleAttrs(nil, []tpb.DataType{tpb.DataType_DT_FLOAT}, []int64{1})
	xRunErrors(t, []xErrCase{
		{"required", "ParseExample", dense, []*Tensor{xstr([]int{1}, exampleBytes(t, nil)), xstr([]int{0}), xstr([]int{}, "x"), xf32([]int{0})},
			"Name: <unknown>, Feature: x (data type: float) is required but could not be found."},
		{"size", "ParseExample", dense, []*Tensor{xstr([]int{1}, exampleBytes(t, map[string]*expb.Feature{"x": floatFeature(1, 2)})), xstr([]int{0}), xstr([]int{}, "x"), xf32([]int{0})},
			"Number of float values != expected.  Values size: 2 but output shape: [1]"},
		{"type", "ParseExample", dense, []*Tensor{xstr([]int{1}, exampleBytes(t, map[string]*expb.Feature{"x": int64Feature(1)})), xstr([]int{0}), xstr([]int{}, "x"), xf32([]int{0})},
			"Data types don't match. Expected type: float"},
		{"garbage", "ParseExample", dense, []*Tensor{xstr([]int{1}, "\xff\xff\xff"), xstr([]int{0}), xstr([]int{}, "x"), xf32([]int{0})},
			"Could not parse example input"},
		{"serialized rank", "ParseExample", dense, []*Tensor{xstr([]int{}, ""), xstr([]int{0}), xstr([]int{}, "x"), xf32([]int{0})},
			"Expected serialized to be a vector"},
		{"input count", "ParseExample", dense, []*Tensor{xstr([]int{1}, "")}, "expected 4 inputs"},
	})
}

// TestParseExampleFloat64Run: a float64 run (the parity reference) gives
// the kernel DT_DOUBLE for the float features' dtypes (the executor
// promotes float attrs, scope.go promoteAttrs) and float64 defaults: the
// examples' float lists are read and widened, for dense and sparse
// features, a missing feature taking its default.
func TestParseExampleFloat64Run(t *testing.T) {
	f64 := tpb.DataType_DT_DOUBLE
	ser := xstr([]int{2},
		exampleBytes(t, map[string]*expb.Feature{"x": floatFeature(1.5, 0.1), "w": floatFeature(0.25)}),
		exampleBytes(t, map[string]*expb.Feature{"w": floatFeature(3, 4)}))
	attrs := parseExampleAttrs([]tpb.DataType{f64}, []tpb.DataType{f64}, []int64{2})
	def := &Tensor{DType: f64, Shape: []int{2}, Data: []float64{5, 6}}
	out, err := xRun("ParseExample", attrs, ser, xstr([]int{0}), xstr([]int{}, "w"), xstr([]int{}, "x"), def)
	require.NoError(t, err)
	require.Len(t, out, 4)
	assert.Equal(t, []float64{0.25, 3, 4}, out[1].Data, "sparse values, widened")
	assert.Equal(t, []int64{2, 2}, out[2].Data)
	assert.Equal(t, []float64{1.5, float64(float32(0.1)), 5, 6}, out[3].Data, "dense values widened, the default for the second")
}
