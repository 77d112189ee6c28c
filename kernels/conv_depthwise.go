package kernels

import tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

// DepthwiseConv2dNative after TensorFlow's depthwise_conv_op.cc: input
// [N, H, W, C], filter [KH, KW, C, M], output [N, OH, OW, C*M] where output
// channel c*M+m convolves input channel c with filter [:, :, c, m]. It runs
// as a direct NHWC loop (each output pixel accumulates kh*kw contiguous
// C*M-wide rows), parallel over output rows. NCHW is transposed as for
// Conv2D.

func init() {
	Register("DepthwiseConv2dNative", func(ctx *Context) ([]*Tensor, error) {
		if err := nnInputs(ctx, 2); err != nil {
			return nil, err
		}
		return byFloat(ctx, ctx.Inputs[0].DType, allFloats, depthwiseOp[float32], depthwiseOp[float64])
	})
}

func depthwiseOp[T nnFloat](ctx *Context) ([]*Tensor, error) {
	r, err := depthwiseCompute[T](ctx, ctx.Inputs[0], ctx.Inputs[1])
	if err != nil {
		return nil, err
	}
	return []*Tensor{r.finish(ctx.Inputs[0].DType)}, nil
}

func depthwiseCompute[T nnFloat](ctx *Context, x, f *Tensor) (*convResult[T], error) {
	cl, err := dataFormatChannelsLast(ctx)
	if err != nil {
		return nil, err
	}
	if len(x.Shape) != 4 || len(f.Shape) != 4 {
		return nil, ctx.Errorf("input and filter must be 4-dimensional, got shapes %v and %v", x.Shape, f.Shape)
	}
	if f.DType != x.DType {
		return nil, ctx.Errorf("filter dtype %s differs from input dtype %s", f.DType, x.DType)
	}
	attrs, err := readSpatialAttrs(ctx, 2, cl, "filter")
	if err != nil {
		return nil, err
	}
	xd, err := floatsOf[T](x)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	fd, err := floatsOf[T](f)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	xs := nnCloneShape(x.Shape)
	if !cl {
		xd = toChannelsLast(xd, xs[0], xs[1], xs[2]*xs[3])
		xs = []int{xs[0], xs[2], xs[3], xs[1]}
	}
	n, c := xs[0], xs[3]
	if f.Shape[2] != c {
		return nil, ctx.Errorf("input depth %d must equal filter in_depth %d", c, f.Shape[2])
	}
	m := f.Shape[3]
	var dims [2]windowDim
	for i := 0; i < 2; i++ {
		if dims[i], err = windowOutput(ctx, xs[1+i], f.Shape[i], attrs.strides[i], attrs.dils[i], attrs.padding, attrs.before[i], attrs.after[i]); err != nil {
			return nil, err
		}
	}
	outShape := []int{n, dims[0].out, dims[1].out, c * m}
	if _, err := CheckShape(outShape); err != nil {
		return nil, ctx.Errorf("output %v", err)
	}
	if ro := roundOperand[T](ctx.Emu); ro != nil {
		xd, fd = mapCopy(xd, ro), mapCopy(fd, ro)
	}
	// float16 and bfloat16 accumulate in their own type, as Eigen::half
	// and bfloat16 arithmetic does: every product and partial sum rounded.
	ra, rp := roundAccum[T](ctx.Emu), (func(T) T)(nil)
	if ctx.Emu == nil {
		ra = storageRound[T](x.DType)
		rp = ra
	}
	size := n * dims[0].out * dims[1].out * c * m
	var buf []T
	if _, f32 := any(xd).([]float32); f32 && m == 1 && ra == nil {
		buf = newOutFull[T](ctx, size) // depthwiseF32 writes every pixel
	} else {
		buf = newOut[T](ctx, size)
	}
	out := depthwiseForward(n, c, m, dims, xd, fd, ra, rp, buf)
	return &convResult[T]{data: out, shape: outShape, channelsLast: cl}, nil
}

// mapCopy returns fn applied to every element of s, in a new slice.
func mapCopy[T any](s []T, fn func(T) T) []T {
	out := make([]T, len(s))
	for i, v := range s {
		out[i] = fn(v)
	}
	return out
}

// depthwiseForward sums into out (zeroed, of the output's size).
func depthwiseForward[T nnFloat](n, c, m int, dims [2]windowDim, x, f []T, ra, rp func(T) T, out []T) []T {
	dh, dw := dims[0], dims[1]
	cm := c * m
	// float32 with multiplier 1 (MobileNet's case) uses the vector FMA.
	if x32, ok := any(x).([]float32); ok && m == 1 && ra == nil {
		depthwiseF32(n, c, dims, x32, any(f).([]float32), any(out).([]float32))
		return out
	}
	nnParallel(n*dh.out, dw.out*dh.k*dw.k*cm, func(row int) {
		b, oh := row/dh.out, row%dh.out
		for ow := 0; ow < dw.out; ow++ {
			acc := out[((b*dh.out+oh)*dw.out+ow)*cm : ((b*dh.out+oh)*dw.out+ow+1)*cm]
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
					xin := x[((b*dh.in+ih)*dw.in+iw)*c : ((b*dh.in+ih)*dw.in+iw+1)*c]
					frow := f[(kh*dw.k+kw)*cm : (kh*dw.k+kw+1)*cm]
					switch {
					case ra != nil:
						for ci, xv := range xin {
							for j := 0; j < m; j++ {
								p := xv * frow[ci*m+j]
								if rp != nil {
									p = rp(p)
								}
								acc[ci*m+j] = ra(acc[ci*m+j] + p)
							}
						}
					case m == 1:
						frow = frow[:len(xin)]
						acc := acc[:len(xin)]
						for ci, xv := range xin {
							acc[ci] += xv * frow[ci]
						}
					default:
						for ci, xv := range xin {
							a := acc[ci*m : ci*m+m]
							fr := frow[ci*m : ci*m+m]
							for j := range a {
								a[j] += xv * fr[j]
							}
						}
					}
				}
			}
		}
	})
	return out
}

// depthwiseF32 is depthwiseForward for float32 with channel multiplier 1:
// each output pixel gathers its in-bounds window taps and accumulates them
// in (kh, kw) order (dwPixel32).
func depthwiseF32(n, c int, dims [2]windowDim, x, f, out []float32) {
	dh, dw := dims[0], dims[1]
	px := dwPixel32
	nnParallel(n*dh.out, dw.out*dh.k*dw.k*c, func(row int) {
		b, oh := row/dh.out, row%dh.out
		xoff := make([]int, 0, dh.k*dw.k)
		foff := make([]int, 0, dh.k*dw.k)
		for ow := 0; ow < dw.out; ow++ {
			acc := out[((b*dh.out+oh)*dw.out+ow)*c : ((b*dh.out+oh)*dw.out+ow+1)*c]
			xoff, foff = xoff[:0], foff[:0]
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
					xoff = append(xoff, ((b*dh.in+ih)*dw.in+iw)*c)
					foff = append(foff, (kh*dw.k+kw)*c)
				}
			}
			px(acc, x, f, xoff, foff)
		}
	})
}

// dwPixel32 computes one output pixel of depthwiseF32: out = the sum over
// taps t of x[xoff[t]:][:len(out)] * f[foff[t]:][:len(out)], accumulated from
// zero in tap order as fmaAcc32 does; assembly replaces it where the CPU
// has AVX2 and FMA, with the same fused multiply-adds.
var dwPixel32 = func(out, x, f []float32, xoff, foff []int) {
	clear(out)
	for t := range xoff {
		fmaAcc32(out, x[xoff[t]:xoff[t]+len(out)], f[foff[t]:foff[t]+len(out)])
	}
}

// storageRound rounds to float16 or bfloat16 for a tensor of that dtype
// (nil for any other): TensorFlow's CPU kernels that accumulate in the
// tensor's own type round every partial sum so.
func storageRound[T nnFloat](dt tpb.DataType) func(T) T {
	switch dt {
	case tpb.DataType_DT_HALF:
		return func(v T) T { return T(RoundFloat16(float32(v))) }
	case tpb.DataType_DT_BFLOAT16:
		return func(v T) T { return T(RoundBFloat16(float32(v))) }
	}
	return nil
}
