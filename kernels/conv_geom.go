package kernels

// Window geometry shared by the convolutions and pooling, after
// TensorFlow's GetWindowedOutputSizeVerbose (core/framework/kernel_shape_util.cc)
// and the attr handling of conv_ops.cc / pooling_ops_common.cc.

// windowDim is one spatial dimension of a sliding window.
type windowDim struct {
	in, k, stride, dil int
	out, padBefore     int
	padAfter           int
}

// windowOutput computes out and the padding of one spatial dimension for
// padding "VALID", "SAME" or "EXPLICIT" (with before/after).
func windowOutput(ctx *Context, in, k, stride, dil int, padding string, before, after int) (windowDim, error) {
	d := windowDim{in: in, k: k, stride: stride, dil: dil}
	if stride <= 0 {
		return d, ctx.Errorf("stride must be > 0, got %d", stride)
	}
	if dil <= 0 {
		return d, ctx.Errorf("dilation must be > 0, got %d", dil)
	}
	if k < 0 || in < 0 {
		return d, ctx.Errorf("negative window or input size (%d, %d)", k, in)
	}
	eff := (k-1)*dil + 1
	switch padding {
	case "VALID":
		d.out = (in - eff + stride) / stride
	case "SAME":
		d.out = (in + stride - 1) / stride
		need := max(0, (d.out-1)*stride+eff-in)
		d.padBefore = need / 2
		d.padAfter = need - need/2
	case "EXPLICIT":
		if before < 0 || after < 0 {
			return d, ctx.Errorf("explicit padding must be non-negative, got (%d, %d)", before, after)
		}
		d.out = (in + before + after - eff + stride) / stride
		d.padBefore, d.padAfter = before, after
	default:
		return d, ctx.Errorf("unknown padding %q", padding)
	}
	if d.out < 0 || (padding != "SAME" && in+d.padBefore+d.padAfter-eff < 0) {
		return d, ctx.Errorf("computed output size would be negative: input %d, window %d (effective %d), stride %d, padding %s",
			in, k, eff, stride, padding)
	}
	return d, nil
}

// spatialAttrs reads strides, dilations (optional), padding and
// explicit_paddings for a rank-(2+ns) tensor in the given layout
// (channelsLast: N, spatial..., C; else N, C, spatial...). It returns the
// per-spatial-dim values.
type spatialAttrs struct {
	strides, dils  []int
	padding        string
	before, after  []int
	channelsLast   bool
	batchDimStride int
}

func readSpatialAttrs(ctx *Context, ns int, channelsLast bool, windowName string) (*spatialAttrs, error) {
	a := &spatialAttrs{channelsLast: channelsLast, strides: make([]int, ns), dils: make([]int, ns),
		before: make([]int, ns), after: make([]int, ns)}
	rank := ns + 2
	sp := func(i int) int { // index of spatial dim i in the full layout
		if channelsLast {
			return 1 + i
		}
		return 2 + i
	}
	cdim := rank - 1
	if !channelsLast {
		cdim = 1
	}
	strides, err := ctx.AttrInts("strides")
	if err != nil {
		return nil, err
	}
	if len(strides) != rank {
		return nil, ctx.Errorf("strides must have %d elements, got %v", rank, strides)
	}
	if strides[0] != 1 || strides[cdim] != 1 {
		return nil, ctx.Errorf("strides in the batch and depth dimensions are not supported: %v", strides)
	}
	for i := 0; i < ns; i++ {
		a.strides[i] = int(strides[sp(i)])
		a.dils[i] = 1
	}
	if ctx.HasAttr("dilations") {
		dil, err := ctx.AttrInts("dilations")
		if err != nil {
			return nil, err
		}
		if len(dil) != 0 {
			if len(dil) != rank {
				return nil, ctx.Errorf("dilations must have %d elements, got %v", rank, dil)
			}
			if dil[0] != 1 || dil[cdim] != 1 {
				return nil, ctx.Errorf("dilations in the batch and depth dimensions are not supported: %v", dil)
			}
			for i := 0; i < ns; i++ {
				a.dils[i] = int(dil[sp(i)])
			}
		}
	}
	if a.padding, err = ctx.AttrString("padding"); err != nil {
		return nil, err
	}
	if a.padding == "EXPLICIT" {
		ep, err := ctx.AttrInts("explicit_paddings")
		if err != nil {
			return nil, err
		}
		if len(ep) != 2*rank {
			return nil, ctx.Errorf("explicit_paddings must have %d elements, got %v", 2*rank, ep)
		}
		if ep[0] != 0 || ep[1] != 0 || ep[2*cdim] != 0 || ep[2*cdim+1] != 0 {
			return nil, ctx.Errorf("explicit padding in the batch and depth dimensions is not supported: %v", ep)
		}
		for i := 0; i < ns; i++ {
			a.before[i], a.after[i] = int(ep[2*sp(i)]), int(ep[2*sp(i)+1])
		}
	}
	return a, nil
}

// dataFormatChannelsLast reads data_format: NHWC/NDHWC (true) or
// NCHW/NCDHW (false).
func dataFormatChannelsLast(ctx *Context) (bool, error) {
	if !ctx.HasAttr("data_format") {
		return true, nil
	}
	f, err := ctx.AttrString("data_format")
	if err != nil {
		return false, err
	}
	switch f {
	case "NHWC", "NDHWC", "NWC", "":
		return true, nil
	case "NCHW", "NCDHW", "NCW":
		return false, nil
	}
	return false, ctx.Unsupported("data_format %s", f)
}

// toChannelsLast transposes an N,C,spatial... tensor's data to N,spatial...,C.
func toChannelsLast[T any](src []T, n, c, sp int) []T {
	dst := make([]T, len(src))
	for b := 0; b < n; b++ {
		s := src[b*c*sp : (b+1)*c*sp]
		d := dst[b*c*sp : (b+1)*c*sp]
		for ch := 0; ch < c; ch++ {
			for p := 0; p < sp; p++ {
				d[p*c+ch] = s[ch*sp+p]
			}
		}
	}
	return dst
}

// toChannelsFirst is the inverse of toChannelsLast.
func toChannelsFirst[T any](src []T, n, c, sp int) []T {
	dst := make([]T, len(src))
	for b := 0; b < n; b++ {
		s := src[b*c*sp : (b+1)*c*sp]
		d := dst[b*c*sp : (b+1)*c*sp]
		for p := 0; p < sp; p++ {
			for ch := 0; ch < c; ch++ {
				d[ch*sp+p] = s[p*c+ch]
			}
		}
	}
	return dst
}
