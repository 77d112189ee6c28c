package kernels

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
)

// TestFlushedIntermediates holds the kernels that flush a subnormal
// intermediate as TensorFlow's FTZ does (ftz.go) to the results TensorFlow
// gives on normal inputs, zeros' signs included.
func TestFlushedIntermediates(t *testing.T) {
	flt := float32(0x1p-126) // FLT_MIN
	negZero := math.Copysign(0, -1)
	resize := xattrs("align_corners", false, "half_pixel_centers", false)
	cases := []struct {
		name   string
		op     string
		attrs  map[string]*attrpb.AttrValue
		inputs []*Tensor
		want   []float64
	}{
		// -FLT_MIN / 4 is subnormal: flushed to -0, it floors to -0, not -1.
		{"floordiv float32", "FloorDiv", nil, []*Tensor{f32s([]int{2}, -flt, flt), f32s([]int{2}, 4, 4)}, []float64{negZero, 0}},
		{"floordiv bfloat16", "FloorDiv", nil, []*Tensor{bf16s([]int{1}, -flt), bf16s([]int{1}, 4)}, []float64{negZero}},
		{"floordiv float64", "FloorDiv", nil, []*Tensor{f64s([]int{1}, -0x1p-1022), f64s([]int{1}, 4)}, []float64{negZero}},
		{"floordiv normal quotient", "FloorDiv", nil, []*Tensor{f32s([]int{1}, -flt), f32s([]int{1}, 0.5)}, []float64{-1}},
		// FLT_MIN beside a zero: the step -FLT_MIN/2 flushes, FLT_MIN stays.
		{"resize FLT_MIN", "ResizeBilinear", resize, []*Tensor{f32s([]int{1, 1, 2, 1}, flt, 0), i32s([]int{2}, 1, 4)}, []float64{float64(flt), float64(flt), 0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := ewOne(t, c.op, c.attrs, c.inputs...)
			got, ok := out.Float64s()
			assert.True(t, ok)
			assert.Equal(t, len(c.want), len(got))
			for i := range c.want {
				assert.Equal(t, math.Float64bits(c.want[i]), math.Float64bits(got[i]), "element %d: %g, want %g", i, got[i], c.want[i])
			}
		})
	}
}
