package coverage

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/graph"
)

const (
	f32  = tpb.DataType_DT_FLOAT
	f16  = tpb.DataType_DT_HALF
	i32  = tpb.DataType_DT_INT32
	f64  = tpb.DataType_DT_DOUBLE
	bf16 = tpb.DataType_DT_BFLOAT16
)

// kernel builds a KernelDef: constraints are attr → allowed types.
func kernel(op, dev string, cons map[string][]tpb.DataType, opts ...func(*kdpb.KernelDef)) *kdpb.KernelDef {
	k := &kdpb.KernelDef{Op: op, DeviceType: dev}
	for name, types := range cons {
		k.Constraint = append(k.Constraint, &kdpb.KernelDef_AttrConstraint{
			Name:          name,
			AllowedValues: &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{Type: types}}},
		})
	}
	for _, o := range opts {
		o(k)
	}
	return k
}

func withLabel(l string) func(*kdpb.KernelDef)   { return func(k *kdpb.KernelDef) { k.Label = l } }
func withPriority(p int32) func(*kdpb.KernelDef) { return func(k *kdpb.KernelDef) { k.Priority = p } }
func withHost(args ...string) func(*kdpb.KernelDef) {
	return func(k *kdpb.KernelDef) { k.HostMemoryArg = args }
}

func typeAttr(t tpb.DataType) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_Type{Type: t}}
}

func listAttr(ts ...tpb.DataType) *attrpb.AttrValue {
	return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{Type: ts}}}
}

func node(op string, attrs map[string]*attrpb.AttrValue) *graph.Node {
	return &graph.Node{Name: op, Op: op, OpDef: &opdefpb.OpDef{Name: op}, Attrs: attrs}
}

func TestMatch(t *testing.T) {
	defaults := &Pack{Name: "default", DeviceType: DeviceDefault, Kernels: []*kdpb.KernelDef{
		kernel("Identity", DeviceDefault, nil),
		kernel("Const", DeviceDefault, map[string][]tpb.DataType{"dtype": {i32}}, withHost("output")),
		kernel("Add", DeviceDefault, map[string][]tpb.DataType{"T": {i32}}),
	}}
	target := &Pack{Name: "xpu", DeviceType: "XPU", Mechanism: MechanismKernel, Kernels: []*kdpb.KernelDef{
		kernel("Conv2D", "XPU", map[string][]tpb.DataType{"T": {f32, f16}}),
		kernel("Const", "XPU", map[string][]tpb.DataType{"dtype": {f32}}),
		kernel("Add", "XPU", map[string][]tpb.DataType{"T": {f32}}),
		kernel("IdentityN", "XPU", map[string][]tpb.DataType{"T": {f32, f16}}),
		kernel("Fancy", "XPU", nil, withLabel("fast")),
		kernel("Shape", "XPU", map[string][]tpb.DataType{"T": {f32}}, withHost("output")),
		kernel("Prio", "XPU", nil, withPriority(1), withHost("a")),
		kernel("Prio", "XPU", nil, withHost("b")),
		kernel("Other", "CPU", nil), // another device type: ignored
	}}
	ix := NewIndex(target, defaults)

	tests := []struct {
		name       string
		node       *graph.Node
		want       Reason
		supported  []string
		hostMemory []string
	}{
		{"type constraint holds", node("Conv2D", map[string]*attrpb.AttrValue{"T": typeAttr(f16)}), ReasonCovered, nil, nil},
		{"type constraint fails", node("Conv2D", map[string]*attrpb.AttrValue{"T": typeAttr(bf16)}), ReasonNoKernelForDType, []string{"T in {float16, float32}"}, nil},
		{"missing constrained attr does not match", node("Conv2D", map[string]*attrpb.AttrValue{}), ReasonNoKernelForDType, []string{"T in {float16, float32}"}, nil},
		{"list(type) all elements allowed", node("IdentityN", map[string]*attrpb.AttrValue{"T": listAttr(f32, f16)}), ReasonCovered, nil, nil},
		{"list(type) one element not allowed", node("IdentityN", map[string]*attrpb.AttrValue{"T": listAttr(f32, i32)}), ReasonNoKernelForDType, []string{"T in {float16, float32}"}, nil},
		{"empty list(type) matches", node("IdentityN", map[string]*attrpb.AttrValue{"T": listAttr()}), ReasonCovered, nil, nil},
		{"DEFAULT when device has no kernel", node("Identity", map[string]*attrpb.AttrValue{"T": typeAttr(f32)}), ReasonCoveredDefault, nil, nil},
		{"DEFAULT when device kernels do not match", node("Const", map[string]*attrpb.AttrValue{"dtype": typeAttr(i32)}), ReasonCoveredDefault, nil, []string{"output"}},
		{"device kernel preferred over DEFAULT", node("Add", map[string]*attrpb.AttrValue{"T": typeAttr(f32)}), ReasonCovered, nil, nil},
		{"no kernel anywhere", node("StringJoin", nil), ReasonNoKernel, nil, nil},
		{"unlabelled node never sees labelled kernels", node("Fancy", nil), ReasonLabelMismatch, nil, nil},
		{"label selects kernel", node("Fancy", map[string]*attrpb.AttrValue{"_kernel": {Value: &attrpb.AttrValue_S{S: []byte("fast")}}}), ReasonCovered, nil, nil},
		{"host memory kept", node("Shape", map[string]*attrpb.AttrValue{"T": typeAttr(f32)}), ReasonCovered, nil, []string{"output"}},
		{"highest priority wins", node("Prio", nil), ReasonCovered, nil, []string{"a"}},
		{"function call ops", node("StatefulPartitionedCall", nil), ReasonFunctionCall, nil, nil},
		{"unknown op", &graph.Node{Op: "Addons>GeluGrad", Unknown: true}, ReasonUnknownOp, nil, nil},
		{"library function called by op name", calling("__inference_f_1"), ReasonFunctionCall, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := ix.Match(tc.node)
			assert.Equal(t, tc.want, m.Reason)
			assert.Equal(t, tc.supported, m.Supported)
			assert.Equal(t, tc.hostMemory, m.HostMemory)
			if tc.want == ReasonCovered || tc.want == ReasonCoveredDefault {
				require.NotNil(t, m.Kernel)
			}
		})
	}
}

func TestMatchUnknownOpHint(t *testing.T) {
	ix := NewIndex(&Pack{DeviceType: "GPU"}, nil)
	m := ix.Match(&graph.Node{Op: "Addons>GeluGrad", Unknown: true})
	assert.Equal(t, "probably needs tensorflow-addons", m.Hint)
	m = ix.Match(&graph.Node{Op: "SomeUnknownOp", Unknown: true})
	assert.Equal(t, "", m.Hint)
}

func TestMatchXLAHasNoDefaultFallback(t *testing.T) {
	defaults := &Pack{DeviceType: DeviceDefault, Kernels: []*kdpb.KernelDef{kernel("Identity", DeviceDefault, nil)}}
	xla := NewIndex(&Pack{DeviceType: "XLA_GPU_JIT", Mechanism: MechanismXLACluster}, defaults)
	assert.Equal(t, ReasonNoKernel, xla.Match(node("Identity", nil)).Reason)
}

func TestMatchOwnDefaultsWin(t *testing.T) {
	// A live dump carries its own DEFAULT kernels; the built-in ones are
	// then not consulted.
	builtin := &Pack{DeviceType: DeviceDefault, Kernels: []*kdpb.KernelDef{kernel("Identity", DeviceDefault, nil)}}
	dump := &Pack{DeviceType: "GPU", Kernels: []*kdpb.KernelDef{kernel("NoOp", DeviceDefault, nil)}}
	ix := NewIndex(dump, builtin)
	assert.Equal(t, ReasonCoveredDefault, ix.Match(node("NoOp", nil)).Reason)
	assert.Equal(t, ReasonNoKernel, ix.Match(node("Identity", nil)).Reason)
}

func TestMatchGraphOffloadKeepsTensorFlowDefaults(t *testing.T) {
	defaults := &Pack{DeviceType: DeviceDefault, Kernels: []*kdpb.KernelDef{kernel("Identity", DeviceDefault, nil)}}
	npu := NewIndex(&Pack{DeviceType: "NPU", Mechanism: MechanismGraphOffload}, defaults)
	assert.Equal(t, ReasonCoveredDefault, npu.Match(node("Identity", nil)).Reason)
	assert.Equal(t, ReasonNoKernel, npu.Match(node("Conv2D", nil)).Reason)
}

func TestMatchUnresolvedOpsAreUnverified(t *testing.T) {
	p := &Pack{DeviceType: "XLA_GPU_JIT", Mechanism: MechanismXLACluster, UnresolvedOps: []string{"XlaConv"},
		Kernels: []*kdpb.KernelDef{kernel("XlaConv", "XLA_GPU_JIT", nil), kernel("Conv2D", "XLA_GPU_JIT", nil)}}
	ix := NewIndex(p, nil)
	assert.True(t, ix.Match(node("XlaConv", nil)).Unverified)
	assert.False(t, ix.Match(node("Conv2D", nil)).Unverified)
}

// calling is a node whose op names the library function op.
func calling(op string) *graph.Node {
	n := &graph.Node{Op: op}
	n.SetCalls([]*graph.Function{{Name: op}})
	return n
}
