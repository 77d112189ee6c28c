package kernels

import "math"

// LRN (local response normalisation), after TensorFlow's lrn_op.cc: over the
// last dimension of a 4-D NHWC tensor,
//
//	sqr_sum[n, h, w, d] = Σ_{d' = d-r .. d+r} x[n, h, w, d']²
//	out = x / (bias + alpha * sqr_sum) ^ beta
//
// evaluated in float64 and rounded to the dtype (float32, float16, bfloat16:
// TensorFlow's CPU registrations; float64 for the executor's reference pass).

func init() {
	Register("LRN", func(ctx *Context) ([]*Tensor, error) {
		if err := nnInputs(ctx, 1); err != nil {
			return nil, err
		}
		return byFloat(ctx, ctx.Inputs[0].DType, allFloats, lrnOp[float32], lrnOp[float64])
	})
}

func lrnOp[T nnFloat](ctx *Context) ([]*Tensor, error) {
	x := ctx.Inputs[0]
	if len(x.Shape) != 4 {
		return nil, ctx.Errorf("input must be 4-dimensional, got shape %v", x.Shape)
	}
	r, err := ctx.AttrInt("depth_radius")
	if err != nil {
		return nil, err
	}
	if r < 0 || r > math.MaxInt32 {
		return nil, ctx.Errorf("depth_radius = %d out of range", r)
	}
	bias, err := ctx.AttrFloat("bias")
	if err != nil {
		return nil, err
	}
	alpha, err := ctx.AttrFloat("alpha")
	if err != nil {
		return nil, err
	}
	beta, err := ctx.AttrFloat("beta")
	if err != nil {
		return nil, err
	}
	xd, err := floatsOf[T](x)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	depth := x.Shape[3]
	out := make([]T, len(xd))
	rad := int(r)
	if depth > 0 {
		nnParallel(len(xd)/depth, depth*(2*rad+1), func(p int) {
			row := xd[p*depth : (p+1)*depth]
			dst := out[p*depth : (p+1)*depth]
			for d := range row {
				var s float64
				for j := max(0, d-rad); j <= min(depth-1, d+rad); j++ {
					s += float64(row[j]) * float64(row[j])
				}
				dst[d] = T(float64(row[d]) / math.Pow(float64(bias)+float64(alpha)*s, float64(beta)))
			}
		})
	}
	return []*Tensor{tensorFrom(x.DType, nnCloneShape(x.Shape), out)}, nil
}
