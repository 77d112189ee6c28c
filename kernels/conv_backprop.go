package kernels

// Conv2DBackpropInput (the transposed convolution of decoders), after
// TensorFlow's conv_grad_input_ops.cc: input_sizes [4] (int32), filter
// [KH, KW, C, O], out_backprop [N, OH, OW, O] → [N, H, W, C] with the
// geometry of the forward Conv2D from input_sizes to out_backprop. It runs as
// out_backprop · filterᵀ (the GEMM) followed by col2im, scatter-adding each
// patch into the output, in row chunks that bound the patch buffer.

func init() {
	Register("Conv2DBackpropInput", func(ctx *Context) ([]*Tensor, error) {
		if err := nnInputs(ctx, 3); err != nil {
			return nil, err
		}
		return byFloat(ctx, ctx.Inputs[1].DType, allFloats, conv2DBackpropInputOp[float32], conv2DBackpropInputOp[float64])
	})
}

func conv2DBackpropInputOp[T nnFloat](ctx *Context) ([]*Tensor, error) {
	sizesT, f, dy := ctx.Inputs[0], ctx.Inputs[1], ctx.Inputs[2]
	cl, err := dataFormatChannelsLast(ctx)
	if err != nil {
		return nil, err
	}
	sizes, ok := nnInts(sizesT)
	if !ok || len(sizes) != 4 {
		return nil, ctx.Errorf("input_sizes must be a 4-element int32 vector, got %s %v", sizesT.DType, sizesT.Shape)
	}
	if len(f.Shape) != 4 || len(dy.Shape) != 4 {
		return nil, ctx.Errorf("filter and out_backprop must be 4-dimensional, got shapes %v and %v", f.Shape, dy.Shape)
	}
	if f.DType != dy.DType {
		return nil, ctx.Errorf("filter dtype %s differs from out_backprop dtype %s", f.DType, dy.DType)
	}
	for _, s := range sizes {
		if s < 0 {
			return nil, ctx.Errorf("input_sizes must be non-negative, got %v", sizes)
		}
	}
	xs := []int{int(sizes[0]), int(sizes[1]), int(sizes[2]), int(sizes[3])}
	dys := nnCloneShape(dy.Shape)
	if !cl {
		xs = []int{xs[0], xs[2], xs[3], xs[1]}
		dys = []int{dys[0], dys[2], dys[3], dys[1]}
	}
	if _, err := CheckShape(xs); err != nil {
		return nil, ctx.Errorf("input_sizes %v", err)
	}
	attrs, err := readSpatialAttrs(ctx, 2, cl, "filter")
	if err != nil {
		return nil, err
	}
	n, c, o := xs[0], xs[3], f.Shape[3]
	if f.Shape[2] != c {
		return nil, ctx.Errorf("input depth %d must equal filter in_depth %d", c, f.Shape[2])
	}
	var dims [2]windowDim
	for i := 0; i < 2; i++ {
		if dims[i], err = windowOutput(ctx, xs[1+i], f.Shape[i], attrs.strides[i], attrs.dils[i], attrs.padding, attrs.before[i], attrs.after[i]); err != nil {
			return nil, err
		}
	}
	if dys[0] != n || dys[1] != dims[0].out || dys[2] != dims[1].out || dys[3] != o {
		return nil, ctx.Errorf("out_backprop shape %v does not match the forward convolution of input %v (want [%d %d %d %d] in NHWC)",
			dy.Shape, sizes, n, dims[0].out, dims[1].out, o)
	}
	fd, err := floatsOf[T](f)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	dyd, err := floatsOf[T](dy)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	if !cl {
		dyd = toChannelsLast(dyd, dy.Shape[0], dy.Shape[1], dy.Shape[2]*dy.Shape[3])
	}
	out := conv2DTranspose(n, c, o, dims, dyd, fd, ctx.Emu)
	shape := xs
	if !cl {
		out = toChannelsFirst(out, n, c, xs[1]*xs[2])
		shape = []int{n, c, xs[1], xs[2]}
	}
	return []*Tensor{tensorFrom(f.DType, shape, out)}, nil
}

// conv2DTranspose computes dx [n, h, w, c] from dy [n, oh, ow, o].
func conv2DTranspose[T nnFloat](n, c, o int, dims [2]windowDim, dy, f []T, emu *Emulation) []T {
	dh, dw := dims[0], dims[1]
	out := make([]T, n*dh.in*dw.in*c)
	rowsPerImage := dh.out * dw.out
	kk := dh.k * dw.k * c
	if len(out) == 0 || rowsPerImage == 0 || kk == 0 {
		return out
	}
	ro, ra := roundOperand[T](emu), roundAccum[T](emu)
	// Rows of out_backprop run in chunks that bound the patch buffer; each
	// chunk is one GEMM (parallel inside) and a serial col2im.
	rows := n * rowsPerImage
	chunk := max(1, min(rows, im2colBudget/kk))
	col := make([]T, chunk*kk)
	// filterᵀ: element (oc, q) is f[q*o + oc].
	bt := gemmOperand[T]{data: f, rs: 1, cs: o}
	for r0 := 0; r0 < rows; r0 += chunk {
		nr := min(chunk, rows-r0)
		a := gemmOperand[T]{data: dy, off: r0 * o, rs: o, cs: 1}
		if ra != nil {
			naiveGemmRounded(nr, kk, o, a, bt, col, ro, ra)
		} else {
			runGemm([]gemmJob[T]{{m: nr, n: kk, k: o, a: a, b: bt, c: col, ldc: kk, round: ro}})
		}
		for i := 0; i < nr; i++ {
			r := r0 + i
			ow := r % dw.out
			oh := (r / dw.out) % dh.out
			b := r / rowsPerImage
			img := out[b*dh.in*dw.in*c : (b+1)*dh.in*dw.in*c]
			src := col[i*kk : (i+1)*kk]
			for kh := 0; kh < dh.k; kh++ {
				ih := oh*dh.stride - dh.padBefore + kh*dh.dil
				if ih < 0 || ih >= dh.in {
					continue
				}
				for kw := 0; kw < dw.k; kw++ {
					iw := ow*dw.stride - dw.padBefore + kw*dw.dil
					if iw < 0 || iw >= dw.in {
						continue
					}
					dst := img[(ih*dw.in+iw)*c : (ih*dw.in+iw+1)*c]
					s := src[(kh*dw.k+kw)*c : (kh*dw.k+kw+1)*c]
					if ra != nil {
						for j := range dst {
							dst[j] = ra(dst[j] + s[j])
						}
						continue
					}
					s = s[:len(dst)]
					for j := range dst {
						dst[j] += s[j]
					}
				}
			}
		}
	}
	return out
}
