package rewrite

import "github.com/tfscan/tfscan/dtype"

// ruleAddN writes AddN(x1..xn) as a chain of AddV2, left to right.
// TensorFlow's CPU kernel sums left to right: the first n mod 8 (or 8, or
// 9) inputs as one Eigen expression in1 + in2 + ..., which Eigen evaluates
// ((in1 + in2) + in3) ..., then eight at a time onto the output
// (out + in1 + ... + in8) (kernels/aggregate_ops.cc:80-150,
// aggregate_ops.h:40-220). AddN's inputs have one shape, so AddV2 does not
// broadcast. A single input is an Identity.
var ruleAddN = &Rule{
	Name: "decompose-addn", Kind: KindDecompose, Ops: []string{"AddN"},
	Exactness: Exactness{Exact: true, Claim: "bit-identical: the kernel's left-to-right order of additions"},
	Semantics: "tensorflow/core/kernels/aggregate_ops.cc:80-150; aggregate_ops.h:40-220",
	expand: func(x *expander) error {
		t := x.dtype()
		if !dtype.IsFloat(t) && !isInt(t) {
			return skip("T is %s", dtName(t))
		}
		n := x.numIn()
		if n == 1 {
			x.finishIdentity(x.in(0), t)
			return nil
		}
		acc := x.in(0)
		for i := 1; i < n; i++ {
			if i == n-1 {
				x.finish("AddV2", []string{acc, x.in(i)}, tAttrs(t))
				break
			}
			acc = x.add("add", "AddV2", []string{acc, x.in(i)}, tAttrs(t))
		}
		return nil
	},
}
