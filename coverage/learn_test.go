package coverage

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/tflog"
)

// Messages in TensorFlow's words (colocation_graph.cc:1311-1319 and
// :1513-1520, op_kernel.cc:1493-1512).
const learnLog = `Cannot assign a device for operation probs: Could not satisfy explicit device specification '/device:XPU:0' because no supported kernel for XPU devices is available.
Op: Softmax
Node attrs: T=DT_FLOAT
Registered kernels:
  device='XPU'; T in [DT_HALF, DT_BFLOAT16]
  device='CPU'; T in [DT_FLOAT, DT_HALF]

	 [[{{node probs}}]]
No OpKernel was registered to support Op 'Erf' used by {{node e}} with these attrs: [T=DT_DOUBLE]
Registered devices: [CPU, XPU]
Registered kernels:
  device='CPU'; T in [DT_FLOAT]

No registered 'Conv2D' OpKernel for 'XPU' devices compatible with node {{node c}}
	.  Registered:  device='CPU'; T in [DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16, DT_INT32, DT_INT64, DT_INT8, DT_UINT8, DT_INT16, DT_UINT16, ...]{attr_hash=77}
`

func learnFixture(t *testing.T) *Pack {
	l, err := tflog.Parse(strings.NewReader(learnLog))
	require.NoError(t, err)
	p, skipped := LearnFromLog(l, LearnOptions{Name: "learned-run", DeviceType: "XPU", Source: "log run.log sha256:abc"})
	require.Len(t, skipped, 1)
	assert.Equal(t, Unlearned{Op: "Conv2D", Why: "TensorFlow shortened or could not print the kernel list", Line: 14}, skipped[0])
	return p
}

func TestLearnFromLog(t *testing.T) {
	p := learnFixture(t)
	assert.Equal(t, MethodLearnedFromLog, p.Method)
	assert.Equal(t, []CompleteOp{
		{Op: "Erf", DeviceTypes: []string{"CPU", "DEFAULT", "XPU"}},
		{Op: "Softmax", DeviceTypes: []string{"CPU", "DEFAULT", "XPU"}},
	}, p.Complete)
	var lines []string
	for _, k := range p.Kernels {
		lines = append(lines, k.GetOp()+" "+k.GetDeviceType()+" "+ConstraintString(k.GetConstraint()))
	}
	assert.Equal(t, []string{
		"Erf CPU T in {float32}",
		"Softmax CPU T in {float32, float16}",
		"Softmax XPU T in {bfloat16, float16}",
	}, lines)

	// a learned pack is a pack file like any other, and reads back the same
	var buf bytes.Buffer
	require.NoError(t, WritePack(&buf, p))
	back, err := ReadPack(bytes.NewReader(buf.Bytes()))
	require.NoError(t, err)
	assert.Equal(t, p.Complete, back.Complete)
	assert.Len(t, back.Kernels, 3)
	assert.Contains(t, buf.String(), `"method": "learned_from_log"`)
}

func TestLearnedPackValidation(t *testing.T) {
	p := learnFixture(t)
	p.Kernels = append(p.Kernels, kernel("Relu", "XPU", nil))
	assert.ErrorContains(t, WritePack(&bytes.Buffer{}, p), `kernel for Relu on XPU is not under complete_ops`)
	q := samplePack()
	q.Complete = []CompleteOp{{Op: "Relu", DeviceTypes: []string{"XPU"}}}
	assert.ErrorContains(t, q.Validate(), "complete_ops is only for method learned_from_log")
}

// The merge replaces, for the ops and device types the log states, the base
// pack's kernels by TensorFlow's own list; everything else stays.
func TestMergeLearned(t *testing.T) {
	base := &Pack{Name: "xpu", DeviceType: "XPU", Mechanism: MechanismKernel, Source: "src", Method: MethodSourceExtraction,
		UnresolvedOps: []string{"Softmax", "Relu"},
		Kernels: []*kdpb.KernelDef{
			kernel("Softmax", "XPU", map[string][]tpb.DataType{"T": {f32, f16, bf16}}),
			kernel("Softmax", "XPU", map[string][]tpb.DataType{"T": {f16, bf16}}, withHost("logits"), withPriority(3)),
			kernel("Erf", "XPU", map[string][]tpb.DataType{"T": {f32, f64}}),
			kernel("Relu", "XPU", map[string][]tpb.DataType{"T": {f32}}),
		}}
	defaults := &Pack{Name: "default", DeviceType: DeviceDefault, Kernels: []*kdpb.KernelDef{kernel("Identity", DeviceDefault, nil)}}
	learned := learnFixture(t)

	m := MergeLearned(base, []*Pack{learned}, defaults)
	assert.NotSame(t, base, m)
	assert.Len(t, base.Kernels, 4, "the base pack is not modified")
	ix := NewIndex(m, defaults)
	softmax := func(dt tpb.DataType) Match {
		return ix.Match(node("Softmax", map[string]*attrpb.AttrValue{"T": typeAttr(dt)}))
	}
	assert.Equal(t, ReasonNoKernelForDType, softmax(f32).Reason, "the log says XPU has no float32 Softmax")
	half := softmax(f16)
	assert.Equal(t, ReasonCovered, half.Reason)
	assert.Equal(t, []string{"logits"}, half.HostMemory, "an equal base kernel keeps its host-memory args")
	assert.Equal(t, ReasonNoKernel, ix.Match(node("Erf", map[string]*attrpb.AttrValue{"T": typeAttr(f32)})).Reason)
	assert.Equal(t, ReasonCovered, ix.Match(node("Relu", map[string]*attrpb.AttrValue{"T": typeAttr(f32)})).Reason)
	assert.Equal(t, ReasonCoveredDefault, ix.Match(node("Identity", nil)).Reason, "the built-in DEFAULT kernels are kept")
	assert.Equal(t, []string{"Relu"}, m.UnresolvedOps)
	assert.Equal(t, []string{"log run.log sha256:abc"}, m.LearnedFrom)
	assert.Equal(t, "src; corrected for Erf, Softmax by log run.log sha256:abc", m.Source)

	// a pack of another device type is left as it is
	musa := &Pack{Name: "musa", DeviceType: "MUSA", Mechanism: MechanismXLACluster, Source: "s", Method: MethodSourceExtraction}
	assert.Same(t, musa, MergeLearned(musa, []*Pack{learned}, defaults))
	// the host CPU pack takes the CPU facts
	cpu := &Pack{Name: "cpu", DeviceType: "CPU", Mechanism: MechanismKernel, Source: "s", Method: MethodSourceExtraction,
		Kernels: []*kdpb.KernelDef{kernel("Erf", "CPU", map[string][]tpb.DataType{"T": {f32, f64}})}}
	mc := MergeLearned(cpu, []*Pack{learned}, defaults)
	assert.Equal(t, ReasonNoKernelForDType, NewIndex(mc, defaults).Match(node("Erf", map[string]*attrpb.AttrValue{"T": typeAttr(f64)})).Reason)
}
