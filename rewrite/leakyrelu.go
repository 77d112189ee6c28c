package rewrite

// ruleLeakyRelu writes LeakyRelu as SelectV2(Greater(x, 0), x,
// Mul(x, alpha)): TensorFlow's kernel is (features > 0).select(features,
// features * alpha) (kernels/relu_op_functor.h:98-119; alpha may be above
// 1 or below 0, so not a Maximum).
var ruleLeakyRelu = &Rule{
	Name: "decompose-leakyrelu", Kind: KindDecompose, Ops: []string{"LeakyRelu"},
	Exactness: Exactness{Exact: true, Claim: "bit-identical: the same comparison, product and selection as the kernel"},
	Semantics: "tensorflow/core/kernels/relu_op_functor.h:98-119",
	expand: func(x *expander) error {
		t := x.dtype()
		in := x.in(0)
		zero := x.scalar("zero", t, 0)
		pos := x.add("positive", "Greater", []string{in, zero}, tAttrs(t))
		alpha := x.scalar("alpha", t, float64(x.attr("alpha").GetF()))
		scaled := x.add("scaled", "Mul", []string{in, alpha}, tAttrs(t))
		x.finish("SelectV2", []string{pos, in, scaled}, tAttrs(t))
		return nil
	},
}
