package coverage

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// builtinExpect is what every built-in pack must be: device, mechanism and
// an op count in the ballpark of ../shared/docs/registry-sources.md (ITEX
// 790, DirectML 318, MUSA 236, Ascend 828) or of TensorFlow 2.15 itself.
var builtinExpect = map[string]struct {
	device     string
	mechanism  Mechanism
	minOps     int
	maxOps     int
	vendorName string
	level      Level
}{
	"cpu":       {"CPU", MechanismKernel, 1200, 1500, "Google", LevelHigh},
	"cuda":      {"GPU", MechanismKernel, 600, 800, "Google", LevelHigh},
	"rocm":      {"GPU", MechanismKernel, 600, 800, "Google", LevelHigh},
	"default":   {"DEFAULT", MechanismKernel, 150, 300, "Google", LevelHigh},
	"xla":       {"XLA_GPU_JIT", MechanismXLACluster, 400, 600, "Google", LevelMedium},
	"intel-xpu": {"XPU", MechanismKernel, 700, 850, "Intel", LevelHigh},
	"directml":  {"GPU", MechanismKernel, 290, 340, "Microsoft", LevelMedium},
	"musa":      {"MUSA", MechanismKernel, 220, 260, "Moore Threads", LevelHigh},
	"ascend":    {"NPU", MechanismGraphOffload, 750, 900, "Huawei", LevelLow},
	// Derived packs: the base's kernels, relabelled.
	"iluvatar-corex": {"GPU", MechanismDerived, 600, 800, "Iluvatar CoreX", LevelLow},
	"hygon-dcu":      {"GPU", MechanismDerived, 600, 800, "Hygon", LevelMedium},
	"enflame-gcu":    {"XLA_DTU", MechanismDerived, 350, 600, "Enflame", LevelLow},
}

func TestBuiltinPacksLoadWithProvenance(t *testing.T) {
	packs, err := BuiltinPacks()
	require.NoError(t, err)
	var names []string
	for _, p := range packs {
		names = append(names, p.Name)
	}
	assert.True(t, slices.IsSorted(names))
	for name := range builtinExpect {
		assert.Contains(t, names, name)
	}
	for _, p := range packs {
		t.Run(p.Name, func(t *testing.T) {
			want, ok := builtinExpect[p.Name]
			require.True(t, ok, "unexpected built-in pack %s", p.Name)
			require.NoError(t, p.Validate())
			assert.Equal(t, want.device, p.DeviceType)
			assert.Equal(t, want.mechanism, p.Mechanism)
			assert.Equal(t, want.vendorName, p.Vendor)
			assert.Equal(t, want.level, p.ConfidenceLevel)
			assert.NotEmpty(t, p.TFVersion)
			assert.Regexp(t, `^\d{4}-\d{2}-\d{2}$`, p.Date, "the source commit date")
			assert.Regexp(t, `@[0-9a-f]{7,40}`, p.Source, "repository@commit")
			if p.Mechanism == MechanismDerived {
				assert.Equal(t, MethodDerived, p.Method)
				require.NotNil(t, p.Derived)
				base, err := BuiltinPack(p.Derived.Base)
				require.NoError(t, err)
				assert.Equal(t, base.Mechanism, p.Derived.BaseMechanism)
				assert.Equal(t, base.TFVersion, p.Derived.BaseTFVersion)
				assert.NotEqual(t, base.TFVersion, p.TFVersion, "the version the vendor ships is stated")
				assert.NotEmpty(t, p.Derived.Evidence)
				assert.NotEmpty(t, p.Derived.VersionCheck)
				assert.Equal(t, base.BuildFlags, p.BuildFlags)
			} else {
				assert.Equal(t, MethodSourceExtraction, p.Method)
				assert.Contains(t, p.Confidence, "dtypes known for")
			}
			ops := len(p.Ops())
			t.Logf("%s: %d kernels, %d ops, %d dtype-unverified ops", p.Name, len(p.Kernels), ops, len(p.UnresolvedOps))
			assert.GreaterOrEqual(t, ops, want.minOps)
			assert.LessOrEqual(t, ops, want.maxOps)
			for _, k := range p.Kernels {
				require.Equal(t, p.DeviceType, k.GetDeviceType(), "built-in packs hold only their own device's kernels (op %s)", k.GetOp())
			}
		})
	}
}

func TestBuiltinPacksAreCanonical(t *testing.T) {
	if testing.Short() {
		t.Skip("re-encodes every pack")
	}
	packs, err := BuiltinPacks()
	require.NoError(t, err)
	for _, p := range packs {
		embedded, err := builtinFile(p.Name)
		require.NoError(t, err)
		clone := *p
		var buf bytes.Buffer
		require.NoError(t, WritePack(&buf, &clone))
		assert.True(t, bytes.Equal(embedded, buf.Bytes()), "%s is not in WritePack's canonical form; regenerate with make registries", p.Name)
	}
}

// accepts reports whether some own kernel of op in p allows dtype for attr
// (or has no constraint on attr at all).
func accepts(p *Pack, op, attr string, dtype tpb.DataType) bool {
	for _, k := range p.OwnKernels() {
		if k.GetOp() != op || k.GetLabel() != "" {
			continue
		}
		constrained := false
		for _, c := range k.GetConstraint() {
			if c.GetName() == attr {
				constrained = true
				if slices.Contains(c.GetAllowedValues().GetList().GetType(), dtype) {
					return true
				}
			}
		}
		if !constrained {
			return true
		}
	}
	return false
}

func TestBuiltinPackFacts(t *testing.T) {
	get := func(name string) *Pack {
		p, err := BuiltinPack(name)
		require.NoError(t, err)
		return p
	}
	cpu, cuda, def := get("cpu"), get("cuda"), get("default")
	ops := func(p *Pack) []string { return p.Ops() }
	tests := []struct {
		name string
		ok   bool
	}{
		{"cpu has Conv2D for float", accepts(cpu, "Conv2D", "T", tpb.DataType_DT_FLOAT)},
		{"cuda has Conv2D for half", accepts(cuda, "Conv2D", "T", tpb.DataType_DT_HALF)},
		{"cuda lacks StringJoin", !slices.Contains(ops(cuda), "StringJoin")},
		{"cpu has StringJoin", slices.Contains(ops(cpu), "StringJoin")},
		{"cuda has no int32 Const (it resolves through DEFAULT)", !accepts(cuda, "Const", "dtype", tpb.DataType_DT_INT32)},
		{"default has int32 Const", accepts(def, "Const", "dtype", tpb.DataType_DT_INT32)},
		{"default has Identity", slices.Contains(ops(def), "Identity")},
		{"default has NoOp, cpu does not (no_op.cc registers DEFAULT only)", slices.Contains(ops(def), "NoOp") && !slices.Contains(ops(cpu), "NoOp")},
		{"default has ReadVariableOp", slices.Contains(ops(def), "ReadVariableOp")},
		{"musa's device type is MUSA", get("musa").DeviceType == "MUSA"},
		{"musa registers Const itself", slices.Contains(ops(get("musa")), "Const")},
		{"intel-xpu inherits Const from DEFAULT", !slices.Contains(ops(get("intel-xpu")), "Const")},
		{"directml inherits Identity from DEFAULT", !slices.Contains(ops(get("directml")), "Identity")},
		{"rocm lacks the GOOGLE_CUDA-only MatrixInverse", slices.Contains(ops(cuda), "MatrixInverse") && !slices.Contains(ops(get("rocm")), "MatrixInverse")},
		{"xla Conv2D has no int32 on GPU", accepts(get("xla"), "Conv2D", "T", tpb.DataType_DT_FLOAT) && !accepts(get("xla"), "Conv2D", "T", tpb.DataType_DT_INT32)},
		{"ascend keeps Const off the NPU", !slices.Contains(ops(get("ascend")), "Const")},
		{"ascend has MatMul", slices.Contains(ops(get("ascend")), "MatMul")},
		// The Linux wheel's oneDNN and C API kernels.
		{"cpu has the oneDNN placeholder QuantizedConv2DAndRelu", slices.Contains(ops(cpu), "QuantizedConv2DAndRelu")},
		{"cpu has _FusedDepthwiseConv2dNative", accepts(cpu, "_FusedDepthwiseConv2dNative", "T", tpb.DataType_DT_FLOAT)},
		{"cpu has _FusedBatchNormEx and _FusedConv3D", slices.Contains(ops(cpu), "_FusedBatchNormEx") && slices.Contains(ops(cpu), "_FusedConv3D")},
		{"cpu has bfloat16 _FusedConv2D (mkl_tmp_bf16_ops.cc)", accepts(cpu, "_FusedConv2D", "T", tpb.DataType_DT_BFLOAT16)},
		{"cpu has the C API kernels", slices.Contains(ops(cpu), "Bitcast") && slices.Contains(ops(cpu), "ScalarSummary") &&
			slices.Contains(ops(cpu), "HistogramSummary") && slices.Contains(ops(cpu), "MergeSummary")},
		{"cpu leaves out the RISC ops no target links", !slices.Contains(ops(cpu), "RiscAdd")},
		{"cuda has CTCLossV2 (cuDNN >= 7.6.3)", slices.Contains(ops(cuda), "CTCLossV2")},
		{"cuda has TF-TRT's TRTEngineOp", slices.Contains(ops(cuda), "TRTEngineOp")},
		{"rocm has SelfAdjointEigV2 (ROCm >= 4.5)", slices.Contains(ops(get("rocm")), "SelfAdjointEigV2")},
		{"no GPU pack has test kernels", !slices.Contains(ops(cuda), "TestGpuInclusivePrefixSum") && !slices.Contains(ops(get("rocm")), "TestGpuRadixSort")},
		{"default has the CUDA wheel's int32 Sum", accepts(def, "Sum", "T", tpb.DataType_DT_INT32)},
		{"cpu states its build flags", slices.Contains(cpu.BuildFlags, "INTEL_MKL") && slices.Contains(cpu.BuildFlags, "ENABLE_ONEDNN_V3")},
		{"enflame-gcu flags TF 2.x ops", slices.Contains(get("enflame-gcu").NewerThanStack, "BatchMatMulV3") && !slices.Contains(ops(get("enflame-gcu")), "BatchMatMulV3")},
		{"iluvatar-corex cannot date ops", len(get("iluvatar-corex").NewerThanStack) == 0},
	}
	for _, tc := range tests {
		assert.True(t, tc.ok, tc.name)
	}
	prio := 0
	for _, k := range cpu.OwnKernels() {
		if k.GetOp() == "IteratorGetNext" {
			prio = int(k.GetPriority())
		}
	}
	assert.Equal(t, 2, prio, "tf.data CPU kernels have Priority(2) (iterator_ops.cc)")
}

func TestDefaultKernelsFor(t *testing.T) {
	xpu, err := BuiltinPack("intel-xpu")
	require.NoError(t, err)
	defs, err := DefaultKernelsFor(xpu)
	require.NoError(t, err)
	def, _ := BuiltinPack(DefaultPackName)
	assert.Equal(t, len(def.Kernels), len(defs))

	xla, _ := BuiltinPack("xla")
	defs, err = DefaultKernelsFor(xla)
	require.NoError(t, err)
	assert.Nil(t, defs, "XLA devices get no DEFAULT fallback")
}

func TestBuiltinPackUnknownName(t *testing.T) {
	_, err := BuiltinPack("nope")
	assert.ErrorContains(t, err, `no built-in pack "nope"`)
}

// Packs of different names decode at the same time, and every caller of
// one name gets the one pack, decoded once (make test runs it under the
// race detector too).
func TestBuiltinPacksDecodeOnceAtTheSameTime(t *testing.T) {
	names, err := builtinNames()
	require.NoError(t, err)
	got := make([][2]*Pack, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		for k := range 2 {
			wg.Go(func() {
				p, err := BuiltinPack(name)
				assert.NoError(t, err, name)
				got[i][k] = p
			})
		}
	}
	wg.Wait()
	for i, name := range names {
		require.NotNil(t, got[i][0], name)
		assert.Same(t, got[i][0], got[i][1], name)
		again, err := BuiltinPack(name)
		require.NoError(t, err)
		assert.Same(t, got[i][0], again, name)
	}
}

// builtinData embeds every pack file of coverage/packs, and only those, each
// under the name its file has: a pack `make registries` adds needs its line
// in builtin_files.go.
func TestBuiltinDataListsEveryPackFile(t *testing.T) {
	entries, err := os.ReadDir("packs")
	require.NoError(t, err)
	var files []string
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		require.True(t, ok, "%s: a built-in pack file is NAME.json", e.Name())
		files = append(files, name)
		data, err := os.ReadFile(filepath.Join("packs", e.Name()))
		require.NoError(t, err)
		embedded, err := builtinFile(name)
		require.NoError(t, err, "%s.json is not embedded", name)
		assert.True(t, bytes.Equal(data, embedded), "%s: the embedded bytes are not the file's", name)
	}
	names, err := builtinNames()
	require.NoError(t, err)
	assert.Equal(t, files, names)
}
