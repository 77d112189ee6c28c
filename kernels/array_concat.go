package kernels

import (
	"slices"

	"github.com/tfscan/tfscan/dtype"
)

// Concat, ConcatV2, Pack, Split, SplitV, Unpack (concat_op.cc, pack_op.cc,
// split_op.cc, split_v_op.cc, unpack_op.cc), for every dtype.

func concatCore(ctx *Context, values []*Tensor, axisT *Tensor) ([]*Tensor, error) {
	if len(values) == 0 {
		return nil, ctx.Errorf("Concat needs at least one input")
	}
	for i, v := range values {
		if v == nil {
			return nil, ctx.Errorf("input %d is missing", i)
		}
	}
	a, err := scalarIndex(axisT, "axis")
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	first := values[0]
	rank := len(first.Shape)
	if rank == 0 {
		return nil, ctx.Errorf("ConcatOp : Can't concatenate scalars (use tf.stack instead)")
	}
	if a < -int64(rank) || a >= int64(rank) {
		return nil, ctx.Errorf("ConcatOp : Expected concatenating dimensions in the range [%d, %d), but got %d", -rank, rank, a)
	}
	axis := int(a)
	if axis < 0 {
		axis += rank
	}
	outShape := cloneShape(first.Shape)
	outShape[axis] = 0
	for k, v := range values {
		if len(v.Shape) != rank {
			return nil, ctx.Errorf("ConcatOp : Ranks of all input tensors should match: shape[0] = %s vs. shape[%d] = %s",
				dimsString(first.Shape), k, dimsString(v.Shape))
		}
		if dtype.Base(v.DType) != dtype.Base(first.DType) {
			return nil, ctx.Errorf("inputs have different dtypes")
		}
		for d := range v.Shape {
			if d != axis && v.Shape[d] != first.Shape[d] {
				return nil, ctx.Errorf("ConcatOp : Dimension %d in both shapes must be equal: shape[0] = %s vs. shape[%d] = %s",
					d, dimsString(first.Shape), k, dimsString(v.Shape))
			}
		}
		outShape[axis] += v.Shape[axis]
	}
	outer := product(first.Shape[:axis])
	var spans []span
	for o := 0; o < outer; o++ {
		for k, v := range values {
			inner := product(v.Shape[axis:])
			if inner > 0 {
				spans = append(spans, span{k, o * inner, inner})
			}
		}
	}
	out, err := copySpans(ctx, first, values, spans, outShape)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{out}, nil
}

func concatV2Kernel(ctx *Context) ([]*Tensor, error) {
	n := len(ctx.Inputs)
	if n < 2 {
		return nil, ctx.Errorf("ConcatV2 needs values and an axis")
	}
	return concatCore(ctx, ctx.Inputs[:n-1], ctx.Inputs[n-1])
}

func concatKernel(ctx *Context) ([]*Tensor, error) {
	if len(ctx.Inputs) < 2 {
		return nil, ctx.Errorf("Concat needs an axis and values")
	}
	return concatCore(ctx, ctx.Inputs[1:], ctx.Inputs[0])
}

func packKernel(ctx *Context) ([]*Tensor, error) {
	if len(ctx.Inputs) == 0 {
		return nil, ctx.Errorf("Pack needs at least one input")
	}
	if err := wantInputs(ctx, len(ctx.Inputs)); err != nil {
		return nil, err
	}
	first := ctx.Inputs[0]
	rank := len(first.Shape) + 1
	var a int64
	if ctx.HasAttr("axis") {
		a, _ = ctx.AttrInt("axis")
	}
	if a < -int64(rank) || a >= int64(rank) {
		return nil, ctx.Errorf("axis = %d not in [%d, %d)", a, -rank, rank)
	}
	axis := int(a)
	if axis < 0 {
		axis += rank
	}
	for k, v := range ctx.Inputs {
		if !slices.Equal(v.Shape, first.Shape) {
			return nil, ctx.Errorf("Shapes of all inputs must match: values[0].shape = %s != values[%d].shape = %s",
				dimsString(first.Shape), k, dimsString(v.Shape))
		}
	}
	outShape := append(append(append([]int{}, first.Shape[:axis]...), len(ctx.Inputs)), first.Shape[axis:]...)
	outer := product(first.Shape[:axis])
	inner := product(first.Shape[axis:])
	var spans []span
	if inner > 0 {
		for o := 0; o < outer; o++ {
			for k := range ctx.Inputs {
				spans = append(spans, span{k, o * inner, inner})
			}
		}
	}
	out, err := copySpans(ctx, first, ctx.Inputs, spans, outShape)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{out}, nil
}

// splitBy slices x along axis into pieces of the given sizes.
func splitBy(ctx *Context, x *Tensor, axis int, sizes []int) ([]*Tensor, error) {
	maps := identityMaps(x.Shape)
	outs := make([]*Tensor, len(sizes))
	start := 0
	for i, n := range sizes {
		maps[axis] = rangeMap(start, n)
		t, err := gatherDims(x, maps, nil)
		if err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		outs[i] = t
		start += n
	}
	return outs, nil
}

func splitAxis(ctx *Context, t *Tensor, rank int) (int, error) {
	a, err := scalarIndex(t, "split_dim")
	if err != nil {
		return 0, ctx.Errorf("%v", err)
	}
	if a < -int64(rank) || a >= int64(rank) {
		return 0, ctx.Errorf("-input rank(-%d) <= split_dim < input rank (%d), but got %d", rank, rank, a)
	}
	if a < 0 {
		a += int64(rank)
	}
	return int(a), nil
}

func splitKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 2); err != nil {
		return nil, err
	}
	x := ctx.Inputs[1]
	axis, err := splitAxis(ctx, ctx.Inputs[0], len(x.Shape))
	if err != nil {
		return nil, err
	}
	num, err := ctx.AttrInt("num_split")
	if err != nil {
		return nil, err
	}
	if num <= 0 || x.Shape[axis]%int(num) != 0 {
		return nil, ctx.Errorf("Number of ways to split should evenly divide the split dimension, but got split_dim %d (size = %d) and num_split %d",
			axis, x.Shape[axis], num)
	}
	sizes := make([]int, num)
	for i := range sizes {
		sizes[i] = x.Shape[axis] / int(num)
	}
	return splitBy(ctx, x, axis, sizes)
}

func splitVKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 3); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	axis, err := splitAxis(ctx, ctx.Inputs[2], len(x.Shape))
	if err != nil {
		return nil, err
	}
	sv, err := indexValues(ctx.Inputs[1])
	if err != nil {
		return nil, ctx.Errorf("size_splits: %v", err)
	}
	dim := x.Shape[axis]
	sizes := make([]int, len(sv))
	unknown, known := -1, 0
	for i, v := range sv {
		switch {
		case v == -1:
			if unknown >= 0 {
				return nil, ctx.Errorf("There can only be one -1 in the input.")
			}
			unknown = i
		case v < 0 || v > int64(dim):
			return nil, ctx.Errorf("Split size at index %d must be >= 0 and <= %d. Got: %d", i, dim, v)
		default:
			sizes[i] = int(v)
			known += int(v)
		}
	}
	if unknown >= 0 {
		if known > dim {
			return nil, ctx.Errorf("Determined shape must either match input shape along split_dim exactly if fully specified, or be less than the size of the input along split_dim if not fully specified.  Got: %d", known)
		}
		sizes[unknown] = dim - known
	} else if known != dim {
		return nil, ctx.Errorf("Determined shape must either match input shape along split_dim exactly if fully specified, or be less than the size of the input along split_dim if not fully specified.  Got: %d", known)
	}
	return splitBy(ctx, x, axis, sizes)
}

func unpackKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	rank := len(x.Shape)
	var a int64
	if ctx.HasAttr("axis") {
		a, _ = ctx.AttrInt("axis")
	}
	if a < -int64(rank) || a >= int64(rank) {
		return nil, ctx.Errorf("axis = %d not in [%d, %d)", a, -rank, rank)
	}
	axis := int(a)
	if axis < 0 {
		axis += rank
	}
	num := x.Shape[axis]
	if ctx.HasAttr("num") {
		if n, _ := ctx.AttrInt("num"); n != int64(num) {
			return nil, ctx.Errorf("Input shape axis %d must equal %d, got shape %s", axis, n, dimsString(x.Shape))
		}
	}
	outShape := append(append([]int{}, x.Shape[:axis]...), x.Shape[axis+1:]...)
	sizes := make([]int, num)
	for i := range sizes {
		sizes[i] = 1
	}
	outs, err := splitBy(ctx, x, axis, sizes)
	if err != nil {
		return nil, err
	}
	for _, o := range outs {
		o.Shape = cloneShape(outShape)
	}
	return outs, nil
}

func init() {
	Register("ConcatV2", concatV2Kernel)
	Register("Concat", concatKernel)
	Register("Pack", packKernel)
	Register("Split", splitKernel)
	Register("SplitV", splitVKernel)
	Register("Unpack", unpackKernel)
}
