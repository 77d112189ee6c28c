package kernels

import (
	"math"
	"testing"
)

// TestSigmoid32 holds sigmoid32 to values TensorFlow 2.15's CPU Sigmoid
// returns. The edges come out the same from both of Eigen's paths; -10.7406
// rounds differently in a packet (Eigen's pexp_float) and in the tail after
// the last whole 8-float packet (libm's expf).
func TestSigmoid32(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	cases := []struct {
		name string
		x    float32
		want float32
	}{
		{"NaN", nan, nan},
		{"+Inf", inf, 1},
		{"-Inf", -inf, 0},
		{"beyond exp's range", 89, 1},
		{"zero", 0, 0.5},
		{"negative zero", float32(math.Copysign(0, -1)), 0.5},
		{"smallest normal result", -87, 1.6458114537543937e-38},
		{"denormal flushed", -88, 0},
		{"below -104", -200, 0},
	}
	for _, c := range cases {
		for _, n := range []int{8, 1} { // a whole packet; a tail of one
			d := make([]float32, n)
			for i := range d {
				d[i] = c.x
			}
			sigmoid32(d, n/8*8)
			for i, got := range d {
				if math.Float32bits(got) != math.Float32bits(c.want) && !(got != got && c.want != c.want) {
					t.Errorf("%s, %d elements: [%d] = %g (%#x), TensorFlow %g (%#x)", c.name, n, i, got,
						math.Float32bits(got), c.want, math.Float32bits(c.want))
				}
			}
		}
	}
	// Nine elements: eight in the packet, the ninth in the scalar tail.
	d := make([]float32, 9)
	for i := range d {
		d[i] = -10.7406
	}
	sigmoid32(d, 8)
	if d[0] != 2.1647485e-05 || d[8] != 2.1647484e-05 {
		t.Errorf("packet %g, tail %g; TensorFlow 2.1647485e-05, 2.1647484e-05", d[0], d[8])
	}
}

// BenchmarkSigmoid32 compares sigmoid32 with a float64 exp per element
// (1/(1+exp(-x)) rounded once) over 1M float32 values on one goroutine.
func BenchmarkSigmoid32(b *testing.B) {
	const n = 1 << 20
	src := make([]float32, n)
	for i := range src {
		src[i] = float32(i%4001-2000) / 100 // [-20, 20]
	}
	d := make([]float32, n)
	b.Run("float64exp", func(b *testing.B) {
		b.SetBytes(4 * n)
		for i := 0; i < b.N; i++ {
			for j, v := range src {
				d[j] = float32(1 / (1 + math.Exp(-float64(v))))
			}
		}
	})
	b.Run("eigen", func(b *testing.B) {
		b.SetBytes(4 * n)
		for i := 0; i < b.N; i++ {
			copy(d, src)
			sigmoid32(d, n)
		}
	})
}
