package rewrite

import tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

// ruleElu writes Elu as SelectV2(Less(x, 0), Sub(Exp(x), 1), x):
// TensorFlow's kernel is (features < 0).select(features.exp() - 1,
// features) (kernels/relu_op_functor.h:140-153), exp then subtract in the
// op's dtype, not expm1.
var ruleElu = &Rule{
	Name: "decompose-elu", Kind: KindDecompose, Ops: []string{"Elu"},
	Exactness: Exactness{Exact: true, Claim: "bit-identical: exp(x) - 1 and the selection as the kernel computes them (not expm1), with Exp's kernel for exp"},
	Semantics: "tensorflow/core/kernels/relu_op_functor.h:140-153",
	expand: func(x *expander) error {
		t, in := x.dtype(), x.in(0)
		neg, em1 := x.negativeAndExpMinusOne(in, t)
		x.finish("SelectV2", []string{neg, em1, in}, tAttrs(t))
		return nil
	},
}

// negativeAndExpMinusOne adds what Elu and Selu share: x < 0, and
// exp(x) - 1 computed as their kernels compute it (Exp, then Sub; not
// expm1).
func (x *expander) negativeAndExpMinusOne(in string, t tpb.DataType) (neg, em1 string) {
	zero := x.scalar("zero", t, 0)
	neg = x.add("negative", "Less", []string{in, zero}, tAttrs(t))
	exp := x.add("exp", "Exp", []string{in}, tAttrs(t))
	one := x.scalar("one", t, 1)
	return neg, x.add("expm1", "Sub", []string{exp, one}, tAttrs(t))
}
