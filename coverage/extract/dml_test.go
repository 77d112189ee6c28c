package extract

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var dmlStructs = map[string]string{"Empty": "Empty", "Roll": "Roll", "BiasAdd": "BiasAdd", "Gather": "Gather", "AssignVariableOp": "AssignVariableOp", "Any": "Any"}

func TestParseDML(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{
			name: "alias then WithTypeConstraint::Register",
			src: `namespace tfdml {
class DmlEmptyKernel : public OpKernel { public: explicit DmlEmptyKernel(int x) {} bool init_; };
void RegisterKernels_Empty()
{
    using K =
        KernelDefinition<ops::Empty, DmlEmptyKernel>::WithHostMemoryArguments<
            ops::Empty::Argument::shape>;
    K::template WithTypeConstraint<ops::Empty::Attribute::dtype, TF_FLOAT>::
        Register();
    K::template WithTypeConstraint<ops::Empty::Attribute::dtype, TF_HALF>::Register();
}
}`,
			want: []string{"Empty dtype=[DT_FLOAT] host=[shape]", "Empty dtype=[DT_HALF] host=[shape]"},
		},
		{
			name: "RegisterWithTypes with constexpr attr alias",
			src: `void RegisterKernels_BiasAdd() {
    using K = KernelDefinition<ops::BiasAdd, DmlKernelWrapper<X, Y>>;
    constexpr auto T = ops::BiasAdd::Attribute::T;
    RegisterWithTypes<K, T, TF_FLOAT, TF_HALF>();
}`,
			want: []string{"BiasAdd T=[DT_FLOAT] host=[]", "BiasAdd T=[DT_HALF] host=[]"},
		},
		{
			name: "alias template and variadic helper with enable_if",
			src: `template <typename Op, typename Tshift, typename Taxis>
using K = typename KernelDefinition<Op, DmlKernelWrapper<DmlRollKernel<Tshift, Taxis>, H>>::
    template WithTypeConstraint<Op::Attribute::Tshift, DataTypeToEnum<Tshift>()>::
    template WithHostMemoryArguments<Op::Argument::shift>;
template <TF_DataType T>
static void RegisterRoll()
{
    using Op = ops::Roll;
    K<Op, int32_t, int32_t>::template WithTypeConstraint<Op::Attribute::T, T>::Register();
}
template <TF_DataType T, TF_DataType... Ts, std::enable_if_t<sizeof...(Ts) >= 1>* = nullptr>
static void RegisterRoll()
{
    RegisterRoll<T>();
    RegisterRoll<Ts...>();
}
void RegisterKernels_Roll() { RegisterRoll<TF_FLOAT, TF_INT64>(); }`,
			want: []string{"Roll Tshift=[DT_INT32] T=[DT_FLOAT] host=[shift]", "Roll Tshift=[DT_INT32] T=[DT_INT64] host=[shift]"},
		},
		{
			name: "default template argument and C++ type arguments",
			src: `template <typename Index, typename DataType, int P = 0>
using GK = typename KernelDefinition<ops::Gather, W<Index>>::
    template WithTypeConstraint<ops::Gather::Attribute::Tindices, DataTypeToEnum<Index>()>::
    template WithTypeConstraint<ops::Gather::Attribute::Tparams, DataTypeToEnum<DataType>()>;
static void RegisterG() { GK<int64_t, Eigen::half>::Register(); }
void RegisterKernels_Gather() { RegisterG(); }`,
			want: []string{"Gather Tindices=[DT_INT64] Tparams=[DT_HALF] host=[]"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			regs, skips := ParseDML(tc.src, "x.cc", dmlStructs)
			require.Empty(t, skips)
			assert.Equal(t, tc.want, describe(regs))
		})
	}
}
