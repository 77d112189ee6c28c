package modelgen

import (
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
)

// cpuPin is the device field TensorFlow writes on nodes built under
// tf.device("/cpu:0") in a local session: the full name of the first CPU.
const cpuPin = "/job:localhost/replica:0/task:0/device:CPU:0"

// KerasPinnedGraphDef is a frozen Keras-style classifier whose input
// normalisation and middle dense layer were built under tf.device("/cpu:0")
// and kept the pin: input_1 [?,16] → model/normalization (Sub, RealDiv;
// pinned) → model/dense 16→32 Relu → model/dense_1 32→32 Relu (pinned)
// → model/dense_2 32→10 Softmax → Identity. 9 of its 21 nodes carry
// "/job:localhost/replica:0/task:0/device:CPU:0". Every op has a GPU
// kernel, so on a GPU the pins alone split the graph; TensorFlow's
// clear_devices=True import removes them.
func KerasPinnedGraphDef() *gpb.GraphDef {
	r := rng(7)
	pin := func(n *nodepb.NodeDef) *nodepb.NodeDef {
		n.Device = cpuPin
		return n
	}
	dense := func(scope, in string, din, dout int64, relu bool, pinned bool) []*nodepb.NodeDef {
		ns := []*nodepb.NodeDef{
			constNode(scope+"/MatMul/ReadVariableOp", f32Tensor([]int64{din, dout}, r.uniform(int(din*dout), 0.125))),
			node(scope+"/MatMul", "MatMul", []string{in, scope + "/MatMul/ReadVariableOp"}, attrs{
				"T": aType(f32), "transpose_a": aBool(false), "transpose_b": aBool(false),
			}),
			constNode(scope+"/BiasAdd/ReadVariableOp", f32Tensor([]int64{dout}, r.uniform(int(dout), 0.0625))),
			node(scope+"/BiasAdd", "BiasAdd", []string{scope + "/MatMul", scope + "/BiasAdd/ReadVariableOp"}, attrs{
				"T": aType(f32), "data_format": aStr("NHWC"),
			}),
		}
		if relu {
			ns = append(ns, node(scope+"/Relu", "Relu", []string{scope + "/BiasAdd"}, attrs{"T": aType(f32)}))
		}
		if pinned {
			for _, n := range ns {
				pin(n)
			}
		}
		return ns
	}
	nodes := []*nodepb.NodeDef{
		node("input_1", "Placeholder", nil, attrs{"dtype": aType(f32), "shape": aShape(-1, 16)}),
		pin(constNode("model/normalization/sub/y", f32Tensor([]int64{16}, r.uniform(16, 1)))),
		pin(node("model/normalization/sub", "Sub", []string{"input_1", "model/normalization/sub/y"}, attrs{"T": aType(f32)})),
		pin(constNode("model/normalization/truediv/y", f32Tensor([]int64{16}, r.uniform(16, 1)))),
		pin(node("model/normalization/truediv", "RealDiv", []string{"model/normalization/sub", "model/normalization/truediv/y"}, attrs{"T": aType(f32)})),
	}
	nodes = append(nodes, dense("model/dense", "model/normalization/truediv", 16, 32, true, false)...)
	nodes = append(nodes, dense("model/dense_1", "model/dense/Relu", 32, 32, true, true)...)
	nodes = append(nodes, dense("model/dense_2", "model/dense_1/Relu", 32, 10, false, false)...)
	nodes = append(nodes,
		node("model/dense_2/Softmax", "Softmax", []string{"model/dense_2/BiasAdd"}, attrs{"T": aType(f32)}),
		node("Identity", "Identity", []string{"model/dense_2/Softmax"}, attrs{"T": aType(f32)}),
	)
	return &gpb.GraphDef{Node: nodes, Versions: versions()}
}
