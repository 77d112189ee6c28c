package placement

import (
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The scenarios of docs/placement.md#scenarios, each on a small hand-built
// graph with a small hand-written registry. The expected answers come from
// reading TF 2.15's source (cited per scenario); none was run on a real
// TensorFlow build.

// cpuOps is a CPU registry covering every op the scenarios use.
var cpuOps = cpuAll("MatMul", "Reshape", "Const", "Placeholder", "Identity", "VarHandleOp",
	"ReadVariableOp", "ResourceApplyAdagradDA", "AssignAddVariableOp", "IteratorV2",
	"IteratorGetNext", "NonMaxSuppressionV5", "Shape", "Cast", "Unique", "UniqueV2",
	"TensorListFromTensor", "TensorListStack", "NoOp", "EagerPyFunc", "AddV2", "Less",
	"StringToHashBucketFast", "Switch", "Merge", "Enter", "Exit", "NextIteration", "LoopCond",
	"While", "StatelessWhile", "_Arg", "_Retval", "Relu", "BiasAdd", "Conv2D")

// S1 (docs/placement.md#scenarios): the int32 Const shape of a Reshape resolves
// through the DEFAULT host-memory kernel (constant_op.cc:103-141,
// host_constant_op.cc:46-53), follows its only consumer (placer.cc:296-311)
// and feeds Reshape's HostMemory shape input (reshape_op.cc:33-44): 0 transfers.
func TestS1Int32ConstIntoReshape(t *testing.T) {
	g := buildGraph(t, graphText(
		placeholder("x", "DT_FLOAT", 2, 3),
		constNode("w", "DT_FLOAT", []int64{3, 4}),
		nd("mm", "MatMul", in("x", "w"), ta("T", "DT_FLOAT")),
		constNode("shape", "DT_INT32", []int64{2}, 4, 2),
		nd("r", "Reshape", in("mm", "shape"), ta("T", "DT_FLOAT"), ta("Tshape", "DT_INT32")),
	), "serving_default=x:0->r:0")
	reg := cpuOps + `
MatMul GPU T=float32
Reshape GPU T=float32 Tshape=int32 host=shape
Const GPU dtype=float32|int64
Const DEFAULT dtype=int32 host=output
Placeholder DEFAULT
`
	r := simulate(t, g, "GPU", reg, Options{})
	assert.Equal(t, map[string]string{"x": "GPU:0", "w": "GPU:0", "mm": "GPU:0", "shape": "GPU:0", "r": "GPU:0"}, devices(r))
	assert.Equal(t, 0, r.Transfers)
	assert.Equal(t, int64(0), r.TransferBytes)
	// boundary: feed x (2×3 float) and fetch r (4×2 float)
	assert.Equal(t, 2, r.IOTransfers)
	assert.Equal(t, int64(24+32), r.IOBytes)
	assert.Empty(t, r.Errors)
	assert.Contains(t, strings.Join(reasonsOf(r, "shape"), "\n"), "generator follows its consumers")
}

// Constants of one kernel lookup, each alone in its group, follow their
// own consumers (placer.cc:296-311): to the GPU, to the CPU where the
// consumer has no GPU kernel, and, with consumers on both, where the
// placer puts the constant itself (the GPU).
func TestGeneratorsFollowTheirOwnConsumers(t *testing.T) {
	g := buildGraph(t, graphText(
		placeholder("x", "DT_FLOAT", 2, 3),
		constNode("c1", "DT_FLOAT", []int64{2, 3}),
		nd("gpu1", "AddV2", in("x", "c1"), ta("T", "DT_FLOAT")),
		constNode("c2", "DT_FLOAT", []int64{2, 3}),
		nd("cpu2", "Relu", in("c2"), ta("T", "DT_FLOAT")),
		constNode("c3", "DT_FLOAT", []int64{2, 3}),
		nd("gpu3", "AddV2", in("x", "c3"), ta("T", "DT_FLOAT")),
		nd("cpu3", "Relu", in("c3"), ta("T", "DT_FLOAT")),
		constNode("c4", "DT_FLOAT", []int64{2, 3}),
		nd("gpu4", "AddV2", in("x", "c4"), ta("T", "DT_FLOAT")),
	))
	reg := cpuOps + `
AddV2 GPU T=float32
Const GPU dtype=float32
Placeholder DEFAULT
`
	r := simulate(t, g, "GPU", reg, Options{})
	d := devices(r)
	assert.Equal(t, []string{"GPU:0", "CPU:0", "GPU:0", "GPU:0"}, []string{d["c1"], d["c2"], d["c3"], d["c4"]})
	assert.Equal(t, "CPU:0", d["cpu2"])
	for _, c := range []string{"c1", "c2", "c4"} {
		assert.Contains(t, reasonsOf(r, c)[0], "generator follows its consumers", c)
	}
	assert.NotContains(t, strings.Join(reasonsOf(r, "c3"), "\n"), "generator follows", "consumers on two devices")
	assert.True(t, strings.HasPrefix(reasonsOf(r, "c2")[0], "CPU:0"), reasonsOf(r, "c2")[0])
}

// S2: kernel priority beats device priority. Iterator ops have CPU
// Priority(2) and GPU Priority(1) (iterator_ops.cc:1092-1136), sorted by
// kernel priority (op_kernel.cc:1586-1591) and colocated by the resource
// edge (colocation_graph.cc:778-781): CPU. The float output moves H2D.
func TestS2KernelPriority(t *testing.T) {
	g := buildGraph(t, graphText(
		nd("it", "IteratorV2", nil, sa("shared_name", ""), sa("container", ""),
			tla("output_types", "DT_FLOAT"), `attr { key: "output_shapes" value { list { shape `+shapeProto(2, 3)+` } } }`),
		nd("next", "IteratorGetNext", in("it"), tla("output_types", "DT_FLOAT"),
			`attr { key: "output_shapes" value { list { shape `+shapeProto(2, 3)+` } } }`),
		constNode("w", "DT_FLOAT", []int64{3, 4}),
		nd("mm", "MatMul", in("next", "w"), ta("T", "DT_FLOAT")),
	))
	reg := cpuOps + `
IteratorV2 CPU prio=2
IteratorGetNext CPU prio=2
IteratorV2 GPU prio=1 host=handle
IteratorGetNext GPU prio=1 host=iterator
MatMul GPU T=float32
Const GPU dtype=float32|int64
`
	r := simulate(t, g, "GPU", reg, Options{})
	assert.Equal(t, map[string]string{"it": "CPU:0", "next": "CPU:0", "w": "GPU:0", "mm": "GPU:0"}, devices(r))
	assert.Equal(t, 1, r.Transfers)
	assert.Equal(t, int64(24), r.TransferBytes)
	assert.Contains(t, strings.Join(reasonsOf(r, "next"), "\n"), "priority")
}

func adagradDA(varName string) []string {
	return []string{
		nd("acc1", "VarHandleOp", nil, ta("dtype", "DT_FLOAT"), sha("shape", 4, 4), sa("shared_name", "acc1")),
		nd("acc2", "VarHandleOp", nil, ta("dtype", "DT_FLOAT"), sha("shape", 4, 4), sa("shared_name", "acc2")),
		constNode("grad", "DT_FLOAT", []int64{4, 4}),
		constNode("lr", "DT_FLOAT", nil),
		constNode("l1", "DT_FLOAT", nil),
		constNode("l2", "DT_FLOAT", nil),
		constNode("step", "DT_INT64", nil, 1),
		nd("apply", "ResourceApplyAdagradDA", in(varName, "acc1", "acc2", "grad", "lr", "l1", "l2", "step"), ta("T", "DT_FLOAT")),
	}
}

const varReg = `
VarHandleOp GPU dtype=float32 host=resource
ReadVariableOp GPU dtype=float32 host=resource
MatMul GPU T=float32
Const GPU dtype=float32|int64
Placeholder DEFAULT
`

// S3: a CPU-only consumer (ResourceApplyAdagradDA, training_ops.cc:2373-2386)
// drags the variable's resource group to CPU (colocation_graph.cc:424-488,
// 778-781); MatMul stays on GPU and the read value moves H2D once per step.
// S13 (place before prune) is the same graph: the session places the
// unpruned graph (graph_execution_state.cc:614-650), so fetching only mm
// changes nothing.
func TestS3CPUOnlyConsumerDragsVariable(t *testing.T) {
	nodes := []string{
		nd("v", "VarHandleOp", nil, ta("dtype", "DT_FLOAT"), sha("shape", 4, 4), sa("shared_name", "v")),
		nd("read", "ReadVariableOp", in("v"), ta("dtype", "DT_FLOAT")),
		placeholder("x", "DT_FLOAT", 2, 4),
		nd("mm", "MatMul", in("x", "read"), ta("T", "DT_FLOAT")),
	}
	nodes = append(nodes, adagradDA("v")...)
	g := buildGraph(t, graphText(nodes...), "serving_default=x:0->mm:0")
	r := simulate(t, g, "GPU", cpuOps+varReg, Options{})
	d := devices(r)
	for _, n := range []string{"v", "read", "apply", "acc1", "acc2", "grad", "step"} {
		assert.Equal(t, "CPU:0", d[n], n)
	}
	assert.Equal(t, "GPU:0", d["mm"])
	assert.Equal(t, 1, r.Transfers)
	assert.Equal(t, int64(64), r.TransferBytes)
	assert.Contains(t, strings.Join(reasonsOf(r, "read"), "\n"),
		"CPU:0: colocated with ResourceApplyAdagradDA apply (no kernel on GPU) through resource edge from VarHandleOp v")
	// Islands: one CPU island holding the variable group, 64 bytes out.
	require.NotEmpty(t, r.Islands)
	assert.Equal(t, int64(64), r.Islands[0].Bytes)
	assert.Contains(t, r.Islands[0].Cause, "ResourceApplyAdagradDA")
	// Wishlist: a GPU ResourceApplyAdagradDA removes the transfer.
	var found bool
	for _, w := range r.Wishlist {
		if w.Op == "ResourceApplyAdagradDA" {
			found = true
			assert.Equal(t, "float32", w.DType)
			assert.Equal(t, int64(64), w.BytesRemoved)
			assert.Equal(t, 1, w.TransfersRemoved)
		}
	}
	assert.True(t, found, "wishlist %+v", r.Wishlist)
}

// S4 variant: a session graph whose VarHandleOp asks for GPU, with soft
// placement: the whole group moves to CPU with the "resources moved"
// warning (colocation_graph.cc:1193-1221, 1525-1529).
func TestS4SessionResourceDeviceMoves(t *testing.T) {
	nodes := []string{
		nd("v", "VarHandleOp", nil, ta("dtype", "DT_FLOAT"), sha("shape", 4, 4), sa("shared_name", "v"), dev("/device:GPU:0")),
		nd("read", "ReadVariableOp", in("v"), ta("dtype", "DT_FLOAT")),
	}
	nodes = append(nodes, adagradDA("v")...)
	g := buildGraph(t, graphText(nodes...))
	r := simulate(t, g, "GPU", cpuOps+varReg, Options{})
	assert.Equal(t, "CPU:0", devices(r)["v"])
	assert.Equal(t, "CPU:0", devices(r)["read"])
	assert.Empty(t, r.Errors)
	assert.Contains(t, strings.Join(r.Warnings, "\n"), "Failed to place the graph without changing the devices of some resources")

	// Without soft placement TF refuses.
	r = simulate(t, g, "GPU", cpuOps+varReg, Options{NoSoftPlacement: true})
	require.NotEmpty(t, r.Error)
	assert.Contains(t, r.Error, "Cannot assign a device for operation")
	assert.Contains(t, r.Error, "Could not satisfy explicit device specification")
}

// S4: in a TF2 function the resource _Arg is *assigned* to GPU:0; an
// assigned device keeps its type in soft relaxation (colocation_graph.cc:583-593,
// 1204-1210, 1324-1340), so TF raises even with soft placement.
func TestS4FunctionPinnedResourceArg(t *testing.T) {
	g := buildGraph(t, `graph_def { library { function {
  signature { name: "train" input_arg { name: "v" type: DT_RESOURCE }
    output_arg { name: "out" type: DT_FLOAT } is_stateful: true }
  node_def { name: "read" op: "ReadVariableOp" input: "v" attr { key: "dtype" value { type: DT_FLOAT } } }
  node_def { name: "acc1" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } dim { size: 4 } } } } }
  node_def { name: "acc2" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } dim { size: 4 } } } } }
  node_def { name: "g" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 4 } dim { size: 4 } } float_val: 1 } } } }
  node_def { name: "s" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }
  node_def { name: "step" op: "Const" attr { key: "dtype" value { type: DT_INT64 } } attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape { } int64_val: 1 } } } }
  node_def { name: "apply" op: "ResourceApplyAdagradDA" input: "v" input: "acc1:resource:0" input: "acc2:resource:0" input: "g:output:0" input: "s:output:0" input: "s:output:0" input: "s:output:0" input: "step:output:0" attr { key: "T" value { type: DT_FLOAT } } }
  ret { key: "out" value: "read:value:0" }
} } }`)
	r := simulate(t, g, "GPU", cpuOps+varReg, Options{})
	require.NotEmpty(t, r.Errors)
	assert.Contains(t, r.Error, "Could not satisfy explicit device specification '' because the node {{colocation_node ")
	assert.Contains(t, r.Error, "was colocated with a group of nodes that required incompatible device '/job:localhost/replica:0/task:0/device:GPU:0'")
}

// S5: Shape follows its input (Heuristic B, placer.cc:257-271) onto CPU
// after the CPU-only NonMaxSuppressionV5 (non_max_suppression_op.cc:1066-1070);
// boxes and scores computed on GPU cost 2 D2H.
func TestS5ShapeFollowsInput(t *testing.T) {
	g := buildGraph(t, graphText(
		placeholder("b0", "DT_FLOAT", 10, 4),
		placeholder("s0", "DT_FLOAT", 10),
		nd("boxes", "Identity", in("b0"), ta("T", "DT_FLOAT")),
		nd("scores", "Identity", in("s0"), ta("T", "DT_FLOAT")),
		constNode("maxout", "DT_INT32", nil, 5),
		constNode("iou", "DT_FLOAT", nil),
		constNode("thr", "DT_FLOAT", nil),
		constNode("sigma", "DT_FLOAT", nil),
		nd("nms", "NonMaxSuppressionV5", in("boxes", "scores", "maxout", "iou", "thr", "sigma"), ta("T", "DT_FLOAT")),
		nd("shape", "Shape", in("nms"), ta("T", "DT_INT32"), ta("out_type", "DT_INT32")),
	))
	reg := cpuOps + `
Identity GPU T=float32
Shape GPU T=int32|float32 host=output
Const GPU dtype=float32|int64
Placeholder DEFAULT
`
	r := simulate(t, g, "GPU", reg, Options{})
	d := devices(r)
	assert.Equal(t, "CPU:0", d["nms"])
	assert.Equal(t, "CPU:0", d["shape"])
	assert.Equal(t, "GPU:0", d["boxes"])
	assert.Equal(t, "GPU:0", d["scores"])
	assert.Equal(t, 2, r.Transfers)
	assert.Equal(t, int64(160+40), r.TransferBytes)
	assert.Contains(t, strings.Join(reasonsOf(r, "shape"), "\n"), "metadata op follows its input")
}

// S6: a same-device copy where one side of an edge keeps the tensor in
// host memory and the other does not (graph_partition.cc:126-145): Shape's
// output is HostMemory (shape_ops.cc:39-49) but the GPU Cast has none
// (cast_op.cc:242-253), one H2D of rank×4 bytes; and the other way, a
// producer whose every port is in device memory feeds an input its
// consumer's kernel keeps in host memory, one D2H, found however few of a
// graph's nodes need a copy.
func TestS6SameDeviceCopies(t *testing.T) {
	for _, c := range []struct {
		name, kind string
		nodes      []string
		reg        string
		bytes      int64
	}{
		{"from host memory", "same_device_h2d", []string{
			nd("x", "Identity", in("p"), ta("T", "DT_FLOAT")),
			nd("sh", "Shape", in("x"), ta("T", "DT_FLOAT"), ta("out_type", "DT_INT32")),
			nd("c", "Cast", in("sh"), ta("SrcT", "DT_INT32"), ta("DstT", "DT_FLOAT")),
		}, `
Identity GPU T=float32
Shape GPU T=float32 out_type=int32 host=output
Cast GPU SrcT=int32|float32 DstT=float32|int32
`, 12},
		{"into host memory", "same_device_d2h", []string{
			nd("x", "Relu", in("p"), ta("T", "DT_FLOAT")),
			nd("y", "Relu", in("x"), ta("T", "DT_FLOAT")),
			nd("z", "Softplus", in("y"), ta("T", "DT_FLOAT")),
		}, `
Relu GPU T=float32
Softplus GPU T=float32 host=features
`, 120},
	} {
		g := buildGraph(t, graphText(append([]string{placeholder("p", "DT_FLOAT", 2, 3, 5)}, c.nodes...)...))
		r := simulate(t, g, "GPU", cpuOps+c.reg+"Placeholder DEFAULT\n", Options{})
		d := devices(r)
		assert.Len(t, d, 4, c.name)
		for n, dev := range d {
			assert.Equal(t, "GPU:0", dev, "%s: %s", c.name, n)
		}
		require.Equal(t, 1, r.Transfers, c.name)
		assert.Equal(t, c.bytes, r.TransferBytes, c.name)
		assert.Equal(t, []string{c.kind}, kinds(r, false), c.name)
	}
}

// S7: a device-specific Unique kernel beats the DEFAULT host-memory one
// (op_kernel.cc:1419-1422; unique_op_gpu_2.cu.cc:24-36): 0 transfers.
// UniqueV2 is CPU only (unique_op.cc:253-262): 1 D2H in, 2 H2D out.
func TestS7DeviceKernelBeatsDefault(t *testing.T) {
	build := func(op string, extra string) string {
		return graphText(
			placeholder("p", "DT_FLOAT", 6),
			nd("x", "Cast", in("p"), ta("SrcT", "DT_FLOAT"), ta("DstT", "DT_INT64")),
			constNode("axis", "DT_INT64", []int64{1}, 0),
			nd("u", op, append(in("x"), strings.Fields(extra)...), ta("T", "DT_INT64"), ta("out_idx", "DT_INT32"), ta("Taxis", "DT_INT64")),
			nd("y", "Cast", in("u"), ta("SrcT", "DT_INT64"), ta("DstT", "DT_FLOAT")),
			nd("idx", "Cast", in("u:1"), ta("SrcT", "DT_INT32"), ta("DstT", "DT_FLOAT")),
		)
	}
	reg := cpuOps + `
Cast GPU
Unique GPU T=int64 out_idx=int32
Unique DEFAULT T=int64|string out_idx=int32 host=x,y,idx
Const GPU dtype=int64
Placeholder DEFAULT
`
	r := simulate(t, buildGraph(t, build("Unique", "")), "GPU", reg, Options{})
	assert.Equal(t, "GPU:0", devices(r)["u"])
	assert.Contains(t, strings.Join(reasonsOf(r, "u"), "\n"), "GPU:0: kernel on GPU")
	assert.Equal(t, 0, r.Transfers)

	r = simulate(t, buildGraph(t, build("UniqueV2", "axis")), "GPU", reg, Options{})
	d := devices(r)
	assert.Equal(t, "CPU:0", d["u"])
	assert.Equal(t, "GPU:0", d["y"])
	assert.Equal(t, 3, r.Transfers)
	assert.Equal(t, []string{"d2h", "h2d", "h2d"}, kinds(r, false))
	// Unique's outputs are data-dependent in size: only x's 6 int64 count.
	assert.Equal(t, int64(6*8), r.TransferBytes)
	// So are y and idx, the graph's outputs (graph.PossibleOutputs), which
	// the client fetches from GPU:0; the feed of p is the third copy.
	assert.Equal(t, 3, r.IOTransfers)
	assert.Equal(t, int64(6*4), r.IOBytes)
	assert.Equal(t, 2+2, r.UnknownBytes)
}

// S8: `_class` with conflicting explicit devices: under soft placement the
// merged request loses type and id (device_name_utils.cc:384-416), both go
// to GPU; without it, "Cannot colocate nodes ... incompatible types"
// (colocation_graph.cc:1132-1139).
func TestS8ClassConflict(t *testing.T) {
	g := buildGraph(t, graphText(
		placeholder("p", "DT_FLOAT", 2),
		nd("B", "Identity", in("p"), ta("T", "DT_FLOAT"), dev("/device:CPU:0")),
		nd("A", "Identity", in("p"), ta("T", "DT_FLOAT"), dev("/device:GPU:0"), classA("B")),
	))
	reg := cpuOps + "Identity GPU T=float32\nPlaceholder DEFAULT\n"
	r := simulate(t, g, "GPU", reg, Options{})
	assert.Equal(t, "GPU:0", devices(r)["A"])
	assert.Equal(t, "GPU:0", devices(r)["B"])
	assert.Empty(t, r.Errors)

	r = simulate(t, g, "GPU", reg, Options{NoSoftPlacement: true})
	require.NotEmpty(t, r.Errors)
	// A comes after B and is colocated with B's group, so A is named
	// first and its request is the merge target (colocation_graph.cc:1071-1098,
	// 323-366, 1132-1139).
	assert.Equal(t, "Cannot colocate nodes {{colocation_node A}} and {{colocation_node B}}: Cannot merge devices with incompatible types: '/device:GPU:0' and '/device:CPU:0'", r.Error)
}

// S9: list(type) constraints: every element must be allowed, empty lists
// match (kernel_def_util.cc:122-139; py_func.cc:413-425).
func TestS9ListTypeMatching(t *testing.T) {
	g := buildGraph(t, graphText(
		placeholder("f", "DT_FLOAT", 2),
		placeholder("i", "DT_INT32", 2),
		nd("one", "EagerPyFunc", in("f"), sa("token", "a"), tla("Tin", "DT_FLOAT"), tla("Tout", "DT_FLOAT")),
		nd("two", "EagerPyFunc", in("f", "i"), sa("token", "b"), tla("Tin", "DT_FLOAT", "DT_INT32"), tla("Tout", "DT_FLOAT")),
		nd("none", "EagerPyFunc", nil, sa("token", "c"), tla("Tin"), tla("Tout")),
	))
	reg := cpuOps + "EagerPyFunc DEFAULT Tin=float32|float16|float64 Tout=float32|float16|float64\nPlaceholder DEFAULT\n"
	r := simulate(t, g, "GPU", reg, Options{})
	d := devices(r)
	assert.Equal(t, "GPU:0", d["one"])
	assert.Equal(t, "CPU:0", d["two"])
	assert.Equal(t, "GPU:0", d["none"])
}

// S10: Identity(variant) of a TensorList of strings is limited to CPU by
// AddHostOnlyDataTypesConstraints (colocation_graph.cc:812-911): 0 transfers.
func TestS10HostOnlyVariant(t *testing.T) {
	g := buildGraph(t, graphText(
		placeholder("s", "DT_STRING", 3),
		constNode("es", "DT_INT32", nil, -1),
		nd("tl", "TensorListFromTensor", in("s", "es"), ta("element_dtype", "DT_STRING"), ta("shape_type", "DT_INT32")),
		nd("id", "Identity", in("tl"), ta("T", "DT_VARIANT")),
		nd("st", "TensorListStack", in("id", "es"), ta("element_dtype", "DT_STRING"), ia("num_elements", -1)),
	))
	reg := cpuOps + `
Identity GPU T=float32|variant
TensorListFromTensor GPU element_dtype=float32 host=element_shape
TensorListStack GPU element_dtype=float32 host=element_shape
Const DEFAULT dtype=int32 host=output
Placeholder DEFAULT
`
	r := simulate(t, g, "GPU", reg, Options{})
	d := devices(r)
	for _, n := range []string{"tl", "id", "st", "s", "es"} {
		assert.Equal(t, "CPU:0", d[n], n)
	}
	assert.Equal(t, 0, r.Transfers)
	assert.Contains(t, strings.Join(reasonsOf(r, "id"), "\n"), "host-only variant")
}

// S14: NoOp has only DEFAULT kernels (no_op.cc:20); in a CPU-only device
// set DEFAULT matches (op_kernel.cc:1419-1446).
func TestS14DefaultOnCPU(t *testing.T) {
	g := buildGraph(t, graphText(nd("n", "NoOp", nil)))
	r := simulate(t, g, "CPU", "NoOp DEFAULT\n", Options{})
	assert.Equal(t, map[string]string{"n": "CPU:0"}, devices(r))
	assert.Empty(t, r.Errors)
}

// S15: a `_kernel` label no registration carries matches nothing on any
// device: "No OpKernel was registered to support Op 'Identity'"
// (op_kernel.cc:1363-1390; colocation_graph.cc:1508-1521).
func TestS15Label(t *testing.T) {
	g := buildGraph(t, graphText(
		placeholder("p", "DT_FLOAT", 2),
		nd("n", "Identity", in("p"), ta("T", "DT_FLOAT"), sa("_kernel", "nonexistent")),
	))
	r := simulate(t, g, "GPU", cpuOps+"Identity GPU T=float32\nPlaceholder DEFAULT\n", Options{})
	require.NotEmpty(t, r.Errors)
	// KernelsRegisteredForOp lists every kernel of the op, any label
	// (op_kernel.cc:1632-1649).
	assert.Equal(t, "No OpKernel was registered to support Op 'Identity' used by {{node n}} with these attrs: [T=DT_FLOAT, _kernel=\"nonexistent\"]\n"+
		"Registered devices: [CPU, GPU]\nRegistered kernels:\n  device='GPU'; T in [DT_FLOAT]\n  device='CPU'", r.Error)
}

// S16: stripped default attrs are re-added (graph_constructor.cc:1292-1294),
// so ApproxTopK matches its constrained CPU kernel (topk_op.cc:271-278).
func TestS16StrippedDefaults(t *testing.T) {
	g := buildGraph(t, graphText(
		placeholder("p", "DT_FLOAT", 4, 8),
		nd("k", "ApproxTopK", in("p"), ia("k", 2), ta("T", "DT_FLOAT")),
	))
	r := simulate(t, g, "GPU", cpuOps+"ApproxTopK CPU reduction_dimension=-1 is_max_k=true\nPlaceholder DEFAULT\n", Options{})
	assert.Equal(t, "CPU:0", devices(r)["k"])
	assert.Empty(t, r.Errors)
}

// S17: an int32 variable: VarHandleOp has no GPU/DEFAULT int32 kernel
// (resource_variable_ops.cc:287-316) so the group is CPU; in a function
// its _Arg is pinned to CPU as well.
func TestS17IntVariable(t *testing.T) {
	g := buildGraph(t, graphText(
		nd("v", "VarHandleOp", nil, ta("dtype", "DT_INT32"), sha("shape"), sa("shared_name", "v")),
		constNode("one", "DT_INT32", nil, 1),
		nd("add", "AssignAddVariableOp", in("v", "one"), ta("dtype", "DT_INT32")),
	))
	reg := cpuOps + `
VarHandleOp GPU dtype=float32 host=resource
AssignAddVariableOp DEFAULT dtype=int32|float32 host=resource
Const DEFAULT dtype=int32 host=output
`
	r := simulate(t, g, "GPU", reg, Options{})
	assert.Equal(t, map[string]string{"v": "CPU:0", "one": "CPU:0", "add": "CPU:0"}, devices(r))
	assert.Empty(t, r.Errors)

	fg := buildGraph(t, `graph_def { library { function {
  signature { name: "inc" input_arg { name: "v" type: DT_RESOURCE } is_stateful: true }
  node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } } }
  node_def { name: "add" op: "AssignAddVariableOp" input: "v" input: "one:output:0" attr { key: "dtype" value { type: DT_INT32 } } }
} } }`)
	r = simulate(t, fg, "GPU", reg, Options{})
	assert.Equal(t, "CPU:0", devices(r)["add"])
	assert.Empty(t, r.Errors)
}

// S18: a DEFAULT kernel keeps the variable on the pluggable device
// (resource_variable_ops.cc:665-677): every node on TESTDEV:0, no
// in-model transfer; feed x and fetch out cost 8192 bytes each.
func TestS18DefaultKernelOnPluggableDevice(t *testing.T) {
	g := buildGraph(t, graphText(
		nd("v", "VarHandleOp", nil, ta("dtype", "DT_FLOAT"), sha("shape", 256, 256), sa("shared_name", "v")),
		nd("read", "ReadVariableOp", in("v"), ta("dtype", "DT_FLOAT")),
		placeholder("x", "DT_FLOAT", 8, 256),
		nd("mm", "MatMul", in("x", "read"), ta("T", "DT_FLOAT")),
		nd("out", "Identity", in("mm"), ta("T", "DT_FLOAT")),
		constNode("delta", "DT_FLOAT", []int64{256, 256}),
		nd("update", "AssignAddVariableOp", in("v", "delta"), ta("dtype", "DT_FLOAT")),
	), "serving_default=x:0->out:0")
	reg := cpuOps + `
MatMul TESTDEV T=float32|float16
Identity TESTDEV T=float32|float16|int32
Const TESTDEV dtype=float32|float16
Placeholder TESTDEV
VarHandleOp TESTDEV dtype=float32 host=resource
ReadVariableOp TESTDEV dtype=float32 host=resource
AssignAddVariableOp DEFAULT dtype=float32|float16|float64|int32|int64 host=resource
`
	r := simulate(t, g, "TESTDEV", reg, Options{})
	for n, d := range devices(r) {
		assert.Equal(t, "TESTDEV:0", d, n)
	}
	assert.Equal(t, 0, r.Transfers)
	assert.Equal(t, 2, r.IOTransfers)
	assert.Equal(t, int64(16384), r.IOBytes)
	assert.Equal(t, 1, r.Partitions)

	// The trap: without the DEFAULT kernel the group goes to CPU and the
	// read moves H2D (262144 bytes).
	noDefault := strings.Replace(reg, "AssignAddVariableOp DEFAULT", "AssignAddVariableOp CPU", 1)
	r = simulate(t, g, "TESTDEV", noDefault, Options{})
	assert.Equal(t, "CPU:0", devices(r)["v"])
	assert.Equal(t, int64(262144), r.TransferBytes)
}

// kinds lists the kinds of the in-model (io=false) or boundary transfers, sorted.
func kinds(r *Result, io bool) []string {
	var out []string
	for _, x := range r.TransferList {
		if x.IO == io {
			out = append(out, x.Kind)
		}
	}
	sort.Strings(out)
	return out
}
