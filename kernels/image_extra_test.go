package kernels

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
)

func TestImageExtraErrors(t *testing.T) {
	img := xf32([]int{1, 2, 2, 1}, 1, 2, 3, 4)
	box := xf32([]int{1, 4}, 0, 0, 1, 1)
	cr := xattrs("method", "bilinear", "extrapolation_value", 0.0)
	pt := func(k, s, r []int64, pad string) map[string]*attrpb.AttrValue {
		return xattrs("ksizes", k, "strides", s, "rates", r, "padding", pad)
	}
	xRunErrors(t, []xErrCase{
		{"method", "CropAndResize", xattrs("method", "bicubic", "extrapolation_value", 0.0), []*Tensor{img, box, xi32([]int{1}, 0), xi32([]int{2}, 2, 2)}, "method must be 'bilinear' or 'nearest'"},
		{"image rank", "CropAndResize", cr, []*Tensor{xf32([]int{2, 2}, 1, 2, 3, 4), box, xi32([]int{1}, 0), xi32([]int{2}, 2, 2)}, "input image must be 4-D"},
		{"box cols", "CropAndResize", cr, []*Tensor{img, xf32([]int{1, 3}, 0, 0, 1), xi32([]int{1}, 0), xi32([]int{2}, 2, 2)}, "boxes must have 4 columns"},
		{"box index", "CropAndResize", cr, []*Tensor{img, box, xi32([]int{1}, 1), xi32([]int{2}, 2, 2)}, "box_index has values outside [0, batch_size)"},
		{"crop size", "CropAndResize", cr, []*Tensor{img, box, xi32([]int{1}, 0), xi32([]int{2}, 0, 2)}, "crop dimensions must be positive"},
		{"crop huge", "CropAndResize", cr, []*Tensor{img, box, xi32([]int{1}, 0), xi32([]int{2}, 1<<30, 1<<30)}, "too large"},
		{"box nan", "CropAndResize", cr, []*Tensor{img, xf32([]int{1, 4}, 0, float32(math.NaN()), 1, 1), xi32([]int{1}, 0), xi32([]int{2}, 2, 2)}, "Boxes contains at least one element that is not finite"},
		{"patches batch ksize", "ExtractImagePatches", pt([]int64{2, 1, 1, 1}, []int64{1, 1, 1, 1}, []int64{1, 1, 1, 1}, "VALID"), []*Tensor{img}, "Only support ksizes across space."},
		{"patches stride", "ExtractImagePatches", pt([]int64{1, 1, 1, 1}, []int64{1, 0, 1, 1}, []int64{1, 1, 1, 1}, "VALID"), []*Tensor{img}, "strides is out of range."},
		{"patches too big", "ExtractImagePatches", pt([]int64{1, 3, 3, 1}, []int64{1, 1, 1, 1}, []int64{1, 1, 1, 1}, "VALID"), []*Tensor{img}, "negative"},
		{"patches rank", "ExtractImagePatches", pt([]int64{1, 1, 1, 1}, []int64{1, 1, 1, 1}, []int64{1, 1, 1, 1}, "VALID"), []*Tensor{xf32([]int{2, 2}, 1, 2, 3, 4)}, "input must be 4-dimensional"},
	})
}

func TestImageExtraEdges(t *testing.T) {
	// No boxes: an empty float32 output.
	out, err := xRun("CropAndResize", xattrs("method", "nearest", "extrapolation_value", 0.0),
		xi32([]int{1, 2, 2, 1}, 1, 2, 3, 4), xf32([]int{0, 4}), xi32([]int{0}), xi32([]int{2}, 3, 3))
	require.NoError(t, err)
	assert.Equal(t, []int{0, 3, 3, 1}, out[0].Shape)
	require.NoError(t, out[0].Validate())
	// NaN pixels interpolate to NaN.
	out, err = xRun("CropAndResize", xattrs("method", "bilinear", "extrapolation_value", 0.0),
		xf32([]int{1, 1, 2, 1}, float32(math.NaN()), 1), xf32([]int{1, 4}, 0, 0, 0, 1), xi32([]int{1}, 0), xi32([]int{2}, 1, 2))
	require.NoError(t, err)
	assert.True(t, math.IsNaN(float64(out[0].Data.([]float32)[0])))
	assert.Equal(t, float32(1), out[0].Data.([]float32)[1])
}
