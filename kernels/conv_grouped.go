package kernels

// A Conv2D whose groups each hold one input and one output channel (filter
// [KH, KW, 1, C] on a C-channel input) is a depthwise convolution with
// channel multiplier 1: Keras exports DepthwiseConv2D layers so (ConvNeXt's
// 7x7 blocks). The GEMM path would run it as C one-column products whose
// patch gathering dominates; the depthwise loop reads each input row once.
// The filter's memory order [KH, KW, 1, C] is the depthwise kernel's
// [KH, KW, C, 1], so it is used as it is.

// isDepthwiseGrouped reports whether the plan is a 2-D grouped convolution
// with one input and one output channel per group.
func isDepthwiseGrouped(p *convPlan, ns int) bool {
	return ns == 2 && p.groups > 1 && p.groups == p.c && p.o == p.c
}

// convDepthwiseGrouped computes such a convolution on the depthwise
// kernel's path, with the emulation's operand and accumulator rounding as
// convForward applies them (float16 and bfloat16 without an emulation sum
// unrounded, as Conv2D's GEMM path does).
func convDepthwiseGrouped[T nnFloat](ctx *Context, p *convPlan, x, f []T) []T {
	dims := [2]windowDim{p.sp[1], p.sp[2]}
	if ro := roundOperand[T](ctx.Emu); ro != nil {
		x, f = mapCopy(x, ro), mapCopy(f, ro)
	}
	ra := roundAccum[T](ctx.Emu)
	size := p.outRows() * p.o
	var buf []T
	if _, f32 := any(x).([]float32); f32 && ra == nil {
		buf = newOutFull[T](ctx, size) // depthwiseF32 writes every pixel
	} else {
		buf = newOut[T](ctx, size)
	}
	return depthwiseForward(p.n, p.c, 1, dims, x, f, ra, nil, buf)
}
