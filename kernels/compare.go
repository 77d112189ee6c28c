package kernels

import (
	"bytes"
	"cmp"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// Comparisons with broadcasting and a bool output
// (cwise_op_equal_to_*.cc, cwise_op_not_equal_to_*.cc, cwise_op_less*.cc,
// cwise_op_greater*.cc). IEEE semantics: any comparison with NaN is false
// except NotEqual, which is true. float16 and bfloat16 compare exactly after
// widening to float32.

// cmpOrdered lists the dtypes with ordering kernels in TF 2.15 on CPU: all
// real number types (bool and string only have Equal/NotEqual).
func compareKernel(op string) KernelFunc {
	return func(ctx *Context) ([]*Tensor, error) {
		if err := wantInputs(ctx, 2); err != nil {
			return nil, err
		}
		a, b := ctx.Inputs[0], ctx.Inputs[1]
		if dtype.Base(a.DType) != dtype.Base(b.DType) {
			return nil, ctx.Errorf("operands have different dtypes %s and %s", dtypeName(a.DType), dtypeName(b.DType))
		}
		p, err := newBcastPlan(a.Shape, b.Shape)
		if err != nil {
			// Equal/NotEqual with incompatible_shape_error=false return a
			// scalar: false for Equal, true for NotEqual (cwise_ops_common.h
			// BinaryOp::Compute).
			if (op == "Equal" || op == "NotEqual") && ctx.HasAttr("incompatible_shape_error") {
				if strict, _ := ctx.AttrBool("incompatible_shape_error"); !strict {
					return []*Tensor{ScalarBool(op == "NotEqual")}, nil
				}
			}
			return nil, ctx.Errorf("%v", err)
		}
		var res []bool
		ok := true
		switch ad := a.Data.(type) {
		case []float32:
			res, ok = cmpTyped(p, ad, b.Data, op)
		case []float64:
			res, ok = cmpTyped(p, ad, b.Data, op)
		case []Float16:
			bd, isT := b.Data.([]Float16)
			if !isT {
				return nil, ctx.Errorf("operand 1 data does not match its dtype")
			}
			res, ok = cmpTyped(p, widenHalf(ad), any(widenHalf(bd)), op)
		case []BFloat16:
			bd, isT := b.Data.([]BFloat16)
			if !isT {
				return nil, ctx.Errorf("operand 1 data does not match its dtype")
			}
			res, ok = cmpTyped(p, widenBF16(ad), any(widenBF16(bd)), op)
		case []int8:
			res, ok = cmpTyped(p, ad, b.Data, op)
		case []uint8:
			res, ok = cmpTyped(p, ad, b.Data, op)
		case []int16:
			res, ok = cmpTyped(p, ad, b.Data, op)
		case []uint16:
			res, ok = cmpTyped(p, ad, b.Data, op)
		case []int32:
			res, ok = cmpTyped(p, ad, b.Data, op)
		case []int64:
			res, ok = cmpTyped(p, ad, b.Data, op)
		case []uint32:
			res, ok = cmpTyped(p, ad, b.Data, op)
		case []uint64:
			res, ok = cmpTyped(p, ad, b.Data, op)
		case []bool:
			res, ok = eqTyped(p, ad, b.Data, op, func(x, y bool) bool { return x == y })
		case [][]byte:
			res, ok = eqTyped(p, ad, b.Data, op, func(x, y []byte) bool { return bytes.Equal(x, y) })
		case []complex64:
			res, ok = eqTyped(p, ad, b.Data, op, func(x, y complex64) bool { return x == y })
		case []complex128:
			res, ok = eqTyped(p, ad, b.Data, op, func(x, y complex128) bool { return x == y })
		default:
			return nil, ctx.Unsupported("dtype %s", dtypeName(a.DType))
		}
		if !ok {
			return nil, ctx.Errorf("operand 1 data does not match its dtype")
		}
		if res == nil {
			return nil, ctx.Unsupported("dtype %s", dtypeName(a.DType))
		}
		return []*Tensor{{DType: tpb.DataType_DT_BOOL, Shape: p.out, Data: res}}, nil
	}
}

// cmpTyped compares ordered values. ok is false when b's data has another
// Go type than a's.
func cmpTyped[T cmp.Ordered](p *bcastPlan, a []T, bAny any, op string) ([]bool, bool) {
	b, ok := bAny.([]T)
	if !ok {
		return nil, false
	}
	var f func(x, y T) bool
	switch op {
	case "Equal":
		f = func(x, y T) bool { return x == y }
	case "NotEqual":
		f = func(x, y T) bool { return x != y }
	case "Less":
		f = func(x, y T) bool { return x < y }
	case "LessEqual":
		f = func(x, y T) bool { return x <= y }
	case "Greater":
		f = func(x, y T) bool { return x > y }
	case "GreaterEqual":
		f = func(x, y T) bool { return x >= y }
	}
	out := make([]bool, p.n)
	binaryBroadcast(p, a, b, out, 1, f)
	return out, true
}

// eqTyped handles Equal/NotEqual for bool, string and complex (both parts
// equal); other comparisons
// have no kernel for them (nil result).
func eqTyped[T any](p *bcastPlan, a []T, bAny any, op string, eq func(x, y T) bool) ([]bool, bool) {
	b, ok := bAny.([]T)
	if !ok {
		return nil, false
	}
	var f func(x, y T) bool
	switch op {
	case "Equal":
		f = eq
	case "NotEqual":
		f = func(x, y T) bool { return !eq(x, y) }
	default:
		return nil, true
	}
	out := make([]bool, p.n)
	binaryBroadcast(p, a, b, out, 1, f)
	return out, true
}

func init() {
	for _, op := range []string{"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual"} {
		Register(op, compareKernel(op))
	}
}
