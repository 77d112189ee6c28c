package modelgen

import (
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
)

// ResourceVarsGraphDef is a TF1-style graph on a resource variable:
// VarHandleOp "v" (float32 [2]) initialised by AssignVariableOp from a
// Const, read by ReadVariableOp (after the assign, through a control input)
// and added to the placeholder x: y = x + [1.5, -2].
func ResourceVarsGraphDef() *gpb.GraphDef {
	return &gpb.GraphDef{Node: []*nodepb.NodeDef{
		node("x", "Placeholder", nil, attrs{"dtype": aType(f32), "shape": aShape(2)}),
		node("v", "VarHandleOp", nil, attrs{
			"dtype": aType(f32), "shape": aShape(2), "shared_name": aStr("v"),
			"container": aStr(""), "debug_name": aStr("v/"), "allowed_devices": aEmptyList(),
		}),
		constNode("v/initial_value", f32Tensor([]int64{2}, []float32{1.5, -2})),
		node("v/Assign", "AssignVariableOp", []string{"v", "v/initial_value"}, attrs{
			"dtype": aType(f32), "validate_shape": aBool(true),
		}),
		node("v/Read", "ReadVariableOp", []string{"v", "^v/Assign"}, attrs{"dtype": aType(f32)}),
		node("y", "AddV2", []string{"x", "v/Read"}, attrs{"T": aType(f32)}),
	}, Versions: versions()}
}

// StringOpsMetaGraph is a MetaGraphDef over string ops: the signature takes
// a batch of strings, StringJoin appends "-tfscan" to each, and
// StringToHashBucketFast hashes them into 100 buckets (int64).
func StringOpsMetaGraph() *mgpb.MetaGraphDef {
	gd := &gpb.GraphDef{Node: []*nodepb.NodeDef{
		node("text", "Placeholder", nil, attrs{"dtype": aType(tpb.DataType_DT_STRING), "shape": aShape(-1)}),
		constNode("suffix", strTensor(nil, "tfscan")),
		node("joined", "StringJoin", []string{"text", "suffix"}, attrs{"N": aInt(2), "separator": aStr("-")}),
		node("bucket", "StringToHashBucketFast", []string{"joined"}, attrs{"num_buckets": aInt(100)}),
	}, Versions: versions()}
	return &mgpb.MetaGraphDef{
		MetaInfoDef: &mgpb.MetaGraphDef_MetaInfoDef{Tags: []string{"serve"}},
		GraphDef:    gd,
		SignatureDef: map[string]*mgpb.SignatureDef{
			"serving_default": {
				Inputs:     map[string]*mgpb.TensorInfo{"text": tensorInfo("text:0", tpb.DataType_DT_STRING, -1)},
				Outputs:    map[string]*mgpb.TensorInfo{"bucket": tensorInfo("bucket:0", tpb.DataType_DT_INT64, -1)},
				MethodName: "tensorflow/serving/predict",
			},
		},
	}
}
