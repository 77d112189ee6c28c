package kernels

import (
	"testing"
)

// FuzzEinsumEquation feeds arbitrary equations to Einsum: it must return a
// result or an error, never panic or hang.
func FuzzEinsumEquation(f *testing.F) {
	for _, s := range []string{"ij,jk->ik", "...ij,...jk->...ik", "ii->i", "ij->", "i,j", "a...,...b", "..,.", "->", "ab,ba->aa", "ij,jk->ikk"} {
		f.Add(s)
	}
	x := nnF32T([]int{2, 3}, []float32{1, 2, 3, 4, 5, 6})
	y := nnF32T([]int{3, 2}, []float32{1, 2, 3, 4, 5, 6})
	f.Fuzz(func(t *testing.T, eq string) {
		if len(eq) > 64 {
			return
		}
		ctx := &Context{Op: "Einsum", Path: "fuzz", Attrs: xattrs("equation", eq), Inputs: []*Tensor{x, y}}
		outs, err := Lookup("Einsum")(ctx)
		if err == nil {
			if err := outs[0].Validate(); err != nil {
				t.Fatalf("%q: invalid output: %v", eq, err)
			}
		}
	})
}
