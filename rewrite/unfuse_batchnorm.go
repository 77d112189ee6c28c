package rewrite

import (
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
)

// ruleUnfuseBatchNormEx inverts remapper's FusedBatchNorm(+side input
// Add)+Relu fusion into _FusedBatchNormEx (FindFusedBatchNormEx
// remapper.cc:2347-2426, AddFusedBatchNormExNode 3737-3805; the op
// nn_ops.cc:234-261): FusedBatchNormV3 with the node's epsilon, data format
// and mode, then AddV2 of the side input, then the activation_mode
// (Identity or Relu). Only output 0 (y) may be consumed: the other outputs
// are FusedBatchNormV3's, which this rewrite does not give the Ex node's
// name.
var ruleUnfuseBatchNormEx = &Rule{
	Name: "unfuse-batchnorm-ex", Kind: KindUnfuse, Ops: []string{"_FusedBatchNormEx"},
	Exactness: Exactness{Exact: true,
		Claim: "bit-identical: _FusedBatchNormEx normalises as FusedBatchNormV3 does, then adds the side input and applies Relu per element (kernels/fused_batch_norm_op.cc, FusedBatchNormOpEx)"},
	Semantics: "tensorflow/core/ops/nn_ops.cc:234-261; kernels/fused_batch_norm_op.cc:2031-2072; inverts grappler/optimizers/remapper.cc:2347-2426, 3737-3805",
	expand: func(x *expander) error {
		t := x.dtype()
		mode := string(x.attr("activation_mode").GetS())
		if mode != "Identity" && mode != "Relu" {
			return skip("activation_mode %s", mode)
		}
		side := int(x.attr("num_side_inputs").GetI())
		if x.numIn() != 5+side || side > 1 {
			return skip("%d side inputs", side)
		}
		attrs := x.copyAttrs(nil, "epsilon", "data_format", "is_training", "exponential_avg_factor", "U")
		attrs["T"] = typeAttr(t)
		bn := x.add("batchnorm", "FusedBatchNormV3", []string{x.in(0), x.in(1), x.in(2), x.in(3), x.in(4)}, attrs)
		out := bn
		steps := 0
		if side == 1 {
			steps++
		}
		if mode == "Relu" {
			steps++
		}
		if steps == 0 {
			x.finishIdentity(bn, t)
			return nil
		}
		if side == 1 {
			if steps == 1 {
				x.finish("AddV2", []string{out, x.in(5)}, tAttrs(t))
				return nil
			}
			out = x.add("add", "AddV2", []string{out, x.in(5)}, tAttrs(t))
		}
		x.finish("Relu", []string{out}, map[string]*attrpb.AttrValue{"T": typeAttr(t)})
		return nil
	},
}
