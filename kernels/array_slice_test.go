package kernels

import (
	"testing"
)

// FuzzStridedSlice feeds arbitrary begin/end/strides/masks (as a model
// could) to the StridedSlice spec computation: it must return an error or a
// spec whose maps stay inside the input, never panic.
func FuzzStridedSlice(f *testing.F) {
	f.Add(uint8(4), int8(0), int8(2), int8(1), int8(-1), int8(0), int8(-1), uint8(0), uint8(0), uint8(0), uint8(0), uint8(0))
	f.Add(uint8(3), int8(1), int8(0), int8(2), int8(0), int8(0), int8(1), uint8(1), uint8(2), uint8(1), uint8(2), uint8(1))
	f.Fuzz(func(t *testing.T, dims uint8, b0, b1, e0, e1, s0, s1 int8, bm, em, elm, nam, sam uint8) {
		shape := []int{int(dims%5) + 1, int(dims/5%4) + 1, 3}
		begin := []int64{int64(b0), int64(b1)}
		end := []int64{int64(e0), int64(e1)}
		strides := []int64{int64(s0), int64(s1)}
		spec, err := computeStridedSlice(shape, begin, end, strides,
			int64(bm%4), int64(em%4), int64(elm%4), int64(nam%4), int64(sam%4))
		if err != nil {
			return
		}
		for d, m := range spec.maps {
			for _, i := range m {
				if i < 0 || i >= shape[d] {
					t.Fatalf("map index %d out of dim %d (size %d)", i, d, shape[d])
				}
			}
		}
		x := &Tensor{DType: 1, Shape: shape, Data: make([]float32, product(shape))}
		out, err := gatherDims(x, spec.maps, nil)
		if err != nil {
			t.Fatal(err)
		}
		if product(spec.finalShape) != out.NumElements() {
			t.Fatalf("final shape %v does not hold %d elements", spec.finalShape, out.NumElements())
		}
	})
}
