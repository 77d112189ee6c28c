package modelgen

import (
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	fpb "github.com/wamuir/graft/tensorflow/core/framework/function_go_proto"
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	shapepb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
)

const (
	resource = tpb.DataType_DT_RESOURCE
	boolean  = tpb.DataType_DT_BOOL
)

// Function names of the While model, in TF2's naming style.
const (
	whileFn     = "__inference_scaled_power_20"
	whileCondFn = "while_cond_8"
	whileBodyFn = "while_body_9"
)

func arg(name string, dt tpb.DataType) *opdefpb.OpDef_ArgDef {
	return &opdefpb.OpDef_ArgDef{Name: name, Type: dt}
}

// WhileSavedModel is a TF2-style SavedModel: signature serving_default feeds
// x (float32 scalar) to a StatefulPartitionedCall of __inference_scaled_power_20,
// which runs a StatelessWhile 5 times (acc *= 2, cond i < 5, body i += 1)
// and multiplies the result by the resource variable "scale" read with
// ReadVariableOp: y = x * 2^5 * scale. The variable handle (VarHandleOp) is
// captured by the call as a DT_RESOURCE input; the AssignVariableOp
// "scale/Assign" (scale = 3) is the SavedModel main op, run after restore.
func WhileSavedModel() *mgpb.SavedModel {
	top := []*nodepb.NodeDef{
		node("serving_default_x", "Placeholder", nil, attrs{"dtype": aType(f32), "shape": aShape()}),
		node("scale", "VarHandleOp", nil, attrs{
			"dtype": aType(f32), "shape": aShape(), "shared_name": aStr("scale"),
			"container": aStr(""), "debug_name": aStr("scale/"), "allowed_devices": aEmptyList(),
		}),
		constNode("scale/Initializer/initial_value", f32Tensor(nil, []float32{3})),
		node("scale/Assign", "AssignVariableOp", []string{"scale", "scale/Initializer/initial_value"}, attrs{
			"dtype": aType(f32), "validate_shape": aBool(false),
		}),
		node("StatefulPartitionedCall", "StatefulPartitionedCall", []string{"serving_default_x", "scale"}, attrs{
			"Tin": aTypes(f32, resource), "Tout": aTypes(f32), "f": aFunc(whileFn),
			"config": aStr(""), "config_proto": aStr(""), "executor_type": aStr(""),
		}),
	}
	lib := &fpb.FunctionDefLibrary{Function: []*fpb.FunctionDef{
		{
			Signature: &opdefpb.OpDef{
				Name:       whileFn,
				InputArg:   []*opdefpb.OpDef_ArgDef{arg("x", f32), arg("readvariableop_resource", resource)},
				OutputArg:  []*opdefpb.OpDef_ArgDef{arg("identity", f32)},
				IsStateful: true,
			},
			NodeDef: []*nodepb.NodeDef{
				constNode("while/loop_counter", i32Tensor(nil, []int32{0})),
				node("while", "StatelessWhile", []string{"while/loop_counter:output:0", "x"}, attrs{
					"T": aTypes(i32, f32), "cond": aFunc(whileCondFn), "body": aFunc(whileBodyFn),
					"output_shapes":       aShapes(&shapepb.TensorShapeProto{}, &shapepb.TensorShapeProto{}),
					"parallel_iterations": aInt(10),
				}),
				node("ReadVariableOp", "ReadVariableOp", []string{"readvariableop_resource"}, attrs{"dtype": aType(f32)}),
				node("mul", "Mul", []string{"while:output:1", "ReadVariableOp:value:0"}, attrs{"T": aType(f32)}),
				node("Identity", "Identity", []string{"mul:z:0"}, attrs{"T": aType(f32)}),
			},
			Ret: map[string]string{"identity": "Identity:output:0"},
			ArgAttr: map[uint32]*fpb.FunctionDef_ArgAttrs{
				1: {Attr: map[string]*attrpb.AttrValue{"_user_specified_name": aStr("resource")}},
			},
		},
		{
			Signature: &opdefpb.OpDef{
				Name:      whileCondFn,
				InputArg:  []*opdefpb.OpDef_ArgDef{arg("while_loop_counter", i32), arg("acc", f32)},
				OutputArg: []*opdefpb.OpDef_ArgDef{arg("less", boolean)},
			},
			NodeDef: []*nodepb.NodeDef{
				constNode("Less/y", i32Tensor(nil, []int32{5})),
				node("Less", "Less", []string{"while_loop_counter", "Less/y:output:0"}, attrs{"T": aType(i32)}),
			},
			Ret: map[string]string{"less": "Less:z:0"},
		},
		{
			Signature: &opdefpb.OpDef{
				Name:      whileBodyFn,
				InputArg:  []*opdefpb.OpDef_ArgDef{arg("while_loop_counter", i32), arg("acc", f32)},
				OutputArg: []*opdefpb.OpDef_ArgDef{arg("add", i32), arg("mul", f32)},
			},
			NodeDef: []*nodepb.NodeDef{
				constNode("add/y", i32Tensor(nil, []int32{1})),
				node("add", "AddV2", []string{"while_loop_counter", "add/y:output:0"}, attrs{"T": aType(i32)}),
				constNode("mul/y", f32Tensor(nil, []float32{2})),
				node("mul", "Mul", []string{"acc", "mul/y:output:0"}, attrs{"T": aType(f32)}),
			},
			Ret: map[string]string{"add": "add:z:0", "mul": "mul:z:0"},
		},
	}}
	mg := &mgpb.MetaGraphDef{
		MetaInfoDef: &mgpb.MetaGraphDef_MetaInfoDef{Tags: []string{"serve"}},
		GraphDef:    &gpb.GraphDef{Node: top, Library: lib, Versions: versions()},
		SignatureDef: map[string]*mgpb.SignatureDef{
			"serving_default": {
				Inputs:     map[string]*mgpb.TensorInfo{"x": tensorInfo("serving_default_x:0", f32)},
				Outputs:    map[string]*mgpb.TensorInfo{"output_0": tensorInfo("StatefulPartitionedCall:0", f32)},
				MethodName: "tensorflow/serving/predict",
			},
		},
		CollectionDef: map[string]*mgpb.CollectionDef{
			"saved_model_main_op": {Kind: &mgpb.CollectionDef_NodeList_{
				NodeList: &mgpb.CollectionDef_NodeList{Value: []string{"scale/Assign"}},
			}},
		},
	}
	return &mgpb.SavedModel{SavedModelSchemaVersion: 1, MetaGraphs: []*mgpb.MetaGraphDef{mg}}
}
