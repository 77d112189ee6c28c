package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// groupedPlan builds the plan of a Conv2D of input [n,h,w,c] and filter
// [k,k,1,c] (one channel per group).
func groupedPlan(t testing.TB, n, h, w, c, k, stride, dil int, pad string) *convPlan {
	t.Helper()
	p := &convPlan{n: n, c: c, o: c, groups: c}
	p.sp[0] = windowDim{in: 1, k: 1, stride: 1, dil: 1, out: 1}
	for i, in := range []int{h, w} {
		d, err := windowOutput(&Context{Op: "Conv2D", Path: "test"}, in, k, stride, dil, pad, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		p.sp[1+i] = d
	}
	return p
}

// The depthwise route of a grouped Conv2D agrees with the GEMM path on the
// same plan up to summation order, in float32 and float64, with strides,
// dilations and both paddings.
func TestConvDepthwiseGroupedMatchesGemm(t *testing.T) {
	cases := []struct {
		name                   string
		n, h, w, c, k, st, dil int
		pad                    string
	}{
		{"3x3 SAME", 2, 9, 8, 5, 3, 1, 1, "SAME"},
		{"3x3 VALID s2", 1, 9, 9, 17, 3, 2, 1, "VALID"},
		{"7x7 SAME", 1, 12, 11, 24, 7, 1, 1, "SAME"},
		{"7x7 SAME s2", 1, 12, 11, 33, 7, 2, 1, "SAME"},
		{"3x3 dilated", 1, 10, 10, 8, 3, 1, 2, "SAME"},
		{"kernel over input", 1, 3, 3, 4, 7, 1, 1, "SAME"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, 4))
			p := groupedPlan(t, tc.n, tc.h, tc.w, tc.c, tc.k, tc.st, tc.dil, tc.pad)
			if !isDepthwiseGrouped(p, 2) {
				t.Fatal("plan not recognised as depthwise")
			}
			x := nnRandF32(r, tc.n*tc.h*tc.w*tc.c)
			f := nnRandF32(r, tc.k*tc.k*tc.c)
			size := p.outRows() * p.o
			want := convForward(p, x, f, nil, make([]float32, size))
			got := convDepthwiseGrouped(&Context{}, p, x, f)
			if i := nnCloseF32(got, want, 1e-5, 1e-5); i >= 0 {
				t.Fatalf("float32 element %d: depthwise %g, GEMM %g", i, got[i], want[i])
			}
			x64, f64 := make([]float64, len(x)), make([]float64, len(f))
			for i, v := range x {
				x64[i] = float64(v)
			}
			for i, v := range f {
				f64[i] = float64(v)
			}
			want64 := convForward(p, x64, f64, nil, make([]float64, size))
			got64 := convDepthwiseGrouped(&Context{}, p, x64, f64)
			for i := range want64 {
				if math.Abs(got64[i]-want64[i]) > 1e-12 {
					t.Fatalf("float64 element %d: depthwise %g, GEMM %g", i, got64[i], want64[i])
				}
			}
		})
	}
}

// The Conv2D kernel takes the route only for one channel per group: a
// grouped convolution with two output channels per group stays on the
// GEMM path and still computes.
func TestConvDepthwiseGroupedSelection(t *testing.T) {
	for _, tc := range []struct {
		c, cg, o int
		want     bool
	}{{8, 1, 8, true}, {8, 1, 16, false}, {8, 2, 4, false}, {8, 8, 8, false}, {1, 1, 1, false}} {
		p := &convPlan{n: 1, c: tc.c, o: tc.o, groups: tc.c / tc.cg}
		if got := isDepthwiseGrouped(p, 2); got != tc.want {
			t.Errorf("c=%d filter depth %d o=%d: route %v, want %v", tc.c, tc.cg, tc.o, got, tc.want)
		}
	}
	if isDepthwiseGrouped(&convPlan{n: 1, c: 8, o: 8, groups: 8}, 3) {
		t.Error("Conv3D takes the 2-D depthwise route")
	}
	r := rand.New(rand.NewPCG(5, 6))
	x := nnF32T([]int{1, 6, 6, 4}, nnRandF32(r, 144))
	f := nnF32T([]int{3, 3, 1, 8}, nnRandF32(r, 72))
	out, err := nnRunOp(t, "Conv2D", nnConvTestAttrs([]int{1, 1, 1, 1}, "SAME"), x, f)
	if err != nil || len(out) != 1 || out[0].Shape[3] != 8 {
		t.Fatalf("multiplier-2 grouped Conv2D: %v %v", out, err)
	}
}

// BenchmarkConvGroupedDepthwise runs ConvNeXt-Tiny's depthwise layers
// (grouped Conv2D, filter [7,7,1,C]) on both paths in the same run: the
// GEMM path (one product per group) and the depthwise route.
func BenchmarkConvGroupedDepthwise(b *testing.B) {
	for _, s := range []struct {
		name  string
		hw, c int
	}{{"56x56x96", 56, 96}, {"28x28x192", 28, 192}, {"14x14x384", 14, 384}, {"7x7x768", 7, 768}} {
		r := rand.New(rand.NewPCG(1, 2))
		p := groupedPlan(b, 1, s.hw, s.hw, s.c, 7, 1, 1, "SAME")
		x := nnRandF32(r, s.hw*s.hw*s.c)
		f := nnRandF32(r, 49*s.c)
		flops := 2 * float64(p.outRows()*p.o*49)
		run := func(b *testing.B, fn func() []float32) {
			for i := 0; i < b.N; i++ {
				fn()
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		}
		b.Run(s.name+"/gemm", func(b *testing.B) {
			run(b, func() []float32 { return convForward(p, x, f, nil, make([]float32, p.outRows()*p.o)) })
		})
		b.Run(s.name+"/depthwise", func(b *testing.B) {
			run(b, func() []float32 { return convDepthwiseGrouped(&Context{}, p, x, f) })
		})
	}
}
