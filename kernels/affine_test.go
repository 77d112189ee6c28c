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
