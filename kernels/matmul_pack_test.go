package kernels

import (
	"math/rand/v2"
	"testing"
)

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
