package kernels

// MaxPoolGrad, after TensorFlow's maxpooling_op.cc (MaxPoolingGradOp on the
// CPU): it finds each window's maximum in orig_input again
// (SpatialMaxPoolWithArgMaxHelper: input positions in row-major order, a
// later value replaces the kept one only when strictly larger, so ties go
// to the first) and adds the window's gradient at that position;
// orig_output is not read. NHWC only, as TensorFlow's CPU kernel.

func init() {
	Register("MaxPoolGrad", func(ctx *Context) ([]*Tensor, error) {
		if err := nnInputs(ctx, 3); err != nil {
			return nil, err
		}
		return byFloat(ctx, ctx.Inputs[0].DType, allFloats, maxPoolGradOp[float32], maxPoolGradOp[float64])
	})
}

func maxPoolGradOp[T nnFloat](ctx *Context) ([]*Tensor, error) {
	x, dy := ctx.Inputs[0], ctx.Inputs[2]
	cl, err := dataFormatChannelsLast(ctx)
	if err != nil {
		return nil, err
	}
	if !cl {
		return nil, ctx.Unsupported("data_format NCHW")
	}
	if len(x.Shape) != 4 || len(dy.Shape) != 4 {
		return nil, ctx.Errorf("orig_input and grad must be 4-dimensional, got shapes %v and %v", x.Shape, dy.Shape)
	}
	ksize, err := ctx.AttrInts("ksize")
	if err != nil {
		return nil, err
	}
	strides, err := ctx.AttrInts("strides")
	if err != nil {
		return nil, err
	}
	if len(ksize) != 4 || len(strides) != 4 || ksize[0] != 1 || ksize[3] != 1 || strides[0] != 1 || strides[3] != 1 {
		return nil, ctx.Unsupported("ksize %v, strides %v", ksize, strides)
	}
	padding, err := ctx.AttrString("padding")
	if err != nil {
		return nil, err
	}
	if padding == "EXPLICIT" {
		return nil, ctx.Unsupported("padding EXPLICIT")
	}
	n, h, w, c := x.Shape[0], x.Shape[1], x.Shape[2], x.Shape[3]
	dh, err := windowOutput(ctx, h, int(ksize[1]), int(strides[1]), 1, padding, 0, 0)
	if err != nil {
		return nil, err
	}
	dw, err := windowOutput(ctx, w, int(ksize[2]), int(strides[2]), 1, padding, 0, 0)
	if err != nil {
		return nil, err
	}
	if dy.Shape[0] != n || dy.Shape[1] != dh.out || dy.Shape[2] != dw.out || dy.Shape[3] != c {
		return nil, ctx.Errorf("grad shape %v does not match the pooling of %v (want [%d %d %d %d])", dy.Shape, x.Shape, n, dh.out, dw.out, c)
	}
	xd, err := floatsOf[T](x)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	dyd, err := floatsOf[T](dy)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	// Each add rounds to the tensor's dtype: TensorFlow accumulates in T
	// (input_backprop_flat += out_backprop_flat, Eigen::half arithmetic).
	rs := storageRounder[T](x.DType)
	out := make([]T, len(xd))
	for b := 0; b < n; b++ {
		for oh := 0; oh < dh.out; oh++ {
			h0 := oh*dh.stride - dh.padBefore
			for ow := 0; ow < dw.out; ow++ {
				w0 := ow*dw.stride - dw.padBefore
				for ch := 0; ch < c; ch++ {
					best := -1
					for ih := max(h0, 0); ih < min(h0+dh.k, h); ih++ {
						for iw := max(w0, 0); iw < min(w0+dw.k, w); iw++ {
							i := ((b*h+ih)*w+iw)*c + ch
							if best < 0 || xd[best] < xd[i] {
								best = i
							}
						}
					}
					if best >= 0 {
						out[best] = rs(out[best] + dyd[((b*dh.out+oh)*dw.out+ow)*c+ch])
					}
				}
			}
		}
	}
	return []*Tensor{tensorFrom(x.DType, nnCloneShape(x.Shape), out)}, nil
}
