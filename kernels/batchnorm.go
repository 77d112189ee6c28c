package kernels

import (
	"math"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// FusedBatchNorm, FusedBatchNormV2, FusedBatchNormV3 and _FusedBatchNormEx,
// in inference mode (is_training=false) after TensorFlow's
// fused_batch_norm_op.cc (FusedBatchNorm<CPUDevice, T, U, false>):
//
//	y = (x - mean) * (rsqrt(variance + epsilon) * scale) + offset
//
// computed in float (U) for float16/bfloat16 x, in double for double x. Outputs: y, batch_mean
// (= mean), batch_variance (= variance), reserve_space_1 and _2 (TensorFlow's
// CPU kernel leaves them unwritten; here they are copies of mean and
// variance), and for V3/Ex a scalar reserve_space_3 of zero.
// _FusedBatchNormEx adds side_input (num_side_inputs) and activation_mode
// (Identity, Relu) after the normalisation, as the GPU kernel and the CPU's
// oneDNN kernel (the stock CPU kernel is a NoOp the oneDNN layout pass
// rewrites) do.
//
// Training mode (batch statistics) follows FusedBatchNorm<CPUDevice, T, U,
// true> (batchNormTrain), _FusedBatchNormEx's with its side input and
// activation after it.

func init() {
	Register("FusedBatchNorm", func(ctx *Context) ([]*Tensor, error) { return batchNormKernel(ctx, 5) })
	Register("FusedBatchNormV2", func(ctx *Context) ([]*Tensor, error) { return batchNormKernel(ctx, 5) })
	Register("FusedBatchNormV3", func(ctx *Context) ([]*Tensor, error) { return batchNormKernel(ctx, 6) })
	Register("_FusedBatchNormEx", func(ctx *Context) ([]*Tensor, error) { return batchNormKernel(ctx, 6) })
}

func batchNormKernel(ctx *Context, nout int) ([]*Tensor, error) {
	if err := nnInputs(ctx, 5); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	// U (the parameters' dtype) is float for float/half/bfloat16 x, and
	// double for double x (TensorFlow has no double kernel; it serves the
	// executor's float64 reference pass).
	// FusedBatchNorm (V1) is float only in its OpDef; half and bfloat16
	// came with V2.
	if ctx.Op == "FusedBatchNorm" && (x.DType == tpb.DataType_DT_HALF || x.DType == tpb.DataType_DT_BFLOAT16) {
		return nil, ctx.Errorf("Value for attr 'T' of %s is not in the list of allowed values: float", tfTypeName(x.DType))
	}
	u := tpb.DataType_DT_FLOAT
	if x.DType == nnF64 {
		u = nnF64
	}
	for i, name := range []string{"scale", "offset", "mean", "variance"} {
		t := ctx.Inputs[1+i]
		if t.DType != u {
			return nil, ctx.Unsupported("%s of dtype %s with x of dtype %s", name, t.DType, x.DType)
		}
	}
	return byFloat(ctx, x.DType, allFloats,
		func(c *Context) ([]*Tensor, error) { return batchNormOp[float32](c, nout) },
		func(c *Context) ([]*Tensor, error) { return batchNormOp[float64](c, nout) })
}

func batchNormOp[T nnFloat](ctx *Context, nout int) ([]*Tensor, error) {
	x := ctx.Inputs[0]
	train, err := ctx.AttrBool("is_training")
	if err != nil {
		return nil, err
	}
	cl, err := dataFormatChannelsLast(ctx)
	if err != nil {
		return nil, err
	}
	if len(x.Shape) != 4 && len(x.Shape) != 5 {
		return nil, ctx.Errorf("input must be 4 or 5-dimensional, got shape %v", x.Shape)
	}
	eps, err := ctx.AttrFloat("epsilon")
	if err != nil {
		return nil, err
	}
	cdim := len(x.Shape) - 1
	if !cl {
		cdim = 1
	}
	c := x.Shape[cdim]
	var p [4][]T
	for i, name := range []string{"scale", "offset", "mean", "variance"} {
		t := ctx.Inputs[1+i]
		if len(t.Shape) != 1 {
			return nil, ctx.Errorf("%s must be 1-dimensional, got shape %v", name, t.Shape)
		}
		if train && i >= 2 && t.Shape[0] == 0 {
			continue // no running statistics: exponential_avg_factor 1
		}
		if t.Shape[0] != c {
			return nil, ctx.Errorf("%s must have the same number of elements as the channels of x, got %d and %d", name, t.Shape[0], c)
		}
		d, err := floatsOf[T](t)
		if err != nil {
			return nil, ctx.Errorf("%s: %v", name, err)
		}
		p[i] = d
	}
	scale, offset, mean, variance := p[0], p[1], p[2], p[3]
	xd, err := floatsOf[T](x)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	var side []T
	act := "Identity"
	if ctx.Op == "_FusedBatchNormEx" {
		if act, err = ctx.AttrString("activation_mode"); err != nil {
			return nil, err
		}
		if act != "Identity" && act != "Relu" {
			return nil, ctx.Unsupported("activation_mode %s", act)
		}
		if ns, err := ctx.AttrInt("num_side_inputs"); err == nil && ns > 0 {
			if len(ctx.Inputs) < 6 || ctx.Inputs[5] == nil {
				return nil, ctx.Errorf("num_side_inputs is %d but side_input is missing", ns)
			}
			s := ctx.Inputs[5]
			if s.NumElements() != len(xd) {
				return nil, ctx.Errorf("side_input shape must be equal to input shape: %v != %v", s.Shape, x.Shape)
			}
			if side, err = floatsOf[T](s); err != nil {
				return nil, ctx.Errorf("side_input: %v", err)
			}
		}
	}
	inner := 1
	for _, d := range x.Shape[cdim+1:] {
		inner *= d
	}
	if train {
		return batchNormTrain(ctx, nout, xd, c, inner, scale, offset, mean, variance, T(eps), side, act == "Relu")
	}
	factor := make([]T, c)
	for j := range factor {
		factor[j] = 1 / T(math.Sqrt(float64(variance[j]+T(eps)))) * scale[j]
	}
	var y []T
	if d, ok := x.Data.([]T); ok && ctx.Owns(0) {
		y = d // every value is read once, before its own index is written
	} else {
		y = newOutFull[T](ctx, len(xd))
	}
	if c > 0 && inner > 0 {
		outer := len(xd) / (c * inner)
		if inner == 1 && side == nil {
			// Channels last (NHWC, every Keras model): rows of c values,
			// the channel's parameters read along the row, not per value.
			x32, _ := any(xd).([]float32)
			nnParallel(nnCeilDiv(outer, 64), 64*c, func(ch int) {
				if x32 != nil {
					lo, hi := ch*64*c, min(outer, ch*64+64)*c
					bnRows32(any(y).([]float32)[lo:hi], x32[lo:hi], any(mean).([]float32), any(factor).([]float32), any(offset).([]float32), c, act == "Relu")
					return
				}
				for o := ch * 64; o < min(outer, ch*64+64); o++ {
					xr, yr := xd[o*c:o*c+c], y[o*c:o*c+c]
					fr, mr, or := factor[:c], mean[:c], offset[:c]
					if act == "Relu" {
						for j, v := range xr {
							v = (v-mr[j])*fr[j] + or[j]
							if v < 0 {
								v = 0
							}
							yr[j] = v
						}
						continue
					}
					for j, v := range xr {
						yr[j] = (v-mr[j])*fr[j] + or[j]
					}
				}
			})
			return batchNormOutputs(ctx, nout, x, y, c, mean, variance), nil
		}
		nnParallel(outer, c*inner, func(o int) {
			for j := 0; j < c; j++ {
				base := (o*c + j) * inner
				f, m, off := factor[j], mean[j], offset[j]
				for i := base; i < base+inner; i++ {
					v := (xd[i]-m)*f + off
					if side != nil {
						v += side[i]
					}
					if act == "Relu" && v < 0 {
						v = 0
					}
					y[i] = v
				}
			}
		})
	}
	return batchNormOutputs(ctx, nout, x, y, c, mean, variance), nil
}

// batchNormOutputs are y and the statistics outputs (mean and variance
// passed through).
func batchNormOutputs[T nnFloat](ctx *Context, nout int, x *Tensor, y []T, c int, mean, variance []T) []*Tensor {
	u := ctx.Inputs[1].DType
	outs := []*Tensor{
		tensorFrom(x.DType, nnCloneShape(x.Shape), y),
		tensorFrom(u, []int{c}, append([]T(nil), mean...)),
		tensorFrom(u, []int{c}, append([]T(nil), variance...)),
		tensorFrom(u, []int{c}, append([]T(nil), mean...)),
		tensorFrom(u, []int{c}, append([]T(nil), variance...)),
	}
	if nout == 6 {
		outs = append(outs, tensorFrom(u, []int{}, []T{0}))
	}
	return outs
}

// tfTypeName is a dtype as TensorFlow's messages name it ("half").
func tfTypeName(dt tpb.DataType) string {
	switch dt {
	case tpb.DataType_DT_HALF:
		return "half"
	case tpb.DataType_DT_BFLOAT16:
		return "bfloat16"
	case tpb.DataType_DT_FLOAT:
		return "float"
	case tpb.DataType_DT_DOUBLE:
		return "double"
	}
	return dt.String()
}

// batchNormTrain is FusedBatchNorm<CPUDevice, T, U, true>
// (fused_batch_norm_op.cc): the batch's mean and biased variance per
// channel (sums times 1/n), y from them; batch_mean and batch_variance
// are the running averages with exponential_avg_factor (the variance made
// unbiased, n/(n-1)), reserve_space_1 and _2 the batch's own mean and
// biased variance.
func batchNormTrain[T nnFloat](ctx *Context, nout int, xd []T, c, inner int, scale, offset, oldMean, oldVar []T, eps T,
	side []T, relu bool) ([]*Tensor, error) {
	x := ctx.Inputs[0]
	f, err := ctx.AttrFloat("exponential_avg_factor")
	if err != nil {
		f = 1
	}
	factor := T(f)
	if factor != 1 && (len(oldMean) != c || len(oldVar) != c) {
		return nil, ctx.Errorf("mean and variance must have %d elements when exponential_avg_factor is not 1", c)
	}
	n := 0
	if c > 0 {
		n = len(xd) / c
	}
	outer := 0
	if c > 0 && inner > 0 {
		outer = len(xd) / (c * inner)
	}
	bm, bv := make([]T, c), make([]T, c)
	inv := 1 / T(n)
	for j := 0; j < c; j++ {
		var sum T
		for o := 0; o < outer; o++ {
			for _, v := range xd[(o*c+j)*inner : (o*c+j+1)*inner] {
				sum += v
			}
		}
		bm[j] = sum * inv
		var sq T
		for o := 0; o < outer; o++ {
			for _, v := range xd[(o*c+j)*inner : (o*c+j+1)*inner] {
				d := v - bm[j]
				sq += d * d
			}
		}
		bv[j] = sq * inv
	}
	y := make([]T, len(xd))
	for j := 0; j < c; j++ {
		sf := 1 / T(math.Sqrt(float64(bv[j]+eps))) * scale[j]
		for o := 0; o < outer; o++ {
			for i := (o*c + j) * inner; i < (o*c+j+1)*inner; i++ {
				v := (xd[i]-bm[j])*sf + offset[j]
				if side != nil {
					v += side[i]
				}
				if relu && v < 0 {
					v = 0
				}
				y[i] = v
			}
		}
	}
	adjust := T(1)
	if n > 1 {
		adjust = T(n) / T(n-1)
	}
	runMean, runVar := make([]T, c), make([]T, c)
	for j := 0; j < c; j++ {
		if factor == 1 {
			runMean[j], runVar[j] = bm[j], bv[j]*adjust
			continue
		}
		runMean[j] = (1-factor)*oldMean[j] + factor*bm[j]
		runVar[j] = (1-factor)*oldVar[j] + (factor*adjust)*bv[j]
	}
	u := ctx.Inputs[1].DType
	outs := []*Tensor{
		tensorFrom(x.DType, nnCloneShape(x.Shape), y),
		tensorFrom(u, []int{c}, runMean),
		tensorFrom(u, []int{c}, runVar),
		tensorFrom(u, []int{c}, bm),
		tensorFrom(u, []int{c}, bv),
	}
	if nout == 6 {
		outs = append(outs, tensorFrom(u, []int{}, []T{0}))
	}
	return outs, nil
}
