package coverage

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

func cudaLike() *Pack {
	return &Pack{
		Name: "cuda", Vendor: "Google", DeviceType: "GPU", Mechanism: MechanismKernel, TFVersion: "2.15.0",
		Source: "tensorflow/tensorflow@6887368", Method: MethodSourceExtraction, Date: "2023-11-10",
		Confidence: "x", ConfidenceLevel: LevelHigh, BuildFlags: []string{"GOOGLE_CUDA=1"},
		UnresolvedOps: []string{"NewOp", "Relu"},
		Kernels: []*kdpb.KernelDef{
			kernel("Relu", "GPU", map[string][]tpb.DataType{"T": {f32, f16}}),
			kernel("NewOp", "GPU", nil),
			kernel("Identity", "DEFAULT", nil),
		},
	}
}

func TestDerive(t *testing.T) {
	o := DeriveOptions{
		Name: "corex", Vendor: "Iluvatar", DeviceType: "GPU", TFVersion: "2.6.5", Level: LevelLow,
		Rule: "TF's CUDA kernels", Evidence: []string{"org/repo README.md: pip install tensorflow-2.6.5+corex"},
		NewerThanStack: []string{"NewOp"}, VersionCheck: "from a test",
	}
	p, err := Derive(cudaLike(), o)
	require.NoError(t, err)
	assert.Equal(t, MechanismDerived, p.Mechanism)
	assert.Equal(t, MechanismKernel, p.RunsAs(), "matching follows the base's mechanism")
	assert.Equal(t, &Derivation{Base: "cuda", BaseMechanism: MechanismKernel, BaseTFVersion: "2.15.0", Rule: o.Rule, Evidence: o.Evidence, VersionCheck: "from a test"}, p.Derived)
	assert.Equal(t, []string{"Relu"}, p.Ops(), "the newer op's kernels are left out")
	assert.Equal(t, []string{"Relu"}, p.UnresolvedOps)
	assert.False(t, p.HasDefaultKernels(), "DEFAULT kernels come from the built-in pack, not the base")
	assert.Equal(t, []string{"GOOGLE_CUDA=1"}, p.BuildFlags)
	assert.Contains(t, p.Confidence, "LOW: derived")
	assert.Contains(t, p.Confidence, "TensorFlow 2.6.5; the base pack cuda was read from TensorFlow 2.15.0")

	// A pack file round-trips the derivation byte for byte.
	var a, b bytes.Buffer
	require.NoError(t, WritePack(&a, p))
	q, err := ReadPack(bytes.NewReader(a.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, p.Derived, q.Derived)
	assert.Equal(t, LevelLow, q.ConfidenceLevel)
	assert.Equal(t, []string{"NewOp"}, q.NewerThanStack)
	require.NoError(t, WritePack(&b, q))
	assert.Equal(t, a.String(), b.String())

	// Nodes of the newer op get op_newer_than_stack, even though DEFAULT
	// or the base would have a kernel.
	ix := NewIndex(p, &Pack{Name: "default", DeviceType: "DEFAULT", Kernels: []*kdpb.KernelDef{kernel("NewOp", "DEFAULT", nil)}})
	m := ix.Match(node("NewOp", nil))
	assert.Equal(t, ReasonOpNewerThanStack, m.Reason)
	assert.Equal(t, ReasonCovered, ix.Match(node("Relu", map[string]*attrpb.AttrValue{"T": {Value: &attrpb.AttrValue_Type{Type: f16}}})).Reason)
}

func TestDeriveXLABaseKeepsNoDefaults(t *testing.T) {
	base := &Pack{Name: "xla", DeviceType: "XLA_GPU_JIT", Mechanism: MechanismXLACluster, Source: "s", Method: MethodSourceExtraction,
		Kernels: []*kdpb.KernelDef{kernel("Relu", "XLA_GPU_JIT", nil)}}
	p, err := Derive(base, DeriveOptions{Name: "gcu", DeviceType: "XLA_DTU", TFVersion: "1.x", Level: LevelLow, Rule: "r", Evidence: []string{"e"}})
	require.NoError(t, err)
	assert.Equal(t, "XLA_DTU", p.Kernels[0].GetDeviceType())
	k, err := DefaultKernelsFor(p)
	require.NoError(t, err)
	assert.Nil(t, k, "an XLA device has no DEFAULT fallback, derived or not")
	assert.Equal(t, ReasonNoKernel, NewIndex(p, nil).Match(node("Identity", nil)).Reason)
}

func TestDeriveErrors(t *testing.T) {
	ok := DeriveOptions{Name: "n", DeviceType: "GPU", Level: LevelMedium, Rule: "r", Evidence: []string{"e"}}
	for _, tc := range []struct {
		name string
		edit func(*DeriveOptions, *Pack)
		want string
	}{
		{"no evidence", func(o *DeriveOptions, _ *Pack) { o.Evidence = nil }, "needs a rule and at least one piece of evidence"},
		{"no rule", func(o *DeriveOptions, _ *Pack) { o.Rule = "" }, "needs a rule"},
		{"high", func(o *DeriveOptions, _ *Pack) { o.Level = LevelHigh }, "low or medium"},
		{"derived base", func(_ *DeriveOptions, b *Pack) {
			b.Mechanism, b.Derived = MechanismDerived, &Derivation{Base: "x", BaseMechanism: MechanismKernel, Rule: "r", Evidence: []string{"e"}}
		}, "is itself derived"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, b := ok, cudaLike()
			tc.edit(&o, b)
			_, err := Derive(b, o)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

func TestValidateDerivedAndLevel(t *testing.T) {
	p := samplePack()
	p.Mechanism = MechanismDerived
	assert.ErrorContains(t, p.Validate(), "does not name its base pack")
	p.Mechanism, p.Derived = MechanismKernel, &Derivation{Base: "x"}
	assert.ErrorContains(t, p.Validate(), "has a derivation but mechanism")
	p.Derived, p.ConfidenceLevel = nil, "sure"
	assert.ErrorContains(t, p.Validate(), "confidence_level must be high, medium or low")
}

func TestHostPackAndOpDefsRoundTrip(t *testing.T) {
	p := samplePack()
	p.Method = MethodLiveDump
	p.Kernels = append(p.Kernels, kernel("Relu", "CPU", nil))
	p.OpDefs = []*opdefpb.OpDef{{Name: "MLUFusedThing"}}
	hp := p.HostPack()
	require.NotNil(t, hp)
	assert.Equal(t, "CPU", hp.DeviceType)
	assert.Equal(t, []string{"Relu"}, hp.Ops())
	assert.True(t, hp.HasDefaultKernels(), "the dump's DEFAULT kernels back its CPU too")
	assert.Nil(t, samplePack().HostPack(), "no CPU kernels, no host pack")

	var a bytes.Buffer
	require.NoError(t, WritePack(&a, p))
	assert.Contains(t, a.String(), `"op_defs": [`)
	q, err := ReadPack(bytes.NewReader(a.Bytes()))
	require.NoError(t, err)
	require.Len(t, q.OpDefs, 1)
	assert.Equal(t, "MLUFusedThing", q.OpDefs[0].GetName())
	assert.Equal(t, LevelHigh, q.ConfidenceLevel, "a live dump without a level reads as high")
}
