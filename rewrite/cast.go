package rewrite

import (
	"strings"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// ruleCast runs a float32 node whose target kernel exists only for
// float16 in float16, with the precision change written into the graph:
// a Cast to float16 on each input of type T, the op with T float16, and a
// Cast of its output 0 back to float32 (Cast: kernels/cast_op.cc, round to
// nearest even). It is used only with --allow-lower-precision.
//
// The bound is what the proof checks, not a guarantee: float16 keeps 11
// significant bits (unit roundoff 2^-11) and overflows above 65504; a
// cast in, the op and a cast out round a few times, which for an
// element-wise op or a max-pool stays within a few units of roundoff of
// the element, but an op that sums (a convolution, an average) can lose
// more where large terms cancel, and then the proof fails and nothing is
// written.
var ruleCast = &Rule{
	Name: "cast-float16", Kind: KindCast,
	Exactness: Exactness{ULP: 8, MaxULP: 8, Unit: tpb.DataType_DT_HALF, OutputTol: 1e-2,
		Claim: "within 8·2^-11 of the element plus 8·2^-11 of the output's largest magnitude, checked on the proof's inputs (float16 rounding of inputs and output); not guaranteed for ops that sum, where cancellation can exceed it"},
	Semantics: "tensorflow/core/kernels/cast_op.cc; the target's float16-only kernel",
	expand: func(x *expander) error {
		n := x.n
		if x.dtype() != tpb.DataType_DT_FLOAT || n.OpDef == nil {
			return skip("T is not float32")
		}
		half := map[string]*attrpb.AttrValue{}
		for k, v := range n.Def.GetAttr() {
			if !strings.HasPrefix(k, "_") {
				half[k] = v
			}
		}
		half["T"] = typeAttr(tpb.DataType_DT_HALF)
		if !x.covers(n.Op, half) {
			return skip("the target has no float16 kernel for %s either", n.Op)
		}
		outs := n.OpDef.GetOutputArg()
		if len(outs) == 0 || outs[0].GetTypeAttr() != "T" || outs[0].GetNumberAttr() != "" {
			return skip("output 0 of %s is not of type T", n.Op)
		}
		var ins []string
		k := 0
		for _, a := range n.OpDef.GetInputArg() {
			if a.GetTypeListAttr() != "" {
				return skip("%s takes a list of types", n.Op)
			}
			count := 1
			if a.GetNumberAttr() != "" {
				count = int(n.Attrs[a.GetNumberAttr()].GetI())
			}
			for j := 0; j < count; j++ {
				in := x.in(k)
				k++
				if a.GetTypeAttr() == "T" {
					in = x.add("to_float16", "Cast", []string{in}, castAttrs(tpb.DataType_DT_FLOAT, tpb.DataType_DT_HALF))
				}
				ins = append(ins, in)
			}
		}
		if k != x.numIn() {
			return skip("%d inputs, the op takes %d", x.numIn(), k)
		}
		h := x.add("float16", n.Op, ins, half)
		x.finish("Cast", []string{h}, castAttrs(tpb.DataType_DT_HALF, tpb.DataType_DT_FLOAT))
		return nil
	},
}

func castAttrs(from, to tpb.DataType) map[string]*attrpb.AttrValue {
	return map[string]*attrpb.AttrValue{"SrcT": typeAttr(from), "DstT": typeAttr(to), "Truncate": boolAttr(false)}
}
