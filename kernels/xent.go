package kernels

import "math"

// SparseSoftmaxCrossEntropyWithLogits, after TensorFlow's
// sparse_xent_op.cc: features [B, C], labels [B] (int32 or int64) → loss
// [B] = log Σ exp(x − max) − (x[label] − max) and backprop [B, C] =
// softmax(x) − onehot(label). A label outside [0, C) is an error, as on
// TensorFlow's CPU. Half features are computed in float32 and rounded once.

func init() {
	Register("SparseSoftmaxCrossEntropyWithLogits", func(ctx *Context) ([]*Tensor, error) {
		if err := nnInputs(ctx, 2); err != nil {
			return nil, err
		}
		return byFloat(ctx, ctx.Inputs[0].DType, allFloats, sparseXentOp[float32], sparseXentOp[float64])
	})
}

func sparseXentOp[T nnFloat](ctx *Context) ([]*Tensor, error) {
	x, lt := ctx.Inputs[0], ctx.Inputs[1]
	if len(x.Shape) != 2 {
		return nil, ctx.Errorf("logits must be 2-D, but got shape %v", x.Shape)
	}
	if len(lt.Shape) != 1 || lt.Shape[0] != x.Shape[0] {
		return nil, ctx.Errorf("labels must be 1-D with the batch size of logits %v, but got shape %v", x.Shape, lt.Shape)
	}
	labels, ok := nnInts(lt)
	if !ok {
		return nil, ctx.Unsupported("labels dtype %s", lt.DType)
	}
	xd, err := floatsOf[T](x)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	b, c := x.Shape[0], x.Shape[1]
	for _, l := range labels {
		if l < 0 || int(l) >= c {
			return nil, ctx.Errorf("Received a label value of %d which is outside the valid range of [0, %d).", l, c)
		}
	}
	loss := make([]T, b)
	back := make([]T, b*c)
	for i := 0; i < b; i++ {
		row := xd[i*c : (i+1)*c]
		if c == 0 {
			continue
		}
		m := row[0]
		for _, v := range row {
			if v > m {
				m = v
			}
		}
		var sum T
		for _, v := range row {
			sum += T(math.Exp(float64(v - m)))
		}
		l := int(labels[i])
		loss[i] = T(math.Log(float64(sum))) - (row[l] - m)
		for j, v := range row {
			back[i*c+j] = T(math.Exp(float64(v-m))) / sum
		}
		back[i*c+l]--
	}
	return []*Tensor{tensorFrom(x.DType, []int{b}, loss), tensorFrom(x.DType, []int{b, c}, back)}, nil
}
