package kernels

import (
	"math"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// HistogramFixedWidth (core/kernels/histogram_op.cc): counts values into
// nbins equal bins over [value_range[0], value_range[1]]; values outside go
// to the first or last bin. TensorFlow registers it on CPU for
// TF_CALL_REAL_NUMBER_TYPES with an int32 or int64 output (attr dtype). The
// bin of x is, as the functor computes it,
//
//	min(int32((double(clamp(x, lo, hi)) - double(lo)) / step), nbins-1)
//	step = double(hi)/nbins - double(lo)/nbins
//
// with the clamp done in the values' dtype. NaN values are an error unless
// nbins == 1 (the functor returns the count before checking).

func histogramKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 3); err != nil {
		return nil, err
	}
	x, rng, nb := ctx.Inputs[0], ctx.Inputs[1], ctx.Inputs[2]
	if len(rng.Shape) != 1 {
		return nil, ctx.Errorf("value_range should be a vector.")
	}
	if rng.Shape[0] != 2 {
		return nil, ctx.Errorf("value_range should be a vector of 2 elements.")
	}
	if len(nb.Shape) != 0 {
		return nil, ctx.Errorf("nbins should be a scalar.")
	}
	outT, err := ctx.AttrType("dtype")
	if err != nil {
		return nil, err
	}
	if outT != tpb.DataType_DT_INT32 && outT != tpb.DataType_DT_INT64 {
		return nil, ctx.Unsupported("output dtype %s", dtypeName(outT))
	}
	if x.DType != rng.DType {
		return nil, ctx.Errorf("value_range dtype %s does not match values dtype %s", dtypeName(rng.DType), dtypeName(x.DType))
	}
	n64, err := scalarIndex(nb, "nbins")
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	vals, ok := x.Float64s()
	if !ok || !isRealNumber(x) {
		return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
	}
	r, _ := rng.Float64s()
	lo, hi := r[0], r[1]
	if !(lo < hi) {
		return nil, ctx.Errorf("value_range should satisfy value_range[0] < value_range[1], but got '[%v, %v]'", lo, hi)
	}
	if n64 <= 0 || n64 > math.MaxInt32 {
		return nil, ctx.Errorf("nbins should be a positive number, but got '%d'", n64)
	}
	if n64 > MaxElements {
		return nil, ctx.Errorf("nbins %d is too large", n64)
	}
	nbins := int(n64)
	counts := make([]int64, nbins)
	if nbins == 1 {
		counts[0] = int64(len(vals))
	} else {
		for _, v := range vals {
			if math.IsNaN(v) {
				return nil, ctx.Errorf("Histogram values must not contain NaN")
			}
		}
		// Every value of a dtype up to 64 bits converts exactly or, for
		// int64/uint64 beyond 2^53, to the double the C++ cast gives: the
		// clamp in T followed by the cast equals a clamp in double because
		// lo and hi are values of T too.
		fb := float64(nbins)
		step := hi/fb - lo/fb
		last := float64(nbins - 1)
		for _, v := range vals {
			c := math.Min(math.Max(v, lo), hi)
			b := math.Min((c-lo)/step, last)
			if !(b >= 0) { // only a degenerate step (subnormal range) gets here
				b = 0
			}
			counts[int32(b)]++
		}
	}
	if outT == tpb.DataType_DT_INT64 {
		return []*Tensor{{DType: outT, Shape: []int{nbins}, Data: counts}}, nil
	}
	c32 := make([]int32, nbins)
	for i, c := range counts {
		c32[i] = int32(c)
	}
	return []*Tensor{{DType: outT, Shape: []int{nbins}, Data: c32}}, nil
}

func init() {
	Register("HistogramFixedWidth", histogramKernel)
}
