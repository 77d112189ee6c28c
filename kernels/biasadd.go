package kernels

import tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

// BiasAdd and BiasAddV1, after TensorFlow's bias_op.cc: value [..., C] +
// bias [C] along the last dim (NHWC), or along dim 1 for NCHW (BiasAdd
// only). Floats, and int32/int64 (TF_CALL_NUMBER_TYPES).

func init() {
	Register("BiasAdd", func(ctx *Context) ([]*Tensor, error) { return biasAddKernel(ctx, true) })
	Register("BiasAddV1", func(ctx *Context) ([]*Tensor, error) { return biasAddKernel(ctx, false) })
}

func biasAddKernel(ctx *Context, hasFormat bool) ([]*Tensor, error) {
	if err := nnInputs(ctx, 2); err != nil {
		return nil, err
	}
	x, b := ctx.Inputs[0], ctx.Inputs[1]
	cl := true
	if hasFormat {
		var err error
		if cl, err = dataFormatChannelsLast(ctx); err != nil {
			return nil, err
		}
	}
	if len(x.Shape) < 2 {
		return nil, ctx.Errorf("input must be at least 2-dimensional, got shape %v", x.Shape)
	}
	if len(b.Shape) != 1 {
		return nil, ctx.Errorf("bias must be 1-dimensional, got shape %v", b.Shape)
	}
	if x.DType != b.DType {
		return nil, ctx.Errorf("bias dtype %s differs from value dtype %s", b.DType, x.DType)
	}
	cdim := len(x.Shape) - 1
	if !cl {
		cdim = 1
	}
	if x.Shape[cdim] != b.Shape[0] {
		return nil, ctx.Errorf("must provide as many biases as the channel dimension of the input tensor: %v vs. %v", b.Shape, x.Shape)
	}
	inner := 1
	for _, d := range x.Shape[cdim+1:] {
		inner *= d
	}
	c := b.Shape[0]
	switch x.DType {
	case tpb.DataType_DT_INT32:
		return []*Tensor{{DType: x.DType, Shape: nnCloneShape(x.Shape), Data: biasAddData(x.Data.([]int32), b.Data.([]int32), c, inner)}}, nil
	case tpb.DataType_DT_INT64:
		return []*Tensor{{DType: x.DType, Shape: nnCloneShape(x.Shape), Data: biasAddData(x.Data.([]int64), b.Data.([]int64), c, inner)}}, nil
	}
	return byFloat(ctx, x.DType, allFloats,
		func(ctx *Context) ([]*Tensor, error) { return biasAddFloat[float32](ctx, c, inner) },
		func(ctx *Context) ([]*Tensor, error) { return biasAddFloat[float64](ctx, c, inner) })
}

func biasAddFloat[T nnFloat](ctx *Context, c, inner int) ([]*Tensor, error) {
	x, b := ctx.Inputs[0], ctx.Inputs[1]
	xd, err := floatsOf[T](x)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	bd, err := floatsOf[T](b)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	if d, ok := x.Data.([]T); ok && ctx.Owns(0) && inner == 1 && c > 0 {
		addBiasInPlace(d, bd, c)
		return []*Tensor{tensorFrom(x.DType, nnCloneShape(x.Shape), d)}, nil
	}
	return []*Tensor{tensorFrom(x.DType, nnCloneShape(x.Shape), biasAddData(xd, bd, c, inner))}, nil
}

// biasAddData returns x + bias where x is [outer, c, inner].
func biasAddData[T nnFloat | int32 | int64](x, bias []T, c, inner int) []T {
	out := make([]T, len(x))
	if c == 0 || inner == 0 {
		return out
	}
	outer := len(x) / (c * inner)
	nnParallel(outer, c*inner, func(o int) {
		base := o * c * inner
		if inner == 1 {
			dst, src := out[base:base+c], x[base:base+c]
			bb := bias[:c]
			for j := range dst {
				dst[j] = src[j] + bb[j]
			}
			return
		}
		for j := 0; j < c; j++ {
			bv := bias[j]
			dst, src := out[base+j*inner:base+(j+1)*inner], x[base+j*inner:base+(j+1)*inner]
			for i := range dst {
				dst[i] = src[i] + bv
			}
		}
	})
	return out
}

// addBiasInPlace adds bias [c] along the last dim of x [rows, c].
func addBiasInPlace[T nnFloat](x, bias []T, c int) {
	if c == 0 {
		return
	}
	rows := len(x) / c
	x32, _ := any(x).([]float32)
	b32, _ := any(bias).([]float32)
	fast := vec32 != nil && x32 != nil
	nnParallel(rows, c, func(r int) {
		if fast {
			row := x32[r*c : (r+1)*c]
			vec32(vecAdd, row, row, b32[:c], true, true)
			return
		}
		row := x[r*c : (r+1)*c]
		bb := bias[:len(row)]
		for j := range row {
			row[j] += bb[j]
		}
	})
}
