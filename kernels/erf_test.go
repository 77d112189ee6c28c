package kernels

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// erf32 keeps Eigen's special values: ±1 from the clamp on, NaN through,
// -0 kept, and odd symmetry (the goldens hold the rest bit for bit).
func TestErf32Edges(t *testing.T) {
	for _, tc := range []struct{ x, want float32 }{
		{float32(math.Inf(1)), 1}, {float32(math.Inf(-1)), -1}, {4, 1}, {-4, -1},
		{3.832506856900711, 1}, {0, 0},
	} {
		if got := erf32(tc.x); got != tc.want {
			t.Errorf("erf32(%v) = %v, want %v", tc.x, got, tc.want)
		}
	}
	if got := erf32(float32(math.NaN())); got == got {
		t.Errorf("erf32(NaN) = %v, want NaN", got)
	}
	if got := erf32(float32(math.Copysign(0, -1))); got != 0 || !math.Signbit(float64(got)) {
		t.Errorf("erf32(-0) = %v, want -0", got)
	}
	for x := float32(-3.8); x < 3.8; x += 0.01 {
		if erf32(-x) != -erf32(x) {
			t.Fatalf("erf32(%v) = %v is not -erf32(%v) = %v", -x, erf32(-x), x, erf32(x))
		}
		if d := math.Abs(float64(erf32(x)) - math.Erf(float64(x))); d > 4e-7 {
			t.Fatalf("erf32(%v) = %v, erf = %v", x, erf32(x), math.Erf(float64(x)))
		}
	}
}

// The packet path (AVX on CPUs with AVX2) gives erf32's bits on every class
// of float32: random bit patterns (NaN, ±Inf, subnormals, ±0 among them)
// and a sweep of the interpolant's range, in place and not.
func TestErfPacketsMatchScalar(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	src := make([]float32, 4099)
	for i := range src {
		if i%2 == 0 {
			src[i] = math.Float32frombits(r.Uint32())
		} else {
			src[i] = float32(r.Float64()*9 - 4.5)
		}
	}
	src[1], src[3], src[5] = float32(math.NaN()), float32(math.Inf(-1)), 0x1p-149
	dst := make([]float32, len(src))
	erf32s(dst, src)
	for i, v := range src {
		if w := erf32(v); math.Float32bits(dst[i]) != math.Float32bits(w) {
			t.Fatalf("erf32s at %d: erf(%v) = %v (%#x), scalar %v (%#x)", i, v, dst[i], math.Float32bits(dst[i]), w, math.Float32bits(w))
		}
	}
	in := slices.Clone(src)
	erf32s(in[3:], in[3:])
	for i := 3; i < len(in); i++ {
		if math.Float32bits(in[i]) != math.Float32bits(dst[i]) {
			t.Fatalf("erf32s in place at %d: %v, not %v", i, in[i], dst[i])
		}
	}
}

// BenchmarkErf32 compares erf32, one element at a time and over packets,
// with a float64 math.Erf per element over 1M float32 values on one
// goroutine.
func BenchmarkErf32(b *testing.B) {
	const n = 1 << 20
	src := make([]float32, n)
	for i := range src {
		src[i] = float32(i%801-400) / 100 // [-4, 4]
	}
	d := make([]float32, n)
	b.Run("float64erf", func(b *testing.B) {
		b.SetBytes(4 * n)
		for i := 0; i < b.N; i++ {
			for j, v := range src {
				d[j] = float32(math.Erf(float64(v)))
			}
		}
	})
	b.Run("eigen", func(b *testing.B) {
		b.SetBytes(4 * n)
		for i := 0; i < b.N; i++ {
			for j, v := range src {
				d[j] = erf32(v)
			}
		}
	})
	b.Run("packets", func(b *testing.B) {
		b.SetBytes(4 * n)
		for i := 0; i < b.N; i++ {
			erf32s(d, src)
		}
	})
}
