package kernels

// DepthToSpace and SpaceToDepth, after TensorFlow's depthtospace_op.cc and
// spacetodepth_op.cc (NHWC; NCHW by transposing): DepthToSpace moves
// block_size×block_size blocks of depth into space,
//
//	out[n, h*b+bh, w*b+bw, c] = in[n, h, w, (bh*b+bw)*C' + c]
//
// and SpaceToDepth is its inverse. They move elements, so every dtype works.

func init() {
	Register("DepthToSpace", func(ctx *Context) ([]*Tensor, error) { return spaceDepthKernel(ctx, true) })
	Register("SpaceToDepth", func(ctx *Context) ([]*Tensor, error) { return spaceDepthKernel(ctx, false) })
}

func spaceDepthKernel(ctx *Context, toSpace bool) ([]*Tensor, error) {
	if err := nnInputs(ctx, 1); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	bs, err := ctx.AttrInt("block_size")
	if err != nil {
		return nil, err
	}
	if bs < 2 {
		return nil, ctx.Errorf("block_size must be at least 2, got %d", bs)
	}
	cl := true
	if ctx.HasAttr("data_format") {
		f, err := ctx.AttrString("data_format")
		if err != nil {
			return nil, err
		}
		switch f {
		case "NHWC":
		case "NCHW":
			cl = false
		default:
			return nil, ctx.Unsupported("data_format %s", f)
		}
	}
	if len(x.Shape) != 4 {
		return nil, ctx.Errorf("input rank should be 4, got shape %v", x.Shape)
	}
	b := int(bs)
	n, h, w, c := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	if !cl {
		c, h, w = x.Shape[1], x.Shape[2], x.Shape[3]
	}
	var outShape []int // NHWC
	if toSpace {
		if c%(b*b) != 0 {
			return nil, ctx.Errorf("input depth dimension %d should be divisible by %d", c, b*b)
		}
		outShape = []int{n, h * b, w * b, c / (b * b)}
	} else {
		if h%b != 0 || w%b != 0 {
			return nil, ctx.Errorf("image width %d and height %d should be divisible by block_size %d", w, h, b)
		}
		outShape = []int{n, h / b, w / b, c * b * b}
	}
	if _, err := CheckShape(outShape); err != nil {
		return nil, ctx.Errorf("output %v", err)
	}
	// inIdx(n, y, x, c) is the flat index of an NHWC coordinate of x in its
	// own layout.
	inIdx := func(bn, y, xx, ch int) int {
		if cl {
			return ((bn*h+y)*w+xx)*c + ch
		}
		return ((bn*c+ch)*h+y)*w + xx
	}
	on, oh, ow, oc := outShape[0], outShape[1], outShape[2], outShape[3]
	idx := make([]int, on*oh*ow*oc)
	o := 0
	for bn := 0; bn < on; bn++ {
		for y := 0; y < oh; y++ {
			for xx := 0; xx < ow; xx++ {
				for ch := 0; ch < oc; ch++ {
					if toSpace {
						bh, bw := y%b, xx%b
						idx[o] = inIdx(bn, y/b, xx/b, (bh*b+bw)*oc+ch)
					} else {
						blk, cc := ch/c, ch%c
						idx[o] = inIdx(bn, y*b+blk/b, xx*b+blk%b, cc)
					}
					o++
				}
			}
		}
	}
	if !cl {
		// Reorder the gather to NCHW output order.
		re := make([]int, len(idx))
		for bn := 0; bn < on; bn++ {
			for ch := 0; ch < oc; ch++ {
				for y := 0; y < oh; y++ {
					for xx := 0; xx < ow; xx++ {
						re[((bn*oc+ch)*oh+y)*ow+xx] = idx[((bn*oh+y)*ow+xx)*oc+ch]
					}
				}
			}
		}
		idx = re
		outShape = []int{on, oc, oh, ow}
	}
	out, err := gatherFlat(x, idx, outShape)
	if err != nil {
		return nil, ctx.Unsupported("dtype %s", x.DType)
	}
	return []*Tensor{out}, nil
}

// gatherFlat returns a tensor of x's dtype with out[i] = x[idx[i]].
func gatherFlat(x *Tensor, idx []int, shape []int) (*Tensor, error) {
	var data any
	switch d := x.Data.(type) {
	case []float32:
		data = gatherIdx(d, idx)
	case []float64:
		data = gatherIdx(d, idx)
	case []Float16:
		data = gatherIdx(d, idx)
	case []BFloat16:
		data = gatherIdx(d, idx)
	case []int8:
		data = gatherIdx(d, idx)
	case []uint8:
		data = gatherIdx(d, idx)
	case []int16:
		data = gatherIdx(d, idx)
	case []uint16:
		data = gatherIdx(d, idx)
	case []int32:
		data = gatherIdx(d, idx)
	case []int64:
		data = gatherIdx(d, idx)
	case []uint32:
		data = gatherIdx(d, idx)
	case []uint64:
		data = gatherIdx(d, idx)
	case []bool:
		data = gatherIdx(d, idx)
	default:
		return nil, &UnsupportedError{What: "dtype " + x.DType.String()}
	}
	return &Tensor{DType: x.DType, Shape: shape, Data: data}, nil
}

func gatherIdx[E any](x []E, idx []int) []E {
	out := make([]E, len(idx))
	for i, j := range idx {
		out[i] = x[j]
	}
	return out
}
