package kernels

import (
	"math"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// CropAndResize (core/kernels/image/crop_and_resize_op.cc, CPU functor) and
// ExtractImagePatches (image/extract_image_patches_op.cc). ResizeBicubic
// lives with the other resize kernels in resize.go.
//
// CropAndResize samples each box [y1, x1, y2, x2] (normalised
// coordinates) of image[box_index] on a crop_height × crop_width grid,
// bilinearly or by nearest neighbour (roundf, halves away from zero);
// samples outside the image take extrapolation_value. The output is always
// float32 and the arithmetic is the functor's float32 arithmetic in its
// order (explicit float32 conversions keep Go from fusing multiply-adds);
// the single-row/column centre 0.5*(y1+y2)*(h-1) is computed in double as
// the C++ literal 0.5 makes it. TensorFlow registers it on CPU for
// TF_CALL_REAL_NUMBER_TYPES.

func cropAndResizeKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 4); err != nil {
		return nil, err
	}
	img, boxesT, idxT, sizeT := ctx.Inputs[0], ctx.Inputs[1], ctx.Inputs[2], ctx.Inputs[3]
	method, err := ctx.AttrString("method")
	if err != nil {
		return nil, err
	}
	if method != "bilinear" && method != "nearest" {
		return nil, ctx.Errorf("method must be 'bilinear' or 'nearest'%s", method)
	}
	extrap, err := ctx.AttrFloat("extrapolation_value")
	if err != nil {
		return nil, err
	}
	if len(img.Shape) != 4 {
		return nil, ctx.Errorf("input image must be 4-D%s", dimsString(img.Shape))
	}
	batch, h, w, depth := img.Shape[0], img.Shape[1], img.Shape[2], img.Shape[3]
	if h <= 0 || w <= 0 {
		return nil, ctx.Errorf("image dimensions must be positive")
	}
	if len(idxT.Shape) != 1 {
		return nil, ctx.Errorf("box_indices must be rank 1 but is shape %s", dimsString(idxT.Shape))
	}
	numBoxes := 0
	if !(boxesT.NumElements() == 0 && idxT.NumElements() == 0) {
		if len(boxesT.Shape) != 2 {
			return nil, ctx.Errorf("boxes must be 2-D%s", dimsString(boxesT.Shape))
		}
		numBoxes = boxesT.Shape[0]
		if boxesT.Shape[1] != 4 {
			return nil, ctx.Errorf("boxes must have 4 columns")
		}
		if idxT.Shape[0] != numBoxes {
			return nil, ctx.Errorf("box_index has incompatible shape")
		}
	}
	if len(sizeT.Shape) != 1 {
		return nil, ctx.Errorf("crop_size must be 1-D%s", dimsString(sizeT.Shape))
	}
	if sizeT.Shape[0] != 2 {
		return nil, ctx.Errorf("crop_size must have two elements%s", dimsString(sizeT.Shape))
	}
	cs, err := indexValues(sizeT)
	if err != nil {
		return nil, ctx.Errorf("crop_size: %v", err)
	}
	if cs[0] <= 0 || cs[1] <= 0 {
		return nil, ctx.Errorf("crop dimensions must be positive")
	}
	if cs[0] > MaxElements || cs[1] > MaxElements {
		return nil, ctx.Errorf("crop_size %v is too large", cs)
	}
	ch, cw := int(cs[0]), int(cs[1])
	shape := []int{numBoxes, ch, cw, depth}
	if _, err := CheckShape(shape); err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	boxes, ok := boxesT.Data.([]float32)
	if !ok && numBoxes > 0 {
		return nil, ctx.Errorf("boxes must be float32, got %s", dtypeName(boxesT.DType))
	}
	bidx, err := indexValues(idxT)
	if err != nil {
		return nil, ctx.Errorf("box_index: %v", err)
	}
	for _, b := range bidx {
		if b < 0 || b >= int64(batch) {
			return nil, ctx.Errorf("box_index has values outside [0, batch_size)")
		}
	}
	if !isRealNumber(img) {
		return nil, ctx.Unsupported("dtype %s", dtypeName(img.DType))
	}
	src, _ := img.Float64s() // exact for every dtype up to 32 bits; int64 as static_cast<float> below
	pix := make([]float32, len(src))
	for i, v := range src {
		pix[i] = float32(v)
	}
	if d, ok := img.Data.([]int64); ok { // static_cast<float>(int64) rounds once
		for i, v := range d {
			pix[i] = float32(v)
		}
	}
	for _, v := range boxes {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, ctx.Errorf("Boxes contains at least one element that is not finite")
		}
	}
	out := make([]float32, numBoxes*ch*cw*depth)
	hm1, wm1 := float32(h-1), float32(w-1)
	at := func(b, y, x int) []float32 {
		o := ((b*h+y)*w + x) * depth
		return pix[o : o+depth]
	}
	parallelFor(numBoxes, ch*cw*depth*8, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			y1, x1, y2, x2 := boxes[4*b], boxes[4*b+1], boxes[4*b+2], boxes[4*b+3]
			bin := int(bidx[b])
			var hs, ws float32
			if ch > 1 {
				hs = float32(float32((y2-y1)*hm1) / float32(ch-1))
			}
			if cw > 1 {
				ws = float32(float32((x2-x1)*wm1) / float32(cw-1))
			}
			for y := 0; y < ch; y++ {
				var inY float32
				if ch > 1 {
					inY = float32(y1*hm1) + float32(float32(y)*hs)
				} else {
					inY = float32(0.5 * float64(y1+y2) * float64(h-1))
				}
				row := out[((b*ch+y)*cw)*depth : ((b*ch+y+1)*cw)*depth]
				if inY < 0 || inY > hm1 {
					for i := range row {
						row[i] = extrap
					}
					continue
				}
				top, bot := int(math.Floor(float64(inY))), int(math.Ceil(float64(inY)))
				yl := inY - float32(top)
				for x := 0; x < cw; x++ {
					var inX float32
					if cw > 1 {
						inX = float32(x1*wm1) + float32(float32(x)*ws)
					} else {
						inX = float32(0.5 * float64(x1+x2) * float64(w-1))
					}
					dst := row[x*depth : (x+1)*depth]
					if inX < 0 || inX > wm1 {
						for i := range dst {
							dst[i] = extrap
						}
						continue
					}
					if method == "nearest" {
						cx := int(math.Round(float64(inX)))
						cy := int(math.Round(float64(inY)))
						copy(dst, at(bin, cy, cx))
						continue
					}
					left, right := int(math.Floor(float64(inX))), int(math.Ceil(float64(inX)))
					xl := inX - float32(left)
					tl, tr, bl, br := at(bin, top, left), at(bin, top, right), at(bin, bot, left), at(bin, bot, right)
					for d := range dst {
						t := tl[d] + float32((tr[d]-tl[d])*xl)
						bo := bl[d] + float32((br[d]-bl[d])*xl)
						dst[d] = t + float32((bo-t)*yl)
					}
				}
			}
		}
	})
	return []*Tensor{{DType: tpb.DataType_DT_FLOAT, Shape: shape, Data: out}}, nil
}

// ExtractImagePatches gathers ksize_rows × ksize_cols patches (sampled
// every rate pixels, stepping by strides, zero outside the image under SAME
// padding) into the depth dimension: output[b, r, c, (i*ksize_cols+j)*depth
// + d]. TensorFlow registers it on CPU for TF_CALL_NUMBER_TYPES.
func extractImagePatchesKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	var ks, st, rt []int
	for _, a := range []struct {
		name string
		dst  *[]int
	}{{"ksizes", &ks}, {"strides", &st}, {"rates", &rt}} {
		v, err := ctx.AttrInts(a.name)
		if err != nil {
			return nil, err
		}
		if len(v) != 4 {
			return nil, ctx.Errorf("%s must have 4 elements, got %d", a.name, len(v))
		}
		if v[0] != 1 || v[3] != 1 {
			return nil, ctx.Errorf("Only support %s across space.", a.name)
		}
		if v[1] < 1 || v[2] < 1 || v[1] > math.MaxInt32 || v[2] > math.MaxInt32 {
			return nil, ctx.Errorf("%s is out of range.", a.name)
		}
		*a.dst = []int{int(v[1]), int(v[2])}
	}
	padding, err := ctx.AttrString("padding")
	if err != nil {
		return nil, err
	}
	if padding != "SAME" && padding != "VALID" {
		return nil, ctx.Errorf("unknown padding %q", padding)
	}
	if len(x.Shape) != 4 {
		return nil, ctx.Errorf("input must be 4-dimensional%s", dimsString(x.Shape))
	}
	if !isRealNumber(x) {
		return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
	}
	batch, h, w, depth := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	rows, err := windowOutput(ctx, h, ks[0], st[0], rt[0], padding, 0, 0)
	if err != nil {
		return nil, err
	}
	cols, err := windowOutput(ctx, w, ks[1], st[1], rt[1], padding, 0, 0)
	if err != nil {
		return nil, err
	}
	if ks[0] > MaxElements/ks[1] {
		return nil, ctx.Errorf("ksizes too large")
	}
	shape := []int{batch, rows.out, cols.out, ks[0] * ks[1] * depth}
	n, err := CheckShape(shape)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	if n == 0 {
		t, err := rowGather(x, shape, nil, 0)
		if err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		return []*Tensor{t}, nil
	}
	starts := make([]int, n/depth)
	k := 0
	for b := 0; b < batch; b++ {
		for r := 0; r < rows.out; r++ {
			for c := 0; c < cols.out; c++ {
				for i := 0; i < ks[0]; i++ {
					y := r*st[0] - rows.padBefore + i*rt[0]
					for j := 0; j < ks[1]; j++ {
						xx := c*st[1] - cols.padBefore + j*rt[1]
						if y < 0 || y >= h || xx < 0 || xx >= w {
							starts[k] = -1
						} else {
							starts[k] = ((b*h+y)*w + xx) * depth
						}
						k++
					}
				}
			}
		}
	}
	t, err := rowGather(x, shape, starts, depth)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{t}, nil
}

func init() {
	Register("CropAndResize", cropAndResizeKernel)
	Register("ExtractImagePatches", extractImagePatchesKernel)
}
