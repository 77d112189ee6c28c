package rewrite

import (
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// ruleRsqrt writes Rsqrt(x) as Reciprocal(Sqrt(x)). TensorFlow's kernel
// is Eigen's rsqrt (kernels/cwise_op_rsqrt.cc, cwise_ops.h rsqrt): one
// operation, where the replacement rounds twice (the square root, then
// its reciprocal). Each rounding is within half a unit in the last place,
// so the replacement is within 3 units of roundoff of the exact value's
// rounding: |Δ| ≤ 3u·|rsqrt(x)|, u the dtype's unit roundoff. Zero, a
// negative x, infinity and NaN give the same result (inf, NaN, 0, NaN).
var ruleRsqrt = &Rule{
	Name: "decompose-rsqrt", Kind: KindDecompose, Ops: []string{"Rsqrt"},
	Exactness: Exactness{ULP: 3, OutputTol: 1e-5,
		Claim: "within 3 units of roundoff of the original element (two roundings, sqrt then reciprocal, against one)"},
	Semantics: "tensorflow/core/kernels/cwise_op_rsqrt.cc; cwise_op_sqrt.cc; cwise_op_reciprocal.cc",
	expand: func(x *expander) error {
		t := x.dtype()
		if !dtype.IsFloat(t) || t == tpb.DataType_DT_INVALID {
			return skip("T is %s", dtName(t))
		}
		s := x.add("sqrt", "Sqrt", []string{x.in(0)}, tAttrs(t))
		x.finish("Reciprocal", []string{s}, tAttrs(t))
		return nil
	},
}
