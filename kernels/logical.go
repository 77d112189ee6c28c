package kernels

import (
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// Logical ops on DT_BOOL (cwise_op_logical_and.cc, _or.cc, _not.cc).
// LogicalAnd and LogicalOr broadcast like the other binary ops.

func logicalBinary(f func(a, b bool) bool) KernelFunc {
	return func(ctx *Context) ([]*Tensor, error) {
		if err := wantInputs(ctx, 2); err != nil {
			return nil, err
		}
		a, aok := ctx.Inputs[0].Data.([]bool)
		b, bok := ctx.Inputs[1].Data.([]bool)
		if !aok || !bok {
			return nil, ctx.Unsupported("dtype %s", dtypeName(ctx.Inputs[0].DType))
		}
		p, err := newBcastPlan(ctx.Inputs[0].Shape, ctx.Inputs[1].Shape)
		if err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		out := make([]bool, p.n)
		binaryBroadcast(p, a, b, out, 1, f)
		return []*Tensor{{DType: tpb.DataType_DT_BOOL, Shape: p.out, Data: out}}, nil
	}
}

func logicalNot(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	x, ok := ctx.Inputs[0].Data.([]bool)
	if !ok {
		return nil, ctx.Unsupported("dtype %s", dtypeName(ctx.Inputs[0].DType))
	}
	out := make([]bool, len(x))
	mapUnary(x, out, 1, func(v bool) bool { return !v })
	return []*Tensor{{DType: tpb.DataType_DT_BOOL, Shape: cloneShape(ctx.Inputs[0].Shape), Data: out}}, nil
}

func init() {
	Register("LogicalAnd", logicalBinary(func(a, b bool) bool { return a && b }))
	Register("LogicalOr", logicalBinary(func(a, b bool) bool { return a || b }))
	Register("LogicalNot", logicalNot)
}
