package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The assembly loops of affine_amd64.s against the Go loops they replace,
// bit for bit, on lengths around the vector widths and on the values whose
// handling differs between min/max instructions and comparisons (NaN, -0,
// infinities, 0 and 6 themselves).
func TestAffineMatchesGo(t *testing.T) {
	special := []float32{float32(math.NaN()), float32(math.Copysign(0, -1)), 0, 6, -6, 7, float32(math.Inf(1)), float32(math.Inf(-1)), 5.999, 1e-45}
	r := rand.New(rand.NewPCG(3, 4))
	goBN := func(y, x, m, f, o []float32, c int, relu bool) {
		for i, v := range x {
			j := i % c
			v = (v-m[j])*f[j] + o[j]
			if relu && v < 0 {
				v = 0
			}
			y[i] = v
		}
	}
	goClamp := func(dst, src []float32, six bool) {
		for i, v := range src {
			if v < 0 {
				v = 0
			} else if six && v > 6 {
				v = 6
			}
			dst[i] = v
		}
	}
	same := func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b) }
	for _, c := range []int{1, 3, 8, 13, 16, 33, 96} {
		for _, rows := range []int{1, 2, 7} {
			n := rows * c
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(r.NormFloat64() * 4)
				if r.IntN(4) == 0 {
					x[i] = special[r.IntN(len(special))]
				}
			}
			m, f, o := make([]float32, c), make([]float32, c), make([]float32, c)
			for j := range m {
				m[j], f[j], o[j] = float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())
			}
			for _, flag := range []bool{false, true} {
				want, got := make([]float32, n), make([]float32, n)
				goBN(want, x, m, f, o, c, flag)
				bnRows32(got, x, m, f, o, c, flag)
				for i := range want {
					if !same(want[i], got[i]) {
						t.Fatalf("bnRows32 c=%d rows=%d relu=%v [%d]: %v, want %v", c, rows, flag, i, got[i], want[i])
					}
				}
				goClamp(want, x, flag)
				clamp32(got, x, flag)
				for i := range want {
					if !same(want[i], got[i]) || math.Signbit(float64(want[i])) != math.Signbit(float64(got[i])) {
						t.Fatalf("clamp32 n=%d six=%v [%d] of %v: %v, want %v", n, flag, i, x[i], got[i], want[i])
					}
				}
			}
		}
	}
}

// packA6 packs exactly what the general packA does, edge panels included.
func TestPackA6(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct{ m, k, i0, mb, p0, kb int }{{6, 4, 0, 6, 0, 4}, {13, 9, 0, 13, 0, 9}, {20, 30, 6, 11, 5, 17}, {7, 1, 0, 7, 0, 1}} {
		a := gemmOperand[float32]{data: nnRandF32(r, tc.m*tc.k+3), off: 3, rs: tc.k, cs: 1}
		n := nnRoundUp(tc.mb, 6) * tc.kb
		want, got := make([]float32, n), make([]float32, n)
		for i := range got {
			want[i], got[i] = 1, 2 // every element must be written
		}
		packA(want, gemmOperand[float32]{data: a.data, off: a.off, rs: a.rs, cs: 1, fill: nil}, tc.i0, tc.mb, tc.p0, tc.kb, 6, func(v float32) float32 { return v })
		packA6(got, a, tc.i0, tc.mb, tc.p0, tc.kb)
		for i := range want {
			if want[i] != got[i] {
				t.Fatalf("%+v: [%d] %v, want %v", tc, i, got[i], want[i])
			}
		}
	}
}

// packB's 16-column fast path packs what its general loop does.
func TestPackB16(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct{ k, n, p0, kb, j0, nb int }{{4, 16, 0, 4, 0, 16}, {9, 40, 2, 5, 3, 37}, {3, 7, 0, 3, 0, 7}, {5, 33, 1, 4, 0, 33}} {
		bo := gemmOperand[float32]{data: nnRandF32(r, tc.k*tc.n+2), off: 2, rs: tc.n, cs: 1}
		n := nnRoundUp(tc.nb, 16) * tc.kb
		want, got := make([]float32, n), make([]float32, n)
		for i := range got {
			want[i], got[i] = 1, 2
		}
		packBRows(want, bo, tc.p0, tc.kb, tc.j0, tc.nb, 16, nil)
		packB(got, bo, tc.p0, tc.kb, tc.j0, tc.nb, 16, nil)
		for i := range want {
			if want[i] != got[i] {
				t.Fatalf("%+v: [%d] %v, want %v", tc, i, got[i], want[i])
			}
		}
	}
}
