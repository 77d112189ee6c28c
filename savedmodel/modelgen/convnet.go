package modelgen

import (
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
)

const (
	f32 = tpb.DataType_DT_FLOAT
	i32 = tpb.DataType_DT_INT32
)

// ConvNetGraphDef is a frozen image classifier: x [1,8,8,1] → Conv2D 3x3x1x4
// (SAME) + BiasAdd + Relu → MaxPool 2x2 → Reshape [1,64] → MatMul 64x10 +
// BiasAdd → Softmax "probs" [1,10], NHWC, float32, weights in Consts.
func ConvNetGraphDef() *gpb.GraphDef {
	r := rng(42)
	nhwc := aStr("NHWC")
	nodes := []*nodepb.NodeDef{
		node("x", "Placeholder", nil, attrs{"dtype": aType(f32), "shape": aShape(1, 8, 8, 1)}),
		constNode("conv1/weights", f32Tensor([]int64{3, 3, 1, 4}, r.uniform(36, 0.5))),
		node("conv1/Conv2D", "Conv2D", []string{"x", "conv1/weights"}, attrs{
			"T": aType(f32), "strides": aInts(1, 1, 1, 1), "padding": aStr("SAME"),
			"data_format": nhwc, "dilations": aInts(1, 1, 1, 1), "use_cudnn_on_gpu": aBool(true),
			"explicit_paddings": aEmptyList(),
		}),
		constNode("conv1/bias", f32Tensor([]int64{4}, r.uniform(4, 0.1))),
		node("conv1/BiasAdd", "BiasAdd", []string{"conv1/Conv2D", "conv1/bias"}, attrs{"T": aType(f32), "data_format": nhwc}),
		node("conv1/Relu", "Relu", []string{"conv1/BiasAdd"}, attrs{"T": aType(f32)}),
		node("pool1/MaxPool", "MaxPool", []string{"conv1/Relu"}, attrs{
			"T": aType(f32), "ksize": aInts(1, 2, 2, 1), "strides": aInts(1, 2, 2, 1),
			"padding": aStr("VALID"), "data_format": nhwc, "explicit_paddings": aEmptyList(),
		}),
		constNode("flatten/shape", i32Tensor([]int64{2}, []int32{-1, 64})),
		node("flatten/Reshape", "Reshape", []string{"pool1/MaxPool", "flatten/shape"}, attrs{"T": aType(f32), "Tshape": aType(i32)}),
		constNode("fc/weights", f32Tensor([]int64{64, 10}, r.uniform(640, 0.25))),
		node("fc/MatMul", "MatMul", []string{"flatten/Reshape", "fc/weights"}, attrs{
			"T": aType(f32), "transpose_a": aBool(false), "transpose_b": aBool(false),
		}),
		constNode("fc/bias", f32Tensor([]int64{10}, r.uniform(10, 0.1))),
		node("fc/BiasAdd", "BiasAdd", []string{"fc/MatMul", "fc/bias"}, attrs{"T": aType(f32), "data_format": nhwc}),
		node("probs", "Softmax", []string{"fc/BiasAdd"}, attrs{"T": aType(f32)}),
	}
	return &gpb.GraphDef{Node: nodes, Versions: versions()}
}

// convNetSignature is the serving signature of the conv net.
func convNetSignature() map[string]*mgpb.SignatureDef {
	return map[string]*mgpb.SignatureDef{
		"serving_default": {
			Inputs:     map[string]*mgpb.TensorInfo{"x": tensorInfo("x:0", f32, 1, 8, 8, 1)},
			Outputs:    map[string]*mgpb.TensorInfo{"probs": tensorInfo("probs:0", f32, 1, 10)},
			MethodName: "tensorflow/serving/predict",
		},
	}
}

func tensorInfo(name string, dt tpb.DataType, dims ...int64) *mgpb.TensorInfo {
	return &mgpb.TensorInfo{Encoding: &mgpb.TensorInfo_Name{Name: name}, Dtype: dt, TensorShape: shape(dims...)}
}

// ConvNetMetaGraph is the conv net as a MetaGraphDef with the "serve" tag
// and a serving_default signature.
func ConvNetMetaGraph() *mgpb.MetaGraphDef {
	return &mgpb.MetaGraphDef{
		MetaInfoDef:  &mgpb.MetaGraphDef_MetaInfoDef{Tags: []string{"serve"}},
		GraphDef:     ConvNetGraphDef(),
		SignatureDef: convNetSignature(),
	}
}

// ConvNetSavedModel is the conv net as a SavedModel with one MetaGraphDef.
// Its weights are Consts, so it has no variables/ directory (TensorFlow's
// loader then skips the restore).
func ConvNetSavedModel() *mgpb.SavedModel {
	return &mgpb.SavedModel{SavedModelSchemaVersion: 1, MetaGraphs: []*mgpb.MetaGraphDef{ConvNetMetaGraph()}}
}
