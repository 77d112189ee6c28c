package coverage

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// npuStack declares every precision-mode rule tfscan knows, in the shape of
// the Ascend pack's declarations (made-up sources).
func npuStack() *Stack {
	mode := func(name, to, matrix, vector, unsupported string) PrecisionMode {
		return PrecisionMode{Name: name, Source: "cfg.py:1", LowerTo: to, Matrix: matrix, Vector: vector, Unsupported: unsupported, Doc: "doc"}
	}
	return &Stack{
		Precision: &PrecisionModes{
			Option: "precision_mode", Source: "cfg.py:1",
			ChipDefaults: []ChipDefault{{Chip: "c910", Mode: "allow_fp32_to_fp16", Source: "doc"}, {Chip: "*", Mode: "must_keep_origin_dtype", Source: "doc"}},
			Modes: []PrecisionMode{
				mode("force_fp32", "float16", "lower_inputs", "keep", "lower"),
				mode("allow_fp32_to_fp16", "float16", "lower", "keep", "lower"),
				mode("force_fp16", "float16", "lower", "lower", "lower"),
				mode("must_keep_origin_dtype", "", "keep", "keep", "error"),
				mode("allow_mix_precision", "float16", "mixed", "mixed", "lower"),
				mode("allow_fp32_to_bf16", "bfloat16", "lower", "keep", "lower"),
				{Name: "future_mode", Source: "cfg.py:2"},
			},
			MatrixOps: []string{"MatMul"},
			Mixed:     &MixedLists{Reduce: []string{"Add"}, Keep: []string{"Sum"}, Source: "ini"},
		},
		Options: []StackOption{
			{Name: "soc", Kind: OptionChip, Values: []string{"c910", "c910b"}, Default: "c910", Source: "ini"},
			{Name: "adapter", Kind: OptionAdapter, Values: []string{"tf2", "tf1"}, ValueKinds: []string{AdapterMixed, AdapterSession},
				ValueSources: []string{"mix:1", "pass:1"}, Default: "tf2", Source: "dev:1"},
			{Name: "mix_compile_mode", Kind: OptionMixCompile, Values: []string{"false", "true"},
				ValueSources: []string{"pass:824", "pass:782"}, Default: "false", Source: "attrs:773", Applies: "tf1"},
		},
	}
}

func npuPack() *Pack {
	return &Pack{Name: "npu", DeviceType: "NPU", Mechanism: MechanismGraphOffload, Source: "src", Method: MethodSourceExtraction,
		Stack: npuStack(), Kernels: []*kdpb.KernelDef{
			kernel("MatMul", "NPU", nil), // dtypes picked at run time: any
			kernel("Relu", "NPU", map[string][]tpb.DataType{"T": {f32, f16}}),
			kernel("MaxPool", "NPU", map[string][]tpb.DataType{"T": {f16}}),
			kernel("AvgPool", "NPU", map[string][]tpb.DataType{"T": {bf16}}),
			kernel("Add", "NPU", map[string][]tpb.DataType{"T": {f32, f16}}),
			kernel("Sum", "NPU", map[string][]tpb.DataType{"T": {f32, f16}}),
			kernel("Neg", "NPU", map[string][]tpb.DataType{"T": {f32, f16}}),
		}}
}

func TestResolveStack(t *testing.T) {
	p := npuPack()
	c, err := p.ResolveStack(StackSettings{})
	require.NoError(t, err)
	assert.Equal(t, "allow_fp32_to_fp16", c.Mode.Name, "the documented default of the default chip")
	assert.Contains(t, c.ModeWhy, "the adapter sets none (cfg.py:1), and this is the documented default on soc=c910")
	assert.True(t, c.Mixed)
	assert.Equal(t, "mix:1", c.MixedSource)
	assert.Equal(t, map[string]string{"soc": "c910", "adapter": "tf2"}, c.Options, "mix_compile_mode belongs to tf1")

	c, err = p.ResolveStack(StackSettings{Options: map[string]string{"soc": "c910b"}})
	require.NoError(t, err)
	assert.Equal(t, "must_keep_origin_dtype", c.Mode.Name, "every other chip")

	c, err = p.ResolveStack(StackSettings{Options: map[string]string{"mix_compile_mode": "false"}})
	require.NoError(t, err)
	assert.Equal(t, "tf1", c.Options["adapter"], "an option of one adapter selects it")
	assert.False(t, c.Mixed)
	assert.Equal(t, "pass:824", c.MixedSource)
	assert.Contains(t, c.Assumed(), "adapter=tf1 (implied by mix_compile_mode)")

	c, err = p.ResolveStack(StackSettings{Options: map[string]string{"adapter": "tf1"}})
	require.NoError(t, err)
	assert.False(t, c.Mixed, "mix_compile_mode defaults to false")
	assert.Equal(t, "false", c.Options["mix_compile_mode"])

	for _, bad := range []StackSettings{
		{PrecisionMode: "fast"},
		{PrecisionMode: "future_mode"},
		{Options: map[string]string{"soc": "c999"}},
		{Options: map[string]string{"color": "red"}},
		{Options: map[string]string{"adapter": "tf2", "mix_compile_mode": "true"}},
	} {
		_, err := p.ResolveStack(bad)
		assert.Error(t, err, "%+v", bad)
	}
	_, err = (&Pack{Name: "plain"}).ResolveStack(StackSettings{PrecisionMode: "force_fp16"})
	assert.ErrorContains(t, err, "declares no precision modes")
	c, err = (&Pack{Name: "plain"}).ResolveStack(StackSettings{})
	require.NoError(t, err)
	assert.Nil(t, c)
}

// Each mode's documented rules (CANN's precision_mode) applied to matrix
// and vector ops with and without float32 kernels.
func TestPrecisionModes(t *testing.T) {
	f32n := func(op string) *nodeT { return &nodeT{op, map[string]*attrpb.AttrValue{"T": typeAttr(f32)}} }
	nodes := map[string]*nodeT{
		"matmul": f32n("MatMul"), "relu": f32n("Relu"), "maxpool": f32n("MaxPool"), "avgpool": f32n("AvgPool"),
		"add": f32n("Add"), "sum": f32n("Sum"), "neg": f32n("Neg"),
		"relu_i32":   {"Relu", map[string]*attrpb.AttrValue{"T": typeAttr(i32)}},
		"matmul_i32": {"MatMul", map[string]*attrpb.AttrValue{"T": typeAttr(i32)}},
	}
	type want struct {
		reason Reason
		to     string
	}
	cov, l16, l16in, lbf := want{ReasonCovered, ""}, want{ReasonCoveredLowerPrecision, "float16"},
		want{ReasonCoveredLowerPrecision, "float16"}, want{ReasonCoveredLowerPrecision, "bfloat16"}
	gap := want{ReasonNoKernelForDType, ""}
	cases := map[string]map[string]want{
		"allow_fp32_to_fp16": {"matmul": l16, "relu": cov, "maxpool": l16, "avgpool": gap, "add": cov, "relu_i32": gap, "matmul_i32": cov},
		"force_fp16":         {"matmul": l16, "relu": l16, "maxpool": l16, "add": l16, "neg": l16},
		"force_fp32":         {"matmul": l16in, "relu": cov, "maxpool": l16},
		"must_keep_origin_dtype": {"matmul": cov, "relu": cov, "maxpool": {ReasonPrecisionModeError, ""},
			"avgpool": gap},
		"allow_mix_precision": {"matmul": cov, "add": l16, "sum": cov, "neg": cov, "maxpool": l16},
		"allow_fp32_to_bf16":  {"matmul": lbf, "relu": cov, "maxpool": gap, "avgpool": lbf},
	}
	for mode, wants := range cases {
		p := npuPack()
		c, err := p.ResolveStack(StackSettings{PrecisionMode: mode})
		require.NoError(t, err)
		ix := NewIndex(p, nil)
		ix.SetStack(c)
		for name, w := range wants {
			nt := nodes[name]
			n := node(nt.op, nt.attrs)
			m := ix.MatchKeyed(n, MatchKey(n, ix.ConstrainedAttrs(n.Op)))
			assert.Equal(t, w.reason, m.Reason, "%s: %s", mode, name)
			assert.Equal(t, w.to, m.Lowered, "%s: %s", mode, name)
			assert.Equal(t, mode == "force_fp32" && name == "matmul", m.LoweredInputs, "%s: %s", mode, name)
			if m.Reason == ReasonPrecisionModeError {
				assert.Contains(t, m.StackError, "precision_mode must_keep_origin_dtype keeps float32, but the NPU kernel of MaxPool supports float16 only")
			}
		}
	}
	// Without a stack the index answers as before.
	ix := NewIndex(npuPack(), nil)
	n := node("MaxPool", map[string]*attrpb.AttrValue{"T": typeAttr(f32)})
	assert.Equal(t, ReasonNoKernelForDType, ix.Match(n).Reason)
}

type nodeT struct {
	op    string
	attrs map[string]*attrpb.AttrValue
}

// A pack's stack declarations survive a write and a read, byte for byte.
func TestPackStackRoundTrip(t *testing.T) {
	p := npuPack()
	var a, b bytes.Buffer
	require.NoError(t, WritePack(&a, p))
	q, err := ReadPack(bytes.NewReader(a.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, npuStack(), q.Stack)
	require.NoError(t, WritePack(&b, q))
	assert.Equal(t, a.String(), b.String())

	bad := npuPack()
	bad.Stack.Options[0].Default = "c1"
	assert.ErrorContains(t, bad.Validate(), "default \"c1\" is not one of its values")
	bad = npuPack()
	bad.Stack.Precision.Modes[0].Vector = "sometimes"
	assert.ErrorContains(t, bad.Validate(), "unknown semantics")
	bad = npuPack()
	bad.Stack.Options[1].ValueKinds = []string{AdapterMixed}
	assert.ErrorContains(t, bad.Validate(), "one value kind per value")
}
