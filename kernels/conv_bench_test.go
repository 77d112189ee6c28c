package kernels

import (
	"math/rand/v2"
	"testing"
)

// Convolution benchmarks at ResNet-50 / MobileNet layer sizes, reported in
// GFLOP/s (2 flops per multiply-add).
func BenchmarkConv2D(b *testing.B) {
	cases := []struct {
		name       string
		op         string
		n, h, w, c int
		k, o       int // o: output channels (channel multiplier for depthwise)
		stride     int
	}{
		{"resnet_3x3_56x56x64", "Conv2D", 1, 56, 56, 64, 3, 64, 1},
		{"resnet_1x1_56x56x64to256", "Conv2D", 1, 56, 56, 64, 1, 256, 1},
		{"resnet_stem_7x7s2_224", "Conv2D", 1, 224, 224, 3, 7, 64, 2},
		{"mobilenet_dw_3x3_112x112x32", "DepthwiseConv2dNative", 1, 112, 112, 32, 3, 1, 1},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			x := nnF32T([]int{tc.n, tc.h, tc.w, tc.c}, nnRandF32(r, tc.n*tc.h*tc.w*tc.c))
			f := nnF32T([]int{tc.k, tc.k, tc.c, tc.o}, nnRandF32(r, tc.k*tc.k*tc.c*tc.o))
			ctx := &Context{Op: tc.op, Path: "bench", Attrs: nnConvTestAttrs([]int{1, tc.stride, tc.stride, 1}, "SAME"), Inputs: []*Tensor{x, f}}
			kern := Lookup(tc.op)
			oh, ow := (tc.h+tc.stride-1)/tc.stride, (tc.w+tc.stride-1)/tc.stride
			outC := tc.o
			perOut := tc.k * tc.k * tc.c
			if tc.op == "DepthwiseConv2dNative" {
				outC = tc.c * tc.o
				perOut = tc.k * tc.k
			}
			flops := 2 * float64(tc.n*oh*ow*outC) * float64(perOut)
			b.ResetTimer()
			cpu0 := processCPUTime()
			for i := 0; i < b.N; i++ {
				if _, err := kern(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			if cpu := (processCPUTime() - cpu0).Seconds(); cpu > 0 {
				b.ReportMetric(flops*float64(b.N)/cpu/1e9, "GFLOP/cpu-s")
			}
		})
	}
}
