package shape

import (
	"encoding/binary"
	"slices"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
	shapepb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/savedmodel"
)

// unaryOps keep their first input's shape.
var unaryOps = map[string]bool{
	"Identity": true, "StopGradient": true, "Snapshot": true, "PreventGradient": true,
	"CheckNumerics": true, "EnsureShape": true, "Relu": true, "Relu6": true, "Elu": true,
	"Selu": true, "Sigmoid": true, "Tanh": true, "Exp": true, "Log": true, "Log1p": true,
	"Sqrt": true, "Rsqrt": true, "Square": true, "Softplus": true, "Softsign": true,
	"LeakyRelu": true, "Floor": true, "Ceil": true, "Round": true, "Rint": true, "Sign": true,
	"Reciprocal": true, "Inv": true, "Neg": true, "Abs": true, "Cast": true, "Softmax": true,
	"LogSoftmax": true, "BiasAdd": true, "BiasAddV1": true, "Erf": true, "Sin": true, "Cos": true,
	"IsNan": true, "IsInf": true, "IsFinite": true, "LogicalNot": true, "ZerosLike": true,
	"OnesLike": true, "Prelu": true, "LRN": true, "FakeQuantWithMinMaxVars": true,
	"FakeQuantWithMinMaxArgs": true, "ClipByValue": true, "Relu6Grad": true, "ReluGrad": true,
	"Enter": true, "Exit": true, "NextIteration": true, "RefEnter": true, "RefExit": true,
	"Switch": true, "RefSwitch": true, "Merge": true, "Print": true, "DebugIdentity": true,
	"Bitcast": false, "L2Loss": false, "PlaceholderWithDefault": true, "ReadVariableOp": false,
	"Atan": true, "Asin": true, "Acos": true, "Tan": true, "Sinh": true, "Cosh": true,
	"Expm1": true, "Mish": true, "Gelu": true, "Swish": true, "HardSwish": true,
	// shape_inference::UnchangedShape in TF 2.15 (tensorflow/core/ops/):
	// math_ops.cc:2123 Bucketize; string_ops.cc:52 StaticRegexReplace,
	// :71 StaticRegexFullMatch, :77 StringToHashBucketFast,
	// :83 _TensorToHashBucketFast, :98 StringToHashBucketStrong,
	// :105 StringToHashBucket, :129 AsString, :232 StringLower,
	// :238 StringUpper, :244 StringStrip, :249 StringLength;
	// parsing_ops.cc:498 StringToNumber.
	"Bucketize": true, "StringToHashBucketFast": true, "StringToHashBucketStrong": true,
	"StringToHashBucket": true, "_TensorToHashBucketFast": true, "AsString": true,
	"StringLower": true, "StringUpper": true, "StringStrip": true, "StringLength": true,
	"StaticRegexReplace": true, "StaticRegexFullMatch": true, "StringToNumber": true,
}

var binaryOps = map[string]bool{
	"Add": true, "AddV2": true, "Sub": true, "Mul": true, "Div": true, "RealDiv": true,
	"DivNoNan": true, "MulNoNan": true, "FloorDiv": true, "FloorMod": true, "TruncateDiv": true,
	"TruncateMod": true, "Mod": true, "Maximum": true, "Minimum": true, "Pow": true,
	"SquaredDifference": true, "Equal": true, "NotEqual": true, "Less": true, "LessEqual": true,
	"Greater": true, "GreaterEqual": true, "LogicalAnd": true, "LogicalOr": true,
	"BitwiseAnd": true, "BitwiseOr": true, "BitwiseXor": true, "Atan2": true, "Xdivy": true,
	"Xlogy": true, "SigmoidGrad": true, "TanhGrad": true, "RsqrtGrad": true, "SqrtGrad": true,
}

var reduceOps = map[string]bool{
	"Sum": true, "Mean": true, "Max": true, "Min": true, "Prod": true, "All": true, "Any": true,
	"EuclideanNorm": true,
}

func (s *Shapes) rule(n *graph.Node, ins []Tensor, outs []Tensor) {
	in := func(i int) Tensor {
		if i < len(ins) {
			return ins[i]
		}
		return Tensor{Shape: unknownRank()}
	}
	set := func(i int, sh Shape) {
		if i < len(outs) {
			outs[i].Shape = sh
		}
	}
	a := n.Attrs
	if s.callRule(n, ins, outs) || s.resourceRule(n, ins, outs) || s.checkpointRule(n, ins, outs) {
		return
	}
	switch op := n.Op; {
	case op == "Const" || op == "HostConst":
		sh, val := s.constOf(a["value"].GetTensor(), a["dtype"].GetType())
		if w := s.tfjsWeight(n); w != nil {
			sh, val = weightTensor(w)
		}
		set(0, sh)
		if len(outs) > 0 {
			outs[0].Value = val
		}
	case op == "Placeholder" || op == "PlaceholderV2":
		sh := attrShape(a["shape"])
		if v, ok := s.inputs[n.Name+":0"]; ok {
			sh = Shape{Dims: append([]int64(nil), v...)}
		} else if v, ok := s.inputs[n.Name]; ok {
			sh = Shape{Dims: append([]int64(nil), v...)}
		}
		sh, assumed := s.fill(sh, n.Name)
		set(0, sh)
		if len(outs) > 0 {
			outs[0].Assumed = assumed
		}
	case op == "VariableV2" || op == "Variable":
		set(0, attrShape(a["shape"]))
	case unaryOps[op]:
		for i := range outs {
			if op == "Merge" && i == 1 {
				set(1, known())
				continue
			}
			set(i, in(0).Shape)
			if (op == "Identity" || op == "Cast" || op == "StopGradient" || op == "Enter" || op == "Exit" || op == "Switch") && len(outs) > 0 {
				outs[i].Value = in(0).Value
			}
		}
	case op == "IdentityN":
		for i := range outs {
			set(i, in(i).Shape)
			outs[i].Value = in(i).Value
		}
	case binaryOps[op]:
		set(0, broadcast(in(0).Shape, in(1).Shape))
	case op == "Select" || op == "SelectV2":
		set(0, broadcast(broadcast(in(0).Shape, in(1).Shape), in(2).Shape))
	case op == "AddN" || op == "AccumulateNV2":
		sh := in(0).Shape
		for i := 1; i < len(ins); i++ {
			sh = merge(sh, ins[i].Shape)
		}
		set(0, sh)
	case op == "MatMul" || op == "_FusedMatMul" || op == "MatMulV2":
		x, y := in(0).Shape, in(1).Shape
		if x.Rank() == 2 && y.Rank() == 2 {
			m, k := x.Dims[0], x.Dims[1]
			if a["transpose_a"].GetB() {
				m = k
			}
			nn := y.Dims[1]
			if a["transpose_b"].GetB() {
				nn = y.Dims[0]
			}
			set(0, known(m, nn))
		}
	case op == "BatchMatMul" || op == "BatchMatMulV2" || op == "BatchMatMulV3":
		x, y := in(0).Shape, in(1).Shape
		if x.Rank() >= 2 && y.Rank() >= 2 {
			rx, ry := x.Rank(), y.Rank()
			m := x.Dims[rx-2]
			if a["adj_x"].GetB() {
				m = x.Dims[rx-1]
			}
			nn := y.Dims[ry-1]
			if a["adj_y"].GetB() {
				nn = y.Dims[ry-2]
			}
			b := broadcast(Shape{Dims: x.Dims[:rx-2]}, Shape{Dims: y.Dims[:ry-2]})
			if !b.UnknownRank {
				set(0, Shape{Dims: append(append([]int64(nil), b.Dims...), m, nn)})
			}
		}
	case op == "Conv2D" || op == "_FusedConv2D" || op == "DepthwiseConv2dNative" ||
		op == "_FusedDepthwiseConv2dNative" || op == "FusedDepthwiseConv2dNative" ||
		op == "MaxPool" || op == "AvgPool" || op == "MaxPoolV2" || op == "Conv2DBackpropInput":
		set(0, conv2D(op, in, a))
		for i := 1; i < len(outs); i++ {
			set(i, unknownRank())
		}
	case op == "FusedBatchNorm" || op == "FusedBatchNormV2" || op == "FusedBatchNormV3" || op == "_FusedBatchNormEx":
		set(0, in(0).Shape)
		c := int64(Unknown)
		if sc := in(1).Shape; sc.Rank() == 1 {
			c = sc.Dims[0]
		}
		for i := 1; i < len(outs); i++ {
			set(i, known(c))
		}
	case op == "Reshape":
		set(0, reshape(in(0).Shape, in(1).Value, in(1).Shape))
	case op == "Transpose":
		x := in(0).Shape
		if p := in(1).Value; p != nil && x.Rank() == len(p) {
			d := make([]int64, len(p))
			ok := true
			for i, k := range p {
				if k < 0 || int(k) >= len(p) {
					ok = false
					break
				}
				d[i] = x.Dims[k]
			}
			if ok {
				set(0, Shape{Dims: d})
			}
		} else if x.Rank() >= 0 {
			set(0, Shape{Dims: unknownDims(x.Rank())})
		}
	case op == "ConcatV2" || op == "Concat":
		var vals []Tensor
		var axisT Tensor
		if op == "ConcatV2" {
			if len(ins) < 2 {
				break
			}
			vals, axisT = ins[:len(ins)-1], ins[len(ins)-1]
		} else {
			if len(ins) < 2 {
				break
			}
			vals, axisT = ins[1:], ins[0]
		}
		set(0, concat(vals, axisT.Value))
		if len(outs) > 0 {
			outs[0].Value = concatValues(vals)
		}
	case op == "Pack":
		if len(ins) == 0 {
			break
		}
		sh := ins[0].Shape
		for _, t := range ins[1:] {
			sh = merge(sh, t.Shape)
		}
		if !sh.UnknownRank {
			ax := int(a["axis"].GetI())
			if ax < 0 {
				ax += sh.Rank() + 1
			}
			if ax >= 0 && ax <= sh.Rank() {
				d := append(append(append([]int64(nil), sh.Dims[:ax]...), int64(len(ins))), sh.Dims[ax:]...)
				set(0, Shape{Dims: d})
			}
		}
		if len(outs) > 0 && sh.Rank() == 0 {
			var v []int64
			for _, t := range ins {
				if len(t.Value) != 1 {
					v = nil
					break
				}
				v = append(v, t.Value[0])
			}
			if len(v) == len(ins) {
				outs[0].Value = v
			}
		}
	case op == "Unpack":
		x := in(0).Shape
		ax := int(a["axis"].GetI())
		if x.Rank() > 0 {
			if ax < 0 {
				ax += x.Rank()
			}
			if ax >= 0 && ax < x.Rank() {
				d := append(append([]int64(nil), x.Dims[:ax]...), x.Dims[ax+1:]...)
				for i := range outs {
					set(i, Shape{Dims: d})
				}
			}
		}
	case op == "Slice":
		x, b, sz := in(0).Shape, in(1).Value, in(2).Value
		if x.Rank() >= 0 && len(b) == x.Rank() && len(sz) == x.Rank() {
			d := make([]int64, len(sz))
			for i := range sz {
				switch {
				case sz[i] >= 0:
					d[i] = sz[i]
				case x.Dims[i] >= 0 && b[i] >= 0:
					d[i] = max(x.Dims[i]-b[i], 0)
				default:
					d[i] = Unknown
				}
			}
			set(0, Shape{Dims: d})
		}
	case op == "StridedSlice":
		sh, val := stridedSlice(in(0), in(1).Value, in(2).Value, in(3).Value, a)
		set(0, sh)
		if len(outs) > 0 {
			outs[0].Value = val
		}
	case op == "Gather" || op == "GatherV2" || op == "ResourceGather":
		p, idx := in(0).Shape, in(1).Shape
		axis := int64(0)
		if op == "GatherV2" {
			if v := in(2).Value; len(v) == 1 {
				axis = v[0]
			} else {
				break
			}
		}
		bd := int(a["batch_dims"].GetI())
		if p.Rank() >= 0 && idx.Rank() >= 0 {
			if axis < 0 {
				axis += int64(p.Rank())
			}
			if bd < 0 {
				bd += idx.Rank()
			}
			if axis >= 0 && int(axis) < p.Rank() && bd >= 0 && bd <= idx.Rank() {
				d := append([]int64(nil), p.Dims[:axis]...)
				d = append(d, idx.Dims[bd:]...)
				d = append(d, p.Dims[axis+1:]...)
				set(0, Shape{Dims: d})
			}
		}
	case reduceOps[op] || op == "ArgMax" || op == "ArgMin":
		keep := a["keep_dims"].GetB()
		set(0, reduce(in(0).Shape, in(1).Value, in(1).Shape, keep))
	case op == "Pad" || op == "PadV2" || op == "MirrorPad":
		x, p := in(0).Shape, in(1).Value
		if x.Rank() >= 0 && len(p) == 2*x.Rank() {
			d := make([]int64, x.Rank())
			for i := range d {
				if x.Dims[i] < 0 {
					d[i] = Unknown
				} else {
					d[i] = clampDim(x.Dims[i] + p[2*i] + p[2*i+1])
				}
			}
			set(0, Shape{Dims: d})
		} else if x.Rank() >= 0 {
			set(0, Shape{Dims: unknownDims(x.Rank())})
		}
	case op == "Squeeze":
		x := in(0).Shape
		if x.Rank() >= 0 {
			sq := a["squeeze_dims"].GetList().GetI()
			drop := map[int]bool{}
			for _, k := range sq {
				if k < 0 {
					k += int64(x.Rank())
				}
				drop[int(k)] = true
			}
			var d []int64
			ok := true
			for i, v := range x.Dims {
				if len(sq) == 0 {
					if v == 1 {
						continue
					}
					if v < 0 {
						ok = false
					}
				} else if drop[i] {
					continue
				}
				d = append(d, v)
			}
			if ok {
				set(0, Shape{Dims: d})
			}
		}
	case op == "ExpandDims":
		x, v := in(0).Shape, in(1).Value
		if x.Rank() >= 0 && len(v) == 1 {
			ax := int(v[0])
			if ax < 0 {
				ax += x.Rank() + 1
			}
			if ax >= 0 && ax <= x.Rank() {
				d := append(append(append([]int64(nil), x.Dims[:ax]...), 1), x.Dims[ax:]...)
				set(0, Shape{Dims: d})
			}
		}
	case op == "Shape":
		x := in(0).Shape
		if x.Rank() >= 0 {
			set(0, known(int64(x.Rank())))
			if x.FullyKnown() && len(outs) > 0 {
				outs[0].Value = append([]int64(nil), x.Dims...)
			}
		}
	case op == "ShapeN":
		for i := range outs {
			if x := in(i).Shape; x.Rank() >= 0 {
				set(i, known(int64(x.Rank())))
				if x.FullyKnown() {
					outs[i].Value = append([]int64(nil), x.Dims...)
				}
			}
		}
	case op == "Size" || op == "Rank":
		set(0, known())
		if len(outs) > 0 {
			if op == "Rank" && in(0).Shape.Rank() >= 0 {
				outs[0].Value = []int64{int64(in(0).Shape.Rank())}
			}
			if n, ok := in(0).Shape.NumElements(); op == "Size" && ok {
				outs[0].Value = []int64{n}
			}
		}
	case op == "Fill" || op == "Zeros" || op == "Ones" || op == "RandomUniform" || op == "RandomStandardNormal" || op == "TruncatedNormal" || op == "Empty":
		if v := in(0).Value; v != nil {
			set(0, Shape{Dims: clampAll(v)})
		}
	case op == "Tile":
		x, m := in(0).Shape, in(1).Value
		if x.Rank() >= 0 && len(m) == x.Rank() {
			d := make([]int64, len(m))
			for i := range m {
				if v, ok := mulSat(x.Dims[i], m[i]); ok {
					d[i] = v
				} else {
					d[i] = Unknown
				}
			}
			set(0, Shape{Dims: d})
		}
	case op == "ResizeBilinear" || op == "ResizeNearestNeighbor" || op == "ResizeBicubic" || op == "ResizeArea":
		x, sz := in(0).Shape, in(1).Value
		if x.Rank() == 4 && len(sz) == 2 {
			set(0, known(x.Dims[0], clampDim(sz[0]), clampDim(sz[1]), x.Dims[3]))
		}
	case op == "TopKV2":
		x, k := in(0).Shape, in(1).Value
		if x.Rank() >= 1 && len(k) == 1 {
			d := append(append([]int64(nil), x.Dims[:x.Rank()-1]...), clampDim(k[0]))
			set(0, Shape{Dims: d})
			set(1, Shape{Dims: d})
		}
	case op == "StringJoin":
		// string_ops.cc:171-193: a scalar when every input is, else the
		// merge of the inputs of known non-zero rank.
		sh, scalar := unknownRank(), true
		for _, t := range ins {
			scalar = scalar && t.Shape.Rank() == 0
			if t.Shape.Rank() > 0 {
				sh = merge(sh, t.Shape)
			}
		}
		if scalar {
			sh = known()
		}
		set(0, sh)
	case op == "ParseExample":
		s.parseExample(n, in(0), outs)
	case op == "ParseExampleV2":
		s.parseExampleV2(n, in(0), outs)
	case op == "ParseSingleExample":
		parseSingleExample(n, in(0), outs)
	case op == "IteratorGetNext" || op == "OptionalGetValue" || op == "IteratorGetNextSync":
		for i, sp := range a["output_shapes"].GetList().GetShape() {
			set(i, fromProto(sp))
		}
	case op == "Split":
		x, ax := in(1).Shape, in(0).Value
		splitOuts(x, ax, len(outs), set)
	case op == "SplitV":
		x, ax := in(0).Shape, in(2).Value
		sizes := in(1).Value
		if x.Rank() >= 0 && len(ax) == 1 && len(sizes) == len(outs) {
			k := int(ax[0])
			if k < 0 {
				k += x.Rank()
			}
			if k >= 0 && k < x.Rank() {
				for i := range outs {
					d := append([]int64(nil), x.Dims...)
					d[k] = sizes[i]
					if d[k] < 0 {
						d[k] = Unknown
					}
					set(i, Shape{Dims: d})
				}
			}
		}
	}
}

func unknownDims(r int) []int64 {
	d := make([]int64, r)
	for i := range d {
		d[i] = Unknown
	}
	return d
}

func clampAll(v []int64) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = clampDim(x)
	}
	return out
}

func splitOuts(x Shape, ax []int64, n int, set func(int, Shape)) {
	if x.Rank() < 0 || len(ax) != 1 || n == 0 {
		return
	}
	k := int(ax[0])
	if k < 0 {
		k += x.Rank()
	}
	if k < 0 || k >= x.Rank() {
		return
	}
	d := append([]int64(nil), x.Dims...)
	if d[k] >= 0 {
		d[k] /= int64(n)
	}
	for i := 0; i < n; i++ {
		set(i, Shape{Dims: d})
	}
}

// broadcast applies NumPy broadcasting (BCast, tensorflow/core/util/bcast.h).
func broadcast(a, b Shape) Shape {
	if a.UnknownRank || b.UnknownRank {
		return unknownRank()
	}
	r := max(len(a.Dims), len(b.Dims))
	out := make([]int64, r)
	for i := 0; i < r; i++ {
		x, y := int64(1), int64(1)
		if j := len(a.Dims) - r + i; j >= 0 {
			x = a.Dims[j]
		}
		if j := len(b.Dims) - r + i; j >= 0 {
			y = b.Dims[j]
		}
		switch {
		case x == 1:
			out[i] = y
		case y == 1:
			out[i] = x
		case x < 0 || y < 0:
			out[i] = max(x, y)
			if x < 0 && y < 0 {
				out[i] = Unknown
			}
		default:
			out[i] = x // mismatch: TF would fail; keep the first
		}
	}
	return Shape{Dims: out}
}

// conv2D computes the output of 2-D convolutions and pools (SAME/VALID,
// strides, dilations, NHWC/NCHW; tensorflow/core/framework/common_shape_fns.cc).
func conv2D(op string, in func(int) Tensor, a map[string]*attrpb.AttrValue) Shape {
	x := in(0).Shape
	if op == "Conv2DBackpropInput" {
		if v := in(0).Value; len(v) == 4 {
			return Shape{Dims: clampAll(v)}
		}
		return known(Unknown, Unknown, Unknown, Unknown)
	}
	if x.Rank() != 4 {
		return unknownRank()
	}
	nchw := string(a["data_format"].GetS()) == "NCHW"
	hi, wi, ci := 1, 2, 3
	if nchw {
		ci, hi, wi = 1, 2, 3
	}
	strides := a["strides"].GetList().GetI()
	dil := a["dilations"].GetList().GetI()
	pad := string(a["padding"].GetS())
	var kh, kw, cout int64 = Unknown, Unknown, Unknown
	switch op {
	case "MaxPool", "AvgPool", "MaxPoolV2":
		k := a["ksize"].GetList().GetI()
		if op == "MaxPoolV2" {
			k = in(1).Value
			strides = in(2).Value
		}
		if len(k) == 4 {
			kh, kw = k[hi], k[wi]
		}
		cout = x.Dims[ci]
	default:
		f := in(1).Shape
		if f.Rank() == 4 {
			kh, kw = f.Dims[0], f.Dims[1]
			if op == "Conv2D" || op == "_FusedConv2D" {
				cout = f.Dims[3]
			} else if f.Dims[2] >= 0 && f.Dims[3] >= 0 && x.Dims[ci] >= 0 {
				if v, ok := mulSat(x.Dims[ci], f.Dims[3]); ok {
					cout = v
				}
			}
		}
	}
	sh, sw := int64(1), int64(1)
	if len(strides) == 4 {
		sh, sw = strides[hi], strides[wi]
	}
	dh, dw := int64(1), int64(1)
	if len(dil) == 4 {
		dh, dw = dil[hi], dil[wi]
	}
	oh := windowOut(x.Dims[hi], kh, sh, dh, pad)
	ow := windowOut(x.Dims[wi], kw, sw, dw, pad)
	if nchw {
		return known(x.Dims[0], cout, oh, ow)
	}
	return known(x.Dims[0], oh, ow, cout)
}

func windowOut(in, k, stride, dil int64, pad string) int64 {
	if in < 0 || stride <= 0 {
		return Unknown
	}
	switch pad {
	case "SAME":
		return (in + stride - 1) / stride
	case "VALID":
		if k < 0 || dil <= 0 {
			return Unknown
		}
		ek, ok := mulSat(k-1, dil)
		if !ok || k < 1 {
			return Unknown
		}
		ek++
		if in < ek {
			return 0
		}
		return (in-ek)/stride + 1
	}
	return Unknown
}

// reshape resolves a -1 in the target shape from the element count.
func reshape(x Shape, target []int64, tshape Shape) Shape {
	if target == nil {
		if tshape.Rank() == 1 && tshape.Dims[0] >= 0 && tshape.Dims[0] <= 1<<10 {
			return Shape{Dims: unknownDims(int(tshape.Dims[0]))}
		}
		return unknownRank()
	}
	d := make([]int64, len(target))
	neg := -1
	prod := int64(1)
	ok := true
	for i, v := range target {
		switch {
		case v == -1 && neg < 0:
			neg = i
			d[i] = Unknown
		case v < 0:
			d[i] = Unknown
			ok = false
		default:
			d[i] = clampDim(v)
			if p, good := mulSat(prod, v); good {
				prod = p
			} else {
				ok = false
			}
		}
	}
	if neg >= 0 && ok {
		if n, known := x.NumElements(); known && prod > 0 {
			d[neg] = n / prod
		}
	}
	return Shape{Dims: d}
}

func concat(vals []Tensor, axis []int64) Shape {
	if len(vals) == 0 || len(axis) != 1 {
		return unknownRank()
	}
	r := -1
	for _, v := range vals {
		if v.Shape.Rank() >= 0 {
			r = v.Shape.Rank()
		}
	}
	if r < 0 {
		return unknownRank()
	}
	ax := int(axis[0])
	if ax < 0 {
		ax += r
	}
	if ax < 0 || ax >= r {
		return unknownRank()
	}
	out := unknownDims(r)
	sum := int64(0)
	for _, v := range vals {
		if v.Shape.Rank() != r {
			sum = Unknown
			continue
		}
		for i, d := range v.Shape.Dims {
			if i == ax {
				if sum >= 0 && d >= 0 {
					sum = clampDim(sum + d)
				} else {
					sum = Unknown
				}
			} else if out[i] < 0 {
				out[i] = d
			}
		}
	}
	out[ax] = sum
	return Shape{Dims: out}
}

func concatValues(vals []Tensor) []int64 {
	var out []int64
	for _, v := range vals {
		if v.Value == nil || v.Shape.Rank() != 1 {
			return nil
		}
		out = append(out, v.Value...)
		if len(out) > maxValue {
			return nil
		}
	}
	return out
}

func reduce(x Shape, axes []int64, axesShape Shape, keep bool) Shape {
	if x.UnknownRank {
		return unknownRank()
	}
	if axes == nil {
		if keep {
			return Shape{Dims: unknownDims(x.Rank())}
		}
		return unknownRank()
	}
	drop := map[int]bool{}
	for _, a := range axes {
		if a < 0 {
			a += int64(x.Rank())
		}
		if a < 0 || int(a) >= x.Rank() {
			return unknownRank()
		}
		drop[int(a)] = true
	}
	var d []int64
	for i, v := range x.Dims {
		if drop[i] {
			if keep {
				d = append(d, 1)
			}
			continue
		}
		d = append(d, v)
	}
	if d == nil {
		d = []int64{}
	}
	return Shape{Dims: d}
}

// stridedSlice follows ValidateStridedSliceOp (tensorflow/core/util/strided_slice_op.cc)
// for constant begin, end and strides, masks included.
func stridedSlice(x Tensor, begin, end, strides []int64, a map[string]*attrpb.AttrValue) (Shape, []int64) {
	n := len(begin)
	if n == 0 || len(end) != n || len(strides) != n || x.Shape.UnknownRank {
		return unknownRank(), nil
	}
	bm, em := a["begin_mask"].GetI(), a["end_mask"].GetI()
	ell, nam, sam := a["ellipsis_mask"].GetI(), a["new_axis_mask"].GetI(), a["shrink_axis_mask"].GetI()
	// Build the dense spec: expand the ellipsis.
	type dim struct {
		b, e, s           int64
		bm, em, shrink    bool
		newAxis, ellipsis bool
	}
	var spec []dim
	for i := 0; i < n; i++ {
		spec = append(spec, dim{b: begin[i], e: end[i], s: strides[i],
			bm: bm&(1<<i) != 0, em: em&(1<<i) != 0, shrink: sam&(1<<i) != 0,
			newAxis: nam&(1<<i) != 0, ellipsis: ell&(1<<i) != 0})
	}
	rank := x.Shape.Rank()
	used := 0
	for _, d := range spec {
		if !d.newAxis && !d.ellipsis {
			used++
		}
	}
	var out []int64
	xi := 0
	hasEllipsis := false
	for _, d := range spec {
		switch {
		case d.ellipsis:
			hasEllipsis = true
			for k := 0; k < rank-used && xi < rank; k++ {
				out = append(out, x.Shape.Dims[xi])
				xi++
			}
		case d.newAxis:
			out = append(out, 1)
		default:
			if xi >= rank {
				return unknownRank(), nil
			}
			size := x.Shape.Dims[xi]
			xi++
			if d.s == 0 {
				return unknownRank(), nil
			}
			if d.shrink {
				continue
			}
			if size < 0 {
				out = append(out, Unknown)
				continue
			}
			out = append(out, sliceLen(size, d.b, d.e, d.s, d.bm, d.em))
		}
	}
	if !hasEllipsis {
		for ; xi < rank; xi++ {
			out = append(out, x.Shape.Dims[xi])
		}
	}
	if out == nil {
		out = []int64{}
	}
	// Values: slice of a known 1-D vector.
	var val []int64
	if x.Value != nil && rank == 1 && n == 1 && nam == 0 && ell == 0 {
		d := spec[0]
		size := int64(len(x.Value))
		b, e := canon(size, d.b, d.e, d.s, d.bm, d.em)
		if d.shrink {
			if b >= 0 && b < size {
				val = []int64{x.Value[b]}
			}
		} else if d.s > 0 {
			for i := b; i < e; i += d.s {
				val = append(val, x.Value[i])
			}
		}
	}
	return Shape{Dims: out}, val
}

func canon(size, b, e, s int64, bm, em bool) (int64, int64) {
	clamp := func(v, lo, hi int64) int64 { return min(max(v, lo), hi) }
	if b < 0 {
		b += size
	}
	if e < 0 {
		e += size
	}
	if s > 0 {
		if bm {
			b = 0
		}
		if em {
			e = size
		}
		return clamp(b, 0, size), clamp(e, 0, size)
	}
	if bm {
		b = size - 1
	}
	if em {
		e = -1
	}
	return clamp(b, -1, size-1), clamp(e, -1, size-1)
}

func sliceLen(size, b, e, s int64, bm, em bool) int64 {
	b, e = canon(size, b, e, s, bm, em)
	if s > 0 {
		if e <= b {
			return 0
		}
		return (e - b + s - 1) / s
	}
	if e >= b {
		return 0
	}
	return (b - e + (-s) - 1) / (-s)
}

// constKey and constAnswer are a Const tensor and what constTensor tells
// of it, remembered for the last few tensors (Shapes.consts): the decoder
// hands Consts of one small value the same message, and a layer's Consts
// come together. What is remembered is shared, as inferred shapes and
// values are (no rule writes into a shape's dims or a value).
type constKey struct {
	t  *tensorProto
	dt tpb.DataType
}

type constAnswer struct {
	sh  Shape
	val []int64
}

// constOf is constTensor(t, dt), remembered for the last few tensors.
func (s *Shapes) constOf(t *tensorProto, dt tpb.DataType) (Shape, []int64) {
	k := constKey{t, dt}
	if a, ok := s.consts.Get(k); ok {
		return a.sh, a.val
	}
	sh, val := constTensor(t, dt)
	s.consts.Put(k, constAnswer{sh, val})
	return sh, val
}

// constTensor reads a Const's shape and, for small integer tensors, its
// values; nothing beyond maxValue elements is decoded.
func constTensor(t *tensorProto, dt tpb.DataType) (Shape, []int64) {
	if t == nil {
		return unknownRank(), nil
	}
	sh := fromProto(t.GetTensorShape())
	n, ok := sh.NumElements()
	if !ok || n > maxValue {
		return sh, nil
	}
	var v []int64
	switch dt {
	case tpb.DataType_DT_INT32:
		if c := t.GetTensorContent(); len(c) > 0 {
			if int64(len(c)) != 4*n {
				return sh, nil
			}
			for i := int64(0); i < n; i++ {
				v = append(v, int64(int32(binary.LittleEndian.Uint32(c[4*i:]))))
			}
		} else {
			for _, x := range t.GetIntVal() {
				v = append(v, int64(x))
			}
		}
	case tpb.DataType_DT_INT64:
		if c := t.GetTensorContent(); len(c) > 0 {
			if int64(len(c)) != 8*n {
				return sh, nil
			}
			for i := int64(0); i < n; i++ {
				v = append(v, int64(binary.LittleEndian.Uint64(c[8*i:])))
			}
		} else {
			v = append(v, t.GetInt64Val()...)
		}
	default:
		return sh, nil
	}
	// A repeated scalar fills the tensor (TensorProto semantics).
	if int64(len(v)) < n && len(v) > 0 {
		last := v[len(v)-1]
		for int64(len(v)) < n {
			v = append(v, last)
		}
	}
	if int64(len(v)) != n {
		return sh, nil
	}
	return sh, v
}

type tensorProto = tensorpb.TensorProto

// tfjsWeight is the TF.js weight that gives a top-level Const its value:
// a TF.js graph model keeps its constants in the weight shards, not in
// the Const nodes (savedmodel.Model.Weights).
func (s *Shapes) tfjsWeight(n *graph.Node) *savedmodel.Weight {
	if n.Func != nil || s.g.Model == nil || s.g.Model.Weights == nil {
		return nil
	}
	return s.g.Model.Weights[n.Name]
}

// weightTensor is a TF.js weight's shape and, for a small int32 one (or
// int64: the loader gives an int64 Const's int32 weight its dtype back),
// its values.
func weightTensor(w *savedmodel.Weight) (Shape, []int64) {
	sh := Shape{Dims: clampAll(w.Shape)}
	n, ok := sh.NumElements()
	if !ok || n > maxValue {
		return sh, nil
	}
	switch {
	case w.DType == tpb.DataType_DT_INT32 && int64(len(w.Data)) == 4*n:
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(int32(binary.LittleEndian.Uint32(w.Data[4*i:])))
		}
		return sh, v
	case w.DType == tpb.DataType_DT_INT64 && int64(len(w.Data)) == 8*n:
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(binary.LittleEndian.Uint64(w.Data[8*i:]))
		}
		return sh, v
	}
	return sh, nil
}

// parseExample follows ParseExample's shape fn (parsing_ops.cc:162-176,
// AddSparseOutputShapes and AddDenseOutputShapes at :32-62): serialized
// is a vector of examples, the batch; sparse outputs have unknown sizes,
// each dense value is the batch followed by its dense_shapes entry. A
// serialized input of unknown size that is fed (a Placeholder) has its
// batch assumed as every fed input's dimension 0 is.
func (s *Shapes) parseExample(n *graph.Node, x Tensor, outs []Tensor) {
	b := x.Shape
	if b.UnknownRank {
		b = known(Unknown)
	}
	if b.Rank() != 1 {
		return // TensorFlow refuses it
	}
	b, assumed := s.examplesBatch(n, b, x.Assumed)
	parseOutputs(b, int(n.Attrs["Nsparse"].GetI()), n.Attrs["dense_shapes"].GetList().GetShape(), 0, assumed, outs)
}

// parseExampleV2 follows ParseExampleV2's shape fn (parsing_ops.cc:206-227):
// serialized is a vector of examples (the batch, assumed as ParseExample's
// when fed) or a scalar, one example whose outputs have no batch
// dimension. Sparse values and indices and ragged values have as many
// entries as the examples hold, which only the data tells: their sizes stay
// unknown, as TensorFlow's do. Each ragged feature's row_splits is a
// vector of one more than the batch (AddRaggedOutputShapes, :65-85), known
// only for a vector of examples (:214-217). A serialized input of unknown
// rank leaves every output unknown: TensorFlow cannot tell a scalar from a
// batch there either.
func (s *Shapes) parseExampleV2(n *graph.Node, x Tensor, outs []Tensor) {
	b := x.Shape
	if b.UnknownRank || b.Rank() > 1 {
		return
	}
	assumed := x.Assumed
	if b.Rank() == 1 {
		b, assumed = s.examplesBatch(n, b, assumed)
	}
	ragged := len(n.Attrs["ragged_value_types"].GetList().GetType())
	if len(n.Attrs["ragged_split_types"].GetList().GetType()) != ragged {
		return // TensorFlow refuses it (example_proto_helper.cc:431-438)
	}
	parseOutputs(b, int(n.Attrs["num_sparse"].GetI()), n.Attrs["dense_shapes"].GetList().GetShape(), ragged, assumed, outs)
}

// parseSingleExample follows ParseSingleExample's shape fn
// (parsing_ops.cc:242-254): a scalar serialized example, so the dense
// values are their dense_shapes and a sparse feature's index has one
// column. Serialized examples of another rank TensorFlow refuses.
func parseSingleExample(n *graph.Node, x Tensor, outs []Tensor) {
	if !x.Shape.UnknownRank && x.Shape.Rank() != 0 {
		return
	}
	parseOutputs(known(), len(n.Attrs["sparse_keys"].GetList().GetS()), n.Attrs["dense_shapes"].GetList().GetShape(), 0, false, outs)
}

// examplesBatch is the batch of a vector of serialized examples, assumed
// (--dim, else the default batch) when it is a fed input of unknown size.
func (s *Shapes) examplesBatch(n *graph.Node, b Shape, assumed bool) (Shape, bool) {
	if len(n.Inputs) == 0 {
		return b, assumed
	}
	if src := n.Inputs[0].Node; b.Dims[0] < 0 && src != nil && (src.Op == "Placeholder" || src.Op == "PlaceholderV2") {
		var a bool
		b, a = s.fill(b, src.Name)
		assumed = assumed || a
	}
	return b, assumed
}

// parseOutputs sets the outputs of the Parse*Example ops for serialized
// examples of shape b (a vector: the batch; a scalar: one example), in
// their order: ns sparse indices, values and shapes (AddSparseOutputShapes,
// parsing_ops.cc:45-62: indices [?, rank(b)+1], values [?], shapes
// [rank(b)+1]), one dense value per dense_shapes entry, b followed by the
// entry (AddDenseOutputShapes, :32-42; a variable-length entry's -1 stays
// unknown), then ragged values [?] and row_splits [b+1] (:65-85).
func parseOutputs(b Shape, ns int, dense []*shapepb.TensorShapeProto, ragged int, assumed bool, outs []Tensor) {
	if ns < 0 || 3*ns+len(dense)+2*ragged != len(outs) {
		return
	}
	r := int64(b.Rank()) + 1
	for i := 0; i < ns; i++ {
		outs[i].Shape = known(Unknown, r) // sparse_indices
		outs[ns+i].Shape = known(Unknown) // sparse_values
		outs[2*ns+i].Shape = known(r)     // sparse_shapes
	}
	for i, d := range dense {
		sh := fromProto(d)
		if sh.UnknownRank {
			continue
		}
		o := &outs[3*ns+i]
		o.Shape = Shape{Dims: append(append([]int64(nil), b.Dims...), sh.Dims...)}
		o.Assumed = assumed
	}
	splits := int64(Unknown)
	if b.Rank() == 1 && b.Dims[0] >= 0 {
		splits = b.Dims[0] + 1
	}
	for i := 0; i < ragged; i++ {
		k := 3*ns + len(dense)
		outs[k+i].Shape = known(Unknown) // ragged_values
		o := &outs[k+ragged+i]           // ragged_row_splits
		o.Shape = known(splits)
		o.Assumed = assumed && splits >= 0
	}
}

// call is what a call node's outputs depend on: the bodies, in the order
// they are inferred (calls), and the arguments it passes them, its inputs
// past the first skip.
type call struct {
	bodies [2]*graph.Function
	n      int
	skip   int
	// loop is set for While, whose outputs keep its inputs' shapes.
	loop bool
}

// callees are c's bodies.
func (c *call) callees() []*graph.Function { return c.bodies[:c.n] }

// args are the arguments of c, of the node's inputs ins.
func (c *call) args(ins []Tensor) []Tensor { return ins[min(c.skip, len(ins)):] }

// calls tells the bodies whose shapes a call node's outputs depend on, in
// the order they are inferred: the called function, If's then branch,
// Case's first branch, While's body then cond. ok is false for a node that
// calls nothing callRule handles. It reads n alone, so that pendingCall
// and callRule, which both ask, need not keep the answer.
func calls(n *graph.Node) (c call, ok bool) {
	fn := func(name string) *graph.Function {
		for _, f := range n.Calls() {
			if f.Name == name {
				return f
			}
		}
		return nil
	}
	one := func(f *graph.Function, skip int) (call, bool) {
		return call{bodies: [2]*graph.Function{f}, n: 1, skip: skip}, f != nil
	}
	switch n.Op {
	case "PartitionedCall", "StatefulPartitionedCall":
		return one(fn(n.Attrs["f"].GetFunc().GetName()), 0)
	case "If", "StatelessIf":
		return one(fn(n.Attrs["then_branch"].GetFunc().GetName()), 1)
	case "Case", "StatelessCase":
		var f *graph.Function
		if bs := n.Attrs["branches"].GetList().GetFunc(); len(bs) > 0 {
			f = fn(bs[0].GetName())
		}
		return one(f, 1)
	case "While", "StatelessWhile":
		// loop variables keep their shapes in the common case
		c.loop = true
		for _, k := range [...]string{"body", "cond"} {
			if f := fn(n.Attrs[k].GetFunc().GetName()); f != nil {
				c.bodies[c.n] = f
				c.n++
			}
		}
		return c, true
	}
	if n.OpDef == nil {
		return one(fn(n.Op), 0)
	}
	return call{}, false
}

// pendingCall is the first body n's outputs depend on that is not inferred
// yet (nor being inferred, as under recursion), with its arguments, taken
// on top of s.ins; f is nil when there is none.
func (s *Shapes) pendingCall(n *graph.Node) (f *graph.Function, args []Tensor) {
	if len(n.Calls()) == 0 || s.state(n) != pending || !slices.ContainsFunc(n.Calls(), s.uninferred) {
		// The calls' callees are among n.Calls(): none is left to enter
		// when none of those is (the visit after the callee's body).
		return nil, nil
	}
	c, _ := calls(n)
	for _, f := range c.callees() {
		if s.uninferred(f) {
			ins := s.takeIns(len(n.Inputs))
			for i := range ins {
				ins[i] = s.input(n, i)
			}
			return f, c.args(ins)
		}
	}
	return nil, nil
}

// uninferred tells a function whose body is neither inferred nor being
// inferred.
func (s *Shapes) uninferred(f *graph.Function) bool {
	k, ok := s.known(f)
	return !ok || s.fns[k].state == bodyPending
}

// callRule takes the outputs of function calls from the callee's body,
// inferred with this caller's argument shapes when it is the first caller.
func (s *Shapes) callRule(n *graph.Node, ins []Tensor, outs []Tensor) bool {
	c, ok := calls(n)
	if !ok {
		return false
	}
	var rets []Tensor
	for _, f := range c.callees() {
		rets = s.function(f, c.args(ins))
	}
	if c.loop {
		for i := range outs {
			if i < len(ins) {
				outs[i].Shape = ins[i].Shape
				outs[i].Handle = ins[i].Handle
			}
		}
		return true
	}
	for i := range outs {
		if i < len(rets) {
			outs[i].Shape = rets[i].Shape
			outs[i].Value = rets[i].Value
			outs[i].Assumed = rets[i].Assumed
			outs[i].Handle = rets[i].Handle
		}
	}
	return true
}
