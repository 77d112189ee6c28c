package kernels

import "math"

// Softmax and LogSoftmax over the last dimension, after TensorFlow's
// softmax_op_functor.h: shifted = x - max(x); softmax = exp(shifted) /
// sum(exp(shifted)); log_softmax = shifted - log(sum(exp(shifted))). Sums
// are accumulated in float64, so float32 results are within an ulp or two
// of TensorFlow's Eigen reductions. A row holding NaN or +Inf gives NaN.

func init() {
	for _, log := range []bool{false, true} {
		log := log
		name := "Softmax"
		if log {
			name = "LogSoftmax"
		}
		Register(name, func(ctx *Context) ([]*Tensor, error) {
			if err := nnInputs(ctx, 1); err != nil {
				return nil, err
			}
			return byFloat(ctx, ctx.Inputs[0].DType, allFloats,
				func(c *Context) ([]*Tensor, error) { return softmaxOp[float32](c, log) },
				func(c *Context) ([]*Tensor, error) { return softmaxOp[float64](c, log) })
		})
	}
}

func softmaxOp[T nnFloat](ctx *Context, log bool) ([]*Tensor, error) {
	x := ctx.Inputs[0]
	if len(x.Shape) < 1 {
		return nil, ctx.Errorf("logits must have >= 1 dimension, got shape %v", x.Shape)
	}
	xd, err := floatsOf[T](x)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	out := make([]T, len(xd))
	n := x.Shape[len(x.Shape)-1]
	if n > 0 {
		nnParallel(len(xd)/n, n*8, func(r int) {
			softmaxRow(xd[r*n:(r+1)*n], out[r*n:(r+1)*n], log)
		})
	}
	return []*Tensor{tensorFrom(x.DType, nnCloneShape(x.Shape), out)}, nil
}

func softmaxRow[T nnFloat](x, out []T, log bool) {
	m := math.Inf(-1)
	nan := false
	for _, v := range x {
		f := float64(v)
		if f != f {
			nan = true
		}
		if f > m {
			m = f
		}
	}
	if nan {
		for i := range out {
			out[i] = T(math.NaN())
		}
		return
	}
	var sum float64
	for i, v := range x {
		// The shift is rounded to T as TensorFlow computes it in T.
		s := T(float64(v) - m)
		out[i] = s
		sum += math.Exp(float64(s))
	}
	if log {
		ls := math.Log(sum)
		for i, s := range out {
			out[i] = T(float64(s) - ls)
		}
		return
	}
	for i, s := range out {
		out[i] = T(math.Exp(float64(s)) / sum)
	}
}
