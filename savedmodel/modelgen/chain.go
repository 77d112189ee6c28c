package modelgen

import (
	"strconv"

	fpb "github.com/wamuir/graft/tensorflow/core/framework/function_go_proto"
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
	"google.golang.org/protobuf/proto"
)

// ChainFunction is the name of the i-th function of CallChain, in TF2's
// naming style.
func ChainFunction(i int) string { return "__inference_call_" + strconv.Itoa(i) }

// CallChain is a valid TF2-style SavedModel of depth nested calls: its
// serving_default signature feeds x (float32 scalar) to a
// StatefulPartitionedCall of __inference_call_0, each function calls the
// next through a StatefulPartitionedCall and returns its result through an
// Identity, and the last one returns x * 2. So y = 2x, and a node of the
// last function sits under depth calls. Every function has a distinct
// body, as TensorFlow would trace them.
func CallChain(depth int) *mgpb.SavedModel {
	call := func(in, fn string) *nodepb.NodeDef {
		return node("StatefulPartitionedCall", "StatefulPartitionedCall", []string{in}, attrs{
			"Tin": aTypes(f32), "Tout": aTypes(f32), "f": aFunc(fn),
			"config": aStr(""), "config_proto": aStr(""), "executor_type": aStr(""),
		})
	}
	sig := func(name string) *opdefpb.OpDef {
		return &opdefpb.OpDef{Name: name, InputArg: []*opdefpb.OpDef_ArgDef{arg("x", f32)},
			OutputArg: []*opdefpb.OpDef_ArgDef{arg("identity", f32)}, IsStateful: true}
	}
	lib := &fpb.FunctionDefLibrary{Function: make([]*fpb.FunctionDef, 0, depth)}
	for i := 0; i < depth; i++ {
		var body []*nodepb.NodeDef
		if i < depth-1 {
			body = []*nodepb.NodeDef{
				call("x", ChainFunction(i+1)),
				node("Identity", "Identity", []string{"StatefulPartitionedCall:output:0"}, attrs{"T": aType(f32)}),
			}
		} else {
			body = []*nodepb.NodeDef{
				constNode("two", f32Tensor(nil, []float32{2})),
				node("mul", "Mul", []string{"x", "two:output:0"}, attrs{"T": aType(f32)}),
				node("Identity", "Identity", []string{"mul:z:0"}, attrs{"T": aType(f32)}),
			}
		}
		lib.Function = append(lib.Function, &fpb.FunctionDef{
			Signature: sig(ChainFunction(i)),
			NodeDef:   body,
			Ret:       map[string]string{"identity": "Identity:output:0"},
		})
	}
	top := []*nodepb.NodeDef{
		node("serving_default_x", "Placeholder", nil, attrs{"dtype": aType(f32), "shape": aShape()}),
		call("serving_default_x", ChainFunction(0)),
	}
	mg := &mgpb.MetaGraphDef{
		MetaInfoDef: &mgpb.MetaGraphDef_MetaInfoDef{Tags: []string{"serve"}},
		GraphDef:    &gpb.GraphDef{Node: top, Library: lib, Versions: versions()},
		SignatureDef: map[string]*mgpb.SignatureDef{"serving_default": {
			Inputs:     map[string]*mgpb.TensorInfo{"x": tensorInfo("serving_default_x:0", f32)},
			Outputs:    map[string]*mgpb.TensorInfo{"y": tensorInfo("StatefulPartitionedCall:0", f32)},
			MethodName: "tensorflow/serving/predict",
		}},
	}
	return &mgpb.SavedModel{SavedModelSchemaVersion: 1, MetaGraphs: []*mgpb.MetaGraphDef{mg}}
}

// CallChainBytes is CallChain(depth) as a saved_model.pb.
func CallChainBytes(depth int) ([]byte, error) {
	return proto.MarshalOptions{Deterministic: true}.Marshal(CallChain(depth))
}
