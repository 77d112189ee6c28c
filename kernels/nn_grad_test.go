package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// The backward kernels of a Keras training step, on cases worked by hand
// (their TensorFlow definitions: nn_grad.go, pool_grad.go, xent.go) and,
// for Conv2DBackpropFilter, by the adjoint identity with the Conv2D kernel
// the goldens hold to TensorFlow: Σ conv(x, W)·dy = Σ W·dW(x, dy).
func TestGradKernels(t *testing.T) {
	f := func(shape []int, v ...float32) *Tensor { return nnF32T(shape, v) }
	cases := []struct {
		name, op string
		attrs    []any
		in       []*Tensor
		want     [][]float32
	}{
		{"relu grad", "ReluGrad", nil, []*Tensor{f([]int{4}, 1, 2, 3, 4), f([]int{4}, -1, 0, 0.5, 2)}, [][]float32{{0, 0, 3, 4}}},
		{"tanh grad", "TanhGrad", nil, []*Tensor{f([]int{2}, 0.5, -1), f([]int{2}, 2, 3)}, [][]float32{{1.5, 0}}},
		{"sigmoid grad", "SigmoidGrad", nil, []*Tensor{f([]int{2}, 0.5, 0.25), f([]int{2}, 4, 8)}, [][]float32{{1, 1.5}}},
		{"bias grad NHWC", "BiasAddGrad", nil, []*Tensor{f([]int{2, 3}, 1, 2, 3, 4, 5, 6)}, [][]float32{{5, 7, 9}}},
		{"bias grad NCHW", "BiasAddGrad", []any{"data_format", "NCHW"}, []*Tensor{f([]int{1, 2, 2}, 1, 2, 3, 4)}, [][]float32{{3, 7}}},
		// 2x2 windows, stride 2: the maximum's position gets the gradient;
		// the tie in the second window goes to the first in row-major order.
		{"max pool grad", "MaxPoolGrad", []any{"ksize", []int64{1, 2, 2, 1}, "strides", []int64{1, 2, 2, 1}, "padding", "VALID"},
			[]*Tensor{f([]int{1, 2, 4, 1}, 1, 5, 7, 7, 2, 3, 7, 0), f([]int{1, 1, 2, 1}, 5, 7), f([]int{1, 1, 2, 1}, 10, 20)},
			[][]float32{{0, 10, 20, 0, 0, 0, 0, 0}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := nnRunOp(t, c.op, xattrs(c.attrs...), c.in...)
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range c.want {
				if got := out[i].Data.([]float32); nnCloseF32(got, w, 1e-6, 1e-6) >= 0 {
					t.Errorf("output %d = %v, want %v", i, got, w)
				}
			}
		})
	}
}

func TestSparseSoftmaxCrossEntropy(t *testing.T) {
	x := nnF32T([]int{2, 3}, []float32{1, 2, 3, 0, 0, 0})
	labels := &Tensor{DType: tpb.DataType_DT_INT32, Shape: []int{2}, Data: []int32{2, 0}}
	out, err := nnRunOp(t, "SparseSoftmaxCrossEntropyWithLogits", nil, x, labels)
	if err != nil {
		t.Fatal(err)
	}
	e := []float64{math.Exp(-2), math.Exp(-1), 1}
	s := e[0] + e[1] + e[2]
	wantLoss := []float32{float32(math.Log(s)), float32(math.Log(3))}
	wantBack := []float32{float32(e[0] / s), float32(e[1] / s), float32(1/s - 1), float32(1.0/3 - 1), 1.0 / 3, 1.0 / 3}
	if got := out[0].Data.([]float32); nnCloseF32(got, wantLoss, 1e-6, 1e-7) >= 0 {
		t.Errorf("loss = %v, want %v", got, wantLoss)
	}
	if got := out[1].Data.([]float32); nnCloseF32(got, wantBack, 1e-6, 1e-7) >= 0 {
		t.Errorf("backprop = %v, want %v", got, wantBack)
	}
	bad := &Tensor{DType: tpb.DataType_DT_INT32, Shape: []int{2}, Data: []int32{3, 0}}
	if _, err := nnRunOp(t, "SparseSoftmaxCrossEntropyWithLogits", nil, x, bad); err == nil {
		t.Error("a label outside [0, 3) is accepted")
	}
}

func TestConv2DBackpropFilterAdjoint(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		padding string
		stride  int64
	}{{"VALID", 1}, {"SAME", 2}, {"SAME", 1}} {
		x := nnF32T([]int{2, 7, 6, 3}, nnRandF32(r, 2*7*6*3))
		w := nnF32T([]int{3, 2, 3, 4}, nnRandF32(r, 3*2*3*4))
		attrs := nnConvTestAttrs([]int{1, int(c.stride), int(c.stride), 1}, c.padding)
		y, err := nnRunOp(t, "Conv2D", attrs, x, w)
		if err != nil {
			t.Fatal(err)
		}
		dy := nnF32T(y[0].Shape, nnRandF32(r, y[0].NumElements()))
		sizes := &Tensor{DType: tpb.DataType_DT_INT32, Shape: []int{4}, Data: []int32{3, 2, 3, 4}}
		dw, err := nnRunOp(t, "Conv2DBackpropFilter", attrs, x, sizes, dy)
		if err != nil {
			t.Fatal(err)
		}
		var lhs, rhs float64
		for i, v := range y[0].Data.([]float32) {
			lhs += float64(v) * float64(dy.Data.([]float32)[i])
		}
		for i, v := range w.Data.([]float32) {
			rhs += float64(v) * float64(dw[0].Data.([]float32)[i])
		}
		if math.Abs(lhs-rhs) > 1e-4*math.Max(1, math.Abs(lhs)) {
			t.Errorf("%s stride %d: Σ conv·dy = %g, Σ W·dW = %g", c.padding, c.stride, lhs, rhs)
		}
	}
}

// TestConv2DBackpropFilterDilated holds the dilated filter gradient (what
// TensorFlow's GPU and oneDNN kernels compute; tfgolden's Differences) to
// the undilated one over the effective filter, (k-1)·d+1 taps a side, of
// which it is every d-th tap: the same products summed in the same order,
// so bit for bit, float16's per-step rounding included.
func TestConv2DBackpropFilterDilated(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		padding   string
		stride, d int
		dt        tpb.DataType
	}{{"VALID", 1, 2, nnF32}, {"SAME", 1, 2, nnF32}, {"SAME", 2, 3, nnF32}, {"VALID", 2, 2, nnF16}, {"SAME", 1, 2, nnBF16}} {
		x := nnF32T([]int{2, 9, 8, 3}, nnRandF32(r, 2*9*8*3))
		ke := 2*c.d + 1
		dilated := nnConvTestAttrs([]int{1, c.stride, c.stride, 1}, c.padding)
		dilated["dilations"] = xattrs("d", []int{1, c.d, c.d, 1})["d"]
		plain := nnConvTestAttrs([]int{1, c.stride, c.stride, 1}, c.padding)
		oh, ow := (9+c.stride-1)/c.stride, (8+c.stride-1)/c.stride
		if c.padding == "VALID" {
			oh, ow = (9-ke)/c.stride+1, (8-ke)/c.stride+1
		}
		dy := nnF32T([]int{2, oh, ow, 4}, nnRandF32(r, 2*oh*ow*4))
		if c.dt != nnF32 {
			x, _ = CastTensor(x, c.dt)
			dy, _ = CastTensor(dy, c.dt)
		}
		sizes := func(k int) *Tensor {
			return &Tensor{DType: tpb.DataType_DT_INT32, Shape: []int{4}, Data: []int32{int32(k), int32(k), 3, 4}}
		}
		got, err := nnRunOp(t, "Conv2DBackpropFilter", dilated, x, sizes(3), dy)
		if err != nil {
			t.Fatal(err)
		}
		eff, err := nnRunOp(t, "Conv2DBackpropFilter", plain, x, sizes(ke), dy)
		if err != nil {
			t.Fatal(err)
		}
		g, _ := got[0].Float64s()
		e, _ := eff[0].Float64s()
		for i := range g {
			kh, kw, rest := i/(3*12), i/12%3, i%12
			want := e[((kh*c.d)*ke+kw*c.d)*12+rest]
			if math.Float64bits(g[i]) != math.Float64bits(want) {
				t.Fatalf("%s s%d d%d %s: dW[%d] = %g, the effective filter's tap %g", c.padding, c.stride, c.d, c.dt, i, g[i], want)
			}
		}
	}
}
