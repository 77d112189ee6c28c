package tfgolden

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	"google.golang.org/protobuf/proto"

	"github.com/tfscan/tfscan/kernels"
)

// CPUReason says why a regenerated golden may differ from the committed one
// on another machine. The x86 wheel runs Eigen's float32 contractions on
// oneDNN's sgemm (tensorflow/core/kernels/BUILD:80-89, the default
// tensorflow_mkldnn_contraction_kernel), which generates its kernel for the
// instruction set the CPU reports, and Eigen takes its block sizes from the
// CPU's cache sizes (Eigen/src/Core/products/GeneralBlockPanelKernel.h:
// computeProductBlockingSizes through manage_caching_sizes and
// queryCacheSizes' cpuid); so the order in which MatMul and the convolutions
// add their products, and the last bits of the result, follow the machine.
const CPUReason = "the x86 wheel runs Eigen's float32 contractions on oneDNN's sgemm, which picks its kernel by the " +
	"CPU's instruction set (tensorflow/core/kernels/BUILD:80-89), and Eigen's block sizes follow the CPU's cache sizes"

// regenTol is how far TensorFlow's contractions on one x86 CPU are from its
// own on another, by dtype: float32, through oneDNN's sgemm, is measured on
// one machine under ONEDNN_MAX_CPU_ISA=AVX, AVX2 and AVX512_CORE against its
// own AVX-512 kernels (at most 14 ULP where more than 1e-5 apart, 2.7e-5
// absolute), with a margin of two; the other dtypes run Eigen's own kernel
// and keep the summation-order tolerance.
var regenTol = map[string]Tol{
	"float16":  sumTol["float16"],
	"bfloat16": sumTol["bfloat16"],
	"float32":  {ULP: 32, Abs: 1e-4},
	"float64":  sumTol["float64"],
}

// contractions are the ops TensorFlow's CPU runs through Eigen's
// contraction (MatMul, and the convolutions as im2col-free spatial
// contractions): their regenerated results are held to the summation-order
// tolerance of their dtype.
var contractions = map[string]bool{
	"MatMul": true, "BatchMatMul": true, "BatchMatMulV2": true, "BatchMatMulV3": true, "Einsum": true,
	"Conv2D": true, "Conv2DBackpropInput": true, "Conv2DBackpropFilter": true, "Conv3D": true,
	"_FusedMatMul": true, "_FusedConv2D": true, "_FusedConv3D": true,
}

// EstimateReason says why the ops in estimates differ between CPU makers.
const EstimateReason = "Eigen computes a float packet's reciprocal and reciprocal square root from the CPU's own " +
	"estimate (rcpps, rsqrtps) and one Newton step (Eigen/src/Core/arch/AVX/MathFunctions.h:41-55, " +
	"SSE/MathFunctions.h:41-50); the estimate's bits are the CPU maker's, so the last bits after the step differ " +
	"between Intel and AMD"

// estimates are the ops whose CPU kernels in TensorFlow take a float
// reciprocal or reciprocal square root through Eigen's packet estimate
// (EstimateReason): Reciprocal, Inv and Rsqrt themselves
// (core/kernels/cwise_ops.h:842,851), Atan and Atan2 beyond |x| > 1
// (Eigen/src/Core/arch/Default/GenericPacketMathFunctions.h:870), Softmax's
// row sums (core/kernels/softmax_op_functor.h:84), the batch norms' variance
// (core/kernels/fused_batch_norm_op.cc:200,333,495,622, batch_norm_op.h:49-104)
// and LRN's normaliser (core/kernels/lrn_op.cc:117-119,160-162). half and
// bfloat16 go through the same float packets (AVX/MathFunctions.h:91-103).
var estimates = map[string]bool{
	"Reciprocal": true, "Inv": true, "Rsqrt": true, "Atan": true, "Atan2": true, "Softmax": true,
	"FusedBatchNorm": true, "FusedBatchNormV2": true, "FusedBatchNormV3": true, "FusedBatchNormGrad": true,
	"FusedBatchNormGradV2": true, "FusedBatchNormGradV3": true, "BatchNormWithGlobalNormalization": true, "LRN": true,
}

// estimateTol is how far one CPU maker's estimate-based result is from
// another's, by dtype: float32 measured between an AMD Zen 4 and an Intel
// Sapphire Rapids (at most 2 ULP), with a margin of two; half and bfloat16
// round that float once more, which moves them by at most one ULP.
var estimateTol = map[string]Tol{
	"float16":  {ULP: 1},
	"bfloat16": {ULP: 1},
	"float32":  {ULP: 4},
}

// Regenerated lists how a family TensorFlow has just computed (got) differs
// from the committed one (want). Every case must be the same op, label,
// attrs, inputs and error; outputs must be bit-identical, except for the
// contractions, which are held to their dtype's regeneration tolerance:
// TensorFlow on another CPU sums them in another order (CPUReason, regenTol);
// and the ops whose float kernels start from the CPU's reciprocal estimate
// (EstimateReason, estimateTol).
func Regenerated(got, want *File) []string {
	var diffs []string
	if got.TensorFlow != want.TensorFlow || got.Generator != want.Generator || got.Family != want.Family {
		diffs = append(diffs, fmt.Sprintf("made by TensorFlow %s with %s as %q, committed by %s with %s as %q",
			got.TensorFlow, got.Generator, got.Family, want.TensorFlow, want.Generator, want.Family))
	}
	if len(got.Cases) != len(want.Cases) {
		return append(diffs, fmt.Sprintf("%d cases, %d committed", len(got.Cases), len(want.Cases)))
	}
	for i, g := range got.Cases {
		if d := regeneratedCase(g, want.Cases[i]); d != "" {
			diffs = append(diffs, fmt.Sprintf("case %d %s: %s", i, want.Cases[i].Name(), d))
		}
	}
	return diffs
}

func regeneratedCase(g, w *Case) string {
	if g.Op != w.Op || g.Label != w.Label {
		return fmt.Sprintf("is %s %q", g.Op, g.Label)
	}
	if g.Error != w.Error {
		return fmt.Sprintf("error %q, committed %q", g.Error, w.Error)
	}
	if g.Undecodable != w.Undecodable || !slices.Equal(g.Fetch, w.Fetch) ||
		!maps.EqualFunc(g.Files, w.Files, bytes.Equal) {
		return "undecodable dtype, fetched outputs or files differ"
	}
	if d := sameOp("", g.Attrs, w.Attrs, g.Inputs, w.Inputs); d != "" {
		return d
	}
	if len(g.Steps) != len(w.Steps) {
		return fmt.Sprintf("%d steps, committed %d", len(g.Steps), len(w.Steps))
	}
	for i, gs := range g.Steps {
		ws := w.Steps[i]
		at := fmt.Sprintf("step %d: ", i)
		if gs.Op != ws.Op || gs.Node != ws.Node || !slices.Equal(gs.Links, ws.Links) || !slices.Equal(gs.FileInputs, ws.FileInputs) {
			return at + "op, node or links differ"
		}
		if d := sameOp(at, gs.Attrs, ws.Attrs, gs.Inputs, ws.Inputs); d != "" {
			return d
		}
	}
	tol := Tol{}
	switch {
	case contractions[w.Op]:
		tol = regenTol[w.DType()]
	case estimates[w.Op]:
		tol = estimateTol[w.DType()]
	}
	return sameTensors("output", g.Outputs, w.Outputs, tol)
}

// sameOp compares one op's attrs and literal inputs, which must be
// identical.
func sameOp(at string, ga, wa map[string]*attrpb.AttrValue, gi, wi []*kernels.Tensor) string {
	if len(ga) != len(wa) {
		return at + "attrs differ"
	}
	for k, a := range wa {
		if !proto.Equal(a, ga[k]) {
			return at + "attr " + k + " differs"
		}
	}
	if d := sameTensors("input", gi, wi, Tol{}); d != "" {
		return at + d
	}
	return ""
}

func sameTensors(what string, got, want []*kernels.Tensor, t Tol) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d %ss, committed %d", len(got), what, len(want))
	}
	for j := range want {
		if got[j] == nil && want[j] == nil {
			continue // an input another step or a file gives
		}
		d, err := Compare(got[j], want[j], t)
		if err != nil {
			return fmt.Sprintf("%s %d: %v", what, j, err)
		}
		if d.Bad > 0 {
			return fmt.Sprintf("%s %d: %d values beyond %s (first %s)", what, j, d.Bad, t, d.First)
		}
	}
	return ""
}

// RegenTol is the regeneration tolerance of a contraction of dtype dt.
func RegenTol(dt string) Tol { return regenTol[dt] }

// EstimateTol is the regeneration tolerance of an op in estimates, of
// dtype dt.
func EstimateTol(dt string) Tol { return estimateTol[dt] }
