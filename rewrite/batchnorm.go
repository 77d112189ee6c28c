package rewrite

import (
	"fmt"
	"math"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
)

// ruleBatchNorm writes an inference-mode FusedBatchNorm (V1, V2, V3) as
// the multiply-add TensorFlow's own remapper writes it (AddBatchNormNodes,
// grappler/optimizers/remapper.cc:3879-4072, chosen by FindFusedBatchNorm
// 2288-2330: T float, is_training false, only y consumed):
//
//	scaled = Rsqrt(variance + epsilon) * scale
//	y      = x * scaled + (offset - mean * scaled)
//
// with scale, offset, mean and variance reshaped to [1, C, 1, 1(, 1)] for
// channels-first data. Where scale and variance are constants, scaled is
// folded into a Const, and so is offset - mean*scaled where mean and offset
// are too — computed with the executor's own Add, Rsqrt, Mul and Sub
// kernels, as Grappler's constant folding would with TensorFlow's.
//
// The kernel computes (x - mean)*scaled + offset (fused_batch_norm_op.cc:
// 330-342), so the two differ in rounding: with u the unit roundoff of
// float32, first-order error analysis of both forms bounds the difference
// by 8u(|x·scaled| + |mean·scaled| + |offset|) per element; 10u allows for
// the folded scaled itself, rounded once where TensorFlow's Eigen rsqrt may
// round differently.
var ruleBatchNorm = &Rule{
	Name: "decompose-batchnorm", Kind: KindDecompose, Ops: []string{"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"},
	Exactness: Exactness{bound: batchNormBound, OutputTol: 1e-5,
		Claim: "within 10u(|x·s| + |mean·s| + |offset|) of the kernel per element, s = rsqrt(variance+epsilon)·scale, u = 2^-24: remapper's x·s + (offset − mean·s) against the kernel's (x − mean)·s + offset"},
	Semantics: "tensorflow/core/grappler/optimizers/remapper.cc:2288-2330, 3879-4072 (TensorFlow's own decomposition); kernels/fused_batch_norm_op.cc:330-342",
	expand: func(x *expander) error {
		if t := x.dtype(); t != tpb.DataType_DT_FLOAT {
			return skip("T is %s (remapper decomposes float only)", dtName(t))
		}
		if x.attr("is_training").GetB() {
			return skip("is_training is true (batch statistics)")
		}
		if x.n.Op != "FusedBatchNorm" && x.attr("U").GetType() != tpb.DataType_DT_FLOAT {
			return skip("U is %s", dtName(x.attr("U").GetType()))
		}
		format := string(x.attr("data_format").GetS())
		var bshape []int32
		switch format {
		case "NHWC", "NDHWC", "":
		case "NCHW":
			bshape = []int32{1, -1, 1, 1}
		case "NCDHW":
			bshape = []int32{1, -1, 1, 1, 1}
		default:
			return skip("data_format %s", format)
		}
		t := tpb.DataType_DT_FLOAT
		eps := float64(x.attr("epsilon").GetF())
		param := func(i int, what string) string {
			in := x.in(i)
			if bshape == nil {
				return in
			}
			shape := x.constant(what+"_shape", int32Tensor([]int{len(bshape)}, bshape))
			return x.add(what+"_reshaped", "Reshape", []string{in, shape},
				map[string]*attrpb.AttrValue{"T": typeAttr(t), "Tshape": typeAttr(tpb.DataType_DT_INT32)})
		}
		scale, offset, mean, variance := x.consts(1), x.consts(2), x.consts(3), x.consts(4)
		var scaled, shift string
		if scale != nil && variance != nil {
			s, err := foldScaled(x.ops, scale, variance, eps)
			if err != nil {
				return fmt.Errorf("folding rsqrt(variance+epsilon)*scale: %w", err)
			}
			scaledT := s
			if mean != nil && offset != nil {
				c, err := foldShift(x.ops, offset, mean, s)
				if err != nil {
					return fmt.Errorf("folding offset - mean*scaled: %w", err)
				}
				shift = x.constant("offset", reshapeProto(c, bshape))
			}
			scaled = x.constant("scaled", reshapeProto(scaledT, bshape))
			if shift == "" {
				m := x.add("mean_scaled", "Mul", []string{param(3, "mean"), scaled}, tAttrs(t))
				shift = x.add("offset", "Sub", []string{param(2, "offset"), m}, tAttrs(t))
			}
		} else {
			e := x.scalar("epsilon", t, eps)
			vpe := x.add("variance_plus_epsilon", "Add", []string{param(4, "variance"), e}, tAttrs(t))
			inv := x.add("inv", "Rsqrt", []string{vpe}, tAttrs(t))
			scaled = x.add("scaled", "Mul", []string{inv, param(1, "scale")}, tAttrs(t))
			m := x.add("mean_scaled", "Mul", []string{param(3, "mean"), scaled}, tAttrs(t))
			shift = x.add("offset", "Sub", []string{param(2, "offset"), m}, tAttrs(t))
		}
		a := x.add("mul", "Mul", []string{x.in(0), scaled}, tAttrs(t))
		x.finish("Add", []string{a, shift}, tAttrs(t))
		return nil
	},
}

// foldScaled computes rsqrt(variance + epsilon) * scale with the
// executor's Add, Rsqrt and Mul kernels.
func foldScaled(ops *graph.OpRegistry, scale, variance *kernels.Tensor, eps float64) (*kernels.Tensor, error) {
	t := tpb.DataType_DT_FLOAT
	nodes := []*nodepb.NodeDef{
		constNode("variance", variance), constNode("scale", scale),
		constNode("epsilon", kernels.ScalarFloat(float32(eps))),
		{Name: "vpe", Op: "Add", Input: []string{"variance", "epsilon"}, Attr: tAttrs(t)},
		{Name: "inv", Op: "Rsqrt", Input: []string{"vpe"}, Attr: tAttrs(t)},
		{Name: "scaled", Op: "Mul", Input: []string{"inv", "scale"}, Attr: tAttrs(t)},
	}
	return evalNodes(ops, nodes, "scaled")
}

// foldShift computes offset - mean * scaled with the executor's kernels.
func foldShift(ops *graph.OpRegistry, offset, mean, scaled *kernels.Tensor) (*kernels.Tensor, error) {
	t := tpb.DataType_DT_FLOAT
	nodes := []*nodepb.NodeDef{
		constNode("offset", offset), constNode("mean", mean), constNode("scaled", scaled),
		{Name: "m", Op: "Mul", Input: []string{"mean", "scaled"}, Attr: tAttrs(t)},
		{Name: "shift", Op: "Sub", Input: []string{"offset", "m"}, Attr: tAttrs(t)},
	}
	return evalNodes(ops, nodes, "shift")
}

// batchNormBound is the element bound of ruleBatchNorm from the original
// node's inputs x, scale, offset, mean, variance.
func batchNormBound(n *graph.Node, in []*kernels.Tensor) (func(i int) float64, error) {
	if len(in) < 5 {
		return nil, fmt.Errorf("%d inputs", len(in))
	}
	xs, ok1 := in[0].Data.([]float32)
	sc, ok2 := in[1].Data.([]float32)
	off, ok3 := in[2].Data.([]float32)
	mean, ok4 := in[3].Data.([]float32)
	vr, ok5 := in[4].Data.([]float32)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
		return nil, fmt.Errorf("inputs are not float32")
	}
	c := len(sc)
	if c == 0 || len(off) != c || len(mean) != c || len(vr) != c {
		return nil, fmt.Errorf("parameters of different lengths")
	}
	eps := n.Attrs["epsilon"].GetF()
	s := make([]float64, c)
	for j := range s {
		s[j] = math.Abs(float64(sc[j]) / math.Sqrt(float64(vr[j]+eps)))
	}
	shape := in[0].Shape
	inner := 1
	if format := string(n.Attrs["data_format"].GetS()); channelsFirst(format) && len(shape) > 2 {
		for _, d := range shape[2:] {
			inner *= d
		}
	}
	const u = 1.0 / (1 << 24)
	return func(i int) float64 {
		if i >= len(xs) {
			return 0
		}
		j := (i / inner) % c
		return 10 * u * (math.Abs(float64(xs[i]))*s[j] + math.Abs(float64(mean[j]))*s[j] + math.Abs(float64(off[j])))
	}, nil
}
