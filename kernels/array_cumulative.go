package kernels

import "github.com/tfscan/tfscan/dtype"

// Cumsum and Cumprod (scan_ops.cc): a sequential scan along one axis with
// the exclusive and reverse attrs. Accumulation is in the tensor's own
// dtype, element by element along the axis, which is what Eigen's scan does
// on CPU: float32 partial sums are float32, and float16/bfloat16 partial
// sums are rounded to the storage type at every step. ctx.Emu.RoundAccum,
// when set, additionally rounds every partial sum/product of the float
// types (fp16-accumulation emulation).

func scanT[T any](src []T, outer, n, inner int, exclusive, reverse bool, init T, step func(a, b T) T) []T {
	out := make([]T, len(src))
	parallelFor(outer*inner, n, func(lo, hi int) {
		for w := lo; w < hi; w++ {
			o, in := w/inner, w%inner
			base := o*n*inner + in
			acc := init
			for k := 0; k < n; k++ {
				j := k
				if reverse {
					j = n - 1 - k
				}
				pos := base + j*inner
				if exclusive {
					out[pos] = acc
					acc = step(acc, src[pos])
				} else {
					acc = step(acc, src[pos])
					out[pos] = acc
				}
			}
		}
	})
	return out
}

func scanKernel(prod bool) KernelFunc {
	return func(ctx *Context) ([]*Tensor, error) {
		if err := wantInputs(ctx, 2); err != nil {
			return nil, err
		}
		x := ctx.Inputs[0]
		a, err := scalarIndex(ctx.Inputs[1], "axis")
		if err != nil {
			return nil, ctx.Errorf("ScanOp: %v", err)
		}
		rank := len(x.Shape)
		if a < -int64(rank) || a >= int64(rank) {
			return nil, ctx.Errorf("ScanOp: Expected scan axis in the range [%d, %d), but got %d", -rank, rank, a)
		}
		axis := int(a)
		if axis < 0 {
			axis += rank
		}
		exclusive, reverse := false, false
		if ctx.HasAttr("exclusive") {
			exclusive, _ = ctx.AttrBool("exclusive")
		}
		if ctx.HasAttr("reverse") {
			reverse, _ = ctx.AttrBool("reverse")
		}
		outer, n, inner := product(x.Shape[:axis]), x.Shape[axis], product(x.Shape[axis+1:])
		var rnd func(float32) float32
		if ctx.Emu != nil {
			rnd = ctx.Emu.RoundAccum
		}
		f32step := func(extra func(float32) float32) func(a, b float32) float32 {
			var base func(a, b float32) float32
			if prod {
				base = mulT[float32]
			} else {
				base = addT[float32]
			}
			if extra == nil && rnd == nil {
				return base
			}
			return func(a, b float32) float32 {
				v := base(a, b)
				if extra != nil {
					v = extra(v)
				}
				if rnd != nil {
					v = rnd(v)
				}
				return v
			}
		}
		out := &Tensor{DType: dtype.Base(x.DType), Shape: cloneShape(x.Shape)}
		switch d := x.Data.(type) {
		case []float32:
			out.Data = scanT(d, outer, n, inner, exclusive, reverse, identityFor[float32](prod), f32step(nil))
		case []float64:
			out.Data = scanNum(d, outer, n, inner, exclusive, reverse, prod)
		case []Float16:
			out.Data = narrowHalf(scanT(widenHalf(d), outer, n, inner, exclusive, reverse, identityFor[float32](prod), f32step(RoundFloat16)))
		case []BFloat16:
			out.Data = narrowBF16(scanT(widenBF16(d), outer, n, inner, exclusive, reverse, identityFor[float32](prod), f32step(RoundBFloat16)))
		case []int8:
			out.Data = scanNum(d, outer, n, inner, exclusive, reverse, prod)
		case []uint8:
			out.Data = scanNum(d, outer, n, inner, exclusive, reverse, prod)
		case []int16:
			out.Data = scanNum(d, outer, n, inner, exclusive, reverse, prod)
		case []uint16:
			out.Data = scanNum(d, outer, n, inner, exclusive, reverse, prod)
		case []int32:
			out.Data = scanNum(d, outer, n, inner, exclusive, reverse, prod)
		case []int64:
			out.Data = scanNum(d, outer, n, inner, exclusive, reverse, prod)
		case []uint32:
			out.Data = scanNum(d, outer, n, inner, exclusive, reverse, prod)
		case []uint64:
			out.Data = scanNum(d, outer, n, inner, exclusive, reverse, prod)
		default:
			return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
		}
		return []*Tensor{out}, nil
	}
}

func identityFor[T number](prod bool) T {
	if prod {
		return 1
	}
	return 0
}

func scanNum[T number](d []T, outer, n, inner int, exclusive, reverse, prod bool) []T {
	if prod {
		return scanT(d, outer, n, inner, exclusive, reverse, 1, mulT[T])
	}
	return scanT(d, outer, n, inner, exclusive, reverse, 0, addT[T])
}

func init() {
	Register("Cumsum", scanKernel(false))
	Register("Cumprod", scanKernel(true))
}
