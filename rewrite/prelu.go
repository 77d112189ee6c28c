package rewrite

import (
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
	"github.com/tfscan/tfscan/savedmodel"
)

// rulePrelu writes TF.js's Prelu pseudo-op, which no TensorFlow runtime
// registers, as the ops it computes. tfjs-backend-cpu's prelu is
// x < 0 ? alpha*x : x with alpha broadcast against x (the converter builds
// it from Keras's Relu(x) - alpha*Relu(-x), tfjs-converter
// python/tensorflowjs/converters/fuse_prelu.py); tfscan's kernel follows it
// (kernels/activation.go). The replacement is SelectV2(Less(x, 0),
// Mul(alpha, x), x): the same comparison, the same product and the same
// selection, broadcast as SelectV2 and Mul broadcast (TF 2 SelectV2,
// cwise_op_select.cc).
var rulePrelu = &Rule{
	Name: "decompose-prelu", Kind: KindDecompose, Ops: []string{savedmodel.OpPrelu},
	Exactness: Exactness{Exact: true, Claim: "bit-identical: the same comparison with 0, product alpha*x and selection as TF.js's prelu kernel"},
	Semantics: "tfjs-backend-cpu src/kernels/Prelu.ts (x < 0 ? alpha*x : x); tfjs-converter python/tensorflowjs/converters/fuse_prelu.py; TensorFlow has no Prelu op",
	expand: func(x *expander) error {
		if x.numIn() != 2 {
			return skip("Prelu with %d inputs", x.numIn())
		}
		t := x.dtype()
		if t == tpb.DataType_DT_INVALID {
			t = tpb.DataType_DT_FLOAT // TF.js drops T; every TF.js float is float32
		}
		if !dtype.IsFloat(t) {
			return skip("T is %s", dtName(t))
		}
		x.prelu(x.in(0), x.in(1), t, true)
		return nil
	},
}

// prelu appends SelectV2(Less(in, 0), Mul(alpha, in), in); with last the
// SelectV2 takes the node's name, else it returns its ref.
func (x *expander) prelu(in, alpha string, t tpb.DataType, last bool) string {
	zero := x.scalar("prelu_zero", t, 0)
	neg := x.add("prelu_negative", "Less", []string{in, zero}, tAttrs(t))
	scaled := x.add("prelu_scaled", "Mul", []string{alpha, in}, tAttrs(t))
	in3 := []string{neg, scaled, in}
	if last {
		x.finish("SelectV2", in3, tAttrs(t))
		return ""
	}
	return x.add("prelu", "SelectV2", in3, tAttrs(t))
}
