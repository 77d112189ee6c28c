package kernels

import "math"

// MaxPool, MaxPoolV2, AvgPool, MaxPool3D and AvgPool3D, after TensorFlow's
// pooling_ops_common.h (SpatialMaxPool, SpatialAvgPool) and
// pooling_ops_3d.cc. MaxPool starts every window at the dtype's lowest
// finite value and keeps max(out, in) the way Eigen's cwiseMax does, so NaN
// inputs are skipped and a window of only -Inf yields the lowest finite
// value, as in TensorFlow. AvgPool divides by the number of window elements
// inside the input (padding is not counted). NCHW is transposed to NHWC.

func init() {
	Register("MaxPool", func(ctx *Context) ([]*Tensor, error) { return poolKernel(ctx, 2, true, false) })
	Register("MaxPoolV2", func(ctx *Context) ([]*Tensor, error) { return poolKernel(ctx, 2, true, true) })
	Register("AvgPool", func(ctx *Context) ([]*Tensor, error) { return poolKernel(ctx, 2, false, false) })
	Register("MaxPool3D", func(ctx *Context) ([]*Tensor, error) { return poolKernel(ctx, 3, true, false) })
	Register("AvgPool3D", func(ctx *Context) ([]*Tensor, error) { return poolKernel(ctx, 3, false, false) })
}

func poolKernel(ctx *Context, ns int, isMax, v2 bool) ([]*Tensor, error) {
	n := 1
	if v2 {
		n = 3
	}
	if err := nnInputs(ctx, n); err != nil {
		return nil, err
	}
	return byFloat(ctx, ctx.Inputs[0].DType, allFloats,
		func(c *Context) ([]*Tensor, error) { return poolOp[float32](c, ns, isMax, v2) },
		func(c *Context) ([]*Tensor, error) { return poolOp[float64](c, ns, isMax, v2) })
}

func poolOp[T nnFloat](ctx *Context, ns int, isMax, v2 bool) ([]*Tensor, error) {
	x := ctx.Inputs[0]
	cl, err := dataFormatChannelsLast(ctx)
	if err != nil {
		return nil, err
	}
	rank := ns + 2
	if len(x.Shape) != rank {
		return nil, ctx.Errorf("input must be %d-dimensional, got shape %v", rank, x.Shape)
	}
	var ksize, strides []int64
	if v2 {
		var ok1, ok2 bool
		ksize, ok1 = nnInts(ctx.Inputs[1])
		strides, ok2 = nnInts(ctx.Inputs[2])
		if !ok1 || !ok2 {
			return nil, ctx.Errorf("ksize and strides must be int32 tensors")
		}
	} else {
		if ksize, err = ctx.AttrInts("ksize"); err != nil {
			return nil, err
		}
		if strides, err = ctx.AttrInts("strides"); err != nil {
			return nil, err
		}
	}
	if len(ksize) != rank || len(strides) != rank {
		return nil, ctx.Errorf("ksize and strides must have %d elements, got %v and %v", rank, ksize, strides)
	}
	cdim := rank - 1
	if !cl {
		cdim = 1
	}
	if ksize[0] != 1 || strides[0] != 1 || ksize[cdim] != 1 || strides[cdim] != 1 {
		return nil, ctx.Unsupported("pooling across the batch or depth dimension (ksize %v, strides %v)", ksize, strides)
	}
	padding, err := ctx.AttrString("padding")
	if err != nil {
		return nil, err
	}
	var ep []int64
	if padding == "EXPLICIT" {
		if ep, err = ctx.AttrInts("explicit_paddings"); err != nil {
			return nil, err
		}
		if len(ep) != 2*rank {
			return nil, ctx.Errorf("explicit_paddings must have %d elements, got %v", 2*rank, ep)
		}
	}
	xd, err := floatsOf[T](x)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	xs := nnCloneShape(x.Shape)
	if !cl {
		sp := 1
		for _, d := range xs[2:] {
			sp *= d
		}
		xd = toChannelsLast(xd, xs[0], xs[1], sp)
		xs = append(append([]int{xs[0]}, xs[2:]...), xs[1])
	}
	var dims [3]windowDim
	for i := range dims {
		dims[i] = windowDim{in: 1, k: 1, stride: 1, dil: 1, out: 1}
	}
	for i := 0; i < ns; i++ {
		ax := 1 + i
		if !cl {
			ax = 2 + i
		}
		var before, after int
		if ep != nil {
			before, after = int(ep[2*ax]), int(ep[2*ax+1])
		}
		k := int(ksize[ax])
		if k <= 0 {
			return nil, ctx.Errorf("ksize must be positive, got %v", ksize)
		}
		if dims[3-ns+i], err = windowOutput(ctx, xs[1+i], k, int(strides[ax]), 1, padding, before, after); err != nil {
			return nil, err
		}
	}
	n, c := xs[0], xs[rank-1]
	outShape := []int{n}
	for i := 0; i < ns; i++ {
		outShape = append(outShape, dims[3-ns+i].out)
	}
	outShape = append(outShape, c)
	if _, err := CheckShape(outShape); err != nil {
		return nil, ctx.Errorf("output %v", err)
	}
	// AvgPool and AvgPool3D sum a float16 or bfloat16 window in the
	// tensor's own type, every partial sum rounded, and divide in it
	// (Eigen's AvgPoolMeanReducer<Eigen::half>, <bfloat16>).
	var rnd func(T) T
	if !isMax && ctx.Emu == nil {
		rnd = storageRound[T](x.DType)
	}
	out := pool3(n, c, dims, xd, isMax, rnd)
	shape := outShape
	if !cl {
		sp := 1
		for _, d := range outShape[1 : rank-1] {
			sp *= d
		}
		out = toChannelsFirst(out, n, c, sp)
		shape = append([]int{n, c}, outShape[1:rank-1]...)
	}
	return []*Tensor{tensorFrom(x.DType, shape, out)}, nil
}

// lowest returns the most negative finite value of T.
func lowest[T nnFloat]() T {
	var z T
	if _, ok := any(z).(float32); ok {
		return T(-math.MaxFloat32)
	}
	m := -math.MaxFloat64
	return T(m)
}

// poolAdd sets dst[i] += src[i]; poolMax sets dst[i] = src[i] where src[i]
// > dst[i] (a NaN never replaces, and is never replaced). Both take the
// vector loops (pool_amd64.go) for float32 on CPUs with AVX2.
func poolAdd[T nnFloat](dst, src []T) {
	if d, ok := any(dst).([]float32); ok {
		poolAdd32(d, any(src).([]float32))
		return
	}
	addTo(dst, src)
}

func poolMax[T nnFloat](dst, src []T) {
	if d, ok := any(dst).([]float32); ok {
		poolMax32(d, any(src).([]float32))
		return
	}
	maxTo(dst, src)
}

func addTo[T nnFloat](dst, src []T) {
	src = src[:len(dst)]
	for j, v := range src {
		dst[j] += v
	}
}

func maxTo[T nnFloat](dst, src []T) {
	src = src[:len(dst)]
	for j, v := range src {
		if v > dst[j] {
			dst[j] = v
		}
	}
}

var (
	poolAdd32 = addTo[float32]
	poolMax32 = maxTo[float32]
)

// pool3 pools channels-last data over 3 spatial dims (unused ones size 1).
func pool3[T nnFloat](n, c int, dims [3]windowDim, x []T, isMax bool, rnd func(T) T) []T {
	d0, d1, d2 := dims[0], dims[1], dims[2]
	out := make([]T, n*d0.out*d1.out*d2.out*c)
	if len(out) == 0 {
		return out
	}
	lo := lowest[T]()
	rows := n * d0.out * d1.out
	nnParallel(rows, d2.out*d0.k*d1.k*d2.k*c, func(r int) {
		oh := r % d1.out
		t := r / d1.out
		od := t % d0.out
		b := t / d0.out
		for ow := 0; ow < d2.out; ow++ {
			acc := out[((r)*d2.out+ow)*c : ((r)*d2.out+ow+1)*c]
			if isMax {
				for j := range acc {
					acc[j] = lo
				}
			}
			count := 0
			for kd := 0; kd < d0.k; kd++ {
				id := od*d0.stride - d0.padBefore + kd
				if id < 0 || id >= d0.in {
					continue
				}
				for kh := 0; kh < d1.k; kh++ {
					ih := oh*d1.stride - d1.padBefore + kh
					if ih < 0 || ih >= d1.in {
						continue
					}
					for kw := 0; kw < d2.k; kw++ {
						iw := ow*d2.stride - d2.padBefore + kw
						if iw < 0 || iw >= d2.in {
							continue
						}
						o := (((b*d0.in+id)*d1.in+ih)*d2.in + iw) * c
						src := x[o : o+len(acc)]
						count++
						if isMax {
							poolMax(acc, src)
						} else if rnd != nil {
							for j, v := range src {
								acc[j] = rnd(acc[j] + v)
							}
						} else {
							poolAdd(acc, src)
						}
					}
				}
			}
			if !isMax && count > 0 {
				inv := T(count)
				for j := range acc {
					acc[j] /= inv
					if rnd != nil {
						acc[j] = rnd(acc[j])
					}
				}
			}
		}
	})
	return out
}
