package rewrite

// ruleSelu writes Selu as SelectV2(Less(x, 0), Mul(scale_alpha,
// Sub(Exp(x), 1)), Mul(scale, x)), TensorFlow's kernel with its two
// constants rounded to the op's dtype (kernels/relu_op_functor.h:174-193).
var ruleSelu = &Rule{
	Name: "decompose-selu", Kind: KindDecompose, Ops: []string{"Selu"},
	Exactness: Exactness{Exact: true, Claim: "bit-identical: the kernel's formula and constants (scale 1.0507009873554804934193349852946, scale*alpha 1.7580993408473768599402175208123) in the op's dtype"},
	Semantics: "tensorflow/core/kernels/relu_op_functor.h:174-193",
	expand: func(x *expander) error {
		t, in := x.dtype(), x.in(0)
		neg, em1 := x.negativeAndExpMinusOne(in, t)
		sa := x.scalar("scale_alpha", t, 1.7580993408473768599402175208123)
		low := x.add("negative_part", "Mul", []string{sa, em1}, tAttrs(t))
		sc := x.scalar("scale", t, 1.0507009873554804934193349852946)
		high := x.add("positive_part", "Mul", []string{sc, in}, tAttrs(t))
		x.finish("SelectV2", []string{neg, low, high}, tAttrs(t))
		return nil
	},
}
