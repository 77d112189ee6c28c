package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

func nnConvTestAttrs(strides []int, padding string) map[string]*attrpb.AttrValue {
	return xattrs("strides", strides, "dilations", []int{1, 1, 1, 1}, "padding", padding,
		"data_format", "NHWC", "explicit_paddings", []int{})
}

// Bad inputs must give one error naming the node, never a panic.
func TestNNBadInputs(t *testing.T) {
	f := func(shape ...int) *Tensor {
		n := 1
		for _, d := range shape {
			n *= d
		}
		return nnF32T(shape, make([]float32, n))
	}
	i32 := func(v ...int32) *Tensor {
		return &Tensor{DType: tpb.DataType_DT_INT32, Shape: []int{len(v)}, Data: v}
	}
	s32 := func(v int32) *Tensor { return &Tensor{DType: tpb.DataType_DT_INT32, Shape: []int{}, Data: []int32{v}} }
	sf := func(v float32) *Tensor { return nnF32T([]int{}, []float32{v}) }
	conv := nnConvTestAttrs([]int{1, 1, 1, 1}, "SAME")
	tests := []struct {
		name   string
		op     string
		attrs  map[string]*attrpb.AttrValue
		inputs []*Tensor
		want   string
	}{
		{"matmul rank", "MatMul", xattrs("transpose_a", false, "transpose_b", false), []*Tensor{f(2, 3, 4), f(4, 2)}, "must be matrices"},
		{"matmul k", "MatMul", xattrs("transpose_a", false, "transpose_b", false), []*Tensor{f(2, 3), f(4, 2)}, "size-incompatible"},
		{"matmul missing input", "MatMul", xattrs("transpose_a", false, "transpose_b", false), []*Tensor{f(2, 3)}, "expects 2 inputs"},
		{"matmul missing attr", "MatMul", xattrs(), []*Tensor{f(2, 3), f(3, 2)}, "missing attr"},
		{"conv rank", "Conv2D", conv, []*Tensor{f(1, 5, 5), f(3, 3, 3, 4)}, "4-dimensional"},
		{"conv depth", "Conv2D", conv, []*Tensor{f(1, 5, 5, 3), f(3, 3, 2, 4)}, "evenly divisible"},
		{"conv valid too small", "Conv2D", nnConvTestAttrs([]int{1, 1, 1, 1}, "VALID"), []*Tensor{f(1, 2, 2, 1), f(3, 3, 1, 1)}, "negative"},
		{"conv stride zero", "Conv2D", nnConvTestAttrs([]int{1, 0, 1, 1}, "SAME"), []*Tensor{f(1, 5, 5, 1), f(3, 3, 1, 1)}, "stride"},
		{"conv batch stride", "Conv2D", nnConvTestAttrs([]int{2, 1, 1, 1}, "SAME"), []*Tensor{f(1, 5, 5, 1), f(3, 3, 1, 1)}, "batch and depth"},
		{"conv bad padding", "Conv2D", nnConvTestAttrs([]int{1, 1, 1, 1}, "FULL"), []*Tensor{f(1, 5, 5, 1), f(3, 3, 1, 1)}, "unknown padding"},
		{"conv explicit count", "Conv2D", nnConvTestAttrs([]int{1, 1, 1, 1}, "EXPLICIT"), []*Tensor{f(1, 5, 5, 1), f(3, 3, 1, 1)}, "explicit_paddings"},
		{"depthwise channels", "DepthwiseConv2dNative", conv, []*Tensor{f(1, 5, 5, 3), f(3, 3, 2, 1)}, "in_depth"},
		{"backprop sizes", "Conv2DBackpropInput", conv, []*Tensor{i32(1, 5, 5), f(3, 3, 3, 4), f(1, 5, 5, 4)}, "input_sizes"},
		{"backprop mismatch", "Conv2DBackpropInput", conv, []*Tensor{i32(1, 6, 6, 3), f(3, 3, 3, 4), f(1, 5, 5, 4)}, "does not match"},
		{"backprop negative", "Conv2DBackpropInput", conv, []*Tensor{i32(1, -6, 6, 3), f(3, 3, 3, 4), f(1, 5, 5, 4)}, "non-negative"},
		{"pool ksize", "MaxPool", xattrs("ksize", []int{1, 0, 2, 1}, "strides", []int{1, 1, 1, 1}, "padding", "SAME", "data_format", "NHWC"), []*Tensor{f(1, 4, 4, 1)}, "ksize"},
		{"pool depth", "MaxPool", xattrs("ksize", []int{1, 2, 2, 2}, "strides", []int{1, 1, 1, 1}, "padding", "SAME", "data_format", "NHWC"), []*Tensor{f(1, 4, 4, 2)}, "depth"},
		{"biasadd channels", "BiasAdd", xattrs("data_format", "NHWC"), []*Tensor{f(2, 3), f(4)}, "biases"},
		{"softmax scalar", "Softmax", nil, []*Tensor{f()}, "dimension"},
		{"resize both modes", "ResizeBilinear", xattrs("align_corners", true, "half_pixel_centers", true), []*Tensor{f(1, 2, 2, 1), i32(3, 3)}, "align_corners"},
		{"resize zero size", "ResizeNearestNeighbor", xattrs("align_corners", false, "half_pixel_centers", false), []*Tensor{f(1, 2, 2, 1), i32(0, 3)}, "positive"},
		{"resize rank", "ResizeBilinear", xattrs("align_corners", false, "half_pixel_centers", false), []*Tensor{f(2, 2, 1), i32(3, 3)}, "4-dimensional"},
		{"topk k too big", "TopKV2", xattrs("sorted", true), []*Tensor{f(2, 3), s32(4)}, "at least k"},
		{"topk negative", "TopKV2", xattrs("sorted", true), []*Tensor{f(2, 3), s32(-1)}, "k >= 0"},
		{"nms iou", "NonMaxSuppressionV3", nil, []*Tensor{f(3, 4), f(3), s32(2), sf(1.5), sf(0)}, "iou_threshold"},
		{"nms boxes", "NonMaxSuppressionV3", nil, []*Tensor{f(3, 3), f(3), s32(2), sf(0.5), sf(0)}, "4 columns"},
		{"nms scores", "NonMaxSuppressionV3", nil, []*Tensor{f(3, 4), f(2), s32(2), sf(0.5), sf(0)}, "one per box"},
		{"nms negative max", "NonMaxSuppressionV3", nil, []*Tensor{f(3, 4), f(3), s32(-2), sf(0.5), sf(0)}, "non-negative"},
		{"nms sigma", "NonMaxSuppressionV5", xattrs("pad_to_max_output_size", false), []*Tensor{f(3, 4), f(3), s32(2), sf(0.5), sf(0), sf(-1)}, "soft_nms_sigma"},
		{"einsum rank", "Einsum", xattrs("equation", "ij,jk->ik"), []*Tensor{f(2, 3, 4), f(4, 2)}, "rank"},
		{"einsum sizes", "Einsum", xattrs("equation", "ij,jk->ik"), []*Tensor{f(2, 3), f(4, 2)}, "sizes"},
		{"einsum output label", "Einsum", xattrs("equation", "ij,jk->iz"), []*Tensor{f(2, 3), f(3, 2)}, "does not appear"},
		{"fused unknown", "_FusedConv2D", nnWithAttrs(conv, "fused_ops", []string{"BiasAdd", "Swish"}, "num_args", 1, "epsilon", 0.0), []*Tensor{f(1, 3, 3, 1), f(1, 1, 1, 2), f(2)}, "fused_ops"},
		{"fused bias size", "_FusedConv2D", nnWithAttrs(conv, "fused_ops", []string{"BiasAdd"}, "num_args", 1, "epsilon", 0.0), []*Tensor{f(1, 3, 3, 1), f(1, 1, 1, 2), f(3)}, "bias argument"},
		{"fused num_args", "_FusedMatMul", xattrs("transpose_a", false, "transpose_b", false, "fused_ops", []string{"BiasAdd"}, "num_args", 2), []*Tensor{f(2, 2), f(2, 2), f(2)}, "num_args"},
		{"batchnorm channels", "FusedBatchNormV3", xattrs("epsilon", 0.001, "is_training", false, "data_format", "NHWC"), []*Tensor{f(1, 2, 2, 3), f(2), f(3), f(3), f(3)}, "channels"},
		{"prelu alpha", "Prelu", nil, []*Tensor{f(2, 3), f(4)}, "broadcast"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			attrs := tc.attrs
			if attrs == nil {
				attrs = xattrs()
			}
			_, err := nnRunOp(t, tc.op, attrs, tc.inputs...)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
			require.Contains(t, err.Error(), "test/"+tc.op, "the error names the node")
		})
	}
}

func nnWithAttrs(base map[string]*attrpb.AttrValue, kv ...any) map[string]*attrpb.AttrValue {
	m := xattrs(kv...)
	for k, v := range base {
		m[k] = v
	}
	return m
}

func TestNNUnsupported(t *testing.T) {
	var ue *UnsupportedError
	_, err := nnRunOp(t, "_FusedBatchNormEx", xattrs("epsilon", 0.001, "is_training", false, "data_format", "NHWC", "activation_mode", "Elu"),
		nnF32T([]int{1, 1, 1, 1}, []float32{1}), nnF32T([]int{1}, []float32{1}), nnF32T([]int{1}, []float32{1}), nnF32T([]int{1}, []float32{1}), nnF32T([]int{1}, []float32{1}))
	require.ErrorAs(t, err, &ue)
	_, err = nnRunOp(t, "Conv2D", nnConvTestAttrs([]int{1, 1, 1, 1}, "SAME"),
		&Tensor{DType: tpb.DataType_DT_INT8, Shape: []int{1, 1, 1, 1}, Data: []int8{1}}, &Tensor{DType: tpb.DataType_DT_INT8, Shape: []int{1, 1, 1, 1}, Data: []int8{1}})
	require.ErrorAs(t, err, &ue)
}

// The emulation hooks: operand rounding goes through the fast GEMM (rounded
// while packing); accumulator rounding through the ordered loop. Both must
// equal a direct computation.
func TestConvEmulation(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	x, f := nnRandF32(r, 1*6*6*5), nnRandF32(r, 3*3*5*4)
	xt, ft := nnF32T([]int{1, 6, 6, 5}, x), nnF32T([]int{3, 3, 5, 4}, f)
	attrs := nnConvTestAttrs([]int{1, 1, 1, 1}, "VALID")
	for _, emu := range []*Emulation{{RoundOperand: RoundBFloat16}, {RoundAccum: RoundFloat16}, {RoundOperand: RoundFloat16, RoundAccum: RoundFloat16}} {
		ctx := &Context{Op: "Conv2D", Path: "n", Attrs: attrs, Inputs: []*Tensor{xt, ft}, Emu: emu}
		out, err := Lookup("Conv2D")(ctx)
		require.NoError(t, err)
		got := out[0].Data.([]float32)
		ro := emu.RoundOperand
		if ro == nil {
			ro = func(v float32) float32 { return v }
		}
		ra := emu.RoundAccum
		for oh := 0; oh < 4; oh++ {
			for ow := 0; ow < 4; ow++ {
				for o := 0; o < 4; o++ {
					var acc float32
					for kh := 0; kh < 3; kh++ {
						for kw := 0; kw < 3; kw++ {
							for c := 0; c < 5; c++ {
								acc += ro(x[((oh+kh)*6+ow+kw)*5+c]) * ro(f[((kh*3+kw)*5+c)*4+o])
								if ra != nil {
									acc = ra(acc)
								}
							}
						}
					}
					g := got[(oh*4+ow)*4+o]
					if ra != nil {
						require.Equal(t, acc, g) // same order, same rounding: exact
					} else {
						require.InDelta(t, acc, g, 1e-5)
					}
				}
			}
		}
	}
}

func TestNNHalfDTypes(t *testing.T) {
	// Half and bfloat16 compute in float32 and round the output once.
	x := []float32{0.5, -1.25, 2, 3.5}
	for _, dt := range []tpb.DataType{tpb.DataType_DT_HALF, tpb.DataType_DT_BFLOAT16} {
		var in *Tensor
		if dt == tpb.DataType_DT_HALF {
			d := make([]Float16, len(x))
			for i, v := range x {
				d[i] = Float16FromFloat32(v)
			}
			in = &Tensor{DType: dt, Shape: []int{1, 2, 2, 1}, Data: d}
		} else {
			d := make([]BFloat16, len(x))
			for i, v := range x {
				d[i] = BFloat16FromFloat32(v)
			}
			in = &Tensor{DType: dt, Shape: []int{1, 2, 2, 1}, Data: d}
		}
		out, err := nnRunOp(t, "AvgPool", xattrs("ksize", []int{1, 2, 2, 1}, "strides", []int{1, 1, 1, 1}, "padding", "VALID", "data_format", "NHWC"), in)
		require.NoError(t, err)
		require.Equal(t, dt, out[0].DType)
		v, _ := out[0].Float64s()
		require.Equal(t, []float64{1.1875}, v)
		out, err = nnRunOp(t, "Relu", nil, in)
		require.NoError(t, err)
		v, _ = out[0].Float64s()
		require.Equal(t, []float64{0.5, 0, 2, 3.5}, v)
	}
}

func TestMaxPoolLowest(t *testing.T) {
	// TensorFlow starts windows at the lowest finite value: all -Inf gives it.
	in := nnF32T([]int{1, 1, 2, 1}, []float32{float32(math.Inf(-1)), float32(math.Inf(-1))})
	out, err := nnRunOp(t, "MaxPool", xattrs("ksize", []int{1, 1, 2, 1}, "strides", []int{1, 1, 1, 1}, "padding", "VALID", "data_format", "NHWC"), in)
	require.NoError(t, err)
	require.Equal(t, []float32{-math.MaxFloat32}, out[0].Data.([]float32))
}

func TestResizeNearestKeepsDType(t *testing.T) {
	in := &Tensor{DType: tpb.DataType_DT_UINT8, Shape: []int{1, 2, 2, 1}, Data: []uint8{1, 2, 3, 4}}
	out, err := nnRunOp(t, "ResizeNearestNeighbor", xattrs("align_corners", false, "half_pixel_centers", true), in,
		&Tensor{DType: tpb.DataType_DT_INT32, Shape: []int{2}, Data: []int32{4, 4}})
	require.NoError(t, err)
	require.Equal(t, []uint8{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}, out[0].Data.([]uint8))
}

func TestConvLargeAgainstNaive(t *testing.T) {
	// Large enough to take the parallel GEMM and several k blocks.
	if testing.Short() {
		t.Skip("slow")
	}
	r := rand.New(rand.NewPCG(9, 10))
	n, h, w, c, o, k := 2, 13, 11, 40, 37, 3
	x, f := nnRandF32(r, n*h*w*c), nnRandF32(r, k*k*c*o)
	out, err := nnRunOp(t, "Conv2D", nnConvTestAttrs([]int{1, 2, 1, 1}, "SAME"), nnF32T([]int{n, h, w, c}, x), nnF32T([]int{k, k, c, o}, f))
	require.NoError(t, err)
	oh, ow := (h+1)/2, w
	require.Equal(t, []int{n, oh, ow, o}, out[0].Shape)
	got := out[0].Data.([]float32)
	padH := max(0, (oh-1)*2+k-h) / 2
	padW := (k - 1) / 2
	for b := 0; b < n; b++ {
		for i := 0; i < oh; i++ {
			for j := 0; j < ow; j++ {
				for oc := 0; oc < o; oc++ {
					var s float64
					for di := 0; di < k; di++ {
						for dj := 0; dj < k; dj++ {
							ii, jj := i*2-padH+di, j-padW+dj
							if ii < 0 || ii >= h || jj < 0 || jj >= w {
								continue
							}
							for ch := 0; ch < c; ch++ {
								s += float64(x[((b*h+ii)*w+jj)*c+ch]) * float64(f[((di*k+dj)*c+ch)*o+oc])
							}
						}
					}
					require.InDelta(t, s, got[((b*oh+i)*ow+j)*o+oc], 1e-4)
				}
			}
		}
	}
}

func TestTopKSelectionMatchesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 7, 100, 1000} {
		row := make([]float64, n)
		for i := range row {
			row[i] = float64(r.IntN(10)) // many ties
			if r.IntN(50) == 0 {
				row[i] = math.NaN()
			}
		}
		full := topKRow(row, n) // the full sort
		for _, k := range []int{0, 1, min(3, n), n / 5, n} {
			require.Equal(t, full[:k], topKRow(row, k), "n=%d k=%d", n, k)
		}
	}
}
