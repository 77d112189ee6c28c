package rewrite

import (
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// ruleUnfuseConv2D inverts Grappler's remapper fusions into _FusedConv2D
// (grappler/optimizers/remapper.cc: FindContractionWithBias 760,
// FindContractionWithBiasAndActivation 854, FindConv2DWithBatchNorm 964,
// FindConv2DWithBatchNormAndActivation 1017, AddFusedContractionNode
// 3092-3247) and the TF.js converter's: a Conv2D with the node's strides,
// padding (explicit paddings included), data format and dilations, then
// the fused ops (unfuse.go). The op is nn_ops.cc:476-516; the CPU kernel's
// patterns conv_ops_fused_impl.h:711-723.
var ruleUnfuseConv2D = &Rule{
	Name: "unfuse-conv2d", Kind: KindUnfuse, Ops: []string{"_FusedConv2D"},
	Exactness: unfuseExact,
	Semantics: "tensorflow/core/ops/nn_ops.cc:476-516; kernels/conv_ops_fused_impl.h:711-723; kernels/fused_eigen_output_kernels.h:207-345; inverts grappler/optimizers/remapper.cc:3092-3247",
	expand: func(x *expander) error {
		t := x.dtype()
		if !dtype.IsFloat(t) {
			return skip("T is %s (the quantized path)", dtName(t))
		}
		format := string(x.attr("data_format").GetS())
		if format == "NCHW_VECT_C" {
			return skip("data_format NCHW_VECT_C (the quantized path)")
		}
		if f := string(x.attr("filter_format").GetS()); f != "" && f != "HWIO" {
			return skip("filter_format %s (the quantized path)", f)
		}
		args, err := x.fusedArgs()
		if err != nil {
			return err
		}
		attrs := x.copyAttrs(nil, "strides", "padding", "explicit_paddings", "data_format", "dilations", "use_cudnn_on_gpu")
		attrs["T"] = typeAttr(t)
		conv := x.add("conv", "Conv2D", []string{x.in(0), x.in(1)}, attrs)
		return x.epilogue(conv, x.fusedOps(), args, t, channelsFirst(format), 4)
	},
}

// ruleUnfuseDepthwise inverts the depthwise fusions: remapper.cc's
// contraction patterns accept DepthwiseConv2dNative as well
// (IsDepthwiseConv2dNative in FindContractionWithBias*), and the TF.js
// converter's FusedDepthwiseConv2dNative, which tfscan's loader names
// _FusedDepthwiseConv2dNative. The op is nn_ops.cc:713-728; TensorFlow
// registers its kernel only in the oneDNN build (kernels/mkl/
// mkl_conv_ops.cc:3057).
var ruleUnfuseDepthwise = &Rule{
	Name: "unfuse-depthwise", Kind: KindUnfuse, Ops: []string{"_FusedDepthwiseConv2dNative"},
	Exactness: unfuseExact,
	Semantics: "tensorflow/core/ops/nn_ops.cc:713-728; kernels/mkl/mkl_conv_ops.cc:3057; kernels/fused_eigen_output_kernels.h:207-345; inverts grappler/optimizers/remapper.cc:760-905",
	expand: func(x *expander) error {
		t := x.dtype()
		format := string(x.attr("data_format").GetS())
		args, err := x.fusedArgs()
		if err != nil {
			return err
		}
		attrs := x.copyAttrs(nil, "strides", "padding", "explicit_paddings", "data_format", "dilations")
		attrs["T"] = typeAttr(t)
		conv := x.add("depthwise", "DepthwiseConv2dNative", []string{x.in(0), x.in(1)}, attrs)
		return x.epilogue(conv, x.fusedOps(), args, t, channelsFirst(format), 4)
	},
}

// ruleUnfuseConv3D inverts the oneDNN remapper's _FusedConv3D
// (ops/mkl_nn_ops.cc:131-148): Conv3D+BiasAdd(+Add)(+activation)
// (remapper.cc:3092-3247) and Pad+Conv3D, whose paddings go to
// padding_list (AddFusedConv3DNode, remapper.cc:3441-3490) and come back
// as a Pad before the Conv3D.
var ruleUnfuseConv3D = &Rule{
	Name: "unfuse-conv3d", Kind: KindUnfuse, Ops: []string{"_FusedConv3D"},
	Exactness: unfuseExact,
	Semantics: "tensorflow/core/ops/mkl_nn_ops.cc:131-148; inverts grappler/optimizers/remapper.cc:3092-3247 and 3441-3490 (Pad fusion into padding_list)",
	expand: func(x *expander) error {
		t := x.dtype()
		format := string(x.attr("data_format").GetS())
		args, err := x.fusedArgs()
		if err != nil {
			return err
		}
		in := x.in(0)
		if pl := x.attr("padding_list").GetList().GetI(); len(pl) > 0 {
			if len(pl) != 10 {
				return skip("padding_list has %d values, want 10", len(pl))
			}
			vals := make([]int32, len(pl))
			for i, v := range pl {
				vals[i] = int32(v)
			}
			paddings := x.constant("paddings", int32Tensor([]int{5, 2}, vals))
			in = x.add("pad", "Pad", []string{in, paddings}, map[string]*attrpb.AttrValue{"T": typeAttr(t), "Tpaddings": typeAttr(tpb.DataType_DT_INT32)})
		}
		attrs := x.copyAttrs(nil, "strides", "padding", "data_format", "dilations")
		attrs["T"] = typeAttr(t)
		conv := x.add("conv", "Conv3D", []string{in, x.in(1)}, attrs)
		fused := x.fusedOps()
		if len(fused) == 0 {
			x.finishIdentity(conv, t)
			return nil
		}
		return x.epilogue(conv, fused, args, t, channelsFirst(format), 5)
	},
}

// ruleUnfuseMatMul inverts remapper's MatMul+BiasAdd(+activation) fusion
// into _FusedMatMul (math_ops.cc:981-1012; CPU patterns
// kernels/matmul_op_fused.cc:607-617, GPU 619-630 add Tanh, Sigmoid and
// Gelu): a MatMul with the node's transposes, then the fused ops. Gelu has
// no standalone TensorFlow op and is not unfused.
var ruleUnfuseMatMul = &Rule{
	Name: "unfuse-matmul", Kind: KindUnfuse, Ops: []string{"_FusedMatMul"},
	Exactness: unfuseExact,
	Semantics: "tensorflow/core/ops/math_ops.cc:981-1012; kernels/matmul_op_fused.cc:607-630; inverts grappler/optimizers/remapper.cc:760-905",
	expand: func(x *expander) error {
		t := x.dtype()
		args, err := x.fusedArgs()
		if err != nil {
			return err
		}
		attrs := x.copyAttrs(nil, "transpose_a", "transpose_b")
		attrs["T"] = typeAttr(t)
		mm := x.add("matmul", "MatMul", []string{x.in(0), x.in(1)}, attrs)
		return x.epilogue(mm, x.fusedOps(), args, t, false, 2)
	},
}
