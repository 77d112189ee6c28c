package rewrite

import (
	"math"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// ruleSoftplus writes Softplus as TensorFlow's kernel computes it
// (kernels/softplus_op.h:30-57): threshold = log(epsilon) + 2 in the op's
// dtype; x > -threshold ? x : (x < threshold ? exp(x) : log1p(exp(x))),
// exp rounded to the dtype before log1p. So SelectV2(Greater(x, -th), x,
// SelectV2(Less(x, th), Exp(x), Log1p(Exp(x)))).
var ruleSoftplus = &Rule{
	Name: "decompose-softplus", Kind: KindDecompose, Ops: []string{"Softplus"},
	Exactness: Exactness{Exact: true, Claim: "bit-identical: the kernel's thresholds (log(epsilon)+2 in the op's dtype), exp and log1p of the rounded exp"},
	Semantics: "tensorflow/core/kernels/softplus_op.h:30-57",
	expand: func(x *expander) error {
		t := x.dtype()
		th, ok := softplusThreshold(t)
		if !ok {
			return skip("T is %s", dtName(t))
		}
		in := x.in(0)
		negTh := x.scalar("minus_threshold", t, -th)
		large := x.add("too_large", "Greater", []string{in, negTh}, tAttrs(t))
		thr := x.scalar("threshold", t, th)
		small := x.add("too_small", "Less", []string{in, thr}, tAttrs(t))
		exp := x.add("exp", "Exp", []string{in}, tAttrs(t))
		lp := x.add("log1p", "Log1p", []string{exp}, tAttrs(t))
		low := x.add("small_or_mid", "SelectV2", []string{small, exp, lp}, tAttrs(t))
		x.finish("SelectV2", []string{large, in, low}, tAttrs(t))
		return nil
	},
}

// softplusThreshold is log(epsilon) + 2 computed in t, as the kernel's
// static const T threshold is.
func softplusThreshold(t tpb.DataType) (float64, bool) {
	switch t {
	case tpb.DataType_DT_FLOAT:
		eps := float64(math.Nextafter32(1, 2) - 1)
		return float64(float32(math.Log(eps)) + 2), true
	case tpb.DataType_DT_DOUBLE:
		return math.Log(math.Nextafter(1, 2)-1) + 2, true
	}
	return 0, false
}
