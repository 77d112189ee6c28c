package modelgen

import (
	fpb "github.com/wamuir/graft/tensorflow/core/framework/function_go_proto"
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
)

const (
	str = tpb.DataType_DT_STRING
	i64 = tpb.DataType_DT_INT64
)

// Function names of the Keras model, in TF2's naming style.
const (
	kerasSignatureFn   = "__inference_signature_wrapper_210"
	kerasCallFn        = "__inference_call_150"
	kerasCallLossesFn  = "__inference_call_and_return_conditional_losses_175"
	kerasCreatorFn     = "__inference__creator_80"
	kerasInitializerFn = "__inference__initializer_90"
	kerasDestroyerFn   = "__inference__destroyer_95"
	kerasInitOpFn      = "__inference_<lambda>_100"
	kerasSaveFn        = "__inference__traced_save_250"
	kerasRestoreFn     = "__inference__traced_restore_270"
)

// KerasSavedModel is a SavedModel laid out as tf.keras.Model.save writes
// one: resource variables, a serving_default signature whose wrapper calls
// the model's traced call function, a string vocabulary table initialised
// by the init op (__saved_model_init_op), the saver's __traced_save and
// __traced_restore functions behind saver_def, the object graph with the
// table's _create_resource/_initialize/_destroy_resource functions, and a
// traced call_and_return_conditional_losses function no signature calls.
//
// serving_default takes features (float32 [-1,4]) and word (string [-1])
// and returns Concat(Relu6(features·kernel + bias), float(Bucketize(
// features)), float(lookup(word))) as float32 [-1,8]. The Cast of the
// lookup result is pinned to /device:CPU:0, as a model exported on a CPU
// machine keeps it.
func KerasSavedModel() *mgpb.SavedModel {
	varAttrs := func(name string, dims ...int64) attrs {
		return attrs{"dtype": aType(f32), "shape": aShape(dims...), "shared_name": aStr(name),
			"container": aStr(""), "debug_name": aStr(name + "/"), "allowed_devices": aEmptyList()}
	}
	call := func(name, fn string, in []string, tin, tout []tpb.DataType) *nodepb.NodeDef {
		return node(name, "StatefulPartitionedCall", in, attrs{
			"Tin": aTypes(tin...), "Tout": aTypes(tout...), "f": aFunc(fn),
			"config": aStr(""), "config_proto": aStr(""), "executor_type": aStr(""),
		})
	}
	cpu := func(n *nodepb.NodeDef) *nodepb.NodeDef {
		n.Device = "/device:CPU:0"
		return n
	}
	top := []*nodepb.NodeDef{
		node("dense/kernel", "VarHandleOp", nil, varAttrs("dense/kernel", 4, 3)),
		node("dense/kernel/Read/ReadVariableOp", "ReadVariableOp", []string{"dense/kernel"}, attrs{"dtype": aType(f32)}),
		node("dense/bias", "VarHandleOp", nil, varAttrs("dense/bias", 3)),
		node("dense/bias/Read/ReadVariableOp", "ReadVariableOp", []string{"dense/bias"}, attrs{"dtype": aType(f32)}),
		node("hash_table", "HashTableV2", nil, attrs{"key_dtype": aType(str), "value_dtype": aType(i64),
			"container": aStr(""), "shared_name": aStr("table_80"), "use_node_name_sharing": aBool(false)}),
		constNode("Const", i64Tensor(nil, -1)),
		node("serving_default_features", "Placeholder", nil, attrs{"dtype": aType(f32), "shape": aShape(-1, 4)}),
		node("serving_default_word", "Placeholder", nil, attrs{"dtype": aType(str), "shape": aShape(-1)}),
		call("StatefulPartitionedCall", kerasSignatureFn,
			[]string{"serving_default_features", "serving_default_word", "hash_table", "Const", "dense/kernel", "dense/bias"},
			[]tpb.DataType{f32, str, resource, i64, resource, resource}, []tpb.DataType{f32}),
		call("StatefulPartitionedCall_1", kerasInitOpFn, []string{"hash_table"}, []tpb.DataType{resource}, []tpb.DataType{i32}),
		node("NoOp", "NoOp", []string{"^StatefulPartitionedCall_1"}, nil),
		node("saver_filename", "Placeholder", nil, attrs{"dtype": aType(str), "shape": aShape()}),
		call("StatefulPartitionedCall_2", kerasSaveFn,
			[]string{"saver_filename", "dense/kernel/Read/ReadVariableOp", "dense/bias/Read/ReadVariableOp"},
			[]tpb.DataType{str, f32, f32}, []tpb.DataType{str}),
		call("StatefulPartitionedCall_3", kerasRestoreFn, []string{"saver_filename", "dense/kernel", "dense/bias"},
			[]tpb.DataType{str, resource, resource}, []tpb.DataType{str}),
	}
	// The model's call: what Keras traces for Model.call.
	body := func() []*nodepb.NodeDef {
		return []*nodepb.NodeDef{
			node("dense/MatMul/ReadVariableOp", "ReadVariableOp", []string{"dense_matmul_readvariableop_resource"}, attrs{"dtype": aType(f32)}),
			node("dense/MatMul", "MatMul", []string{"features", "dense/MatMul/ReadVariableOp:value:0"}, attrs{
				"T": aType(f32), "transpose_a": aBool(false), "transpose_b": aBool(false)}),
			node("dense/BiasAdd/ReadVariableOp", "ReadVariableOp", []string{"dense_biasadd_readvariableop_resource"}, attrs{"dtype": aType(f32)}),
			node("dense/BiasAdd", "BiasAdd", []string{"dense/MatMul:product:0", "dense/BiasAdd/ReadVariableOp:value:0"},
				attrs{"T": aType(f32), "data_format": aStr("NHWC")}),
			node("dense/Relu6", "Relu6", []string{"dense/BiasAdd:output:0"}, attrs{"T": aType(f32)}),
			node("discretization/Bucketize", "Bucketize", []string{"features"}, attrs{"T": aType(f32), "boundaries": aFloats(0, 0.5, 1)}),
			node("discretization/Cast", "Cast", []string{"discretization/Bucketize:output:0"}, attrs{
				"SrcT": aType(i32), "DstT": aType(f32), "Truncate": aBool(false)}),
			node("string_lookup/None_Lookup/LookupTableFindV2", "LookupTableFindV2",
				[]string{"string_lookup_none_lookup_table_find_v2_table_handle", "word", "string_lookup_none_lookup_table_find_v2_default_value"},
				attrs{"Tin": aType(str), "Tout": aType(i64)}),
			cpu(node("string_lookup/Cast", "Cast", []string{"string_lookup/None_Lookup/LookupTableFindV2:values:0"}, attrs{
				"SrcT": aType(i64), "DstT": aType(f32), "Truncate": aBool(false)})),
			constNode("string_lookup/ExpandDims/dim", i32Tensor(nil, []int32{1})),
			node("string_lookup/ExpandDims", "ExpandDims", []string{"string_lookup/Cast:y:0", "string_lookup/ExpandDims/dim:output:0"},
				attrs{"T": aType(f32), "Tdim": aType(i32)}),
			constNode("concatenate/concat/axis", i32Tensor(nil, []int32{1})),
			node("concatenate/concat", "ConcatV2", []string{"dense/Relu6:activations:0", "discretization/Cast:y:0",
				"string_lookup/ExpandDims:output:0", "concatenate/concat/axis:output:0"},
				attrs{"N": aInt(3), "T": aType(f32), "Tidx": aType(i32)}),
			node("Identity", "Identity", []string{"concatenate/concat:output:0"}, attrs{"T": aType(f32)}),
		}
	}
	callArgs := []*opdefpb.OpDef_ArgDef{arg("features", f32), arg("word", str),
		arg("string_lookup_none_lookup_table_find_v2_table_handle", resource),
		arg("string_lookup_none_lookup_table_find_v2_default_value", i64),
		arg("dense_matmul_readvariableop_resource", resource), arg("dense_biasadd_readvariableop_resource", resource)}
	// TF2 records each argument's shape in its arg_attr (_output_shapes)
	// and the Python name it was given (_user_specified_name).
	argAttrs := map[uint32]*fpb.FunctionDef_ArgAttrs{}
	for i, sh := range [][]int64{{-1, 4}, {-1}, {}, {}, {}, {}} {
		argAttrs[uint32(i)] = &fpb.FunctionDef_ArgAttrs{Attr: attrs{
			"_output_shapes":       aShapes(shape(sh...)),
			"_user_specified_name": aStr(callArgs[i].GetName()),
		}}
	}
	callFn := func(name string) *fpb.FunctionDef {
		return &fpb.FunctionDef{
			Signature: &opdefpb.OpDef{Name: name, InputArg: callArgs, OutputArg: []*opdefpb.OpDef_ArgDef{arg("identity", f32)},
				IsStateful: true},
			NodeDef: body(),
			Ret:     map[string]string{"identity": "Identity:output:0"},
			ArgAttr: argAttrs,
		}
	}
	lib := &fpb.FunctionDefLibrary{Function: []*fpb.FunctionDef{
		{
			Signature: &opdefpb.OpDef{Name: kerasSignatureFn, InputArg: callArgs,
				OutputArg: []*opdefpb.OpDef_ArgDef{arg("identity", f32)}, IsStateful: true},
			NodeDef: []*nodepb.NodeDef{
				call("StatefulPartitionedCall", kerasCallFn, []string{"features", "word",
					"string_lookup_none_lookup_table_find_v2_table_handle", "string_lookup_none_lookup_table_find_v2_default_value",
					"dense_matmul_readvariableop_resource", "dense_biasadd_readvariableop_resource"},
					[]tpb.DataType{f32, str, resource, i64, resource, resource}, []tpb.DataType{f32}),
				node("Identity", "Identity", []string{"StatefulPartitionedCall:output:0"}, attrs{"T": aType(f32)}),
			},
			Ret:     map[string]string{"identity": "Identity:output:0"},
			ArgAttr: argAttrs,
		},
		callFn(kerasCallFn),
		callFn(kerasCallLossesFn),
		{
			Signature: &opdefpb.OpDef{Name: kerasCreatorFn, OutputArg: []*opdefpb.OpDef_ArgDef{arg("identity", resource)}, IsStateful: true},
			NodeDef: []*nodepb.NodeDef{
				node("hash_table", "HashTableV2", nil, attrs{"key_dtype": aType(str), "value_dtype": aType(i64),
					"container": aStr(""), "shared_name": aStr("table_80"), "use_node_name_sharing": aBool(false)}),
				node("Identity", "Identity", []string{"hash_table:table_handle:0"}, attrs{"T": aType(resource)}),
			},
			Ret: map[string]string{"identity": "Identity:output:0"},
		},
		tableInitFn(kerasInitializerFn),
		tableInitFn(kerasInitOpFn),
		{
			Signature: &opdefpb.OpDef{Name: kerasDestroyerFn, OutputArg: []*opdefpb.OpDef_ArgDef{arg("identity", i32)}},
			NodeDef: []*nodepb.NodeDef{
				constNode("Const", i32Tensor(nil, []int32{1})),
				node("Identity", "Identity", []string{"Const:output:0"}, attrs{"T": aType(i32)}),
			},
			Ret: map[string]string{"identity": "Identity:output:0"},
		},
		tracedSave(),
		tracedRestore(),
	}}
	mg := &mgpb.MetaGraphDef{
		MetaInfoDef: &mgpb.MetaGraphDef_MetaInfoDef{Tags: []string{"serve"}},
		GraphDef:    &gpb.GraphDef{Node: top, Library: lib, Versions: versions()},
		SaverDef: &mgpb.SaverDef{FilenameTensorName: "saver_filename:0", SaveTensorName: "StatefulPartitionedCall_2:0",
			RestoreOpName: "StatefulPartitionedCall_3", Version: mgpb.SaverDef_V2},
		SignatureDef: map[string]*mgpb.SignatureDef{
			"serving_default": {
				Inputs: map[string]*mgpb.TensorInfo{
					"features": tensorInfo("serving_default_features:0", f32, -1, 4),
					"word":     tensorInfo("serving_default_word:0", str, -1),
				},
				Outputs:    map[string]*mgpb.TensorInfo{"output_0": tensorInfo("StatefulPartitionedCall:0", f32, -1, 8)},
				MethodName: "tensorflow/serving/predict",
			},
			"__saved_model_init_op": {
				Outputs: map[string]*mgpb.TensorInfo{"__saved_model_init_op": {Encoding: &mgpb.TensorInfo_Name{Name: "NoOp"}}},
			},
		},
		CollectionDef: map[string]*mgpb.CollectionDef{
			"saved_model_main_op": {Kind: &mgpb.CollectionDef_NodeList_{
				NodeList: &mgpb.CollectionDef_NodeList{Value: []string{"NoOp"}},
			}},
		},
		ObjectGraphDef: kerasObjectGraph(),
	}
	return &mgpb.SavedModel{SavedModelSchemaVersion: 1, MetaGraphs: []*mgpb.MetaGraphDef{mg}}
}

// tableInitFn fills the vocabulary table passed as its argument with
// LookupTableImportV2, as KeyValueTensorInitializer does.
func tableInitFn(name string) *fpb.FunctionDef {
	return &fpb.FunctionDef{
		Signature: &opdefpb.OpDef{Name: name, InputArg: []*opdefpb.OpDef_ArgDef{arg("table", resource)},
			OutputArg: []*opdefpb.OpDef_ArgDef{arg("identity", i32)}, IsStateful: true,
			ControlOutput: []string{"key_value_init/LookupTableImportV2"}},
		NodeDef: []*nodepb.NodeDef{
			constNode("keys", strTensor([]int64{3}, "cat", "dog", "fish")),
			constNode("values", i64Tensor([]int64{3}, 0, 1, 2)),
			node("key_value_init/LookupTableImportV2", "LookupTableImportV2", []string{"table", "keys:output:0", "values:output:0"},
				attrs{"Tin": aType(str), "Tout": aType(i64)}),
			constNode("Const", i32Tensor(nil, []int32{1})),
			node("Identity", "Identity", []string{"Const:output:0", "^key_value_init/LookupTableImportV2"}, attrs{"T": aType(i32)}),
		},
		Ret:        map[string]string{"identity": "Identity:output:0"},
		ControlRet: map[string]string{"key_value_init/LookupTableImportV2": "key_value_init/LookupTableImportV2"},
	}
}

// tracedSave is the saver's save function as tf.train.Checkpoint traces it
// (sharded V2 checkpoint: ShardedFilename, SaveV2, MergeV2Checkpoints).
func tracedSave() *fpb.FunctionDef {
	return &fpb.FunctionDef{
		Signature: &opdefpb.OpDef{Name: kerasSaveFn,
			InputArg: []*opdefpb.OpDef_ArgDef{arg("file_prefix", str),
				arg("savev2_dense_kernel_read_readvariableop", f32), arg("savev2_dense_bias_read_readvariableop", f32)},
			OutputArg: []*opdefpb.OpDef_ArgDef{arg("identity_1", str)}, IsStateful: true,
			ControlOutput: []string{"MergeV2Checkpoints"}},
		NodeDef: []*nodepb.NodeDef{
			node("StaticRegexFullMatch", "StaticRegexFullMatch", []string{"file_prefix"}, attrs{"pattern": aStr("^s3://.*")}),
			constNode("Const", strTensor(nil, ".part")),
			constNode("Const_1", strTensor(nil, "_temp/part")),
			node("Select", "Select", []string{"StaticRegexFullMatch:output:0", "Const:output:0", "Const_1:output:0"}, attrs{"T": aType(str)}),
			node("StringJoin", "StringJoin", []string{"file_prefix", "Select:output:0"}, attrs{"N": aInt(2), "separator": aStr("")}),
			constNode("num_shards", i32Tensor(nil, []int32{1})),
			constNode("ShardedFilename/shard", i32Tensor(nil, []int32{0})),
			node("ShardedFilename", "ShardedFilename", []string{"StringJoin:output:0", "ShardedFilename/shard:output:0", "num_shards:output:0"}, nil),
			checkpointKeys("SaveV2")[0], checkpointKeys("SaveV2")[1],
			node("SaveV2", "SaveV2", []string{"ShardedFilename:filename:0", "SaveV2/tensor_names:output:0", "SaveV2/shape_and_slices:output:0",
				"savev2_dense_kernel_read_readvariableop", "savev2_dense_bias_read_readvariableop"}, attrs{"dtypes": aTypes(f32, f32)}),
			node("MergeV2Checkpoints/checkpoint_prefixes", "Pack", []string{"ShardedFilename:filename:0", "^SaveV2"},
				attrs{"N": aInt(1), "T": aType(str), "axis": aInt(0)}),
			node("MergeV2Checkpoints", "MergeV2Checkpoints", []string{"MergeV2Checkpoints/checkpoint_prefixes:output:0", "file_prefix"},
				attrs{"delete_old_dirs": aBool(true), "allow_missing_files": aBool(false)}),
			node("Identity", "Identity", []string{"file_prefix", "^MergeV2Checkpoints"}, attrs{"T": aType(str)}),
			node("Identity_1", "Identity", []string{"Identity:output:0", "^MergeV2Checkpoints"}, attrs{"T": aType(str)}),
		},
		Ret:        map[string]string{"identity_1": "Identity_1:output:0"},
		ControlRet: map[string]string{"MergeV2Checkpoints": "MergeV2Checkpoints"},
	}
}

// checkpointKeys are the tensor_names and shape_and_slices Consts of a
// SaveV2 or RestoreV2 node named op: the checkpoint keys of the dense
// layer's two variables.
func checkpointKeys(op string) [2]*nodepb.NodeDef {
	return [2]*nodepb.NodeDef{
		constNode(op+"/tensor_names", strTensor([]int64{2}, "layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE",
			"layer_with_weights-0/bias/.ATTRIBUTES/VARIABLE_VALUE")),
		constNode(op+"/shape_and_slices", strTensor([]int64{2}, "", "")),
	}
}

// tracedRestore is the saver's restore function: RestoreV2, then one
// AssignVariableOp per variable.
func tracedRestore() *fpb.FunctionDef {
	return &fpb.FunctionDef{
		Signature: &opdefpb.OpDef{Name: kerasRestoreFn,
			InputArg: []*opdefpb.OpDef_ArgDef{arg("file_prefix", str),
				arg("assignvariableop_resource", resource), arg("assignvariableop_1_resource", resource)},
			OutputArg: []*opdefpb.OpDef_ArgDef{arg("identity_3", str)}, IsStateful: true,
			ControlOutput: []string{"AssignVariableOp", "AssignVariableOp_1"}},
		NodeDef: []*nodepb.NodeDef{
			checkpointKeys("RestoreV2")[0], checkpointKeys("RestoreV2")[1],
			node("RestoreV2", "RestoreV2", []string{"file_prefix", "RestoreV2/tensor_names:output:0", "RestoreV2/shape_and_slices:output:0"},
				attrs{"dtypes": aTypes(f32, f32)}),
			node("Identity", "Identity", []string{"RestoreV2:tensors:0"}, attrs{"T": aType(f32)}),
			node("AssignVariableOp", "AssignVariableOp", []string{"assignvariableop_resource", "Identity:output:0"},
				attrs{"dtype": aType(f32), "validate_shape": aBool(false)}),
			node("Identity_1", "Identity", []string{"RestoreV2:tensors:1"}, attrs{"T": aType(f32)}),
			node("AssignVariableOp_1", "AssignVariableOp", []string{"assignvariableop_1_resource", "Identity_1:output:0"},
				attrs{"dtype": aType(f32), "validate_shape": aBool(false)}),
			node("NoOp", "NoOp", []string{"^AssignVariableOp", "^AssignVariableOp_1"}, nil),
			node("Identity_3", "Identity", []string{"file_prefix", "^NoOp"}, attrs{"T": aType(str)}),
		},
		Ret: map[string]string{"identity_3": "Identity_3:output:0"},
		ControlRet: map[string]string{"AssignVariableOp": "AssignVariableOp",
			"AssignVariableOp_1": "AssignVariableOp_1"},
	}
}

// kerasObjectGraph is the SavedObjectGraph of the Keras model: the model,
// its dense layer with two variables, the vocabulary table (a restored
// resource with its three functions), the signature map and the traced
// call_and_return_conditional_losses function.
func kerasObjectGraph() *mgpb.SavedObjectGraph {
	ref := func(id int32, name string) *mgpb.TrackableObjectGraph_TrackableObject_ObjectReference {
		return &mgpb.TrackableObjectGraph_TrackableObject_ObjectReference{NodeId: id, LocalName: name}
	}
	user := func(id string, children ...*mgpb.TrackableObjectGraph_TrackableObject_ObjectReference) *mgpb.SavedObject {
		return &mgpb.SavedObject{Children: children, Kind: &mgpb.SavedObject_UserObject{UserObject: &mgpb.SavedUserObject{Identifier: id}}}
	}
	variable := func(name string, dims ...int64) *mgpb.SavedObject {
		return &mgpb.SavedObject{Kind: &mgpb.SavedObject_Variable{Variable: &mgpb.SavedVariable{
			Dtype: f32, Shape: shape(dims...), Trainable: true, Name: name}}}
	}
	function := func(name string) *mgpb.SavedObject {
		return &mgpb.SavedObject{Kind: &mgpb.SavedObject_Function{Function: &mgpb.SavedFunction{ConcreteFunctions: []string{name}}}}
	}
	og := &mgpb.SavedObjectGraph{
		Nodes: []*mgpb.SavedObject{
			0: user("_tf_keras_model", ref(1, "layer_with_weights-0"), ref(4, "table"), ref(8, "signatures"),
				ref(9, "call_and_return_conditional_losses")),
			1: user("_tf_keras_layer", ref(2, "kernel"), ref(3, "bias")),
			2: variable("dense/kernel", 4, 3),
			3: variable("dense/bias", 3),
			4: {Children: []*mgpb.TrackableObjectGraph_TrackableObject_ObjectReference{
				ref(5, "_create_resource"), ref(6, "_initialize"), ref(7, "_destroy_resource")},
				Kind: &mgpb.SavedObject_Resource{Resource: &mgpb.SavedResource{}}},
			5:  function(kerasCreatorFn),
			6:  function(kerasInitializerFn),
			7:  function(kerasDestroyerFn),
			8:  user("signature_map", ref(10, "serving_default")),
			9:  function(kerasCallLossesFn),
			10: function(kerasSignatureFn),
		},
		ConcreteFunctions: map[string]*mgpb.SavedConcreteFunction{},
	}
	for _, name := range []string{kerasCreatorFn, kerasInitializerFn, kerasDestroyerFn, kerasCallLossesFn, kerasSignatureFn} {
		og.ConcreteFunctions[name] = &mgpb.SavedConcreteFunction{}
	}
	og.ConcreteFunctions[kerasInitializerFn].BoundInputs = []int32{4}
	og.ConcreteFunctions[kerasSignatureFn].BoundInputs = []int32{4, 2, 3}
	return og
}

func i64Tensor(dims []int64, vals ...int64) *tensorpb.TensorProto {
	return &tensorpb.TensorProto{Dtype: i64, TensorShape: shape(dims...), Int64Val: vals}
}
