package extract

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/coverage"
)

// Miniatures of the adapter and CANN files the ascend stack reader cites,
// in their syntax (not copies).
var ascendFiles = map[string]string{
	"a/npu_config.py": `class NpuConfig(NpuBaseConfig):
    def __init__(self):
        self.graph_run_mode = OptionValue(1, [0, 1])
        self.precision_mode = OptionValue(None,
                                          ['force_fp16', 'allow_fp32_to_fp16',
                                           'must_keep_origin_dtype', 'brand_new_mode'])
        self.other = OptionValue(None, ['x'])
`,
	"a/npu_attrs.cc": "void f() {\n  std::string s;\n  bool mix_compile_mode = false;\n}\n",
	"a/partition.cc": "Status MergeSubgraphsInNewWay(int a) {\n}\nStatus MergeSubgraphs(int a) {\n}\n\nStatus MarkForPartition(int a) {\n}\n",
	"a/build.cpp":    "  if (x) {\n    graph->SetExecutionType(NpuConcreteGraph::ExecutionType::MIX);\n  }\n",
	"a/device.cpp": `tensorflow::Status NpuDevice::LoadSupportedOps(std::unordered_set<std::string> &ops) {
}
void g() {
      done(tensorflow::errors::Internal("Graph engine process graph failed:\n", err_msg));
}
`,
	"c/ai_core/chipa/aic-chipa-ops-info.ini": `[MatMulV2]
heavyOp.flag=true
precision_reduce.flag=true
input0.dtype=float16,float
[Pooling]
input0.dtype=float16
[ReduceSum]
precision_reduce.flag=false
`,
	"c/ai_core/chipb/aic-chipb-ops-info.ini": "",
}

var ascendInputs = StackInputs{
	inNPUConfig: "a/npu_config.py", inNPUAttrs: "a/npu_attrs.cc", inPartition: "a/partition.cc",
	inMixBuild: "a/build.cpp", inNPUDevice: "a/device.cpp", inChips: "c/ai_core",
	inChipINI: "c/ai_core/chipa/aic-chipa-ops-info.ini",
}

func TestReadAscendStack(t *testing.T) {
	root := tree(t, ascendFiles)
	st, err := readAscendStack(root, ascendInputs, map[string][]string{
		"MatMul": {"MatMulV2"}, "BatchMatMul": {"MatMulV2"}, "MaxPool": {"Pooling"}, "Sum": {"ReduceSum"}, "Relu": nil,
	})
	require.NoError(t, err)
	pm := st.Precision
	require.NotNil(t, pm)
	assert.Equal(t, "a/npu_config.py:4", pm.Source)
	var names []string
	for _, m := range pm.Modes {
		names = append(names, m.Name)
	}
	assert.Equal(t, []string{"force_fp16", "allow_fp32_to_fp16", "must_keep_origin_dtype", "brand_new_mode"}, names)
	assert.Equal(t, "a/npu_config.py:5", pm.Modes[0].Source)
	assert.Equal(t, "a/npu_config.py:6", pm.Modes[2].Source)
	assert.Equal(t, "lower", pm.Modes[0].Vector, "force_fp16: float16 wherever supported")
	assert.Equal(t, "error", pm.Modes[2].Unsupported)
	assert.Empty(t, pm.Modes[3].Matrix, "a mode CANN's documentation does not describe has no semantics")
	assert.Equal(t, []string{"BatchMatMul", "MatMul"}, pm.MatrixOps)
	assert.Equal(t, []string{"BatchMatMul", "MatMul"}, pm.Mixed.Reduce)
	assert.Equal(t, []string{"Sum"}, pm.Mixed.Keep)
	assert.Equal(t, "Graph engine process graph failed:", pm.Error)
	assert.Equal(t, "a/device.cpp:4", pm.ErrorSource)

	opts := map[string]coverage.StackOption{}
	for _, o := range st.Options {
		opts[o.Name] = o
	}
	assert.Equal(t, []string{"chipa", "chipb"}, opts["soc"].Values)
	assert.Equal(t, "chipa", opts["soc"].Default)
	assert.Equal(t, []string{"a/build.cpp:2", "a/partition.cc:6"}, opts["adapter"].ValueSources)
	assert.Equal(t, "a/device.cpp:1 (the pack's op list is the TF2 NPU device's)", opts["adapter"].Source)
	mc := opts["mix_compile_mode"]
	assert.Equal(t, "false", mc.Default)
	assert.Equal(t, "a/npu_attrs.cc:3", mc.Source)
	assert.Equal(t, []string{"a/partition.cc:3", "a/partition.cc:1"}, mc.ValueSources)
	assert.Nil(t, st.Optimizer, "no fusion_pass input")

	// The pack these declarations go into validates.
	p := &coverage.Pack{Name: "npu", DeviceType: "NPU", Mechanism: coverage.MechanismGraphOffload, Source: "s", Method: coverage.MethodSourceExtraction, Stack: st}
	require.NoError(t, p.Validate())

	// A missing input or a file that no longer says what is cited fails.
	in := StackInputs{}
	for k, v := range ascendInputs {
		in[k] = v
	}
	delete(in, inNPUAttrs)
	_, err = readAscendStack(root, in, nil)
	assert.ErrorContains(t, err, "stack inputs missing: npu_attrs")
	files := map[string]string{}
	for k, v := range ascendFiles {
		files[k] = v
	}
	files["a/npu_attrs.cc"] = "bool mix_compile_mode_default = 0;\n"
	_, err = readAscendStack(tree(t, files), ascendInputs, nil)
	assert.ErrorContains(t, err, "a/npu_attrs.cc: no line matches")
}

var itexFiles = map[string]string{
	"i/constant_names.h": `constexpr char kFusedConv2D[] = "_ITEXFusedConv2D";
constexpr char kFusedMatMul[] =
    "_ITEXFusedMatMul";
constexpr char kFusedBatchNormEx[] = "_FusedBatchNormEx";
`,
	"i/op_types.cc": `bool IsConv2D(const NodeDef& node) { return node.op() == "Conv2D"; }

bool IsMatMul(const NodeDef& node) {
  return node.op() == "MatMul";
}

bool IsBiasAdd(const NodeDef& node) {
  return node.op() == "BiasAdd" || node.op() == "BiasAddV1";
}

bool IsFusedBatchNorm(const NodeDef& node) {
  const auto& op = node.op();
  return op == "FusedBatchNorm" || op == "FusedBatchNormV3";
}

bool IsRelu(const NodeDef& node) { return node.op() == "Relu"; }
`,
	"i/post_op.cc": `  static std::vector<PostOpInfo> info_vec = {
      {"Add", kind::sum, algorithm::undef, kAlphaOne, kBetaZero},
      {"Relu", kind::eltwise, algorithm::eltwise_relu, kAlphaZero, kBetaZero},
      {"Tanh", kind::eltwise, algorithm::eltwise_tanh, kAlphaZero,
       kBetaZero},
  };
`,
	"i/remapper.cc": `bool FindFusedBatchNormEx(const RemapperContext& ctx, int node_index,
                          FusedBatchNormEx* matched) {
    if (t_dtype != DT_FLOAT && t_dtype != DT_BFLOAT16) return false;
}

// Contraction + BiasAdd.
Status AddFusedContractionNode(RemapperContext* ctx,
                               const ContractionWithBiasAdd& matched,
                               std::vector<bool>* nodes_to_delete) {
  if (IsConv2D(contraction)) {
    fused_op.set_op(kFusedConv2D);
  } else if (IsMatMul(contraction)) {
    fused_op.set_op(kFusedMatMul);
  } else if (IsUnknownThing(contraction)) {
    fused_op.set_op(kFusedMatMul);
  }
}

Status AddFusedContractionNode(RemapperContext* ctx,
                               const ContractionWithBiasAndAddActivation& matched) {
  if (IsConv2D(contraction)) {
    fused_op.set_op(kFusedConv2D);
  }
}

Status AddFusedContractionNode(
    RemapperContext* ctx, const ContractionWithBiasAddAndActivation& matched,
    std::vector<bool>* invalidated_nodes) {
  if (IsConv2D(contraction)) {
    fused_op.set_op(kFusedConv2D);
  }
}

Status AddFusedBatchNormExNode(RemapperContext* ctx,
                               const FusedBatchNormEx& matched) {
  fused_op.set_op(kFusedBatchNormEx);
}
`,
	"i/xpu_optimizer.cc": "  if (config.enable_remapper) {\n    RunRemapper(&ctx);\n  }\n",
	"i/config.h":         "constexpr static bool enable_itex_remapper = true;\n",
}

var itexInputs = StackInputs{inRemapper: "i/remapper.cc", inConstants: "i/constant_names.h", inOpTypes: "i/op_types.cc",
	inPostOps: "i/post_op.cc", inXPUOpt: "i/xpu_optimizer.cc", inOptConfig: "i/config.h"}

func TestReadITEXOptimizer(t *testing.T) {
	opt, err := ReadITEXOptimizer(tree(t, itexFiles), itexInputs)
	require.NoError(t, err)
	assert.True(t, opt.Modelled)
	assert.Equal(t, "i/xpu_optimizer.cc:2; on by default: i/config.h:1 (ITEX_REMAPPER=0 turns it off)", opt.Source)
	bias := []string{"BiasAdd", "BiasAddV1"}
	acts := []string{"Relu", "Tanh"}
	assert.Equal(t, []coverage.Rewrite{
		{Chain: [][]string{{"Conv2D"}, bias}, Fused: "_ITEXFusedConv2D", Source: "i/remapper.cc:11"},
		{Chain: [][]string{{"MatMul"}, bias}, Fused: "_ITEXFusedMatMul", Source: "i/remapper.cc:13"},
		{Chain: [][]string{{"Conv2D"}, bias, acts}, Fused: "_ITEXFusedConv2D", Source: "i/remapper.cc:30"},
		{Chain: [][]string{{"FusedBatchNorm", "FusedBatchNormV3"}, {"Relu"}}, Fused: "_FusedBatchNormEx",
			DTypes: []string{"float32", "bfloat16"}, Source: "i/remapper.cc:36 (dtypes: i/remapper.cc:3)"},
	}, opt.Fusions)

	files := map[string]string{}
	for k, v := range itexFiles {
		files[k] = v
	}
	files["i/config.h"] = "constexpr static bool enable_itex_remapper = false;\n"
	opt, err = ReadITEXOptimizer(tree(t, files), itexInputs)
	require.NoError(t, err)
	assert.False(t, opt.Modelled)
	assert.Contains(t, opt.Note, "off by default (i/config.h:1)")
}

func TestReadMUSAOptimizer(t *testing.T) {
	root := tree(t, map[string]string{
		"m/fusion/a_fusion.cc": "  node->set_op(\"Const\");\n  fused->set_op(\"MusaA\");\nREGISTER_FUSION_PATTERN(AFusion);\n",
		"m/fusion/a_fusion.h":  "REGISTER_FUSION_PATTERN(NotThis);\n",
		"m/opt.cc":             "x\nREGISTER_OPTIMIZATION(::tensorflow::OptimizationPassRegistry::PRE_PLACEMENT, 60,\n    Pass);\n",
	})
	opt, err := ReadMUSAOptimizer(root, StackInputs{inMUSAFusions: "m/fusion", inMUSAOptimize: "m/opt.cc"})
	require.NoError(t, err)
	assert.False(t, opt.Modelled)
	assert.Equal(t, "m/opt.cc:2 (::tensorflow::OptimizationPassRegistry::PRE_PLACEMENT)", opt.Source)
	assert.Equal(t, "1 fusion patterns whose match conditions are C++ code tfscan does not read: AFusion (m/fusion/a_fusion.cc:3) → MusaA", opt.Note)
}
