package kernels

import (
	"math"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// ResizeBilinear and ResizeNearestNeighbor (NHWC), after TensorFlow's
// image/resize_bilinear_op.cc, image/resize_nearest_neighbor_op.cc and
// util/image_resizer_state.h, in float32 arithmetic exactly as there:
//
//	scale = align_corners && in > 1 && out > 1 ? (in-1)/(out-1) : in/out
//	bilinear: in = half_pixel_centers ? (x+0.5)*scale-0.5 : x*scale
//	          lower = max(floor(in), 0), upper = min(ceil(in), in-1), lerp = in - floor(in)
//	          top = tl + (tr-tl)*xl; bottom = bl + (br-bl)*xl; out = top + (bottom-top)*yl
//	          with every intermediate subnormal flushed to zero, as TensorFlow's FTZ does (ftz.go)
//	nearest:  in = half_pixel_centers ? (x+0.5)*scale : x*scale
//	          i = min(align_corners ? round(in) : floor(in), in-1), clamped at 0 for half-pixel
//
// ResizeBicubic follows image/resize_bicubic_op.cc: Keys' cubic kernel
// (a = -0.5 with half_pixel_centers, where taps outside the image are
// dropped and the weights renormalised; a = -0.75 otherwise, taps clamped to
// the edge) sampled from the same 1025-entry float table with the offset
// lrintf(delta*1024); each output is Σ xw_j · (Σ yw_i · in[y_i, x_j]) in
// float32, left to right.
//
// ResizeBilinear and ResizeBicubic return float32 for every input dtype;
// ResizeNearestNeighbor keeps the input dtype.

func init() {
	Register("ResizeBilinear", func(ctx *Context) ([]*Tensor, error) { return resizeKernel(ctx, true) })
	Register("ResizeNearestNeighbor", func(ctx *Context) ([]*Tensor, error) { return resizeKernel(ctx, false) })
	Register("ResizeBicubic", resizeBicubicKernel)
}

// resizeScale is CalculateResizeScale.
func resizeScale(in, out int, alignCorners bool) float32 {
	if alignCorners && in > 1 && out > 1 {
		return float32(in-1) / float32(out-1)
	}
	return float32(in) / float32(out)
}

type resizeInterp struct {
	lower, upper int
	lerp         float32
}

func bilinearWeights(in, out int, scale float32, halfPixel bool) []resizeInterp {
	w := make([]resizeInterp, out)
	for i := range w {
		var v float32
		if halfPixel {
			v = float32((float32(i)+0.5)*scale) - 0.5
		} else {
			v = float32(float32(i) * scale)
		}
		f := float32(math.Floor(float64(v)))
		w[i] = resizeInterp{lower: max(int(f), 0), upper: min(int(math.Ceil(float64(v))), in-1), lerp: v - f}
	}
	return w
}

func nearestIndex(x, in int, scale float32, alignCorners, halfPixel bool) int {
	var v float32
	if halfPixel {
		v = float32((float32(x) + 0.5) * scale)
	} else {
		v = float32(float32(x) * scale)
	}
	var i int
	if alignCorners {
		i = int(math.Round(float64(v))) // roundf: half away from zero
	} else {
		i = int(math.Floor(float64(v)))
	}
	i = min(i, in-1)
	if halfPixel {
		i = max(0, i)
	}
	return i
}

// resizeArgs reads what every Resize* op shares: the 4-D image, the
// align_corners and half_pixel_centers attrs, and the output size
// (tensorflow/core/util/image_resizer_state.h, ValidateAndCalculateOutputSize).
func resizeArgs(ctx *Context) (x *Tensor, align, half bool, oh, ow int, err error) {
	if err = nnInputs(ctx, 2); err != nil {
		return
	}
	x, sz := ctx.Inputs[0], ctx.Inputs[1]
	if align, err = ctx.AttrBool("align_corners"); err != nil {
		return
	}
	if ctx.HasAttr("half_pixel_centers") {
		if half, err = ctx.AttrBool("half_pixel_centers"); err != nil {
			return
		}
	}
	if half && align {
		err = ctx.Errorf("if half_pixel_centers is True, align_corners must be False")
		return
	}
	if len(x.Shape) != 4 {
		err = ctx.Errorf("input must be 4-dimensional, got shape %v", x.Shape)
		return
	}
	size, ok := nnInts(sz)
	if !ok || len(size) != 2 {
		err = ctx.Errorf("shape_t must be a 2-element int32 vector, got %s %v", sz.DType, sz.Shape)
		return
	}
	oh, ow = int(size[0]), int(size[1])
	if oh <= 0 || ow <= 0 {
		err = ctx.Errorf("output dimensions must be positive, got %v", size)
	}
	return
}

func resizeKernel(ctx *Context, bilinear bool) ([]*Tensor, error) {
	x, align, half, oh, ow, err := resizeArgs(ctx)
	if err != nil {
		return nil, err
	}
	n, ih, iw, c := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	if ih <= 0 || iw <= 0 {
		if n*c != 0 {
			return nil, ctx.Errorf("input image must be of non-zero size, got shape %v", x.Shape)
		}
	}
	outShape := []int{n, oh, ow, c}
	if _, err := CheckShape(outShape); err != nil {
		return nil, ctx.Errorf("output %v", err)
	}
	hs, ws := resizeScale(ih, oh, align), resizeScale(iw, ow, align)
	if !bilinear {
		ys := make([]int, oh)
		for y := range ys {
			ys[y] = nearestIndex(y, ih, hs, align, half)
		}
		xs := make([]int, ow)
		for i := range xs {
			xs[i] = nearestIndex(i, iw, ws, align, half)
		}
		out, err := resizeNearest(x, ys, xs, outShape)
		if err != nil {
			return nil, ctx.Unsupported("%v", err)
		}
		return []*Tensor{out}, nil
	}
	var xd []float32
	if d, ok := x.Data.([]float32); ok {
		xd = d
	} else {
		f64, ok := x.Float64s()
		if !ok || x.DType == tpb.DataType_DT_BOOL {
			return nil, ctx.Unsupported("dtype %s", x.DType)
		}
		xd = make([]float32, len(f64))
		for i, v := range f64 {
			xd[i] = float32(v)
		}
	}
	yw := bilinearWeights(ih, oh, hs, half)
	xw := bilinearWeights(iw, ow, ws, half)
	out := make([]float32, n*oh*ow*c)
	nnParallel(n*oh, ow*c*8, func(r int) {
		b, y := r/oh, r%oh
		top := xd[(b*ih+yw[y].lower)*iw*c:]
		bot := xd[(b*ih+yw[y].upper)*iw*c:]
		yl := yw[y].lerp
		dst := out[r*ow*c : (r+1)*ow*c]
		for xi := 0; xi < ow; xi++ {
			lo, up, xl := xw[xi].lower*c, xw[xi].upper*c, xw[xi].lerp
			for ch := 0; ch < c; ch++ {
				tl, tr := top[lo+ch], top[up+ch]
				bl, br := bot[lo+ch], bot[up+ch]
				// compute_lerp, each step as TensorFlow's FTZ leaves it
				// (ftz.go): FLT_MIN beside a zero keeps FLT_MIN there.
				t := ftz32(tl + ftz32(ftz32(tr-tl)*xl))
				bb := ftz32(bl + ftz32(ftz32(br-bl)*xl))
				dst[xi*c+ch] = t + ftz32(ftz32(bb-t)*yl)
			}
		}
	})
	return []*Tensor{FloatTensor(outShape, out)}, nil
}

func resizeNearest(x *Tensor, ys, xs, outShape []int) (*Tensor, error) {
	var data any
	switch d := x.Data.(type) {
	case []float32:
		data = gatherNearest(d, x.Shape, ys, xs)
	case []float64:
		data = gatherNearest(d, x.Shape, ys, xs)
	case []Float16:
		data = gatherNearest(d, x.Shape, ys, xs)
	case []BFloat16:
		data = gatherNearest(d, x.Shape, ys, xs)
	case []int32:
		data = gatherNearest(d, x.Shape, ys, xs)
	case []int64:
		data = gatherNearest(d, x.Shape, ys, xs)
	case []uint8:
		data = gatherNearest(d, x.Shape, ys, xs)
	case []int8:
		data = gatherNearest(d, x.Shape, ys, xs)
	case []int16:
		data = gatherNearest(d, x.Shape, ys, xs)
	case []uint16:
		data = gatherNearest(d, x.Shape, ys, xs)
	default:
		return nil, &UnsupportedError{What: "dtype " + x.DType.String()}
	}
	return &Tensor{DType: x.DType, Shape: outShape, Data: data}, nil
}

func gatherNearest[E any](x []E, shape, ys, xs []int) []E {
	n, ih, iw, c := shape[0], shape[1], shape[2], shape[3]
	oh, ow := len(ys), len(xs)
	out := make([]E, n*oh*ow*c)
	for b := 0; b < n; b++ {
		for y, sy := range ys {
			for xi, sx := range xs {
				copy(out[((b*oh+y)*ow+xi)*c:((b*oh+y)*ow+xi+1)*c], x[((b*ih+sy)*iw+sx)*c:((b*ih+sy)*iw+sx+1)*c])
			}
		}
	}
	return out
}

const bicubicTableSize = 1024

// bicubicTable is InitCoeffsTable(a).
func bicubicTable(a float64) []float32 {
	t := make([]float32, (bicubicTableSize+1)*2)
	for i := 0; i <= bicubicTableSize; i++ {
		x := float32(float64(i) * 1.0 / bicubicTableSize)
		xd := float64(x)
		t[i*2] = float32(((a+2)*xd-(a+3))*xd*xd + 1)
		x += 1.0
		xd = float64(x)
		t[i*2+1] = float32(((a*xd-5*a)*xd+8*a)*xd - 4*a)
	}
	return t
}

var (
	bicubicKeys   = bicubicTable(-0.5)
	bicubicLegacy = bicubicTable(-0.75)
)

type bicubicTaps struct {
	w   [4]float32
	idx [4]int
}

// bicubicWeights is GetWeightsAndIndices.
func bicubicWeights(scale float32, out, limit int, halfPixel bool) bicubicTaps {
	var loc float32
	if halfPixel {
		loc = float32((float32(out)+0.5)*scale) - 0.5
	} else {
		loc = float32(float32(out) * scale)
	}
	in := int(math.Floor(float64(loc)))
	delta := loc - float32(in)
	off := int(math.RoundToEven(float64(float32(delta * bicubicTableSize))))
	bound := func(v int) int { return min(limit-1, max(0, v)) }
	var t bicubicTaps
	tab := bicubicLegacy
	if halfPixel {
		tab = bicubicKeys
	}
	coef := [4]float32{tab[off*2+1], tab[off*2], tab[(bicubicTableSize-off)*2], tab[(bicubicTableSize-off)*2+1]}
	for k := 0; k < 4; k++ {
		t.idx[k] = bound(in - 1 + k)
		t.w[k] = coef[k]
		if halfPixel && t.idx[k] != in-1+k {
			t.w[k] = 0
		}
	}
	if halfPixel {
		sum := t.w[0] + t.w[1] + t.w[2] + t.w[3]
		if float32(math.Abs(float64(sum))) >= 1000*float32(1.17549435e-38) {
			inv := 1 / sum
			for k := range t.w {
				t.w[k] *= inv
			}
		}
	}
	return t
}

func resizeBicubicKernel(ctx *Context) ([]*Tensor, error) {
	x, align, half, oh, ow, err := resizeArgs(ctx)
	if err != nil {
		return nil, err
	}
	n, ih, iw, c := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	if (ih <= 0 || iw <= 0) && n*c != 0 {
		return nil, ctx.Errorf("input image must be of non-zero size, got shape %v", x.Shape)
	}
	outShape := []int{n, oh, ow, c}
	if _, err := CheckShape(outShape); err != nil {
		return nil, ctx.Errorf("output %v", err)
	}
	var xd []float32
	if d, ok := x.Data.([]float32); ok {
		xd = d
	} else {
		f64, ok := x.Float64s()
		if !ok || x.DType == tpb.DataType_DT_BOOL {
			return nil, ctx.Unsupported("dtype %s", x.DType)
		}
		xd = make([]float32, len(f64))
		for i, v := range f64 {
			xd[i] = float32(v)
		}
	}
	out := make([]float32, n*oh*ow*c)
	if len(out) == 0 {
		return []*Tensor{FloatTensor(outShape, out)}, nil
	}
	hs, ws := resizeScale(ih, oh, align), resizeScale(iw, ow, align)
	xt := make([]bicubicTaps, ow)
	for i := range xt {
		xt[i] = bicubicWeights(ws, i, iw, half)
	}
	nnParallel(n*oh, ow*c*32, func(r int) {
		b, y := r/oh, r%oh
		yt := bicubicWeights(hs, y, ih, half)
		var rows [4][]float32
		for k := range rows {
			rows[k] = xd[(b*ih+yt.idx[k])*iw*c : (b*ih+yt.idx[k]+1)*iw*c]
		}
		dst := out[r*ow*c : (r+1)*ow*c]
		for xi, tx := range xt {
			for ch := 0; ch < c; ch++ {
				var col [4]float32
				for j := 0; j < 4; j++ {
					p := tx.idx[j]*c + ch
					col[j] = float32(rows[0][p]*yt.w[0]) + float32(rows[1][p]*yt.w[1])
					col[j] = col[j] + float32(rows[2][p]*yt.w[2])
					col[j] = col[j] + float32(rows[3][p]*yt.w[3])
				}
				v := float32(col[0]*tx.w[0]) + float32(col[1]*tx.w[1])
				v = v + float32(col[2]*tx.w[2])
				dst[xi*c+ch] = v + float32(col[3]*tx.w[3])
			}
		}
	})
	return []*Tensor{FloatTensor(outShape, out)}, nil
}
