package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// convPanelFill packs the same panels as convPatchFill row by row: every
// window tap inside and over the padding, strides, dilations, channel
// groups, runs over adjacent taps (the stems' few channels), runs longer
// than its run of zeros, partial panels and each panel height the kernels
// use.
func TestConvPanelFillMatchesRows(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	dim := func(in, k, stride, dil, before, after int) windowDim {
		return windowDim{in: in, k: k, stride: stride, dil: dil, padBefore: before, padAfter: after,
			out: (in+before+after-dil*(k-1)-1)/stride + 1}
	}
	for _, tc := range []struct {
		name   string
		c, cg  int
		sp     [3]windowDim
		groups int
	}{
		{"3x3 same", 7, 7, [3]windowDim{dim(1, 1, 1, 1, 0, 0), dim(9, 3, 1, 1, 1, 1), dim(11, 3, 1, 1, 1, 1)}, 1},
		{"3x3 stride 2", 16, 16, [3]windowDim{dim(1, 1, 1, 1, 0, 0), dim(10, 3, 2, 1, 0, 1), dim(10, 3, 2, 1, 0, 1)}, 1},
		{"dilated", 5, 5, [3]windowDim{dim(1, 1, 1, 1, 0, 0), dim(8, 3, 1, 2, 2, 2), dim(8, 3, 1, 2, 2, 2)}, 1},
		{"grouped", 12, 4, [3]windowDim{dim(1, 1, 1, 1, 0, 0), dim(6, 3, 1, 1, 1, 1), dim(6, 3, 1, 1, 1, 1)}, 3},
		{"wide channels", 1100, 1100, [3]windowDim{dim(1, 1, 1, 1, 0, 0), dim(4, 3, 1, 1, 1, 1), dim(4, 3, 1, 1, 1, 1)}, 1},
		{"7x7 stem, stride 2", 3, 3, [3]windowDim{dim(1, 1, 1, 1, 0, 0), dim(23, 7, 2, 1, 2, 3), dim(23, 7, 2, 1, 2, 3)}, 1},
		{"3x3 stem, stride 2", 3, 3, [3]windowDim{dim(1, 1, 1, 1, 0, 0), dim(17, 3, 2, 1, 0, 1), dim(17, 3, 2, 1, 0, 1)}, 1},
		{"3d", 3, 3, [3]windowDim{dim(4, 2, 1, 1, 1, 0), dim(5, 3, 2, 1, 1, 1), dim(5, 2, 1, 1, 0, 1)}, 1},
	} {
		n := 2
		p := &convPlan{n: n, c: tc.c, groups: tc.groups, sp: tc.sp}
		x := make([]float32, n*tc.sp[0].in*tc.sp[1].in*tc.sp[2].in*tc.c)
		for i := range x {
			x[i] = float32(i%1000 + 1)
		}
		rows := p.outRows()
		kk := tc.sp[0].k * tc.sp[1].k * tc.sp[2].k * tc.cg
		for _, mr := range []int{4, 6, 12} {
			for trial := 0; trial < 50; trial++ {
				g := r.IntN(tc.groups)
				r0 := r.IntN(rows)
				i0 := r.IntN(rows - r0)
				mm := 1 + r.IntN(min(mr, rows-r0-i0))
				p0 := r.IntN(kk)
				kb := 1 + r.IntN(kk-p0)
				fill := convPatchFill(p, x, r0, g*tc.cg, tc.cg)
				want := make([]float32, kb*mr)
				for i := 0; i < mm; i++ {
					fill(i0+i, p0, kb, want[i:], mr)
				}
				got := make([]float32, kb*mr)
				for i := range got {
					got[i] = -1
				}
				convPanelFill(p, x, r0, g*tc.cg, tc.cg)(i0, mm, p0, kb, mr, got)
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%s mr=%d rows %d+%d (%d) k %d+%d: pan[%d] = %v, rows give %v", tc.name, mr, r0, i0, mm, p0, kb, i, got[i], want[i])
					}
				}
			}
		}
	}
}

// BenchmarkConvPanelFill packs the patches of a 3×3 SAME convolution of a
// 56×56×128 input (densenet121's bottleneck output) into panels 256 deep,
// of 12 rows as the AVX-512 GEMM asks for them and of 6 as the AVX2 GEMM
// does.
func BenchmarkConvPanelFill(b *testing.B) {
	dim := windowDim{in: 56, k: 3, stride: 1, dil: 1, padBefore: 1, padAfter: 1, out: 56}
	p := &convPlan{n: 1, c: 128, groups: 1, sp: [3]windowDim{{in: 1, k: 1, stride: 1, dil: 1, out: 1}, dim, dim}}
	x := make([]float32, 56*56*128)
	fill := convPanelFill(p, x, 0, 0, 128)
	rows, kk := p.outRows(), 9*128
	for _, mr := range []int{12, 6} {
		b.Run(fmt.Sprintf("rows%d", mr), func(b *testing.B) {
			pan := make([]float32, mr*256)
			b.SetBytes(int64(rows / mr * mr * kk * 4))
			for i := 0; i < b.N; i++ {
				for r := 0; r+mr <= rows; r += mr {
					for p0 := 0; p0 < kk; p0 += 256 {
						fill(r, mr, p0, min(256, kk-p0), mr, pan)
					}
				}
			}
		})
	}
}
