package extract

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	avpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// needCPP skips when no C preprocessor is installed, except in CI.
func needCPP(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("cpp"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("cpp is required in CI")
		}
		t.Skip("no cpp on this machine")
	}
}

// tree writes files (slash paths) under a temp dir and returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, data := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(data), 0o644))
	}
	return root
}

// A miniature TensorFlow: register_types.h with TF_CALL_* lists, an
// op_kernel.h defining REGISTER_KERNEL_BUILDER (which must stay
// unexpanded), a cwise header with REGISTERn helpers, GPU guards.
var tfTree = map[string]string{
	"tensorflow/core/framework/op_kernel.h": `#pragma once
#include <string>
#include "absl/strings/str_cat.h"
#define REGISTER_KERNEL_BUILDER(kernel_builder, ...) static int x = kernel_builder.Build();
class OpKernel { public: virtual ~OpKernel(); };
`,
	"tensorflow/core/framework/register_types.h": `#pragma once
#include "tensorflow/core/framework/op_kernel.h"
#define TF_CALL_float(m) m(float)
#define TF_CALL_half(m) m(Eigen::half)
#define TF_CALL_int32(m) m(::tensorflow::int32)
#if defined(IS_MOBILE_PLATFORM)
#define TF_CALL_double(m)
#else
#define TF_CALL_double(m) m(double)
#endif
#define TF_CALL_GPU_NUMBER_TYPES(m) TF_CALL_half(m) TF_CALL_float(m) TF_CALL_double(m)
#error "this header pulls in C++ the shadow tree drops"
`,
	"tensorflow/core/kernels/cwise_ops_common.h": `#pragma once
#define REGISTER(OP, D, N, F, T) REGISTER_KERNEL_BUILDER(Name(N).Device(DEVICE_##D).TypeConstraint<T>("T"), OP<D##Device, F<T>>);
#define REGISTER2(OP, D, N, F, T0, T1) REGISTER(OP, D, N, F, T0) REGISTER(OP, D, N, F, T1)
template <typename T> struct Unused { T t; };
`,
	"tensorflow/core/kernels/relu_op.cc": `#include "tensorflow/core/framework/register_types.h"
#include "tensorflow/core/kernels/cwise_ops_common.h"
#include "third_party/eigen3/unsupported/Eigen/CXX11/Tensor"
namespace tensorflow {
#define REGISTER_RELU(T) REGISTER_KERNEL_BUILDER(Name("Relu").Device(DEVICE_CPU).TypeConstraint<T>("T"), ReluOp<CPUDevice, T>);
TF_CALL_float(REGISTER_RELU) TF_CALL_int32(REGISTER_RELU)
#undef REGISTER_RELU
#if GOOGLE_CUDA || TENSORFLOW_USE_ROCM
#define REGISTER_GPU(T) REGISTER_KERNEL_BUILDER(Name("Relu").Device(DEVICE_GPU).TypeConstraint<T>("T"), ReluOp<GPUDevice, T>);
TF_CALL_GPU_NUMBER_TYPES(REGISTER_GPU);
#endif
#if GOOGLE_CUDA
REGISTER_KERNEL_BUILDER(Name("CudaOnly").Device(DEVICE_GPU), CudaOnlyOp);
#endif
REGISTER2(BinaryOp, CPU, "Add", functor::add, float, int32);
REGISTER_KERNEL_BUILDER(Name("Identity").Device(DEVICE_DEFAULT).HostMemory("input"), IdentityOp);
}
`,
	"tensorflow/core/kernels/relu_op_test.cc": `REGISTER_KERNEL_BUILDER(Name("TestOnly").Device(DEVICE_CPU), X);`,
}

func TestExtractTensorFlowStyle(t *testing.T) {
	needCPP(t)
	root := tree(t, tfTree)
	tests := []struct {
		name    string
		defines []string
		dev     string
		want    []string
	}{
		{"cpu", nil, "CPU", []string{"Relu dev=CPU T=[DT_FLOAT] host=[]", "Relu dev=CPU T=[DT_INT32] host=[]", "Add dev=CPU T=[DT_FLOAT] host=[]", "Add dev=CPU T=[DT_INT32] host=[]"}},
		{"cuda", []string{"GOOGLE_CUDA=1"}, "GPU", []string{"Relu T=[DT_HALF] host=[]", "Relu T=[DT_FLOAT] host=[]", "Relu T=[DT_DOUBLE] host=[]", "CudaOnly host=[]"}},
		{"rocm", []string{"TENSORFLOW_USE_ROCM=1"}, "GPU", []string{"Relu T=[DT_HALF] host=[]", "Relu T=[DT_FLOAT] host=[]", "Relu T=[DT_DOUBLE] host=[]"}},
		{"default", nil, "DEFAULT", []string{"Identity dev=DEFAULT host=[input]"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Extract(context.Background(), Options{Source: root, Dirs: []string{"tensorflow/core/kernels"}, Defines: tc.defines})
			require.NoError(t, err)
			assert.Equal(t, 1, res.Files, "tests are not kernel files")
			var got []Registration
			for _, r := range res.Registrations {
				if r.Kernel.GetDeviceType() == tc.dev {
					got = append(got, r)
				}
			}
			assert.Equal(t, tc.want, describe(got))
		})
	}
}

// A file named on its own in Dirs is read even when its name looks like a
// test's; the same file found by walking a directory is not.
func TestExtractNamedTestFile(t *testing.T) {
	needCPP(t)
	root := tree(t, tfTree)
	for _, tc := range []struct {
		dirs []string
		want int
	}{
		{[]string{"tensorflow/core/kernels"}, 1},
		{[]string{"tensorflow/core/kernels", "tensorflow/core/kernels/relu_op_test.cc"}, 2},
	} {
		res, err := Extract(context.Background(), Options{Source: root, Dirs: tc.dirs})
		require.NoError(t, err)
		assert.Equal(t, tc.want, res.Files, tc.dirs)
		var ops []string
		for _, r := range res.Registrations {
			ops = append(ops, r.Kernel.GetOp())
		}
		assert.Equal(t, tc.want == 2, slices.Contains(ops, "TestOnly"), tc.dirs)
	}
}

func TestExtractITEXAndMUSAStyles(t *testing.T) {
	needCPP(t)
	root := tree(t, map[string]string{
		// ITEX: its own op_kernel.h macro and REGISTERn, .Device(DEVICE_GPU) meaning XPU.
		"itex/core/utils/op_kernel.h": `#define REGISTER_KERNEL_BUILDER(kernel_builder, ...) REGISTER_KERNEL_BUILDER_UNIQ_HELPER(__COUNTER__, kernel_builder, __VA_ARGS__)
#define REGISTER_ASYNC_KERNEL_BUILDER(kernel_builder, ...) REGISTER_KERNEL_BUILDER(kernel_builder, __VA_ARGS__)
`,
		"itex/core/kernels/common/cwise_ops_common.h": `#include "itex/core/utils/op_kernel.h"
#define REGISTER(OP, D, N, F, T) REGISTER_KERNEL_BUILDER(Name(N).Device(DEVICE_##D).TypeConstraint<T>("T"), OP<D##Device, F<T>>);
#define REGISTER2(OP, D, N, F, T0, T1) REGISTER(OP, D, N, F, T0) REGISTER(OP, D, N, F, T1)
`,
		"itex/core/kernels/gpu/cwise_op_abs.cc": `#include "itex/core/kernels/common/cwise_ops_common.h"
REGISTER2(UnaryOp, GPU, "Abs", functor::abs, float, itex::int64);
#ifdef ITEX_ENABLE_DOUBLE
REGISTER(UnaryOp, GPU, "Abs", functor::abs, double);
#endif
REGISTER_ASYNC_KERNEL_BUILDER(Name("ItexAllReduceSend").Device(DEVICE_GPU), X);
`,
		// MUSA: plain REGISTER_KERNEL_BUILDER, device from a #define found via an include root.
		"musa_ext/kernels/utils_op.h": `#define DEVICE_MTGPU "MUSA"
`,
		"musa_ext/kernels/math/musa_select_op.cc": `#include "utils_op.h"
#define REGISTER_SELECT(T) REGISTER_KERNEL_BUILDER(Name("Select").Device(DEVICE_MTGPU).TypeConstraint<T>("T"), MusaSelectOp<T>)
REGISTER_SELECT(float);
REGISTER_SELECT(bfloat16);
`,
	})
	res, err := Extract(context.Background(), Options{Source: root, Dirs: []string{"itex/core/kernels"}, Defines: []string{"ITEX_ENABLE_DOUBLE=1"}})
	require.NoError(t, err)
	p, st, err := ToPack(res, PackOptions{Name: "itex", Vendor: "Intel", DeviceType: "XPU", DeviceTags: []string{"GPU"}, SourceRef: "intel/itex@0000000000000000000000000000000000000000", Date: "2025-03-07"})
	require.NoError(t, err)
	assert.Equal(t, []string{"Abs", "ItexAllReduceSend"}, p.Ops())
	assert.Equal(t, 4, st.Registrations)
	for _, k := range p.Kernels {
		assert.Equal(t, "XPU", k.GetDeviceType(), "relabelled from the GPU tag")
	}
	assert.Contains(t, p.Confidence, "dtypes known for 4 of 4 registrations (1 have no type constraint)")

	_, err = Extract(context.Background(), Options{Source: root, Dirs: []string{"musa_ext"}})
	require.NoError(t, err)
	res, err = Extract(context.Background(), Options{Source: root, Dirs: []string{"musa_ext"}, Includes: []string{"musa_ext/kernels"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"Select dev=MUSA T=[DT_FLOAT] host=[]", "Select dev=MUSA T=[DT_BFLOAT16] host=[]"}, describe(res.Registrations))
}

func TestExtractXLAStyle(t *testing.T) {
	needCPP(t)
	root := tree(t, map[string]string{
		"tensorflow/compiler/tf2xla/xla_op_registry.h": `#define REGISTER_XLA_OP(NAME, OP) REGISTER_XLA_OP_UNIQ_HELPER(__COUNTER__, NAME, OP)
constexpr std::array<DataType, 4> kGpuAllTypes = {{DT_INT32, DT_HALF, DT_FLOAT, DT_BOOL}};
constexpr std::array<DataType, 2> kFloatTypes = {{DT_HALF, DT_FLOAT}};
`,
		"tensorflow/compiler/tf2xla/kernels/ops.cc": `#include "tensorflow/compiler/tf2xla/xla_op_registry.h"
REGISTER_XLA_OP(Name("Relu").TypeConstraint("T", kFloatTypes), ReluOp);
REGISTER_XLA_OP(Name("Const").CompileTimeConstantInput("value"), ConstOp);
REGISTER_XLA_OP(Name("Sort"), SortOp);
REGISTER_XLA_OP(Name("Sort").Device(DEVICE_GPU_XLA_JIT).TypeConstraint("T", {DT_FLOAT}), GpuSortOp);
REGISTER_XLA_OP(Name("TpuOnly").Device(DEVICE_TPU_XLA_JIT), TpuOp);
REGISTER_XLA_OP(Name("Impossible").TypeConstraint("T", {DT_STRING}), X);
REGISTER_XLA_OP(Name("XlaThing").TypeConstraint("T", {DT_FLOAT, DT_DOUBLE}).AllowResourceTypes(), X);
`,
	})
	res, err := Extract(context.Background(), Options{Source: root, Dirs: []string{"tensorflow/compiler/tf2xla/kernels"}, Marker: "REGISTER_XLA_OP",
		TypeListFiles: []string{"tensorflow/compiler/tf2xla/xla_op_registry.h"}})
	require.NoError(t, err)
	typeAttr := func(name string, allowed ...tpb.DataType) *opdefpb.OpDef_AttrDef {
		a := &opdefpb.OpDef_AttrDef{Name: name, Type: "type"}
		if len(allowed) > 0 {
			a.AllowedValues = &avpb.AttrValue{Value: &avpb.AttrValue_List{List: &avpb.AttrValue_ListValue{Type: allowed}}}
		}
		return a
	}
	ops := map[string]*opdefpb.OpDef{
		"Relu":       {Name: "Relu", Attr: []*opdefpb.OpDef_AttrDef{typeAttr("T")}},
		"Const":      {Name: "Const", Attr: []*opdefpb.OpDef_AttrDef{typeAttr("dtype")}},
		"Sort":       {Name: "Sort", Attr: []*opdefpb.OpDef_AttrDef{typeAttr("T", tpb.DataType_DT_FLOAT, tpb.DataType_DT_INT32)}},
		"TpuOnly":    {Name: "TpuOnly"},
		"Impossible": {Name: "Impossible", Attr: []*opdefpb.OpDef_AttrDef{typeAttr("T")}},
	}
	regs, _ := XLAKernels(res, ops, XLABackend{Device: "XLA_GPU_JIT", Types: res.TypeLists["kGpuAllTypes"], Filter: GPUOpFilter})
	assert.Equal(t, []string{
		"Const dev=XLA_GPU_JIT dtype=[DT_INT32 DT_HALF DT_FLOAT DT_BOOL DT_STRING] host=[]", // GpuOpFilter adds string
		"Relu dev=XLA_GPU_JIT T=[DT_HALF DT_FLOAT] host=[]",
		"Sort dev=XLA_GPU_JIT T=[DT_FLOAT] host=[]", // the GPU-allowlisted registration hides the generic one
		"XlaThing dev=XLA_GPU_JIT T=[DT_FLOAT DT_RESOURCE] host=[] unresolved=(no OpDef)",
	}, describe(regs))
}

func TestExtractAscendStyle(t *testing.T) {
	root := tree(t, map[string]string{
		"canndev/tf_plugin/matmul_plugin.cc": `// REGISTER_CUSTOM_OP("Commented").FrameworkType(TENSORFLOW).OriginOpType("Nope");
REGISTER_CUSTOM_OP("MatMul")
    .FrameworkType(TENSORFLOW)
    .OriginOpType("MatMul")
    .ParseParamsFn(AutoMappingFn)
    .ImplyType(ImplyType::TVM);
REGISTER_CUSTOM_OP("ApplyAdadelta").FrameworkType(TENSORFLOW).OriginOpType({"ApplyAdadelta", "ResourceApplyAdadelta"}).ImplyType(ImplyType::TVM);
REGISTER_CUSTOM_OP("Const").FrameworkType(TENSORFLOW).OriginOpType("Const");
REGISTER_CUSTOM_OP("OnnxOnly").FrameworkType(ONNX).OriginOpType("ai.onnx::11::Foo");`,
		"ascend/npu_device.cpp": `const static std::vector<std::string> kAddonOps{"IteratorV2", "IteratorGetNext"};`,
		"ini/aic.ini":           "[MatMul]\ninput0.dtype=float16,float\ninput0.name=x1\n[ApplyAdadelta]\ndynamicFormat.flag=true\n",
		"ini/aicpu.ini":         "[MatMul]\ninput0.type=DT_INT32,DT_FLOAT16\n",
	})
	ops := map[string]*opdefpb.OpDef{
		"MatMul": {Name: "MatMul", InputArg: []*opdefpb.OpDef_ArgDef{{Name: "a", TypeAttr: "T"}}, Attr: []*opdefpb.OpDef_AttrDef{{Name: "T", Type: "type"}}},
	}
	res, err := ExtractAscend(Options{Source: root, Dirs: []string{"canndev", "ascend"}}, AscendOptions{INIFiles: []string{"ini/aic.ini", "ini/aicpu.ini"}, Ops: ops})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"ApplyAdadelta dev=NPU host=[] unresolved=(input0 dtypes unknown)",
		"IteratorGetNext dev=NPU host=[] unresolved=(input0 dtypes unknown)",
		"IteratorV2 dev=NPU host=[] unresolved=(input0 dtypes unknown)",
		"MatMul dev=NPU T=[DT_FLOAT DT_INT32 DT_HALF] host=[]",
		"ResourceApplyAdadelta dev=NPU host=[] unresolved=(input0 dtypes unknown)",
	}, describe(res.Registrations), "Const is kept off the NPU by the adapter; ONNX plugins are ignored")
}

func TestExtractErrors(t *testing.T) {
	_, err := Extract(context.Background(), Options{Source: filepath.Join(t.TempDir(), "nope")})
	assert.ErrorContains(t, err, "is not a directory")
	_, err = Extract(context.Background(), Options{Source: t.TempDir(), Exclude: []string{"("}})
	assert.ErrorContains(t, err, "bad --exclude")
	_, _, err = ToPack(&Result{}, PackOptions{Name: "x", DeviceType: "GPU", SourceRef: "r"})
	assert.ErrorContains(t, err, "no registrations for device tag(s) GPU")
	_, err = ToXLA(&Result{TypeLists: TypeLists{}}, nil, "XLA_GPU_JIT", "kGpuAllTypes")
	assert.ErrorContains(t, err, `dtype list "kGpuAllTypes" not found`)
	_, err = LoadOpList(filepath.Join(t.TempDir(), "ops.pbtxt"))
	assert.Error(t, err)
}
