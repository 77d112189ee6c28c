package kernels

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// inverseCase is a complex function of the parts, an input and the
// expected parts; rel 0 asks for the exact bits (NaN any NaN).
type inverseCase struct {
	name           string
	f              func(x, y float64) (float64, float64)
	x, y           float64
	wantRe, wantIm float64
	rel            float64
}

// TestComplexInverseGlibc holds the ports of glibc's inverse functions to
// C99 Annex G's special values and to glibc's handling of extreme parts:
// a part at the largest finite value gives log(2|z|), not an overflow, and
// a tiny real part beside a unit imaginary one is kept (1e-40 + i gives
// asinh ≈ sqrt(1e-40) + i(π/2 - sqrt(1e-40))), and catanh of huge parts
// is 1/z to the part's precision (x/|z|², subnormal for DBL_MAX parts).
func TestComplexInverseGlibc(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	pi := math.Pi
	tests := []inverseCase{
		{"casinh inf+i·inf", casinhGlibc[float64], inf, inf, inf, pi / 4, 0},
		{"casinh nan+i·inf", casinhGlibc[float64], nan, inf, inf, nan, 0},
		{"casinh -0+i·nan", casinhGlibc[float64], math.Copysign(0, -1), nan, nan, nan, 0},
		{"casinh DBL_MAX", casinhGlibc[float64], math.MaxFloat64, 0, math.Log(math.MaxFloat64) + math.Ln2, 0, 1e-15},
		{"casinh 1e-40+i", casinhGlibc[float64], 1e-40, 1, 1e-20, pi/2 - 1e-20, 1e-12},
		{"cacos inf+i·inf", cacosGlibc[float64], inf, inf, pi / 4, -inf, 0},
		{"cacos -inf+i·inf", cacosGlibc[float64], -inf, inf, 3 * pi / 4, -inf, 0},
		{"cacos 0+i·nan", cacosGlibc[float64], 0, nan, pi / 2, nan, 0},
		{"cacos 1+0i", cacosGlibc[float64], 1, 0, 0, math.Copysign(0, -1), 0},
		{"cacosh 0+0i", cacoshGlibc[float64], 0, 0, 0, pi / 2, 0},
		{"cacosh -inf+i", cacoshGlibc[float64], -inf, 1, inf, pi, 0},
		{"casin nan+i·inf", casinGlibc[float64], nan, inf, nan, inf, 0},
		{"catan inf+i", catanGlibc[float64], inf, 1, pi / 2, 0, 0},
		{"catan 0+i·1", catanGlibc[float64], 0, 1, 0, inf, 0},
		{"catanh 1+0i", catanhGlibc[float64], 1, 0, inf, 0, 0},
		{"catanh nan+i·inf", catanhGlibc[float64], nan, inf, 0, pi / 2, 0},
		{"catanh DBL_MAX+i·DBL_MAX", catanhGlibc[float64], math.MaxFloat64, math.MaxFloat64, 0.5 / math.MaxFloat64, pi / 2, 1e-12},
	}
	f32 := func(f func(x, y float32) (float32, float32)) func(x, y float64) (float64, float64) {
		return func(x, y float64) (float64, float64) {
			r, i := f(float32(x), float32(y))
			return float64(r), float64(i)
		}
	}
	tests = append(tests, []inverseCase{
		{"casinhf FLT_MAX", f32(casinhGlibc[float32]), math.MaxFloat32, 0, float64(float32(math.Log(math.MaxFloat32) + math.Ln2)), 0, 1e-7},
		{"cacosf inf+i·inf", f32(cacosGlibc[float32]), inf, inf, float64(float32(pi / 4)), -inf, 0},
		{"catanhf 1+0i", f32(catanhGlibc[float32]), 1, 0, inf, 0, 0},
	}...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			re, im := tt.f(tt.x, tt.y)
			for _, p := range []struct{ got, want float64 }{{re, tt.wantRe}, {im, tt.wantIm}} {
				switch {
				case math.IsNaN(p.want):
					assert.True(t, math.IsNaN(p.got), "got %v, want NaN", p.got)
				case tt.rel == 0 || math.IsInf(p.want, 0) || p.want == 0:
					assert.Equal(t, math.Float64bits(p.want), math.Float64bits(p.got), "got %v, want %v", p.got, p.want)
				default:
					assert.InEpsilon(t, p.want, p.got, tt.rel)
				}
			}
		})
	}
}
