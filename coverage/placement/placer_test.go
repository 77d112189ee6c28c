package placement

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Cases of TensorFlow 2.15's own placer tests
// (tensorflow/core/common_runtime/placer_test.cc), each row naming the test
// it ports. placer_test.cc registers fake ops on FakeCPU and FakeGPU devices
// of job "a"; here real ops with a hand-written registry stand in for them
// on CPU and GPU of /job:localhost/replica:0/task:0 (placer_test.cc:133-207):
//
//	TestInput (CPU only, float out)      Const
//	TestDevice (GPU only, float out)     Placeholder
//	TestCPUGPUOutput (both, float out)   PlaceholderV2
//	TestRelu / ReluCPU / ReluGPU         Relu / Elu / Selu
//	TestVariable / VariableCPU / -GPU    TemporaryVariable / Variable / VariableV2 (ref outputs)
//	TestAssign / AssignCPU / AssignGPU   Assign / AssignAdd / AssignSub (ref inputs)
//	TestDeviceEnforce (ref in, both)     RefIdentity
//	TestHandleVariable / -CPU / -GPU     VarHandleOp / HashTableV2 / MutableHashTableV2
//	TestHandleAssign / -CPU / -GPU       AssignVariableOp / AssignAddVariableOp / AssignSubVariableOp
//	TestTwoHandlesIn                     ResourceApplyAdagrad
//
// The expected messages are TF's, with FakeCPU/FakeGPU read as CPU/GPU and
// job "a" as "localhost"; TF appends "Colocation Debug Info" to some of
// them and "[[{{node ...}}]]" (AttachDef) to all, which tfscan leaves out.
const placerReg = `
Const CPU
Placeholder GPU
PlaceholderV2 CPU
PlaceholderV2 GPU
Relu CPU
Relu GPU
Elu CPU
Selu GPU
TemporaryVariable CPU
TemporaryVariable GPU
Variable CPU
VariableV2 GPU
Assign CPU
Assign GPU
AssignAdd CPU
AssignSub GPU
RefIdentity CPU
RefIdentity GPU
VarHandleOp CPU
VarHandleOp GPU
HashTableV2 CPU
MutableHashTableV2 GPU
AssignVariableOp CPU
AssignVariableOp GPU
AssignAddVariableOp CPU
AssignSubVariableOp GPU
ResourceApplyAdagrad CPU
ResourceApplyAdagrad GPU
Identity CPU
Identity GPU
`

// The stand-in nodes, each with the attrs its op needs.
func testInput(name string, extra ...string) string {
	return nd(name, "Const", nil, append([]string{ta("dtype", "DT_FLOAT"),
		`attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 } } }`}, extra...)...)
}

func source(name, op string, extra ...string) string {
	return nd(name, op, nil, append([]string{ta("dtype", "DT_FLOAT"), sha("shape", 2)}, extra...)...)
}

func unary(name, op, input string, extra ...string) string {
	return nd(name, op, in(input), append([]string{ta("T", "DT_FLOAT")}, extra...)...)
}

func assignNode(name, op, ref, value string, extra ...string) string {
	return nd(name, op, in(ref, value), append([]string{ta("T", "DT_FLOAT")}, extra...)...)
}

func handleVar(name, op string, extra ...string) string {
	switch op {
	case "HashTableV2", "MutableHashTableV2":
		return nd(name, op, nil, append([]string{ta("key_dtype", "DT_FLOAT"), ta("value_dtype", "DT_FLOAT")}, extra...)...)
	}
	return source(name, op, extra...)
}

func handleAssign(name, op, handle, value string) string {
	return nd(name, op, in(handle, value), ta("dtype", "DT_FLOAT"))
}

func resourceArg(name, device string) string {
	return nd(name, "_Arg", nil, ta("T", "DT_RESOURCE"), ia("index", 0), dev(device))
}

func resourceIdentity(name, input string, extra ...string) string {
	return nd(name, "Identity", in(input), append([]string{ta("T", "DT_RESOURCE")}, extra...)...)
}

const (
	cpu0      = "/job:localhost/replica:0/task:0/device:CPU:0"
	gpu0      = "/job:localhost/replica:0/task:0/device:GPU:0"
	available = "[ /job:localhost/replica:0/task:0/device:CPU:0, /job:localhost/replica:0/task:0/device:GPU:0 ]"
)

func TestPlacerCases(t *testing.T) {
	for _, tc := range []struct {
		tfTest string // placer_test.cc test, "/soft" or "/hard" for parameterised ones
		nodes  []string
		hard   bool   // allow_soft_placement=false
		target string // device type of the target, default GPU
		reg    string // registry, default placerReg
		// devices, colocated and apart check the placement.
		devices   map[string]string
		colocated [][2]string
		apart     [][2]string
		// err is the whole first error, or with errPart its start.
		err     string
		errPart bool
	}{
		{tfTest: "TestColocationGroup",
			nodes:     []string{testInput("in"), unary("colocated_1", "Relu", "in", classA("in")), unary("foo", "Relu", "in")},
			colocated: [][2]string{{"in", "colocated_1"}}, apart: [][2]string{{"in", "foo"}}},
		{tfTest: "TestMultipleColocationGroups",
			nodes:     []string{testInput("in"), unary("colocated_1", "Relu", "in", classA("in")), unary("foo", "Relu", "in", classA("in", "colocated_1"))},
			colocated: [][2]string{{"in", "colocated_1"}, {"in", "foo"}}},
		{tfTest: "TestChainColocation",
			nodes:     []string{testInput("in"), unary("colocated_1", "Relu", "in", classA("in")), unary("foo", "Relu", "in", classA("colocated_1"))},
			colocated: [][2]string{{"in", "colocated_1"}, {"in", "foo"}}},
		{tfTest: "TestInvalidMultipleColocationGroups/soft",
			nodes:   []string{testInput("in"), unary("colocated_1", "Elu", "in", classA("in")), unary("foo", "Selu", "in", classA("in", "colocated_1"))},
			devices: map[string]string{"in": "CPU:0", "colocated_1": "CPU:0", "foo": "GPU:0"}},
		{tfTest: "TestInvalidMultipleColocationGroups/hard", hard: true,
			nodes: []string{testInput("in"), unary("colocated_1", "Elu", "in", classA("in")), unary("foo", "Selu", "in", classA("in", "colocated_1"))},
			err:   "Cannot colocate nodes {{colocation_node foo}} and {{colocation_node in}} because no device type supports both of those nodes and the other nodes colocated with them."},
		{tfTest: "TestColocationGroupWithUnsatisfiableReferenceConnections/soft",
			nodes: unsatisfiableRefNodes()},
		{tfTest: "TestColocationGroupWithUnsatisfiableReferenceConnections/hard", hard: true,
			nodes: unsatisfiableRefNodes(),
			err:   "Cannot colocate nodes {{colocation_node assign3}} and {{colocation_node var2}} because no device type supports both of those nodes and the other nodes colocated with them."},
		{tfTest: "TestUnknownDevice", // also TestUnknownMergedDevice
			nodes: []string{testInput("in", dev("/job:foo"))},
			err:   "Cannot assign a device for operation in: {{node in}} was explicitly assigned to /job:foo but available devices are " + available + ". Make sure the device specification refers to a valid device."},
		{tfTest: "TestNoKernelsRegisteredWithNoRequestedDevice", reg: "",
			nodes: []string{source("var", "VariableV2")},
			err:   "No OpKernel was registered to support Op 'VariableV2' used by {{node var}} with these attrs: [container=\"\", dtype=DT_FLOAT, shape=[2], shared_name=\"\"]\nRegistered devices: [CPU, GPU]\nRegistered kernels:\n  <no registered kernels>"},
		{tfTest: "TestMalformedDeviceSpecification",
			nodes: []string{testInput("in", dev("/foo:bar"))},
			err:   `Malformed device specification '/foo:bar' in node: {name:'in' id:2 op device:{requested: '/foo:bar', assigned: ''} def:{{{node in}} = Const[dtype=DT_FLOAT, value=Tensor<type: float shape: [2]>, _device="/foo:bar"]()}}`},
		{tfTest: "TestMalformedDeviceSpecification (soft placement off)", hard: true,
			nodes: []string{testInput("in", dev("/foo:bar"))},
			err:   "Malformed device specification '/foo:bar' in node: ", errPart: true},
		{tfTest: "TestNonexistentGpuAllowSoftPlacement",
			nodes:   []string{source("in", "Placeholder", dev("/device:GPU:11"))},
			devices: map[string]string{"in": "GPU:0"}},
		{tfTest: "TestNonexistentGpuNoAllowSoftPlacement", // and ...FormatTag
			hard: true, nodes: []string{source("in", "Placeholder", dev("/device:GPU:11"))},
			err: "Cannot assign a device for operation in: {{node in}} was explicitly assigned to /device:GPU:11 but available devices are " + available + ". Make sure the device specification refers to a valid device."},
		{tfTest: "TestUnsupportedDeviceNoAllowSoftPlacement", hard: true,
			nodes: []string{source("var", "VariableV2", dev("/device:CPU:0"))},
			err:   "Cannot assign a device for operation var: Could not satisfy explicit device specification '/device:CPU:0' because no supported kernel for CPU devices is available.\nOp: VariableV2\nNode attrs: container=\"\", dtype=DT_FLOAT, shape=[2], shared_name=\"\"\nRegistered kernels:\n  device='GPU'"},
		{tfTest: "TestNonExistentDevice", hard: true,
			nodes: []string{source("var", "VariableV2", dev("/job:foo/replica:17"))},
			err:   "Cannot assign a device for operation var: {{node var}} was explicitly assigned to /job:foo/replica:17 but available devices are " + available + ". Make sure the device specification refers to a valid device."},
		{tfTest: "TestUseGpuWithNoCuda", hard: true, target: "XPU", reg: "VariableV2 XPU\n",
			nodes: []string{source("var", "VariableV2", dev("/device:gpu:0"))},
			err:   "Cannot assign a device for operation var: {{node var}} was explicitly assigned to /device:gpu:0 but available devices are [ /job:localhost/replica:0/task:0/device:CPU:0, /job:localhost/replica:0/task:0/device:XPU:0 ]. Make sure the device specification refers to a valid device. The requested device appears to be a GPU, but CUDA is not enabled."},
		{tfTest: "TestUnsupportedDeviceAllowSoftPlacement",
			nodes:   []string{testInput("a", dev("/device:GPU:0"))},
			devices: map[string]string{"a": "CPU:0"}},
		{tfTest: "TestDeviceTypeConstraintsAllowSoftPlacement",
			nodes: []string{source("var_gpu", "VariableV2"), unary("force_gpu", "RefIdentity", "var_gpu", dev("/device:CPU:0")),
				source("var_cpu", "Variable"), unary("force_cpu", "RefIdentity", "var_cpu", dev("/device:GPU:0"))},
			devices: map[string]string{"var_gpu": "GPU:0", "force_gpu": "GPU:0", "var_cpu": "CPU:0", "force_cpu": "CPU:0"}},
		{tfTest: "TestUnsatisfiableConstraintWithReferenceConnections",
			nodes: []string{source("var", "VariableV2"), testInput("in"), assignNode("assign", "AssignAdd", "var", "in")},
			err:   "Nodes were connected by a reference or resource connection (requiring them to be on the same device), but the two nodes were assigned two different devices: Cannot colocate nodes {{colocation_node var}} and {{colocation_node assign}} because no device type supports both of those nodes and the other nodes colocated with them."},
		{tfTest: "TestReferenceConnectionIgnoreInfeasible", hard: true,
			nodes: []string{source("in", "Placeholder", dev("/job:localhost/task:0/device:GPU:0")),
				source("var_0", "TemporaryVariable", dev("/job:localhost/task:0/device:GPU:0")),
				assignNode("assign", "Assign", "var_0", "in", dev("/job:localhost/task:0/device:CPU:0"))},
			devices: map[string]string{"var_0": "GPU:0", "assign": "GPU:0"}},
		{tfTest: "TestReferenceConnectionMoreSpecificDestinationSourceWins", hard: true,
			nodes: []string{source("in", "PlaceholderV2", dev("/job:localhost/task:0")),
				source("var_0", "TemporaryVariable", dev("/job:localhost/task:0")),
				assignNode("assign", "Assign", "var_0", "in", dev("/job:localhost/task:0/device:CPU:0"))},
			devices: map[string]string{"var_0": "CPU:0", "assign": "CPU:0"}},
		{tfTest: "TestReferenceConnectionNoSourceDevice", hard: true,
			nodes: []string{source("in", "Placeholder", dev("/job:localhost/task:0/device:GPU:0")),
				source("var_0", "TemporaryVariable"),
				assignNode("assign", "Assign", "var_0", "in", dev("/job:localhost/task:0/device:CPU:0"))},
			devices: map[string]string{"var_0": "CPU:0", "assign": "CPU:0"}},
		{tfTest: "TestResourceHandlesOnDifferentDevicesFails/soft",
			nodes: differentHandleNodes(),
			err:   "Cannot place the graph because a reference or resource edge connects colocation groups with incompatible resource devices: " + gpu0 + " vs " + cpu0 + ". The edge src node is name='var_gpu' (op='VarHandleOp'), and the dst node is name='two_handles_in' (op='ResourceApplyAdagrad')."},
		{tfTest: "TestResourceHandlesOnDifferentDevicesFails/hard", hard: true,
			nodes: differentHandleNodes(),
			err:   "Cannot place the graph because a reference or resource edge connects colocation groups with incompatible resource devices: " + gpu0 + " vs " + cpu0 + ". The edge src node is name='var_gpu' (op='VarHandleOp'), and the dst node is name='two_handles_in' (op='ResourceApplyAdagrad')."},
		{tfTest: "RequestedDeviceOnResourceGeneratorIsTreatedAsAssigned/soft",
			nodes:   resourceGeneratorNodes(),
			devices: map[string]string{"a": "GPU:0", "id1": "GPU:0", "b": "CPU:0", "id2": "CPU:0"}},
		{tfTest: "RequestedDeviceOnResourceGeneratorIsTreatedAsAssigned/hard", hard: true,
			nodes: resourceGeneratorNodes(),
			err:   "Cannot colocate nodes {{colocation_node id2}} and {{colocation_node id1}}: Cannot merge devices with incompatible types: '/device:CPU:0' and '/device:GPU:0'"},
		{tfTest: "RequestedDeviceCanBeOverridden",
			nodes: []string{resourceArg("a", ""), resourceArg("b", ""),
				resourceIdentity("id_a", "a", dev("/device:GPU:0")), resourceIdentity("id_b", "b", dev("/device:CPU:0")),
				resourceIdentity("id1", "id_a", classA("id2")), resourceIdentity("id2", "id_b")},
			colocated: [][2]string{{"a", "b"}, {"id_a", "id_b"}, {"id1", "id2"}, {"a", "id_a"}, {"a", "id1"}}},
	} {
		t.Run(tc.tfTest, func(t *testing.T) {
			target, reg := tc.target, tc.reg
			if target == "" {
				target = "GPU"
			}
			if reg == "" && !strings.HasPrefix(tc.tfTest, "TestNoKernels") {
				reg = placerReg
			}
			g := buildGraph(t, graphText(tc.nodes...))
			r := simulate(t, g, target, reg, Options{NoSoftPlacement: tc.hard})
			d := devices(r)
			for n, want := range tc.devices {
				assert.Equal(t, want, d[n], n)
			}
			for _, p := range tc.colocated {
				assert.Equal(t, d[p[0]], d[p[1]], "%s and %s", p[0], p[1])
			}
			for _, p := range tc.apart {
				assert.NotEqual(t, d[p[0]], d[p[1]], "%s and %s", p[0], p[1])
			}
			switch {
			case tc.err == "":
				assert.Empty(t, r.Errors)
			case tc.errPart:
				require.NotEmpty(t, r.Errors)
				assert.True(t, strings.HasPrefix(r.Error, tc.err), r.Error)
			default:
				assert.Equal(t, tc.err, r.Error)
			}
		})
	}
}

// TestColocationGroupWithUnsatisfiableReferenceConnections
// (placer_test.cc:1364-1408).
func unsatisfiableRefNodes() []string {
	return []string{testInput("in"), source("var1", "Variable"), source("var2", "Variable"), source("var3", "VariableV2"),
		assignNode("assign1", "Assign", "var1", "in", classA("var1")),
		assignNode("assign2", "Assign", "var2", "in", classA("var2")),
		assignNode("assign3", "Assign", "var3", "in", classA("var2"))}
}

// TestResourceHandlesOnDifferentDevicesFails (placer_test.cc:1050-1106),
// requested devices.
func differentHandleNodes() []string {
	return []string{handleVar("var_cpu", "VarHandleOp", dev(cpu0)), handleVar("var_gpu", "VarHandleOp", dev(gpu0)),
		testInput("lr"), testInput("grad"),
		nd("two_handles_in", "ResourceApplyAdagrad", in("var_cpu", "var_gpu", "lr", "grad"), ta("T", "DT_FLOAT"))}
}

// RequestedDeviceOnResourceGeneratorIsTreatedAsAssigned
// (placer_test.cc:1952-1995): id1 names id2's group before id2 exists, so
// id1 is the group's root and id2 is colocated with it, id2 named first.
func resourceGeneratorNodes() []string {
	return []string{resourceArg("a", "/device:GPU:0"), resourceArg("b", "/device:CPU:0"),
		resourceIdentity("id1", "a", classA("id2")), resourceIdentity("id2", "b")}
}

// TestResourceHandle (placer_test.cc:1017-1048): a resource handle and its
// user share a device; no common kernel device is an error.
func TestPlacerResourceHandle(t *testing.T) {
	for _, tc := range []struct {
		variable, assign, want string // want "" = TF fails
	}{
		{"VarHandleOp", "AssignVariableOp", "GPU:0"},
		{"VarHandleOp", "AssignAddVariableOp", "CPU:0"},
		{"VarHandleOp", "AssignSubVariableOp", "GPU:0"},
		{"HashTableV2", "AssignVariableOp", "CPU:0"},
		{"HashTableV2", "AssignAddVariableOp", "CPU:0"},
		{"MutableHashTableV2", "AssignSubVariableOp", "GPU:0"},
		{"MutableHashTableV2", "AssignVariableOp", "GPU:0"},
		{"MutableHashTableV2", "AssignAddVariableOp", ""},
		{"HashTableV2", "AssignSubVariableOp", ""},
	} {
		g := buildGraph(t, graphText(testInput("in"), handleVar("var", tc.variable), handleAssign("assign", tc.assign, "var", "in")))
		r := simulate(t, g, "GPU", placerReg, Options{})
		name := tc.variable + "+" + tc.assign
		if tc.want == "" {
			assert.Equal(t, "Nodes were connected by a reference or resource connection (requiring them to be on the same device), but the two nodes were assigned two different devices: Cannot colocate nodes {{colocation_node var}} and {{colocation_node assign}} because no device type supports both of those nodes and the other nodes colocated with them.", r.Error, name)
			continue
		}
		assert.Empty(t, r.Errors, name)
		assert.Equal(t, tc.want, devices(r)["var"], name)
		assert.Equal(t, tc.want, devices(r)["assign"], name)
	}
}

// A `_class` group's root is the first node in graph order that carries the
// group's name (ColocateNodeToGroup, colocation_graph.cc:1071-1098), and a
// later node is colocated with it, named first in the error; here A
// carries "loc:@B" before B comes, the reverse of S8.
func TestClassRootIsFirstCarrier(t *testing.T) {
	g := buildGraph(t, graphText(
		testInput("p"),
		unary("A", "Relu", "p", dev("/device:GPU:0"), classA("B")),
		unary("B", "Relu", "A", dev("/device:CPU:0")),
	))
	r := simulate(t, g, "GPU", placerReg, Options{NoSoftPlacement: true})
	assert.Equal(t, "Cannot colocate nodes {{colocation_node B}} and {{colocation_node A}}: Cannot merge devices with incompatible types: '/device:CPU:0' and '/device:GPU:0'", r.Error)
}

// A malformed device fails placement whatever the soft-placement setting;
// an import with clear_devices=True drops top-level device fields first, so
// the same graph then places (meta_graph.py:776-780).
func TestMalformedDeviceAndClearDevices(t *testing.T) {
	g := buildGraph(t, graphText(testInput("in"), unary("r", "Relu", "in", dev("CPU:0"))))
	for _, hard := range []bool{false, true} {
		r := simulate(t, g, "GPU", placerReg, Options{NoSoftPlacement: hard})
		require.NotEmpty(t, r.Errors)
		assert.Equal(t, `Malformed device specification 'CPU:0' in node: {name:'r' id:3 op device:{requested: 'CPU:0', assigned: ''} def:{{{node r}} = Relu[T=DT_FLOAT, _device="CPU:0"](in)}}`, r.Error)
		assert.Contains(t, strings.Join(reasonsOf(r, "r"), "\n"), "TensorFlow fails: malformed device specification 'CPU:0'")
	}
	r := simulate(t, g, "GPU", placerReg, Options{ClearDevices: true})
	assert.Empty(t, r.Errors)
	assert.Equal(t, 1, r.ClearedDevices)
	assert.Equal(t, "GPU:0", devices(r)["r"])
}
