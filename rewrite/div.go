package rewrite

import (
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// ruleDiv writes a float Div as RealDiv: TensorFlow registers both with
// the same functor::div for float, half, double, bfloat16 and the complex
// types (kernels/cwise_op_div.cc:19-20, 25-26); integer Div (truncating,
// with a division-by-zero check) is left alone.
var ruleDiv = &Rule{
	Name: "decompose-div", Kind: KindDecompose, Ops: []string{"Div"},
	Exactness: Exactness{Exact: true, Claim: "bit-identical: RealDiv and float Div are the same functor"},
	Semantics: "tensorflow/core/kernels/cwise_op_div.cc:19-26",
	expand: func(x *expander) error {
		t := x.dtype()
		if !dtype.IsFloat(t) && t != tpb.DataType_DT_COMPLEX64 && t != tpb.DataType_DT_COMPLEX128 {
			return skip("T is %s (integer Div truncates)", dtName(t))
		}
		x.finish("RealDiv", []string{x.in(0), x.in(1)}, tAttrs(t))
		return nil
	},
}
