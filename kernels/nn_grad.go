package kernels

import tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

// Gradients of the elementwise activations and of BiasAdd, the ops
// GradientTape emits for a Keras layer's backward pass, after TensorFlow's
// relu_op_functor.h (ReluGrad: gradients where features > 0, else 0),
// cwise_ops_gradients.h (TanhGrad: dy·(1−y²); SigmoidGrad: dy·(y·(1−y)), the
// packet form) and
// bias_op.cc (BiasAddGrad: the sum of out_backprop over every axis but the
// channel axis, accumulated in float for half types, as its AccumulatorType
// does). Each step rounds to the tensor's dtype, as Eigen's functors compute in it.

func init() {
	Register("ReluGrad", func(ctx *Context) ([]*Tensor, error) {
		// gradients * (features > 0): a NaN or infinite gradient times 0
		// is NaN, a negative one -0.
		return binaryGrad(ctx, func(g, x float64, r func(float64) float64, _ bool) float64 {
			if x > 0 {
				return g
			}
			return g * 0
		})
	})
	Register("TanhGrad", func(ctx *Context) ([]*Tensor, error) {
		return binaryGrad(ctx, func(y, dy float64, r func(float64) float64, _ bool) float64 { return r(dy * r(1-r(y*y))) })
	})
	Register("SigmoidGrad", func(ctx *Context) ([]*Tensor, error) {
		return binaryGrad(ctx, func(y, dy float64, r func(float64) float64, packet bool) float64 {
			if packet {
				return r(dy * r(y*r(1-y)))
			}
			return r(r(dy*y) * r(1-y))
		})
	})
	Register("BiasAddGrad", biasAddGradKernel)
}

// binaryGrad applies f to two same-shaped float tensors, elementwise; f
// rounds each step with r to the tensor's dtype, as Eigen's functors
// evaluate in it.
func binaryGrad(ctx *Context, f func(a, b float64, r func(float64) float64, packet bool) float64) ([]*Tensor, error) {
	if err := nnInputs(ctx, 2); err != nil {
		return nil, err
	}
	a, b := ctx.Inputs[0], ctx.Inputs[1]
	if a.DType != b.DType {
		return nil, ctx.Errorf("input dtypes differ: %s and %s", a.DType, b.DType)
	}
	if !sameShape(a.Shape, b.Shape) {
		return nil, ctx.Errorf("inputs must have the same shape, got %v and %v", a.Shape, b.Shape)
	}
	return byFloat(ctx, a.DType, allFloats,
		func(ctx *Context) ([]*Tensor, error) { return binaryGradOp[float32](ctx, f) },
		func(ctx *Context) ([]*Tensor, error) { return binaryGradOp[float64](ctx, f) })
}

func binaryGradOp[T nnFloat](ctx *Context, f func(a, b float64, r func(float64) float64, packet bool) float64) ([]*Tensor, error) {
	a, b := ctx.Inputs[0], ctx.Inputs[1]
	ad, err := floatsOf[T](a)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	bd, err := floatsOf[T](b)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	rs := storageRounder[T](a.DType)
	r := func(v float64) float64 { return float64(rs(T(v))) }
	// Eigen evaluates whole packets with the functor's packetOp and the
	// tail with its scalar operator(), which may group the products
	// otherwise: 8 lanes for the half types, 4 for float32, 2 for float64
	// on the SSE build.
	lanes := 4
	switch a.DType {
	case tpb.DataType_DT_HALF, tpb.DataType_DT_BFLOAT16:
		lanes = 8
	case tpb.DataType_DT_DOUBLE:
		lanes = 2
	}
	vec := len(ad) - len(ad)%lanes
	out := make([]T, len(ad))
	for i := range ad {
		out[i] = T(f(float64(ad[i]), float64(bd[i]), r, i < vec))
	}
	return []*Tensor{tensorFrom(a.DType, nnCloneShape(a.Shape), out)}, nil
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func biasAddGradKernel(ctx *Context) ([]*Tensor, error) {
	if err := nnInputs(ctx, 1); err != nil {
		return nil, err
	}
	dy := ctx.Inputs[0]
	cl, err := dataFormatChannelsLast(ctx)
	if err != nil {
		return nil, err
	}
	if len(dy.Shape) < 2 {
		return nil, ctx.Errorf("input must be at least 2-dimensional, got shape %v", dy.Shape)
	}
	cdim := len(dy.Shape) - 1
	if !cl {
		cdim = 1
	}
	switch d := dy.Data.(type) {
	case []int8:
		return biasAddGradInt(dy, d, cdim), nil
	case []int16:
		return biasAddGradInt(dy, d, cdim), nil
	case []int32:
		return biasAddGradInt(dy, d, cdim), nil
	case []int64:
		return biasAddGradInt(dy, d, cdim), nil
	case []uint8:
		return biasAddGradInt(dy, d, cdim), nil
	case []uint16:
		return biasAddGradInt(dy, d, cdim), nil
	case []uint32:
		return biasAddGradInt(dy, d, cdim), nil
	case []uint64:
		return biasAddGradInt(dy, d, cdim), nil
	}
	return byFloat(ctx, dy.DType, allFloats,
		func(ctx *Context) ([]*Tensor, error) { return biasAddGradOp[float32](ctx, cdim) },
		func(ctx *Context) ([]*Tensor, error) { return biasAddGradOp[float64](ctx, cdim) })
}

func biasAddGradOp[T nnFloat](ctx *Context, cdim int) ([]*Tensor, error) {
	dy := ctx.Inputs[0]
	d, err := floatsOf[T](dy)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	c := dy.Shape[cdim]
	inner := product(dy.Shape[cdim+1:])
	out := make([]T, c)
	ra := roundAccum[T](ctx.Emu)
	if c > 0 && inner > 0 {
		outer := len(d) / (c * inner)
		for o := 0; o < outer; o++ {
			for ch := 0; ch < c; ch++ {
				base := (o*c + ch) * inner
				for i := 0; i < inner; i++ {
					out[ch] += d[base+i]
					if ra != nil {
						out[ch] = ra(out[ch])
					}
				}
			}
		}
	}
	return []*Tensor{tensorFrom(dy.DType, []int{c}, out)}, nil
}

// biasAddGradInt is BiasAddGrad of an integer tensor: the sum per channel
// in the tensor's type, wrapping as C++'s does (any order gives it).
func biasAddGradInt[T integer](dy *Tensor, d []T, cdim int) []*Tensor {
	c := dy.Shape[cdim]
	inner := product(dy.Shape[cdim+1:])
	out := make([]T, c)
	if c > 0 && inner > 0 {
		for i, v := range d {
			out[(i/inner)%c] += v
		}
	}
	return []*Tensor{{DType: dy.DType, Shape: []int{c}, Data: out}}
}
