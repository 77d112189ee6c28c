package rewrite

import (
	"strings"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// What the unfuse rules share: a fused contraction (Conv2D, depthwise,
// Conv3D, MatMul) is the contraction followed by the ops its fused_ops
// attr lists, "performed in order, where the (first) input to each op is
// the output of the preceding op" (tensorflow/core/ops/nn_ops.cc:500-516,
// math_ops.cc:996-1004), their extra operands taken in order from the
// node's args inputs. TensorFlow's CPU kernels compute the contraction and
// then apply the list per element to each finished output block
// (kernels/fused_eigen_output_kernels.h: BiasAddOutputKernel 207-256,
// FusedBatchNormOutputKernel 264-345), with the same arithmetic as the
// standalone ops:
//
//	BiasAdd         output + bias                              (bias_op.cc)
//	Relu            max(x, 0)                                  (relu_op_functor.h:28-38)
//	Relu6           min(max(x, 0), 6)                          (relu_op_functor.h:62-73)
//	Elu             x < 0 ? exp(x) - 1 : x                     (relu_op_functor.h:140-153)
//	LeakyRelu       x < 0 ? x*alpha : x                        (relu_op_functor.h:98-119 tests x > 0: the same values)
//	FusedBatchNorm  (x - mean) * (rsqrt(variance+eps)*scale) + offset
//	                                                           (fused_batch_norm_op.cc:330-342)
//
// so the unfused graph computes the same values element for element. Two
// differences are stated, not hidden: the fused epilogue's max/min use
// Eigen's default NaN propagation where the standalone Relu and Relu6 use
// PropagateNaN, so a NaN may come out as 0 from one and NaN from the other;
// and a transcendental (Elu's exp) may take Eigen's packet path in one and
// its scalar path in the other for some elements. tfscan's reference
// kernels compute both the same way, and Prove checks bit identity there.
//
// The TF.js converter makes the same ops with lower-case names and adds
// Prelu (tfjs-converter src/operations/executors/convolution_executor.ts,
// matrices_executor.ts); an activation without BiasAdd is TF.js's too.

// unfuseExact is the exactness of the unfuse rules.
var unfuseExact = Exactness{Exact: true,
	Claim: "bit-identical: the fused kernel applies each fused op per element to the finished contraction with the same float arithmetic as the standalone op (fused_eigen_output_kernels.h); the contraction is the same op. Not claimed for NaN through Relu/Relu6 (Eigen's default NaN propagation in the fused epilogue) or for the last bit of exp in Elu, whose packet and scalar paths Eigen does not promise to agree"}

// epilogue appends the ops of fused_ops after the contraction out (a ref),
// reading their operands from args (refs). channelsFirst says where the
// channel dimension is (BiasAdd and FusedBatchNorm need it); rank is the
// contraction output's rank (4 or 5; 2 for MatMul). The last op takes the
// node's name.
func (x *expander) epilogue(out string, fused []string, args []string, t tpb.DataType, channelsFirst bool, rank int) error {
	if len(fused) == 0 {
		return skip("fused_ops is empty")
	}
	next := 0
	arg := func(what string) (string, error) {
		if next >= len(args) {
			return "", skip("fused_ops %v: no %s argument", fused, what)
		}
		a := args[next]
		next++
		return a, nil
	}
	biasFormat := "NHWC"
	if channelsFirst {
		biasFormat = "NCHW"
	}
	bnFormat := map[bool]map[int]string{false: {4: "NHWC", 5: "NDHWC"}, true: {4: "NCHW", 5: "NCDHW"}}[channelsFirst][rank]
	type step struct {
		op    string
		in    []string
		attrs map[string]*attrpb.AttrValue
	}
	var steps []step
	for i, op := range fused {
		switch strings.ToLower(op) {
		case "biasadd":
			if i != 0 {
				return skip("fused_ops %v: BiasAdd after another op", fused)
			}
			b, err := arg("bias")
			if err != nil {
				return err
			}
			steps = append(steps, step{"BiasAdd", []string{b}, map[string]*attrpb.AttrValue{"T": typeAttr(t), "data_format": strAttr(biasFormat)}})
		case "add":
			if i != 1 || !strings.EqualFold(fused[0], "BiasAdd") {
				return skip("fused_ops %v: Add only after BiasAdd", fused)
			}
			a, err := arg("addend")
			if err != nil {
				return err
			}
			steps = append(steps, step{"AddV2", []string{a}, tAttrs(t)})
		case "fusedbatchnorm":
			if i != 0 {
				return skip("fused_ops %v: FusedBatchNorm after another op", fused)
			}
			if bnFormat == "" {
				return skip("fused_ops %v: FusedBatchNorm on a rank-%d output", fused, rank)
			}
			var in []string
			for _, what := range []string{"scale", "offset", "mean", "variance"} {
				a, err := arg(what)
				if err != nil {
					return err
				}
				in = append(in, a)
			}
			eps := x.attr("epsilon").GetF()
			steps = append(steps, step{"FusedBatchNormV3", in, map[string]*attrpb.AttrValue{
				"T": typeAttr(t), "U": typeAttr(tpb.DataType_DT_FLOAT), "epsilon": floatAttr(eps),
				"is_training": boolAttr(false), "data_format": strAttr(bnFormat),
				"exponential_avg_factor": floatAttr(1)}})
		case "relu", "relu6", "elu", "sigmoid", "tanh", "selu":
			if i != len(fused)-1 {
				return skip("fused_ops %v: %s is not last", fused, op)
			}
			name := map[string]string{"relu": "Relu", "relu6": "Relu6", "elu": "Elu", "sigmoid": "Sigmoid", "tanh": "Tanh", "selu": "Selu"}[strings.ToLower(op)]
			steps = append(steps, step{name, nil, tAttrs(t)})
		case "leakyrelu":
			if i != len(fused)-1 {
				return skip("fused_ops %v: LeakyRelu is not last", fused)
			}
			steps = append(steps, step{"LeakyRelu", nil, map[string]*attrpb.AttrValue{"T": typeAttr(t), "alpha": floatAttr(x.attr("leakyrelu_alpha").GetF())}})
		case "prelu":
			if i != len(fused)-1 {
				return skip("fused_ops %v: Prelu is not last", fused)
			}
			a, err := arg("alpha")
			if err != nil {
				return err
			}
			steps = append(steps, step{"Prelu", []string{a}, tAttrs(t)})
		default:
			return skip("fused_ops %v: %s has no standalone op to unfuse into", fused, op)
		}
	}
	if next != len(args) {
		return skip("fused_ops %v use %d args, the node has %d", fused, next, len(args))
	}
	for i, s := range steps {
		last := i == len(steps)-1
		switch {
		case s.op == "Prelu":
			// TF.js's pseudo-op, which no TensorFlow runtime has: written
			// as the ops it stands for (prelu.go).
			x.prelu(out, s.in[0], t, last)
		case s.op == "FusedBatchNormV3" && last:
			// Output 0 of a multi-output op cannot take the node's name
			// (consumers read output 0 of that name): an Identity does.
			bn := x.add("batchnorm", s.op, append([]string{out}, s.in...), s.attrs)
			x.finishIdentity(bn, t)
		case last:
			x.finish(s.op, append([]string{out}, s.in...), s.attrs)
		default:
			out = x.add(strings.ToLower(s.op), s.op, append([]string{out}, s.in...), s.attrs)
		}
	}
	return nil
}

// fusedOps reads the fused_ops attr.
func (x *expander) fusedOps() []string {
	var out []string
	for _, s := range x.attr("fused_ops").GetList().GetS() {
		out = append(out, string(s))
	}
	return out
}

// fusedArgs returns the refs of the node's args inputs: the data inputs
// from index 2 on, num_args of them (TF.js writes num_args and no TArgs),
// and refuses host_args (the int8 path).
func (x *expander) fusedArgs() ([]string, error) {
	if n := x.attr("num_host_args").GetI(); n > 0 {
		return nil, skip("num_host_args is %d (the quantized int8 path)", n)
	}
	n := int(x.attr("num_args").GetI())
	if 2+n != x.numIn() {
		return nil, skip("num_args is %d but the node has %d args", n, x.numIn()-2)
	}
	var args []string
	for i := 2; i < 2+n; i++ {
		args = append(args, x.in(i))
	}
	return args, nil
}

// channelsFirst says whether a data_format puts channels at dimension 1.
func channelsFirst(format string) bool { return strings.HasPrefix(format, "NC") }
