package rewrite

// ruleRelu6 writes Relu6 as Minimum(Relu(x), 6). TensorFlow's Relu6 is
// features.cwiseMax<PropagateNaN>(0).cwiseMin<PropagateNaN>(6)
// (kernels/relu_op_functor.h:62-73); Relu is the same cwiseMax
// (relu_op_functor.h:28-38) and Minimum is cwiseMin with PropagateNaN
// (cwise_ops.h, functor::minimum), broadcasting the scalar 6.
var ruleRelu6 = &Rule{
	Name: "decompose-relu6", Kind: KindDecompose, Ops: []string{"Relu6"},
	Exactness: Exactness{Exact: true, Claim: "bit-identical: Relu6 is Relu's max with 0 followed by Minimum's min with 6, NaN propagated by both"},
	Semantics: "tensorflow/core/kernels/relu_op_functor.h:28-38, 62-73; kernels/cwise_ops.h (minimum, PropagateNaN)",
	expand: func(x *expander) error {
		t := x.dtype()
		relu := x.add("relu", "Relu", []string{x.in(0)}, tAttrs(t))
		six := x.scalar("six", t, 6)
		x.finish("Minimum", []string{relu, six}, tAttrs(t))
		return nil
	},
}
