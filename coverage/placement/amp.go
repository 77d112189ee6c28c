package placement

import (
	"sort"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// ampLists are Grappler's auto mixed precision op lists
// (tensorflow/core/grappler/optimizers/auto_mixed_precision_lists.h).
type ampLists struct{ allow, infer, deny, clear map[string]bool }

func set(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

var tensorListAMP = []string{"TensorListConcat", "TensorListConcatLists", "TensorListConcatV2",
	"TensorListGather", "TensorListGetItem", "TensorListPopBack", "TensorListPushBack",
	"TensorListPushBackBatch", "TensorListFromTensor", "TensorListScatter", "TensorListScatterV2",
	"TensorListScatterIntoExistingList", "TensorListSetItem", "TensorListSplit", "TensorListStack"}

// cudaAMPLists is AutoMixedPrecisionListsCuda (auto_mixed_precision_lists.h:97-362)
// for CUDA ≥ 9.1 and cuDNN ≥ 8.0 (BatchMatMul, Conv3D and depthwise
// convolutions allowed), with no TF_AUTO_MIXED_PRECISION_GRAPH_REWRITE_*
// environment overrides.
var cudaAMPLists = ampLists{
	allow: set("BlockLSTM", "BlockLSTMV2", "BlockLSTMGrad", "BlockLSTMGradV2", "Conv2D",
		"Conv2DBackpropFilter", "Conv2DBackpropInput", "CudnnRNN", "CudnnRNNBackprop",
		"CudnnRNNBackpropV2", "CudnnRNNBackpropV3", "CudnnRNNV2", "CudnnRNNV3", "Einsum",
		"FusedConv2DBiasActivation", "FusedSparseConvGpuV2", "GRUBlockCell", "GRUBlockCellGrad",
		"LSTMBlockCell", "LSTMBlockCellGrad", "MatMul", "Mha", "MhaV2", "Tmlp", "TmlpV2", "TmlpV3",
		"Pmlp", "FastUnsortedSegmentMax", "BatchMatMul", "BatchMatMulV2", "Conv3D",
		"Conv3DBackpropFilter", "Conv3DBackpropFilterV2", "Conv3DBackpropInput",
		"Conv3DBackpropInputV2", "DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropFilter",
		"DepthwiseConv2dNativeBackpropInput"),
	infer: set("Add", "AddN", "AddV2", "AvgPool", "AvgPool3D", "AvgPool3DGrad", "AvgPoolGrad",
		"BiasAdd", "BiasAddGrad", "BiasAddV1", "Elu", "EluGrad", "Erf", "Erfc", "FloorDiv",
		"FusedBatchNormV2", "FusedBatchNormGradV2", "FusedBatchNormV3", "FusedBatchNormGradV3",
		"_FusedBatchNormEx", "Inv", "LeakyRelu", "LeakyReluGrad", "Log", "Log1p", "LogSoftmax",
		"Mul", "Prod", "RealDiv", "Reciprocal", "Selu", "SeluGrad", "Sigmoid", "SigmoidGrad",
		"Softmax", "Softplus", "SoftplusGrad", "Softsign", "SoftsignGrad", "Sqrt", "Sub", "Tanh",
		"TanhGrad"),
	deny: set("Exp", "Expm1", "L2Loss", "Mean", "Pow", "SaveV2", "SoftmaxCrossEntropyWithLogits",
		"SparseSoftmaxCrossEntropyWithLogits", "Sum"),
	clear: set(append([]string{"Abs", "ArgMax", "ArgMin", "BatchToSpace", "BatchToSpaceND", "BroadcastTo",
		"Ceil", "CheckNumerics", "ClipByValue", "Concat", "ConcatV2", "DepthToSpace",
		"DynamicPartition", "DynamicStitch", "Enter", "EnsureShape", "Equal", "Exit", "ExpandDims",
		"Fill", "Floor", "Gather", "GatherNd", "GatherV2", "Greater", "GreaterEqual", "Identity",
		"IdentityN", "IsFinite", "IsInf", "IsNan", "Less", "LessEqual", "Max", "MaxPool",
		"MaxPool3D", "MaxPool3DGrad", "MaxPool3DGradGrad", "MaxPoolGrad", "MaxPoolGradGrad",
		"MaxPoolGradGradV2", "MaxPoolGradV2", "MaxPoolV2", "Maximum", "Merge", "Min", "Minimum",
		"MirrorPad", "MirrorPadGrad", "Neg", "NextIteration", "NotEqual", "OneHot", "OnesLike",
		"Pack", "Pad", "PadV2", "PreventGradient", "Rank", "Relu", "Relu6", "Relu6Grad",
		"ReluGrad", "Reshape", "ResizeNearestNeighbor", "ResizeNearestNeighborGrad", "Reverse",
		"ReverseSequence", "ReverseV2", "Round", "Select", "SelectV2", "Shape", "ShapeN", "Sign",
		"Size", "Slice", "Snapshot", "SpaceToBatch", "SpaceToBatchND", "SpaceToDepth", "Split",
		"SplitV", "Squeeze", "StopGradient", "StridedSlice", "StridedSliceGrad", "Switch", "Tile",
		"TopK", "TopKV2", "Transpose", "Unpack", "Where", "ZerosLike"}, tensorListAMP...)...),
}

// mklAMPLists is AutoMixedPrecisionListsMkl (auto_mixed_precision_lists.h:364-560),
// which TF 2.15 uses for bfloat16. Its infer list really holds "SumTanh":
// the source misses a comma between "Sum" and "Tanh".
var mklAMPLists = ampLists{
	allow: set("Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput", "Conv3D",
		"Conv3DBackpropFilterV2", "Conv3DBackpropInputV2", "DepthwiseConv2dNative",
		"DepthwiseConv2dNativeBackpropFilter", "DepthwiseConv2dNativeBackpropInput", "MatMul",
		"FusedPadConv2D", "BatchMatMul", "BatchMatMulV2", "Einsum"),
	infer: set("Add", "AddN", "AddV2", "AvgPool", "AvgPool3D", "AvgPool3DGrad", "AvgPoolGrad",
		"BiasAdd", "BiasAddGrad", "BiasAddV1", "Erf", "FusedBatchNormV2", "FusedBatchNormGradV2",
		"FusedBatchNormV3", "FusedBatchNormGradV3", "LeakyRelu", "LeakyReluGrad", "Mul", "Sub",
		"Elu", "EluGrad", "FloorDiv", "_FusedBatchNormEx", "Log", "Log1p", "LogSoftmax", "Prod",
		"RealDiv", "Reciprocal", "Rsqrt", "Selu", "SeluGrad", "Sigmoid", "SigmoidGrad", "Softmax",
		"Softplus", "SoftplusGrad", "Softsign", "SoftsignGrad", "Sqrt", "Square",
		"SquaredDifference", "SumTanh", "TanhGrad"),
	deny: set("Exp", "Expm1", "L2Loss", "Mean", "Pow", "SaveV2", "SoftmaxCrossEntropyWithLogits",
		"SparseSoftmaxCrossEntropyWithLogits"),
	clear: set(append([]string{"Abs", "ArgMax", "ArgMin", "BatchToSpace", "BatchToSpaceND", "BroadcastTo",
		"Ceil", "CheckNumerics", "ClipByValue", "Concat", "ConcatV2", "DepthToSpace",
		"DynamicPartition", "DynamicStitch", "EnsureShape", "Enter", "Equal", "Exit", "ExpandDims",
		"Fill", "Floor", "Gather", "GatherNd", "GatherV2", "Greater", "GreaterEqual", "Identity",
		"IsFinite", "IsInf", "IsNan", "Less", "LessEqual", "Max", "Maximum", "MaxPool",
		"MaxPool3D", "MaxPool3DGrad", "MaxPoolGrad", "MaxPoolGradGrad", "MaxPoolGradGradV2",
		"MaxPoolGradV2", "MaxPoolV2", "Merge", "Min", "Minimum", "MirrorPad", "MirrorPadGrad",
		"Neg", "NextIteration", "NotEqual", "OnesLike", "Pack", "Pad", "PadV2", "PreventGradient",
		"Rank", "Relu", "Relu6", "Relu6Grad", "ReluGrad", "Reshape", "ResizeNearestNeighbor",
		"ResizeNearestNeighborGrad", "ResizeBilinear", "Reverse", "ReverseSequence", "ReverseV2",
		"Round", "ScatterNd", "Select", "SelectV2", "Shape", "ShapeN", "Sign", "Slice", "Snapshot",
		"SpaceToBatch", "SpaceToBatchND", "SpaceToDepth", "Split", "SplitV", "Squeeze",
		"StopGradient", "StridedSlice", "StridedSliceGrad", "Switch", "Tile", "TopK", "TopKV2",
		"Transpose", "Where", "Unpack", "ZerosLike"}, tensorListAMP...)...),
}

// ampPaint decides which nodes auto mixed precision converts, following the
// passes of AutoMixedPrecisionImpl::Optimize (auto_mixed_precision.cc:1470-1530):
// 1 allow-list ops; 2 deny propagated forward from deny ops through nodes
// upstream of a deny or infer op via clear ops (1710-1757); 3 infer and
// clear ops between allow ops (1759-1813); 4 for bfloat16 only, infer ops
// right after an allow op (1856-1890); 5 clear ops connected to allow ops
// through clear ops (1815-1854). Only float32 nodes count; whether the
// device supports the half type is checked afterwards as coverage.
func (s *sim) ampPaint(l ampLists, bf16 bool) map[int]bool {
	n := len(s.nodes)
	outs := s.outEdges()
	isF32 := func(i int) bool {
		p := s.nodes[i]
		if i < 0 || p.is(pGhost) || p.look() == nil {
			return false
		}
		t, ok := p.look().Attrs["T"]
		return ok && t.GetType() == tpb.DataType_DT_FLOAT
	}
	kind := make([]byte, n) // a allow, i infer, d deny, c clear
	for i, p := range s.nodes {
		if !isF32(i) {
			continue
		}
		switch {
		case l.allow[p.op()]:
			kind[i] = 'a'
		case l.deny[p.op()]:
			kind[i] = 'd'
		case l.infer[p.op()]:
			kind[i] = 'i'
		case l.clear[p.op()]:
			kind[i] = 'c'
		}
	}
	inputs := func(i int, f func(int)) {
		for _, q := range s.inputs(s.nodes[i]) {
			if q.n >= 0 {
				f(int(q.n))
			}
		}
	}
	outputs := func(i int, f func(int)) {
		for _, e := range outs.Of(i) {
			if !e.isCtrl() {
				f(int(e.dst))
			}
		}
	}
	// dfs visits from root, entering nodes for which enter is true.
	dfs := func(root int, next func(int, func(int)), enter func(int) bool, visit func(int)) {
		stack := []int{root}
		visit(root)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			next(i, func(j int) {
				if enter(j) {
					visit(j)
					stack = append(stack, j)
				}
			})
		}
	}
	allow := make(map[int]bool)
	for i := range kind {
		if kind[i] == 'a' {
			allow[i] = true
		}
	}
	if len(allow) == 0 {
		return allow
	}
	// pass 2
	upDI := make([]bool, n)
	for i := range kind {
		if kind[i] == 'd' || kind[i] == 'i' {
			dfs(i, inputs, func(j int) bool { return !upDI[j] && kind[j] == 'c' }, func(j int) { upDI[j] = true })
		}
	}
	deny := make([]bool, n)
	for i := range kind {
		if kind[i] == 'd' && !deny[i] {
			dfs(i, outputs, func(j int) bool { return !deny[j] && upDI[j] }, func(j int) { deny[j] = true })
		}
	}
	// pass 3
	down := make([]bool, n)
	for i := range kind {
		if kind[i] == 'a' {
			dfs(i, outputs, func(j int) bool {
				return !down[j] && kind[j] != 'a' && !deny[j] && (kind[j] == 'c' || kind[j] == 'i')
			}, func(j int) { down[j] = true })
		}
	}
	up := make([]bool, n)
	for i := range kind {
		if kind[i] == 'a' && !up[i] {
			dfs(i, inputs, func(j int) bool { return !up[j] && down[j] }, func(j int) {
				up[j] = true
				allow[j] = true
			})
		}
	}
	// pass 4 (bfloat16 only)
	if bf16 {
		for i := range kind {
			if kind[i] != 'i' || deny[i] || allow[i] {
				continue
			}
			follows := false
			inputs(i, func(j int) { follows = follows || allow[j] })
			if follows {
				allow[i] = true
			}
		}
	}
	// pass 5
	prop := make([]bool, n)
	roots := make([]int, 0, len(allow))
	for i := range allow {
		roots = append(roots, i)
	}
	sort.Ints(roots)
	both := func(i int, f func(int)) { inputs(i, f); outputs(i, f) }
	for _, i := range roots {
		if prop[i] {
			continue
		}
		dfs(i, both, func(j int) bool { return !allow[j] && !deny[j] && kind[j] == 'c' }, func(j int) {
			prop[j] = true
			allow[j] = true
		})
	}
	return allow
}

// applyAMP rewrites the lookup node of every painted node to the half type
// so that kernel coverage is checked for it (Options.Precision).
func (s *sim) applyAMP() {
	var l ampLists
	var half tpb.DataType
	bf16 := false
	switch s.opts.Precision {
	case PrecisionMixedFloat16:
		l, half = cudaAMPLists, tpb.DataType_DT_HALF
	case PrecisionMixedBFloat16:
		l, half, bf16 = mklAMPLists, tpb.DataType_DT_BFLOAT16, true
	default:
		return
	}
	s.amp = map[int]tpb.DataType{}
	for i := range s.ampPaint(l, bf16) {
		p, x := s.ownExtra(i)
		from := p.look()
		look := *from
		look.Attrs = make(map[string]*attrpb.AttrValue, len(from.Attrs))
		for k, v := range from.Attrs {
			if v.GetType() == tpb.DataType_DT_FLOAT {
				if _, ok := v.GetValue().(*attrpb.AttrValue_Type); ok {
					v = typeAttr(half)
				}
			}
			look.Attrs[k] = v
		}
		look.SetTypes(swapFloat(from.InputTypes(), half), swapFloat(from.OutputTypes(), half))
		x.look = &look
		s.amp[i] = half
	}
}

func swapFloat(ts []tpb.DataType, half tpb.DataType) []tpb.DataType {
	out := make([]tpb.DataType, len(ts))
	for i, t := range ts {
		if t == tpb.DataType_DT_FLOAT {
			t = half
		}
		out[i] = t
	}
	return out
}
