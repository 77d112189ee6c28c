package precision

import (
	"math"
	"testing"
)

// tf32Reference rounds f to 11 significant bits (10 stored) with
// float64 arithmetic, independently of RoundTF32's bit manipulation.
func tf32Reference(f float32) float32 {
	x := float64(f)
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return f
	}
	_, e := math.Frexp(x) // |x| = m·2^e, m in [0.5, 1)
	if e-1 < -126 {
		e = -125 // float32 subnormals share the smallest normal's spacing
	}
	ulp := math.Ldexp(1, e-1-10)
	return float32(math.RoundToEven(x/ulp) * ulp)
}

func FuzzRoundTF32(f *testing.F) {
	for _, b := range []uint32{0x3f801000, 0x3f803000, 0x7f7fffff, 0x00001fff, 0x80000001, 0x3fffffff} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, bits uint32) {
		in := math.Float32frombits(bits)
		got, want := RoundTF32(in), tf32Reference(in)
		if math.IsNaN(float64(in)) {
			if !math.IsNaN(float64(got)) {
				t.Fatalf("NaN %08x became %v", bits, got)
			}
			return
		}
		if math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("RoundTF32(%08x) = %08x, want %08x", bits, math.Float32bits(got), math.Float32bits(want))
		}
		if RoundTF32(got) != got {
			t.Fatalf("RoundTF32 is not idempotent at %08x", bits)
		}
	})
}
