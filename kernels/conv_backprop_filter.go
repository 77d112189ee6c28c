package kernels

// Conv2DBackpropFilter (the weight gradient of Conv2D), after TensorFlow's
// conv_grad_filter_ops.cc: input [N, H, W, C], filter_sizes [4] (int32),
// out_backprop [N, OH, OW, O] → [KH, KW, C, O] with the geometry of the
// forward Conv2D from input to out_backprop: dW[kh,kw,c,o] = Σ over n, oh,
// ow of x[n, oh·s−pad+kh·d, ow·s−pad+kw·d, c] · dy[n, oh, ow, o], summed in
// that order (under an emulation operands and partial sums rounded as the
// forward convolution's). NCHW is transposed to NHWC first.
//
// float16 and bfloat16 round every product and every partial sum to the
// dtype, as TensorFlow's CPU kernel does: it contracts the im2col matrix
// with out_backprop in Eigen::half (bfloat16) scalars, whose arithmetic
// rounds each result, summing over (n, oh, ow) in order from zero. That is
// its order while the sum fits one of Eigen's k blocks (kc, a few thousand
// terms for 16-bit scalars with a 32 KiB L1); a longer sum is cut where the
// CPU's cache sizes say (computeProductBlockingSizes) and may be split
// across threads, so TensorFlow's own last bits there follow the machine.
//
// Dilations above 1 are computed, as TensorFlow's GPU kernel and oneDNN's
// CPU kernel compute them; TensorFlow's stock CPU kernel refuses them
// (internal/tfgolden/differences.go).

func init() {
	Register("Conv2DBackpropFilter", func(ctx *Context) ([]*Tensor, error) {
		if err := nnInputs(ctx, 3); err != nil {
			return nil, err
		}
		return byFloat(ctx, ctx.Inputs[0].DType, allFloats, conv2DBackpropFilterOp[float32], conv2DBackpropFilterOp[float64])
	})
}

func conv2DBackpropFilterOp[T nnFloat](ctx *Context) ([]*Tensor, error) {
	x, sizesT, dy := ctx.Inputs[0], ctx.Inputs[1], ctx.Inputs[2]
	cl, err := dataFormatChannelsLast(ctx)
	if err != nil {
		return nil, err
	}
	sizes, ok := nnInts(sizesT)
	if !ok || len(sizes) != 4 {
		return nil, ctx.Errorf("filter_sizes must be a 4-element int32 vector, got %s %v", sizesT.DType, sizesT.Shape)
	}
	if len(x.Shape) != 4 || len(dy.Shape) != 4 {
		return nil, ctx.Errorf("input and out_backprop must be 4-dimensional, got shapes %v and %v", x.Shape, dy.Shape)
	}
	if x.DType != dy.DType {
		return nil, ctx.Errorf("input dtype %s differs from out_backprop dtype %s", x.DType, dy.DType)
	}
	for _, s := range sizes {
		if s < 0 {
			return nil, ctx.Errorf("filter_sizes must be non-negative, got %v", sizes)
		}
	}
	xd, err := floatsOf[T](x)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	dyd, err := floatsOf[T](dy)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	xs, dys := nnCloneShape(x.Shape), nnCloneShape(dy.Shape)
	if !cl {
		xd = toChannelsLast(xd, xs[0], xs[1], xs[2]*xs[3])
		dyd = toChannelsLast(dyd, dys[0], dys[1], dys[2]*dys[3])
		xs = []int{xs[0], xs[2], xs[3], xs[1]}
		dys = []int{dys[0], dys[2], dys[3], dys[1]}
	}
	kh, kw, c, o := int(sizes[0]), int(sizes[1]), int(sizes[2]), int(sizes[3])
	if xs[3] != c {
		return nil, ctx.Errorf("input depth %d must equal filter in_depth %d", xs[3], c)
	}
	attrs, err := readSpatialAttrs(ctx, 2, cl, "filter")
	if err != nil {
		return nil, err
	}
	var dims [2]windowDim
	for i, k := range []int{kh, kw} {
		if dims[i], err = windowOutput(ctx, xs[1+i], k, attrs.strides[i], attrs.dils[i], attrs.padding, attrs.before[i], attrs.after[i]); err != nil {
			return nil, err
		}
	}
	n := xs[0]
	if dys[0] != n || dys[1] != dims[0].out || dys[2] != dims[1].out || dys[3] != o {
		return nil, ctx.Errorf("out_backprop shape %v does not match the forward convolution of input %v with filter %v (want [%d %d %d %d] in NHWC)",
			dy.Shape, x.Shape, sizes, n, dims[0].out, dims[1].out, o)
	}
	ro, ra := roundOperand[T](ctx.Emu), roundAccum[T](ctx.Emu)
	rp := func(v T) T { return v }
	if rs := storageRound[T](x.DType); rs != nil && ctx.Emu == nil {
		// TensorFlow's CPU kernel contracts Eigen::half (bfloat16)
		// scalars: every product and partial sum rounded to the dtype.
		ra, rp = rs, rs
	}
	dh, dw := dims[0], dims[1]
	out := make([]T, kh*kw*c*o)
	nnParallel(kh*kw, n*dh.out*dw.out*c*o, func(k int) {
		fh, fw := k/kw, k%kw
		acc := out[k*c*o : (k+1)*c*o]
		for b := 0; b < n; b++ {
			for oh := 0; oh < dh.out; oh++ {
				ih := oh*dh.stride - dh.padBefore + fh*dh.dil
				if ih < 0 || ih >= dh.in {
					continue
				}
				for ow := 0; ow < dw.out; ow++ {
					iw := ow*dw.stride - dw.padBefore + fw*dw.dil
					if iw < 0 || iw >= dw.in {
						continue
					}
					xv := xd[((b*dh.in+ih)*dw.in+iw)*c : ((b*dh.in+ih)*dw.in+iw+1)*c]
					gv := dyd[((b*dh.out+oh)*dw.out+ow)*o : ((b*dh.out+oh)*dw.out+ow+1)*o]
					for ci, xi := range xv {
						if ro != nil {
							xi = ro(xi)
						}
						row := acc[ci*o : (ci+1)*o]
						for oi, g := range gv {
							if ro != nil {
								g = ro(g)
							}
							row[oi] += rp(xi * g)
							if ra != nil {
								row[oi] = ra(row[oi])
							}
						}
					}
				}
			}
		}
	})
	return []*Tensor{tensorFrom(x.DType, []int{kh, kw, c, o}, out)}, nil
}
