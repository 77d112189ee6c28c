package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// vec32's assembly against the Go loops it stands in for (vecVV, vecVS,
// vecSV), bit for bit, for each op, on lengths around the vector width, on
// values whose arithmetic is special (NaN, ±0, infinities, subnormals,
// overflow) and written over either operand, as an owned input is.
func TestVec32MatchesGo(t *testing.T) {
	if vec32 == nil {
		t.Skip("no vector loops on this CPU or build")
	}
	special := []float32{float32(math.NaN()), float32(math.Copysign(0, -1)), 0, 1, -1, float32(math.Inf(1)), float32(math.Inf(-1)), 1e-45, -3e-39, math.MaxFloat32, 3e38}
	r := rand.New(rand.NewPCG(5, 6))
	value := func() float32 {
		if r.IntN(3) == 0 {
			return special[r.IntN(len(special))]
		}
		return float32(r.NormFloat64() * 8)
	}
	same := func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) || (a != a && b != b) }
	for _, op := range []int{vecAdd, vecSub, vecMul, vecDiv} {
		for _, n := range []int{1, 2, 7, 8, 9, 15, 16, 17, 31, 64, 100} {
			x, y := make([]float32, n), make([]float32, n)
			for i := range x {
				x[i], y[i] = value(), value()
			}
			for _, mode := range []struct{ xVec, yVec bool }{{true, true}, {true, false}, {false, true}} {
				want := make([]float32, n)
				switch {
				case mode.xVec && mode.yVec:
					vecVV(op, want, x, y)
				case mode.xVec:
					vecVS(op, want, x, y[0])
				default:
					vecSV(op, want, x[0], y)
				}
				xs, ys := x, y
				if !mode.xVec {
					xs = x[:1]
				}
				if !mode.yVec {
					ys = y[:1]
				}
				got := make([]float32, n)
				vec32(op, got, xs, ys, mode.xVec, mode.yVec)
				check := func(what string, got []float32) {
					t.Helper()
					for i := range want {
						if !same(want[i], got[i]) {
							t.Fatalf("op %d n=%d %+v %s [%d]: %v op %v = %v, want %v", op, n, mode, what, i, x[i%len(xs)], y[i%len(ys)], got[i], want[i])
						}
					}
				}
				check("into new", got)
				if mode.xVec {
					over := append([]float32(nil), x...)
					vec32(op, over, over, ys, true, mode.yVec)
					check("over x", over)
				}
				if mode.yVec {
					over := append([]float32(nil), y...)
					vec32(op, over, xs, over, mode.xVec, true)
					check("over y", over)
				}
			}
		}
	}
}
