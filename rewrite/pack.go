package rewrite

import (
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// rulePack writes Pack(values, axis) as ConcatV2 of ExpandDims(value,
// axis) along axis: "Packs a list of N rank-R tensors into one rank-(R+1)
// tensor" by stacking along axis (ops/array_ops.cc Pack; kernels/
// pack_op.cc concatenates the inputs reshaped to have a dimension of 1 at
// axis). ExpandDims takes the same axis range [-(R+1), R] and ConcatV2 the
// same axis of the rank-(R+1) result. Data movement only.
var rulePack = &Rule{
	Name: "decompose-pack", Kind: KindDecompose, Ops: []string{"Pack"},
	Exactness: Exactness{Exact: true, Claim: "bit-identical: data movement only"},
	Semantics: "tensorflow/core/ops/array_ops.cc (Pack); kernels/pack_op.cc",
	expand: func(x *expander) error {
		t := x.dtype()
		if t == tpb.DataType_DT_INVALID {
			return skip("T is unknown")
		}
		axis := x.attr("axis").GetI()
		ax := x.scalar("axis", tpb.DataType_DT_INT32, float64(axis))
		n := x.numIn()
		edAttrs := map[string]*attrpb.AttrValue{"T": typeAttr(t), "Tdim": typeAttr(tpb.DataType_DT_INT32)}
		if n == 1 {
			x.finish("ExpandDims", []string{x.in(0), ax}, edAttrs)
			return nil
		}
		var parts []string
		for i := 0; i < n; i++ {
			parts = append(parts, x.add("expand", "ExpandDims", []string{x.in(i), ax}, edAttrs))
		}
		x.finish("ConcatV2", append(parts, ax), map[string]*attrpb.AttrValue{
			"T": typeAttr(t), "N": intAttr(int64(n)), "Tidx": typeAttr(tpb.DataType_DT_INT32)})
		return nil
	},
}
