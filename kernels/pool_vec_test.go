package kernels

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The float32 pooling loops (AVX where the CPU has it) give the Go loops'
// bits: NaN in either operand, ±0, ±Inf, every length around the lanes.
func TestPoolVectorsMatchGo(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	special := []float32{float32(math.NaN()), 0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), 1, -1}
	val := func() float32 {
		if r.IntN(4) == 0 {
			return special[r.IntN(len(special))]
		}
		return float32(r.NormFloat64())
	}
	for n := 0; n < 70; n++ {
		dst, src := make([]float32, n), make([]float32, n+3)
		for i := range dst {
			dst[i] = val()
		}
		for i := range src {
			src[i] = val()
		}
		for _, f := range []struct {
			name     string
			vec, ref func(dst, src []float32)
		}{{"add", poolAdd32, addTo[float32]}, {"max", poolMax32, maxTo[float32]}} {
			got, want := slices.Clone(dst), slices.Clone(dst)
			f.vec(got, src)
			f.ref(want, src)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s n=%d at %d: %v %v gives %v, Go %v", f.name, n, i, dst[i], src[i], got[i], want[i])
				}
			}
		}
	}
}
