package parity

import (
	"math"
	"testing"
)

// TestGradientNumbers checks the per-gradient measures on hand-made
// values: overflow only where the reference is finite, underflow only
// where it is non-zero, the lost mass and the finding's threshold.
func TestGradientNumbers(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name     string
		got, ref []float64
		over     int
		under    int
		lost     float64
		finding  string
	}{
		{"exact", []float64{1, -2, 0}, []float64{1, -2, 0}, 0, 0, 0, ""},
		{"overflow", []float64{inf, 1, math.NaN()}, []float64{7e4, 1, 3}, 2, 0, 0, "overflow"},
		{"inf in the reference too", []float64{inf, 1}, []float64{inf, 1}, 0, 0, 0, ""},
		{"flushed", []float64{0, 0, 1}, []float64{1e-9, 1e-9, 1}, 0, 2, 2e-9 / (1 + 2e-9), ""},
		{"flushed mass", []float64{0, 0, 1}, []float64{0.5, 0.5, 1}, 0, 2, 0.5, "underflow"},
		{"all flushed", []float64{0, 0}, []float64{1e-8, -3e-8}, 0, 2, 1, "underflow"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := gradientNumbers(Gradient{}, c.got, c.ref)
			if g.Overflow != c.over || g.Underflow != c.under || math.Abs(g.LostMass-c.lost) > 1e-12 || g.Finding() != c.finding {
				t.Errorf("got overflow %d underflow %d lost %g finding %q, want %d %d %g %q",
					g.Overflow, g.Underflow, g.LostMass, g.Finding(), c.over, c.under, c.lost, c.finding)
			}
		})
	}
}
