package rewrite

import "github.com/tfscan/tfscan/dtype"

// ruleSquaredDifference writes SquaredDifference(x, y) as Square(Sub(x,
// y)): TensorFlow's functor is numext::abs2(a - b), (a-b)*(a-b) for real
// types (kernels/cwise_ops.h, scalar_squared_difference_op), and Square is
// x*x (cwise_op_square.cc). Complex types are left alone.
var ruleSquaredDifference = &Rule{
	Name: "decompose-squared-difference", Kind: KindDecompose, Ops: []string{"SquaredDifference"},
	Exactness: Exactness{Exact: true, Claim: "bit-identical: the same difference and product (abs2(a-b) for real types)"},
	Semantics: "tensorflow/core/kernels/cwise_ops.h (scalar_squared_difference_op: abs2(a - b)); cwise_op_square.cc",
	expand: func(x *expander) error {
		t := x.dtype()
		if !dtype.IsFloat(t) && !isInt(t) {
			return skip("T is %s", dtName(t))
		}
		d := x.add("difference", "Sub", []string{x.in(0), x.in(1)}, tAttrs(t))
		x.finish("Square", []string{d}, tAttrs(t))
		return nil
	},
}
