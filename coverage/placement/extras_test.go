package placement

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/testmodel"
	"github.com/tfscan/tfscan/tflog"
)

func convGraph(t testing.TB, dtype string) string {
	return graphText(
		placeholder("x", dtype, 1, 8, 8, 3),
		nd("f", "Const", nil, ta("dtype", dtype), `attr { key: "value" value { tensor { dtype: `+dtype+` tensor_shape `+shapeProto(3, 3, 3, 4)+` } } }`),
		nd("conv", "Conv2D", in("x", "f"), ta("T", dtype), sa("padding", "SAME"),
			`attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } }`),
		nd("b", "Const", nil, ta("dtype", dtype), `attr { key: "value" value { tensor { dtype: `+dtype+` tensor_shape `+shapeProto(4)+` } } }`),
		nd("bias", "BiasAdd", in("conv", "b"), ta("T", dtype)),
		nd("relu", "Relu", in("bias"), ta("T", dtype)),
		nd("mm", "MatMul", in("x2", "w2"), ta("T", dtype)),
		placeholder("x2", dtype, 2, 4),
		nd("w2", "Const", nil, ta("dtype", dtype), `attr { key: "value" value { tensor { dtype: `+dtype+` tensor_shape `+shapeProto(4, 4)+` } } }`),
	)
}

const convReg = `
Conv2D XPU T=float32|float16|bfloat16
BiasAdd XPU T=float32|float16|bfloat16
Relu XPU T=float32|float16|bfloat16
MatMul XPU T=float32|bfloat16
Const XPU dtype=float32|float16|bfloat16
Placeholder DEFAULT
`

// Remapper fusions that would apply on CUDA (remapper.cc:408-420) but have
// no fused kernel on the target are listed, not assumed.
func TestFusionsReported(t *testing.T) {
	g := buildGraph(t, convGraph(t, "DT_FLOAT"))
	r := simulate(t, g, "XPU", cpuOps+convReg, Options{})
	require.Len(t, r.Fusions, 1)
	assert.Equal(t, "_FusedConv2D", r.Fusions[0].Fused)
	assert.Equal(t, []string{"conv", "bias", "relu"}, r.Fusions[0].Nodes)
	assert.Contains(t, r.Fusions[0].Reason, "TensorFlow's remapper does not fuse on XPU")

	// TensorFlow's remapper fuses only nodes on CPU and GPU devices
	// (grappler/utils.cc:139-149): on XPU a _FusedConv2D kernel alone does
	// not make the fusion happen; on a GPU-type target it does.
	r = simulate(t, g, "XPU", cpuOps+convReg+"_FusedConv2D XPU T=float32\n", Options{})
	require.Len(t, r.Fusions, 1)
	gpuReg := strings.ReplaceAll(convReg, " XPU ", " GPU ")
	r = simulate(t, g, "GPU", cpuOps+gpuReg, Options{})
	require.Len(t, r.Fusions, 1)
	assert.Contains(t, r.Fusions[0].Reason, "GPU has no _FusedConv2D kernel for float32")
	r = simulate(t, g, "GPU", cpuOps+gpuReg+"_FusedConv2D GPU T=float32\n", Options{})
	assert.Empty(t, r.Fusions)

	// A source registry without the fused kernel: the fusion does not apply there either.
	src, _ := matchers(t, "GPU", "Conv2D GPU T=float32\n")
	r = simulate(t, g, "XPU", cpuOps+convReg, Options{Source: src})
	assert.Empty(t, r.Fusions)
}

// Auto mixed precision paints MatMul/Conv2D (allow list) and the clear and
// infer ops between them (auto_mixed_precision_lists.h); the target is then
// asked for the half kernels.
func TestAMPHalfCoverage(t *testing.T) {
	g := buildGraph(t, convGraph(t, "DT_FLOAT"))
	r := simulate(t, g, "XPU", cpuOps+convReg, Options{Precision: PrecisionMixedFloat16})
	got := map[string]AMPNode{}
	for _, a := range r.AMP {
		got[a.Path] = a
	}
	require.Contains(t, got, "conv")
	require.Contains(t, got, "mm")
	assert.True(t, got["conv"].Covered)
	assert.Equal(t, "float16", got["mm"].DType)
	assert.False(t, got["mm"].Covered, "XPU has no float16 MatMul")
	// BiasAdd (infer) is not between two allow ops, and Relu (clear) only
	// touches it: neither converts under float16 (passes 3 and 5).
	assert.NotContains(t, got, "bias")
	assert.NotContains(t, got, "relu")
	d := devices(r)
	assert.Equal(t, "CPU:0", d["mm"])
	assert.Equal(t, "XPU:0", d["conv"])

	r = simulate(t, g, "XPU", cpuOps+convReg, Options{Precision: PrecisionMixedBFloat16})
	// bfloat16 adds infer ops right after allow ops (pass 4), then the clear
	// Relu joins through pass 5.
	assert.Len(t, r.AMP, 4)
	for _, a := range r.AMP {
		assert.Equal(t, "bfloat16", a.DType)
		assert.True(t, a.Covered, a.Path)
	}

	_, err := Simulate(g, nil, nil, Options{})
	assert.Error(t, err)
	tm, cm := matchers(t, "XPU", convReg)
	_, err = Simulate(g, tm, cm, Options{Precision: "fp8"})
	assert.ErrorContains(t, err, "unknown precision")
}

// The same input gives byte-identical results.
func TestDeterministic(t *testing.T) {
	nodes := []string{
		nd("v", "VarHandleOp", nil, ta("dtype", "DT_FLOAT"), sha("shape", 4, 4), sa("shared_name", "v")),
		nd("read", "ReadVariableOp", in("v"), ta("dtype", "DT_FLOAT")),
		placeholder("x", "DT_FLOAT", 2, 4),
		nd("mm", "MatMul", in("x", "read"), ta("T", "DT_FLOAT")),
	}
	nodes = append(nodes, adagradDA("v")...)
	text := graphText(nodes...)
	var first []byte
	for i := 0; i < 5; i++ {
		g := buildGraph(t, text, "serving_default=x:0->mm:0")
		r := simulate(t, g, "GPU", cpuOps+varReg, Options{})
		b, err := json.Marshal(r)
		require.NoError(t, err)
		if first == nil {
			first = b
			continue
		}
		assert.Equal(t, string(first), string(b))
	}
}

// Logs written by hand from the scenarios (docs/placement.md#scenarios).
func TestParseLogAndCompare(t *testing.T) {
	log := `2026-11-29 10:00:00.000000: I tensorflow/core/common_runtime/placer.cc:125] v: (VarHandleOp): /job:localhost/replica:0/task:0/device:CPU:0
read: (ReadVariableOp): /job:localhost/replica:0/task:0/device:CPU:0
x: (Placeholder): /job:localhost/replica:0/task:0/device:GPU:0
mm: (MatMul): /job:localhost/replica:0/task:0/device:GPU:0
apply: (ResourceApplyAdagradDA): /job:localhost/replica:0/task:0/device:GPU:0
something else entirely
Executing op MatMul in device /job:localhost/replica:0/task:0/device:GPU:0
ghost: (NoOp): /job:localhost/replica:0/task:0/device:CPU:0
`
	l, err := tflog.Parse(strings.NewReader(log))
	require.NoError(t, err)
	assert.Len(t, l.Placements, 6)
	assert.Len(t, l.Eager, 1)
	assert.Equal(t, tflog.Placement{Name: "v", Op: "VarHandleOp", Device: "CPU:0", Line: 1}, l.Placements[0])

	nodes := []string{
		nd("v", "VarHandleOp", nil, ta("dtype", "DT_FLOAT"), sha("shape", 4, 4), sa("shared_name", "v")),
		nd("read", "ReadVariableOp", in("v"), ta("dtype", "DT_FLOAT")),
		placeholder("x", "DT_FLOAT", 2, 4),
		nd("mm", "MatMul", in("x", "read"), ta("T", "DT_FLOAT")),
	}
	nodes = append(nodes, adagradDA("v")...)
	g := buildGraph(t, graphText(nodes...))
	r := simulate(t, g, "XPU", strings.ReplaceAll(cpuOps+varReg, " GPU ", " XPU "), Options{})
	a := Compare(r, l)
	assert.Equal(t, 6, a.Matched) // 5 nodes + the eager MatMul
	assert.Equal(t, 5, a.Agreed)
	require.NotEmpty(t, a.Nodes)
	assert.Equal(t, NodeAgreement{Name: "apply", Op: "ResourceApplyAdagradDA", Predicted: "CPU:0", Actual: "GPU:0"}, a.Nodes[0])
	assert.Equal(t, []string{"ghost"}, a.Unmatched)
}

func FuzzParseLog(f *testing.F) {
	f.Add("a: (Op): /job:localhost/replica:0/task:0/device:GPU:0\n")
	f.Add("Executing op MatMul in device /job:localhost/replica:0/task:0/device:CPU:0")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := tflog.Parse(strings.NewReader(s))
		if err == nil {
			Compare(&Result{}, l)
		}
	})
}

// The cases of DeviceNameUtilsTest.Basic
// (tsl/util/device_name_utils_test.cc:71-219), each with the parse rendered
// back by ParsedNameToString, and the local-name forms ParseFullName does
// not take.
func TestParseDevice(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // "" with err
		err  bool
	}{
		{in: "foobar", err: true},
		{in: "/job:123/replica:1/task:2/device:GPU:3", err: true},
		{in: "/job:123/replica:1/task:2/gpu:", err: true},
		{in: "/job:123/replica:1/task:2/device:gpu:", err: true},
		{in: "/job:foo/replica:-1/task:2/device:GPU:3", err: true},
		{in: "/job:foo/replica:1/task:-2/device:GPU:3", err: true},
		{in: "/job:foo/replica:1/task:2/bar:3", err: true},
		{in: "/job:foo/replica:1/task:2/device:GPU:3/extra", err: true},
		{in: "/job:foo/replica:1/task:2/device:GPU:3", want: "/job:foo/replica:1/task:2/device:GPU:3"},
		{in: "/job:foo_bar/replica:1/task:2/device:GPU:3", want: "/job:foo_bar/replica:1/task:2/device:GPU:3"},
		{in: "/job:*/replica:4/gpu:*", want: "/replica:4/device:GPU:*"},
		{in: "/job:*/replica:4/device:GPU:*", want: "/replica:4/device:GPU:*"},
		{in: "/job:*/device:GPU/replica:4", want: "/replica:4/device:GPU:*"},
		{in: "/job:*/replica:4/device:myspecialdevice:13", want: "/replica:4/device:myspecialdevice:13"},
		{in: "/", want: ""},
		{in: "/job:*/replica:4/device:GPU:5", want: "/replica:4/device:GPU:5"},
		{in: "/gpu:*/job:*/replica:4", want: "/replica:4/device:GPU:*"},
		// beyond the TF test: empty, legacy upper case, and local names,
		// which the placer's ParseFullName refuses (colocation_graph.cc:225)
		{in: "", want: ""},
		{in: "/CPU:0", want: "/device:CPU:0"},
		{in: "/device:gpu:0", want: "/device:gpu:0"},
		{in: "GPU:0", err: true},
		{in: "cpu:0", err: true},
		{in: "/device:GPU:x", err: true},
		{in: "/job:localhost/replica:0/task:0/device:CPU:0 ", err: true},
	} {
		d, err := parseDevice(tc.in)
		if tc.err {
			assert.Error(t, err, tc.in)
			continue
		}
		if assert.NoError(t, err, tc.in) {
			assert.Equal(t, tc.want, d.String(), tc.in)
		}
	}
}

// parseDevice never panics, and what it accepts renders back
// (ParsedNameToString) to a name that parses to the same spec.
func FuzzParseDevice(f *testing.F) {
	for _, s := range []string{"", "/", "/job:localhost/replica:0/task:0/device:CPU:0", "/job:*/replica:4/gpu:*",
		"/device:GPU", "/cpu:0/job:a", "GPU:0", "/foo:bar", "/task:99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseDevice(s)
		if err != nil || d.id < 0 || d.replica < 0 || d.task < 0 {
			// Numbers past 2^31 wrap to negative ids, as in TF's int field,
			// and do not render back.
			return
		}
		again, err := parseDevice(d.String())
		if err != nil {
			t.Fatalf("%q renders as %q, which does not parse: %v", s, d.String(), err)
		}
		if again.String() != d.String() || !again.sameAs(d) {
			t.Fatalf("%q: %q parses back as %q", s, d.String(), again.String())
		}
	})
}

// MergeDevNames (tsl/util/device_name_utils.cc:344-434), from
// DeviceNameUtilsTest.MergeDevNames and MergeDevNamesAllowSoftPlacement
// (device_name_utils_test.cc).
func TestMergeSpecs(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		soft bool
		want string // or the error's start
		err  bool
	}{
		{a: "/job:foo", b: "/job:foo", want: "/job:foo"},
		{a: "/job:foo", b: "/replica:2", want: "/job:foo/replica:2"},
		{a: "/job:foo", b: "/job:bar", err: true, want: "Cannot merge devices with incompatible jobs: '/job:foo' and '/job:bar'"},
		{a: "/job:foo", b: "/job:bar", soft: true, err: true, want: "Cannot merge devices with incompatible jobs"},
		{a: "/device:GPU:1", b: "/device:CPU:1", err: true, want: "Cannot merge devices with incompatible types: '/device:GPU:1' and '/device:CPU:1'"},
		{a: "/device:GPU:1", b: "/device:CPU:1", soft: true, want: ""},
		{a: "/device:GPU:1", b: "/device:GPU:2", err: true, want: "Cannot merge devices with incompatible ids: '/device:GPU:1' and '/device:GPU:2'"},
		{a: "/device:GPU:1", b: "/device:GPU:2", soft: true, want: "/device:GPU:*"},
		{a: "/job:foo/device:GPU:1", b: "/task:3", want: "/job:foo/task:3/device:GPU:1"},
		{a: "/device:GPU:1", b: "/gpu:*", want: "/device:GPU:1"},
		{a: "/replica:0", b: "/replica:1", err: true, want: "incompatible replicas"},
		{a: "/task:0", b: "/task:1", err: true, want: "incompatible tasks"},
		{a: "/gpu:*", b: "/cpu:*", err: true, want: "incompatible types"},
		{a: "/gpu:*", b: "/cpu:1", soft: true, want: ""},
	} {
		a, err := parseDevice(tc.a)
		require.NoError(t, err)
		b, err := parseDevice(tc.b)
		require.NoError(t, err)
		m, err := mergeSpecs(a, b, tc.soft)
		if tc.err {
			if assert.Error(t, err, "%s + %s", tc.a, tc.b) {
				assert.Contains(t, err.Error(), tc.want)
			}
			continue
		}
		if assert.NoError(t, err) {
			assert.Equal(t, tc.want, m.String(), "%s + %s", tc.a, tc.b)
		}
	}
}

// With soft placement off, TF's own error templates (docs/placement.md#placement-errors,
// colocation_graph.cc:1287-1340).
func TestHardPlacementErrors(t *testing.T) {
	reg := cpuOps + "Identity XPU T=float32\nPlaceholder DEFAULT\n"
	for _, tc := range []struct {
		name, node, want string
	}{
		{"missing device type", nd("n", "Identity", in("p"), ta("T", "DT_FLOAT"), dev("/device:GPU:0")),
			"Cannot assign a device for operation n: {{node n}} was explicitly assigned to /device:GPU:0 but available devices are [ /job:localhost/replica:0/task:0/device:CPU:0, /job:localhost/replica:0/task:0/device:XPU:0 ]. Make sure the device specification refers to a valid device. The requested device appears to be a GPU, but CUDA is not enabled."},
		{"no kernel on the requested type", nd("n", "Identity", in("p"), ta("T", "DT_INT64"), dev("/device:XPU:0")),
			"Cannot assign a device for operation n: Could not satisfy explicit device specification '/device:XPU:0' because no supported kernel for XPU devices is available.\nOp: Identity\nNode attrs: T=DT_INT64\nRegistered kernels:\n  device='XPU'; T in [DT_FLOAT]\n  device='CPU'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := buildGraph(t, graphText(placeholder("p", "DT_FLOAT", 2), tc.node))
			r := simulate(t, g, "XPU", reg, Options{NoSoftPlacement: true})
			assert.Equal(t, tc.want, r.Error)
			r = simulate(t, g, "XPU", reg, Options{})
			assert.Empty(t, r.Errors)
			assert.Contains(t, strings.Join(reasonsOf(r, "n"), "\n"), "soft placement ignored the requested device")
		})
	}
}

// Malformed graphs (a cycle without NextIteration, a dangling input, an
// unknown op, a bad device string) still simulate: every node gets a
// device, nothing panics. (graph.Build refuses the first two, as
// TensorFlow does, but still returns the graph.)
func TestMalformedGraphs(t *testing.T) {
	g, err := buildGraphErr(t, graphText(
		nd("a", "Identity", in("b"), ta("T", "DT_FLOAT")),
		nd("b", "Identity", in("a"), ta("T", "DT_FLOAT"), dev("/device:GPU:nonsense")),
		nd("c", "Identity", in("missing"), ta("T", "DT_FLOAT")),
		nd("d", "SomeCustomOp", in("c")),
	))
	var ie *graph.InvalidGraphError
	require.ErrorAs(t, err, &ie)
	r := simulate(t, g, "GPU", cpuOps+"Identity GPU T=float32\n", Options{})
	d := devices(r)
	assert.Len(t, d, 4)
	assert.Equal(t, "CPU:0", d["d"])
	assert.Contains(t, strings.Join(reasonsOf(r, "d"), "\n"), "unknown op")
	assert.Contains(t, strings.Join(reasonsOf(r, "b"), "\n"), "TensorFlow fails: malformed device specification '/device:GPU:nonsense'")
	assert.Contains(t, r.Error, "Malformed device specification '/device:GPU:nonsense' in node: {name:'b'")
}

// A function body TensorFlow instantiates at run time logs its nodes
// without their caller: a bare name two body nodes share, predicted on
// different kinds of device, is left unmatched rather than attributed to
// the first; one they predict alike, or that only one node bears, matches.
func TestCompareBareNamesOfBodies(t *testing.T) {
	r := &Result{Nodes: []NodeResult{
		{Name: "Identity", Path: "save/__inference_save_1/Identity", Op: "Identity", Device: "CPU:0"},
		{Name: "Identity", Path: "serving_default/__inference_wrapper_2/Identity", Op: "Identity", Device: "MUSA:0"},
		{Name: "add", Path: "serving_default/__inference_wrapper_2/add", Op: "AddV2", Device: "MUSA:0"},
		{Name: "Const", Path: "save/__inference_save_1/Const", Op: "Const", Device: "CPU:0"},
		{Name: "Const", Path: "restore/__inference_restore_3/Const", Op: "Const", Device: "CPU:0"},
		{Name: "x", Path: "x", Op: "Placeholder", Device: "MUSA:0"},
	}}
	log := "Identity: (Identity): /job:localhost/replica:0/task:0/device:MUSA:0\n" +
		"add: (AddV2): /job:localhost/replica:0/task:0/device:MUSA:0\n" +
		"Const: (Const): /job:localhost/replica:0/task:0/device:CPU:0\n" +
		"x: (Placeholder): /job:localhost/replica:0/task:0/device:MUSA:0\n"
	l, err := tflog.Parse(strings.NewReader(log))
	require.NoError(t, err)
	a := Compare(r, l)
	assert.Equal(t, 3, a.Matched)
	assert.Equal(t, 3, a.Agreed)
	assert.Equal(t, []string{"Identity"}, a.Unmatched)
}

// The heads of fusions that share a lookup class (one op and attr map)
// are read once per class; heads of another class, here another dtype,
// keep their own: every chain is listed with its own type.
func TestFusionsOfOneClass(t *testing.T) {
	var nodes []string
	chain := func(name, dtype string) {
		nodes = append(nodes,
			placeholder(name+"_x", dtype, 1, 8, 8, 3),
			nd(name+"_f", "Const", nil, ta("dtype", dtype), `attr { key: "value" value { tensor { dtype: `+dtype+` tensor_shape `+shapeProto(3, 3, 3, 4)+` } } }`),
			nd(name+"_conv", "Conv2D", in(name+"_x", name+"_f"), ta("T", dtype), sa("padding", "SAME"),
				`attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } }`),
			nd(name+"_b", "Const", nil, ta("dtype", dtype), `attr { key: "value" value { tensor { dtype: `+dtype+` tensor_shape `+shapeProto(4)+` } } }`),
			nd(name+"_bias", "BiasAdd", in(name+"_conv", name+"_b"), ta("T", dtype)),
			nd(name+"_relu", "Relu", in(name+"_bias"), ta("T", dtype)))
	}
	for _, c := range []struct{ name, dtype string }{{"a", "DT_FLOAT"}, {"b", "DT_FLOAT"}, {"h", "DT_HALF"}, {"c", "DT_FLOAT"}, {"i", "DT_HALF"}} {
		chain(c.name, c.dtype)
	}
	// Read from binary, as models are: the decoder hands nodes whose
	// attrs are the same bytes one attr map, which makes the classes.
	def := &mgpb.MetaGraphDef{}
	require.NoError(t, prototext.Unmarshal([]byte(graphText(nodes...)), def))
	b, err := proto.Marshal(def.GetGraphDef())
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "frozen_graph.pb")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	g := testmodel.Graph(t, path)
	r := simulate(t, g, "GPU", cpuOps+strings.ReplaceAll(convReg, " XPU ", " GPU "), Options{})
	got := map[string]string{}
	for _, f := range r.Fusions {
		require.Equal(t, "_FusedConv2D", f.Fused)
		got[f.Nodes[0]] = f.Reason
	}
	require.Len(t, got, 5)
	for _, head := range []string{"a_conv", "b_conv", "c_conv"} {
		assert.Contains(t, got[head], "float32", head)
	}
	for _, head := range []string{"h_conv", "i_conv"} {
		assert.Contains(t, got[head], "float16", head)
	}
}
