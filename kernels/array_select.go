package kernels

import (
	"slices"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// Select, SelectV2, Where and ClipByValue (cwise_op_select.cc, where_op.cc,
// cwise_op_clip.cc).

// selectBroadcast computes out = cond ? t : e over the broadcast of three
// inputs (SelectV2).
func selectBroadcast[T any](p *bcastPlan, cond []bool, t, e []T) []T {
	out := make([]T, p.n)
	_, steps := p.inner()
	parallelFor(p.n, 1, func(lo, hi int) {
		p.runs(lo, hi, func(o int, offs []int, n int) {
			for i := 0; i < n; i++ {
				if cond[offs[0]+i*steps[0]] {
					out[o+i] = t[offs[1]+i*steps[1]]
				} else {
					out[o+i] = e[offs[2]+i*steps[2]]
				}
			}
		})
	})
	return out
}

func selTyped[T any](p *bcastPlan, cond []bool, t []T, eAny any) ([]T, bool) {
	e, ok := eAny.([]T)
	if !ok {
		return nil, false
	}
	return selectBroadcast(p, cond, t, e), true
}

// selectWith dispatches on the element type of t.
func selectWith(p *bcastPlan, cond []bool, t, e *Tensor) (any, bool) {
	switch d := t.Data.(type) {
	case []float32:
		return selTyped(p, cond, d, e.Data)
	case []float64:
		return selTyped(p, cond, d, e.Data)
	case []Float16:
		return selTyped(p, cond, d, e.Data)
	case []BFloat16:
		return selTyped(p, cond, d, e.Data)
	case []int8:
		return selTyped(p, cond, d, e.Data)
	case []uint8:
		return selTyped(p, cond, d, e.Data)
	case []int16:
		return selTyped(p, cond, d, e.Data)
	case []uint16:
		return selTyped(p, cond, d, e.Data)
	case []int32:
		return selTyped(p, cond, d, e.Data)
	case []int64:
		return selTyped(p, cond, d, e.Data)
	case []uint32:
		return selTyped(p, cond, d, e.Data)
	case []uint64:
		return selTyped(p, cond, d, e.Data)
	case []bool:
		return selTyped(p, cond, d, e.Data)
	case [][]byte:
		return selTyped(p, cond, d, e.Data)
	}
	return nil, false
}

func selectKernel(v2 bool) KernelFunc {
	return func(ctx *Context) ([]*Tensor, error) {
		if err := wantInputs(ctx, 3); err != nil {
			return nil, err
		}
		c, t, e := ctx.Inputs[0], ctx.Inputs[1], ctx.Inputs[2]
		cond, ok := c.Data.([]bool)
		if !ok {
			return nil, ctx.Errorf("condition must be bool, got %s", dtypeName(c.DType))
		}
		if dtype.Base(t.DType) != dtype.Base(e.DType) {
			return nil, ctx.Errorf("then and else have different dtypes")
		}
		var p *bcastPlan
		var err error
		if v2 {
			if p, err = newBcastPlan(c.Shape, t.Shape, e.Shape); err != nil {
				return nil, ctx.Errorf("%v", err)
			}
		} else {
			// Select (v1): t and e must have the same shape; cond is the
			// same shape, a scalar, or a vector matching their first dim.
			if !slices.Equal(t.Shape, e.Shape) {
				return nil, ctx.Errorf("'then' and 'else' must have the same size.  but received: %s vs. %s",
					dimsString(t.Shape), dimsString(e.Shape))
			}
			cshape := c.Shape
			switch {
			case slices.Equal(c.Shape, t.Shape), len(c.Shape) == 0:
			case len(c.Shape) == 1 && len(t.Shape) >= 1 && c.Shape[0] == t.Shape[0]:
				cshape = make([]int, len(t.Shape))
				for i := range cshape {
					cshape[i] = 1
				}
				cshape[0] = c.Shape[0]
			default:
				return nil, ctx.Errorf("'cond' must be a scalar, a vector of size %d, or a tensor of shape %s, got %s",
					firstDim(t.Shape), dimsString(t.Shape), dimsString(c.Shape))
			}
			p = planFor(cloneShape(t.Shape), [][]int{cshape, t.Shape, e.Shape})
		}
		data, ok := selectWith(p, cond, t, e)
		if !ok {
			return nil, ctx.Unsupported("dtype %s", dtypeName(t.DType))
		}
		return []*Tensor{{DType: dtype.Base(t.DType), Shape: p.out, Data: data}}, nil
	}
}

func firstDim(s []int) int {
	if len(s) == 0 {
		return 0
	}
	return s[0]
}

// whereCoords returns the coordinates of the true/non-zero elements in
// row-major order, as an [N, rank] int64 matrix.
func whereCoords[T comparable](d []T, shape []int) *Tensor {
	var zero T
	rank := len(shape)
	var coords []int64
	idx := make([]int, rank)
	for i, v := range d {
		if v != zero {
			rem := i
			for k := rank - 1; k >= 0; k-- {
				idx[k] = rem % shape[k]
				rem /= shape[k]
			}
			for _, x := range idx {
				coords = append(coords, int64(x))
			}
		}
	}
	n := 0
	if rank > 0 {
		n = len(coords) / rank
	} else {
		for _, v := range d {
			if v != zero {
				n++
			}
		}
	}
	if coords == nil {
		coords = []int64{}
	}
	return &Tensor{DType: tpb.DataType_DT_INT64, Shape: []int{n, rank}, Data: coords}
}

func whereKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 1); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	var out *Tensor
	switch d := x.Data.(type) {
	case []bool:
		out = whereCoords(d, x.Shape)
	case []float32:
		out = whereCoords(d, x.Shape)
	case []float64:
		out = whereCoords(d, x.Shape)
	case []Float16: // +0 and -0 are both zero
		out = whereCoords(mapTo(d, Float16.Float32), x.Shape)
	case []BFloat16:
		out = whereCoords(mapTo(d, BFloat16.Float32), x.Shape)
	case []int8:
		out = whereCoords(d, x.Shape)
	case []uint8:
		out = whereCoords(d, x.Shape)
	case []int16:
		out = whereCoords(d, x.Shape)
	case []uint16:
		out = whereCoords(d, x.Shape)
	case []int32:
		out = whereCoords(d, x.Shape)
	case []int64:
		out = whereCoords(d, x.Shape)
	case []uint32:
		out = whereCoords(d, x.Shape)
	case []uint64:
		out = whereCoords(d, x.Shape)
	default:
		return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
	}
	return []*Tensor{out}, nil
}

// clipMin and clipMax are Eigen's cwiseMin/cwiseMax (std::min/std::max:
// a NaN in x stays NaN, a NaN bound is ignored).
func clipT[T number](x, lo, hi T) T {
	if hi < x {
		x = hi
	}
	if x < lo {
		x = lo
	}
	return x
}

func clipTyped[T number](p *bcastPlan, x []T, loAny, hiAny any) ([]T, bool) {
	lo, ok1 := loAny.([]T)
	hi, ok2 := hiAny.([]T)
	if !ok1 || !ok2 {
		return nil, false
	}
	out := make([]T, p.n)
	_, steps := p.inner()
	parallelFor(p.n, 1, func(a, b int) {
		p.runs(a, b, func(o int, offs []int, n int) {
			for i := 0; i < n; i++ {
				out[o+i] = clipT(x[offs[0]+i*steps[0]], lo[offs[1]+i*steps[1]], hi[offs[2]+i*steps[2]])
			}
		})
	})
	return out, true
}

func clipKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 3); err != nil {
		return nil, err
	}
	x, lo, hi := ctx.Inputs[0], ctx.Inputs[1], ctx.Inputs[2]
	for _, b := range []*Tensor{lo, hi} {
		if len(b.Shape) != 0 && !slices.Equal(b.Shape, x.Shape) {
			return nil, ctx.Errorf("clip_value_min and clip_value_max must be either scalars or have the same shape as the input: %s vs. %s vs. %s",
				dimsString(x.Shape), dimsString(lo.Shape), dimsString(hi.Shape))
		}
	}
	p := planFor(cloneShape(x.Shape), [][]int{x.Shape, lo.Shape, hi.Shape})
	var data any
	ok := true
	switch d := x.Data.(type) {
	case []float32:
		data, ok = clipTyped(p, d, lo.Data, hi.Data)
	case []float64:
		data, ok = clipTyped(p, d, lo.Data, hi.Data)
	case []int8:
		data, ok = clipTyped(p, d, lo.Data, hi.Data)
	case []uint8:
		data, ok = clipTyped(p, d, lo.Data, hi.Data)
	case []int16:
		data, ok = clipTyped(p, d, lo.Data, hi.Data)
	case []uint16:
		data, ok = clipTyped(p, d, lo.Data, hi.Data)
	case []int32:
		data, ok = clipTyped(p, d, lo.Data, hi.Data)
	case []int64:
		data, ok = clipTyped(p, d, lo.Data, hi.Data)
	case []Float16:
		l, lok := lo.Data.([]Float16)
		h, hok := hi.Data.([]Float16)
		if !lok || !hok {
			return nil, ctx.Errorf("bounds dtype does not match input")
		}
		var r []float32
		if r, ok = clipTyped(p, widenHalf(d), widenHalf(l), widenHalf(h)); ok {
			data = narrowHalf(r)
		}
	case []BFloat16:
		l, lok := lo.Data.([]BFloat16)
		h, hok := hi.Data.([]BFloat16)
		if !lok || !hok {
			return nil, ctx.Errorf("bounds dtype does not match input")
		}
		var r []float32
		if r, ok = clipTyped(p, widenBF16(d), widenBF16(l), widenBF16(h)); ok {
			data = narrowBF16(r)
		}
	default:
		return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
	}
	if !ok {
		return nil, ctx.Errorf("bounds dtype does not match input")
	}
	return []*Tensor{{DType: dtype.Base(x.DType), Shape: cloneShape(x.Shape), Data: data}}, nil
}

func init() {
	Register("Select", selectKernel(false))
	Register("SelectV2", selectKernel(true))
	Register("Where", whereKernel)
	Register("ClipByValue", clipKernel)
}
