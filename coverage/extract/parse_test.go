package extract

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

func TestParseRegistrations(t *testing.T) {
	syms := &Symbols{
		Types:   TypeLists{"kFloatTypes": {tpb.DataType_DT_HALF, tpb.DataType_DT_FLOAT}},
		Strings: map[string]string{"kArgOp": "_Arg"},
	}
	tests := []struct {
		name, text string
		want       []string
		skips      int
	}{
		{
			name: "template type, host memory, priority",
			text: `REGISTER_KERNEL_BUILDER(Name("Fill").Device(DEVICE_GPU).TypeConstraint<Eigen::half>("T").TypeConstraint<int64_t>("index_type").HostMemory("dims").Priority(1), FillOp<GPUDevice, Eigen::half, int64>);`,
			want: []string{"Fill T=[DT_HALF] index_type=[DT_INT64] host=[dims] prio=1"},
		},
		{
			name: "dtype list and single enum, qualified device, string concatenation",
			text: `REGISTER_KERNEL_BUILDER(Name("Ma" "tMul").Device(::tensorflow::DEVICE_CPU).TypeConstraint("T", {DT_FLOAT, DT_DOUBLE}).TypeConstraint("U", DT_INT32), MatMulOp<CPUDevice, float, double>);`,
			want: []string{"MatMul dev=CPU T=[DT_FLOAT DT_DOUBLE] U=[DT_INT32] host=[]"},
		},
		{
			name: "DataTypeToEnum, EnumToDataType (MLIR generated kernels), named lists, string constants",
			text: `REGISTER_KERNEL_BUILDER(Name(kArgOp).Device(DEVICE_DEFAULT).TypeConstraint("T", DataTypeToEnum<tstring>::v()), ArgOp);
			       REGISTER_KERNEL_BUILDER(Name("Abs").Device(DEVICE_GPU).TypeConstraint<typename EnumToDataType<DT_HALF>::Type>("T"), MlirAbsGPUDT_HALFDT_HALFOp);
			       REGISTER_KERNEL_BUILDER(Name("Relu").Device(DEVICE_GPU).TypeConstraint("T", kFloatTypes), ReluOp);`,
			want: []string{"_Arg dev=DEFAULT T=[DT_STRING] host=[]", "Abs T=[DT_HALF] host=[]", "Relu T=[DT_HALF DT_FLOAT] host=[]"},
		},
		{
			name: "labels, JIT label dropped, AttrConstraint, system kernels are separate markers",
			text: `REGISTER_KERNEL_BUILDER(Name("Fact").Device(DEVICE_CPU).Label("Yoxmos"), FactOp);
			       REGISTER_KERNEL_BUILDER(Name("Sin").Device(DEVICE_GPU).Label(kJitKernelLabel).TypeConstraint<int8>("T"), JitOp);
			       REGISTER_KERNEL_BUILDER(Name("ApproxTopK").Device(DEVICE_CPU).AttrConstraint("is_max_k", {true}).AttrConstraint<int64_t>("reduction_dimension", -1), TopK);
			       REGISTER_SYSTEM_KERNEL_BUILDER(Name("NotThisMarker").Device(DEVICE_CPU), X);`,
			want: []string{"Fact dev=CPU host=[] label=Yoxmos", "Sin T=[DT_INT8] host=[]", "ApproxTopK dev=CPU is_max_k=[true] reduction_dimension=[-1] host=[]"},
		},
		{
			name: "unresolved template parameter keeps the kernel, marks the attr",
			text: `template <typename T> void Reg() { REGISTER_KERNEL_BUILDER(Name("Foo").Device(DEVICE_GPU).TypeConstraint<T>("T"), FooOp<T>); }`,
			want: []string{"Foo host=[] unresolved=T"},
		},
		{
			name:  "non-constant op name is skipped, not guessed",
			text:  `REGISTER_KERNEL_BUILDER(Name(op_name).Device(DEVICE_CPU), X); REGISTER_KERNEL_BUILDER(Name("Ok").Device(DEVICE_CPU).Bogus(), X);`,
			skips: 2,
		},
		{
			name:  "unbalanced text ends cleanly",
			text:  `REGISTER_KERNEL_BUILDER(Name("X").Device(DEVICE_CPU)`,
			skips: 1,
		},
		{
			name: "longer identifiers are not markers",
			text: `MY_REGISTER_KERNEL_BUILDER(Name("No").Device(DEVICE_CPU), X); REGISTER_KERNEL_BUILDER_IMPL(x);`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			regs, skips := ParseRegistrations(tc.text, "f.cc", "REGISTER_KERNEL_BUILDER", syms)
			assert.Equal(t, tc.want, describe(regs))
			assert.Len(t, skips, tc.skips)
			for _, r := range regs {
				assert.Equal(t, "f.cc", r.File)
			}
		})
	}
}

func TestCppType(t *testing.T) {
	tests := map[string]tpb.DataType{
		"float": tpb.DataType_DT_FLOAT, "Eigen::half": tpb.DataType_DT_HALF, "::tensorflow::tstring": tpb.DataType_DT_STRING,
		"std::complex<float>": tpb.DataType_DT_COMPLEX64, "int64_t": tpb.DataType_DT_INT64, "tsl::float8_e4m3fn": tpb.DataType_DT_FLOAT8_E4M3FN,
		"itex::int32": tpb.DataType_DT_INT32, "typename EnumToDataType<DT_BFLOAT16>::Type": tpb.DataType_DT_BFLOAT16,
		"Eigen::QUInt8": tpb.DataType_DT_QUINT8, "ResourceHandle": tpb.DataType_DT_RESOURCE,
	}
	for in, want := range tests {
		got, ok := CppType(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"T", "MyType", "EnumToDataType<X>"} {
		_, ok := CppType(bad)
		assert.False(t, ok, bad)
	}
}

func TestCollectTypeListsAndStrings(t *testing.T) {
	text := `constexpr std::array<DataType, 4> kFloatTypes = {
    {DT_HALF, DT_FLOAT, DT_DOUBLE, DT_BFLOAT16}};
std::vector<DataType> GetXlaConvTypesForGpu() {
  return {DT_FLOAT, DT_HALF};
}
static constexpr const char* const kArgOp = "_Arg";
constexpr char kRetOp[] = "_Re" "tval";`
	lists := CollectTypeLists(text)
	assert.Equal(t, []tpb.DataType{tpb.DataType_DT_HALF, tpb.DataType_DT_FLOAT, tpb.DataType_DT_DOUBLE, tpb.DataType_DT_BFLOAT16}, lists["kFloatTypes"])
	assert.Equal(t, []tpb.DataType{tpb.DataType_DT_FLOAT, tpb.DataType_DT_HALF}, lists["GetXlaConvTypesForGpu()"])
	strs := CollectStrings(text)
	assert.Equal(t, "_Arg", strs["kArgOp"])
	assert.Equal(t, "_Retval", strs["kRetOp"])
}

func FuzzParseRegistrations(f *testing.F) {
	f.Add(`REGISTER_KERNEL_BUILDER(Name("Fill").Device(DEVICE_GPU).TypeConstraint<float>("T").HostMemory("dims"), X);`)
	f.Add(`REGISTER_KERNEL_BUILDER(Name("A").Device({DEVICE_CPU, "X"}).TypeConstraint("T", {DT_FLOAT}), X)`)
	f.Add(`REGISTER_KERNEL_BUILDER((((`)
	f.Fuzz(func(t *testing.T, text string) {
		regs, _ := ParseRegistrations(text, "f", "REGISTER_KERNEL_BUILDER", nil)
		for _, r := range regs {
			require.NotEmpty(t, r.Kernel.GetOp())
		}
	})
}
