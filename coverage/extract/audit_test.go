package extract

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The C API style of tensorflow/c/kernels/summary_op.cc and bitcast_op.cc:
// a template function instantiated per dtype, and a GPU registration under
// a CUDA guard.
var capiTree = map[string]string{
	"tensorflow/c/kernels.h": `#pragma once
TF_KernelBuilder* TF_NewKernelBuilder(const char* op_name, const char* device_name, void* (*create_func)(TF_OpKernelConstruction*), void (*compute_func)(void*, TF_OpKernelContext*), void (*delete_func)(void*));
`,
	"tensorflow/c/kernels/summary_op.cc": `#include "tensorflow/c/kernels.h"
template <typename T>
void ScalarSummaryOp_Compute(void* kernel, TF_OpKernelContext* ctx) {}
template <typename T>
void RegisterScalarSummaryOpKernel() {
  TF_Status* status = TF_NewStatus();
  {
    auto* builder = TF_NewKernelBuilder(
        "ScalarSummary", tensorflow::DEVICE_CPU, &ScalarSummaryOp_Create,
        &ScalarSummaryOp_Compute<T>, &ScalarSummaryOp_Delete);
    TF_KernelBuilder_TypeConstraint(
        builder, "T",
        static_cast<TF_DataType>(tensorflow::DataTypeToEnum<T>::v()), status);
    TF_KernelBuilder_HostMemory(builder, "tags");
    TF_RegisterKernelBuilder("ScalarSummary", builder, status);
  }
}
TF_ATTRIBUTE_UNUSED bool IsScalarSummaryOpKernelRegistered = []() {
  if (SHOULD_REGISTER_OP_KERNEL("ScalarSummary")) {
    RegisterScalarSummaryOpKernel<int64_t>();
    RegisterScalarSummaryOpKernel<Eigen::half>();
  }
  return true;
}();
`,
	"tensorflow/c/kernels/bitcast_op.cc": `#include "tensorflow/c/kernels.h"
void RegisterBitcastOpKernel() {
  {
    auto* builder = TF_NewKernelBuilder("Bitcast", tensorflow::DEVICE_CPU, &C, &D, &E);
    TF_KernelBuilder_TypeConstraint(builder, "T", TF_FLOAT, status);
    TF_RegisterKernelBuilder("BitcastOp", builder, status);
  }
#if GOOGLE_CUDA || TENSORFLOW_USE_ROCM
  {
    auto* builder = TF_NewKernelBuilder("Bitcast", tensorflow::DEVICE_GPU, &C, &D, &E);
    TF_KernelBuilder_Priority(builder, 3);
    TF_RegisterKernelBuilder("BitcastOp", builder, status);
  }
#endif
}
`,
	// A CUDA test source: gpu_prim_helpers_test.cu.cc registers test kernels
	// that no installed TensorFlow has.
	"tensorflow/c/kernels/prim_test.cu.cc": `REGISTER_KERNEL_BUILDER(Name("TestGpuInclusivePrefixSum").Device(DEVICE_GPU), X);`,
}

func TestExtractCAPIKernels(t *testing.T) {
	needCPP(t)
	root := tree(t, capiTree)
	res, err := Extract(context.Background(), Options{Source: root, Dirs: []string{"tensorflow/c/kernels"}, Defines: []string{"GOOGLE_CUDA=1"}})
	require.NoError(t, err)
	assert.Equal(t, 2, res.Files, "the .cu.cc test source is left out")
	assert.Empty(t, res.Skips)
	assert.Equal(t, []string{
		"Bitcast dev=CPU T=[DT_FLOAT] host=[]",
		"Bitcast host=[] prio=3",
		"ScalarSummary dev=CPU T=[DT_INT64] host=[tags]",
		"ScalarSummary dev=CPU T=[DT_HALF] host=[tags]",
	}, describe(res.Registrations))

	res, err = Extract(context.Background(), Options{Source: root, Dirs: []string{"tensorflow/c/kernels"}})
	require.NoError(t, err)
	assert.Len(t, res.Registrations, 3, "no GPU Bitcast without the CUDA define")
}

func TestParseCAPISkips(t *testing.T) {
	regs, skips := ParseCAPIRegistrations(`auto* b = TF_NewKernelBuilder(op_name_, device, &C, &D, &E);`, "x.cc", nil)
	assert.Empty(t, regs)
	require.Len(t, skips, 1)
	assert.Contains(t, skips[0].Reason, "op name is not a string constant")
	regs, _ = ParseCAPIRegistrations(`auto* b = TF_NewKernelBuilder("Foo", tensorflow::DEVICE_CPU, &C, &D, &E);
TF_KernelBuilder_TypeConstraint(b, "T", static_cast<TF_DataType>(DataTypeToEnum<U>::v()), s);
TF_RegisterKernelBuilder("Foo", b, s);`, "x.cc", nil)
	require.Len(t, regs, 1)
	assert.Equal(t, []string{"T"}, regs[0].Unresolved, "an unbound template parameter leaves the dtype unverified")
}

func TestLiteralRegistrations(t *testing.T) {
	src := `// REGISTER_KERNEL_BUILDER(Name("Commented").Device(DEVICE_CPU), X);
/* REGISTER_KERNEL_BUILDER(Name("Block").Device(DEVICE_CPU), X); */
REGISTER_KERNEL_BUILDER(Name("Relu").Device(DEVICE_CPU).TypeConstraint<float>("T"), X);
#define REGISTER_GPU(T) \
  REGISTER_KERNEL_BUILDER(Name("Relu")   \
      .TypeConstraint<T>("T")            \
      .Device(DEVICE_GPU), X);
#if 0
REGISTER_KERNEL_BUILDER(Name("Dead").Device(DEVICE_CPU), X);
#else
REGISTER_KERNEL_BUILDER(Name("Alive").Device(DEVICE_DEFAULT), X);
#endif
#if defined(PLUGGABLE_DEVICE_SUPPORTED_MACOS)
REGISTER_KERNEL_BUILDER(Name("Pad").Device(DEVICE_DEFAULT), X);
#endif
#define REG(D) REGISTER_KERNEL_BUILDER(Name("Const").Device(DEVICE_##D), X)
REGISTER5(BinaryOp, CPU, "Add", functor::add, float, double, int32, int64, half);
REGISTER_LINALG_OP("Cholesky", (CholeskyOp<float>), float);
REGISTER_LINALG_OP_GPU("Cholesky", (CholeskyOpGpu<float>), float);
REGISTER_XLA_OP(Name("Sort"), SortOp);
REGISTER_KERNEL_BUILDER(Name("Const").Device(DEVICE_TPU_SYSTEM), X);
auto* b = TF_NewKernelBuilder("Bitcast", tensorflow::DEVICE_CPU, &C, &D, &E);
REGISTER_OP("NotAKernel").Input("x: T");
`
	var got []string
	for _, r := range LiteralRegistrations(src, "k.cc") {
		s := r.Op + "@" + r.Device
		if r.Guard != "" {
			s += " if " + r.Guard
		}
		got = append(got, s)
	}
	assert.ElementsMatch(t, []string{
		"Relu@CPU", "Relu@GPU", "Alive@DEFAULT if !(0)", "Pad@DEFAULT if defined(PLUGGABLE_DEVICE_SUPPORTED_MACOS)",
		"Const@*", "Add@CPU", "Cholesky@CPU", "Cholesky@GPU", "Sort@XLA", "Const@TPU_SYSTEM", "Bitcast@CPU",
	}, got)
	for _, r := range LiteralRegistrations(src, "k.cc") {
		if r.Op == "Sort" {
			assert.Equal(t, 20, r.Line)
		}
	}
}

func TestAudit(t *testing.T) {
	root := tree(t, map[string]string{
		"tensorflow/core/kernels/a.cc":      `REGISTER_KERNEL_BUILDER(Name("Relu").Device(DEVICE_CPU), X); REGISTER_KERNEL_BUILDER(Name("Lost").Device(DEVICE_GPU), X);`,
		"tensorflow/core/kernels/a_test.cc": `REGISTER_KERNEL_BUILDER(Name("TestOnly").Device(DEVICE_CPU), X);`,
		"tensorflow/core/tpu/t.cc":          `REGISTER_KERNEL_BUILDER(Name("TPUThing").Device(DEVICE_CPU), X);`,
		"tensorflow/core/kernels/mac.cc":    "#if defined(PLUGGABLE_DEVICE_SUPPORTED_MACOS)\nREGISTER_KERNEL_BUILDER(Name(\"Pad\").Device(DEVICE_DEFAULT), X);\n#endif\n",
	})
	excl, err := ReadExclusions(strings.NewReader(`# comment
path=^tensorflow/core/tpu/ : TPU only
if=PLUGGABLE_DEVICE_SUPPORTED_MACOS device=DEFAULT : macOS only
op=Gone : stale
`), "excl.txt")
	require.NoError(t, err)
	has := func(op, dev string) bool { return op == "Relu" && (dev == "CPU" || dev == "*") }
	res, err := Audit(root, []string{"tensorflow"}, has, excl)
	require.NoError(t, err)
	assert.Equal(t, 4, res.Found, "test sources are not audited")
	require.Len(t, res.Missing, 1)
	assert.Equal(t, LiteralRegistration{File: "tensorflow/core/kernels/a.cc", Line: 1, Op: "Lost", Device: "GPU"}, res.Missing[0])
	assert.Equal(t, map[int]int{2: 1, 3: 1}, res.Excluded)
	require.Len(t, res.Unused, 1)
	assert.Equal(t, "Gone", res.Unused[0].Op)
}

func TestReadExclusionsErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"path=^x", "a reason"},
		{"path=( : r", "missing closing"},
		{"color=red : r", "unknown field"},
		{"device= : r", "must name a path, op, device or if"},
	} {
		_, err := ReadExclusions(strings.NewReader(tc.in), "e.txt")
		assert.ErrorContains(t, err, tc.want, tc.in)
		assert.ErrorContains(t, err, "e.txt:1")
	}
}
