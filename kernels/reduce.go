package kernels

import (
	"math"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// Reductions (reduction_ops_*.cc, reduction_ops_common.cc, reduction_ops.h).
//
// Semantics, from TensorFlow:
//   - the axis input is an int32/int64 scalar or vector; negative axes count
//     from the end; an out-of-range axis is "Invalid reduction dimension",
//     a repeated one "Axes contains duplicate dimension" (SimplifyHelper);
//   - keep_dims keeps reduced dims as size 1;
//   - an empty reduction gives the reducer's identity: Sum 0, Prod 1, Max
//     -inf (lowest for integers), Min +inf (highest), Mean NaN for floats and
//     0 for integers (FIX_MEAN_IDENTITY), All true, Any false,
//     EuclideanNorm 0;
//   - Max/Min propagate NaN (MaxReducer<T, PropagateNaN>);
//   - integer Sum/Prod wrap; integer Mean sums in int64/uint64 and divides
//     with truncation (CASTING_SPECIALIZATION in reduction_ops.h).
//
// Accumulation: float32, float16 and bfloat16 inputs accumulate in float64
// and are rounded once at the end. TensorFlow's CPU kernels accumulate in
// float32 (half: in half) in Eigen's tree order, so our results are at least
// as accurate and may differ in the last bits. When ctx.Emu.RoundAccum is
// set, Sum, Mean and EuclideanNorm on float16/bfloat16/float32 instead
// accumulate sequentially in float32 and round every partial sum with it:
// this is how a target that accumulates in fp16 (fp16_acc16) is emulated.
// float64 inputs are never emulated.

// reduceGeom is the reduction after simplification: the input viewed as
// [outer, r, inner] (after an optional transpose), reduced over r.
type reduceGeom struct {
	outer, r, inner int
	perm            []int // nil, or the transpose that moves reduced axes last
	outShape        []int
}

// reduceGeometry computes the geometry for reducing shape over axes.
func reduceGeometry(shape []int, axes []int64, keepDims bool) (*reduceGeom, error) {
	rank := len(shape)
	bitmap := make([]bool, rank)
	for _, a := range axes {
		if a < -int64(rank) || a >= int64(rank) {
			return nil, errorf("Invalid reduction dimension (%d for input with %d dimension(s)", a, rank)
		}
		i := (a + int64(rank)) % int64(max(rank, 1))
		if bitmap[i] {
			return nil, errorf("Invalid reduction arguments: Axes contains duplicate dimension: %d", i)
		}
		bitmap[i] = true
	}
	g := &reduceGeom{}
	for i, d := range shape {
		if bitmap[i] {
			if keepDims {
				g.outShape = append(g.outShape, 1)
			}
			continue
		}
		g.outShape = append(g.outShape, d)
	}
	if g.outShape == nil {
		g.outShape = []int{}
	}
	// Segments of consecutive same-flag dims (size-1 dims ignored).
	type seg struct {
		size    int
		reduced bool
	}
	var segs []seg
	for i, d := range shape {
		if d == 1 {
			continue
		}
		if n := len(segs); n > 0 && segs[n-1].reduced == bitmap[i] {
			segs[n-1].size *= d
			continue
		}
		segs = append(segs, seg{d, bitmap[i]})
	}
	g.outer, g.r, g.inner = 1, 1, 1
	switch {
	case len(segs) == 0:
	case len(segs) == 1 && segs[0].reduced:
		g.r = segs[0].size
	case len(segs) == 1:
		g.outer = segs[0].size
	case len(segs) == 2 && segs[0].reduced:
		g.r, g.inner = segs[0].size, segs[1].size
	case len(segs) == 2:
		g.outer, g.r = segs[0].size, segs[1].size
	case len(segs) == 3 && !segs[0].reduced:
		g.outer, g.r, g.inner = segs[0].size, segs[1].size, segs[2].size
	default:
		// Move reduced axes last: [kept..., reduced...].
		var kept, red []int
		for i := range shape {
			if bitmap[i] {
				red = append(red, i)
			} else {
				kept = append(kept, i)
			}
		}
		g.perm = append(kept, red...)
		for _, i := range kept {
			g.outer *= shape[i]
		}
		for _, i := range red {
			g.r *= shape[i]
		}
	}
	return g, nil
}

// reduceCore reduces src viewed as [outer, r, inner] into out[outer*inner],
// calling step for every element in order along r.
func reduceCore[T, A any](src []T, g *reduceGeom, init A, step func(A, T) A, out []A) {
	outer, r, inner := g.outer, g.r, g.inner
	if inner == 1 {
		parallelFor(outer, r, func(lo, hi int) {
			for o := lo; o < hi; o++ {
				acc := init
				for _, v := range src[o*r : (o+1)*r] {
					acc = step(acc, v)
				}
				out[o] = acc
			}
		})
		return
	}
	// Column reduction: accumulate a contiguous inner block per r step.
	const chunk = 256
	chunks := (inner + chunk - 1) / chunk
	parallelFor(outer*chunks, r*min(chunk, inner), func(lo, hi int) {
		for w := lo; w < hi; w++ {
			o, c := w/chunks, w%chunks
			i0, i1 := c*chunk, min((c+1)*chunk, inner)
			acc := out[o*inner+i0 : o*inner+i1]
			for i := range acc {
				acc[i] = init
			}
			for k := 0; k < r; k++ {
				row := src[(o*r+k)*inner+i0 : (o*r+k)*inner+i1]
				for i, v := range row {
					acc[i] = step(acc[i], v)
				}
			}
		}
	})
}

// reduceWith runs reduceCore, transposing first if the geometry needs it.
func reduceWith[T, A any](src []T, shape []int, g *reduceGeom, init A, step func(A, T) A) []A {
	if g.perm != nil {
		src = transposeData(src, shape, g.perm)
	}
	out := make([]A, g.outer*g.inner)
	reduceCore(src, g, init, step, out)
	return out
}

// sumFloat64 is reduceWith for a float64-accumulated sum without a
// per-element function call (the hottest reduction in models: Mean/Sum in
// normalisation layers and pooling heads).
func sumFloat64[T float](src []T, shape []int, g *reduceGeom) []float64 {
	if g.perm != nil {
		src = transposeData(src, shape, g.perm)
	}
	outer, r, inner := g.outer, g.r, g.inner
	out := make([]float64, outer*inner)
	if inner == 1 {
		parallelFor(outer, r, func(lo, hi int) {
			for o := lo; o < hi; o++ {
				// Four partial sums break the dependency chain.
				var s0, s1, s2, s3 float64
				row := src[o*r : (o+1)*r]
				k := 0
				for ; k+4 <= len(row); k += 4 {
					s0 += float64(row[k])
					s1 += float64(row[k+1])
					s2 += float64(row[k+2])
					s3 += float64(row[k+3])
				}
				for ; k < len(row); k++ {
					s0 += float64(row[k])
				}
				out[o] = (s0 + s1) + (s2 + s3)
			}
		})
		return out
	}
	parallelFor(outer*inner, r, func(lo, hi int) {
		// Walk whole rows of the [outer, r, inner] view for this range.
		for w := lo; w < hi; {
			o, i0 := w/inner, w%inner
			i1 := min(inner, i0+(hi-w))
			acc := out[o*inner+i0 : o*inner+i1]
			for k := 0; k < r; k++ {
				row := src[(o*r+k)*inner+i0 : (o*r+k)*inner+i1]
				for i, v := range row {
					acc[i] += float64(v)
				}
			}
			w += i1 - i0
		}
	})
	return out
}

func finish[A, T any](acc []A, f func(A) T) []T {
	out := make([]T, len(acc))
	mapUnary(acc, out, 1, f)
	return out
}

// reduceFloats reduces float64-convertible values (float32 widened, or
// float64) for kind; count is the number of reduced elements.
func reduceFloats[T float](kind string, src []T, shape []int, g *reduceGeom) []T {
	n := float64(g.r)
	switch kind {
	case "Sum":
		return finish(sumFloat64(src, shape, g), func(a float64) T { return T(a) })
	case "Mean":
		return finish(sumFloat64(src, shape, g), func(a float64) T { return T(a / n) })
	case "Prod":
		return finish(reduceWith(src, shape, g, 1.0, func(a float64, v T) float64 { return a * float64(v) }),
			func(a float64) T { return T(a) })
	case "EuclideanNorm":
		return finish(reduceWith(src, shape, g, 0.0, func(a float64, v T) float64 { return a + float64(v)*float64(v) }),
			func(a float64) T { return T(math.Sqrt(a)) })
	case "Max":
		return reduceWith(src, shape, g, T(math.Inf(-1)), maxT[T])
	case "Min":
		return reduceWith(src, shape, g, T(math.Inf(1)), minT[T])
	}
	return nil
}

// reduceRounded is the RoundAccum emulation: sequential float32 sums with
// every partial sum rounded by rnd.
func reduceRounded(kind string, src []float32, shape []int, g *reduceGeom, rnd func(float32) float32) []float32 {
	switch kind {
	case "Sum", "Mean":
		acc := reduceWith(src, shape, g, float32(0), func(a, v float32) float32 { return rnd(a + v) })
		if kind == "Mean" {
			n := float32(g.r)
			for i := range acc {
				acc[i] = acc[i] / n
			}
		}
		return acc
	case "EuclideanNorm":
		acc := reduceWith(src, shape, g, float32(0), func(a, v float32) float32 { return rnd(a + v*v) })
		for i := range acc {
			acc[i] = float32(math.Sqrt(float64(acc[i])))
		}
		return acc
	}
	return reduceFloats(kind, src, shape, g)
}

func reduceInts[T integer](kind string, src []T, shape []int, g *reduceGeom, lowest, highest T) []T {
	switch kind {
	case "Sum":
		return reduceWith(src, shape, g, T(0), addT[T])
	case "Prod":
		return reduceWith(src, shape, g, T(1), mulT[T])
	case "Max":
		return reduceWith(src, shape, g, lowest, maxT[T])
	case "Min":
		return reduceWith(src, shape, g, highest, minT[T])
	case "EuclideanNorm":
		// Eigen: sqrt of the (wrapping) integer sum of squares, truncated.
		return finish(reduceWith(src, shape, g, T(0), func(a, v T) T { return a + v*v }),
			func(a T) T { return T(math.Sqrt(float64(a))) })
	case "Mean":
		if g.r == 0 {
			return make([]T, g.outer*g.inner)
		}
		if lowest < 0 {
			n := int64(g.r)
			return finish(reduceWith(src, shape, g, int64(0), func(a int64, v T) int64 { return a + int64(v) }),
				func(a int64) T { return T(a / n) })
		}
		n := uint64(g.r)
		return finish(reduceWith(src, shape, g, uint64(0), func(a uint64, v T) uint64 { return a + uint64(v) }),
			func(a uint64) T { return T(a / n) })
	}
	return nil
}

func reduceKernel(kind string) KernelFunc {
	return func(ctx *Context) ([]*Tensor, error) {
		if err := wantInputs(ctx, 2); err != nil {
			return nil, err
		}
		x := ctx.Inputs[0]
		axes, err := indexValues(ctx.Inputs[1])
		if err != nil {
			return nil, ctx.Errorf("reduction_indices: %v", err)
		}
		keep := false
		if ctx.HasAttr("keep_dims") {
			keep, _ = ctx.AttrBool("keep_dims")
		}
		g, err := reduceGeometry(x.Shape, axes, keep)
		if err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		var rnd func(float32) float32
		if ctx.Emu != nil {
			rnd = ctx.Emu.RoundAccum
		}
		out := &Tensor{DType: dtype.Base(x.DType), Shape: g.outShape}
		switch d := x.Data.(type) {
		case []float32:
			if rnd != nil {
				out.Data = reduceRounded(kind, d, x.Shape, g, rnd)
			} else {
				out.Data = reduceFloats(kind, d, x.Shape, g)
			}
		case []float64:
			out.Data = reduceFloats(kind, d, x.Shape, g)
		case []Float16:
			if r := reduceHalfLike(kind, widenHalf(d), x.Shape, g, rnd); r != nil {
				out.Data = narrowHalf(r)
			}
		case []BFloat16:
			if r := reduceHalfLike(kind, widenBF16(d), x.Shape, g, rnd); r != nil {
				out.Data = narrowBF16(r)
			}
		case []int8:
			out.Data = reduceInts(kind, d, x.Shape, g, math.MinInt8, math.MaxInt8)
		case []uint8:
			out.Data = reduceInts(kind, d, x.Shape, g, 0, math.MaxUint8)
		case []int16:
			out.Data = reduceInts(kind, d, x.Shape, g, math.MinInt16, math.MaxInt16)
		case []uint16:
			out.Data = reduceInts(kind, d, x.Shape, g, 0, math.MaxUint16)
		case []int32:
			out.Data = reduceInts(kind, d, x.Shape, g, math.MinInt32, math.MaxInt32)
		case []int64:
			out.Data = reduceInts(kind, d, x.Shape, g, math.MinInt64, math.MaxInt64)
		case []uint32:
			out.Data = reduceInts(kind, d, x.Shape, g, 0, math.MaxUint32)
		case []uint64:
			out.Data = reduceInts(kind, d, x.Shape, g, 0, math.MaxUint64)
		case []complex64:
			if r := reduceComplex(kind, widenC64(d), x.Shape, g); r != nil {
				out.Data = mapTo(r, func(v complex128) complex64 { return complex64(v) })
			}
		case []complex128:
			if r := reduceComplex(kind, d, x.Shape, g); r != nil {
				out.Data = r
			}
		case []bool:
			switch kind {
			case "All":
				out.Data = reduceWith(d, x.Shape, g, true, func(a, v bool) bool { return a && v })
			case "Any":
				out.Data = reduceWith(d, x.Shape, g, false, func(a, v bool) bool { return a || v })
			}
		}
		if out.Data == nil || isNilSlice(out.Data) {
			return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
		}
		if kind == "All" || kind == "Any" {
			if _, ok := x.Data.([]bool); !ok {
				return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
			}
		}
		return []*Tensor{out}, nil
	}
}

func reduceHalfLike(kind string, f []float32, shape []int, g *reduceGeom, rnd func(float32) float32) []float32 {
	if rnd != nil {
		return reduceRounded(kind, f, shape, g, rnd)
	}
	return reduceFloats(kind, f, shape, g)
}

func init() {
	for _, k := range []string{"Sum", "Mean", "Prod", "Max", "Min", "EuclideanNorm", "All", "Any"} {
		Register(k, reduceKernel(k))
	}
	Register("ArgMax", argKernel(true))
	Register("ArgMin", argKernel(false))
}

// argKernel is ArgMax/ArgMin (argmax_op.cc): the index of the first
// extreme value along one axis; output_type int32 or int64. A reduced axis
// of size 0 is an error. NaN: Eigen's ArgMax/ArgMin tuple reducers compare
// with < and >, so a NaN never becomes the extreme (unlike NumPy, which
// returns the first NaN); a slice of only NaNs gives index 0. The kernel
// goldens (kernels/testdata/tf) hold this to TensorFlow.
func argKernel(isMax bool) KernelFunc {
	return func(ctx *Context) ([]*Tensor, error) {
		if err := wantInputs(ctx, 2); err != nil {
			return nil, err
		}
		x := ctx.Inputs[0]
		a, err := scalarIndex(ctx.Inputs[1], "dimension")
		if err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		rank := len(x.Shape)
		if a < -int64(max(rank, 1)) || a >= int64(max(rank, 1)) {
			return nil, ctx.Errorf("Expected dimension in the range [%d, %d), but got %d", -rank, rank, a)
		}
		if rank == 0 {
			return nil, ctx.Errorf("Expected dimension in the range [0, 0), but got %d", a)
		}
		axis := int(a)
		if axis < 0 {
			axis += rank
		}
		if x.Shape[axis] == 0 {
			return nil, ctx.Errorf("Reduction axis %d is empty in shape %s", axis, dimsString(x.Shape))
		}
		outType := tpb.DataType_DT_INT64
		if ctx.HasAttr("output_type") {
			if outType, err = ctx.AttrType("output_type"); err != nil {
				return nil, err
			}
		}
		g, _ := reduceGeometry(x.Shape, []int64{int64(axis)}, false)
		var idx []int64
		switch d := x.Data.(type) {
		case []float32:
			idx = argReduce(d, x.Shape, g, isMax)
		case []float64:
			idx = argReduce(d, x.Shape, g, isMax)
		case []Float16:
			idx = argReduce(widenHalf(d), x.Shape, g, isMax)
		case []BFloat16:
			idx = argReduce(widenBF16(d), x.Shape, g, isMax)
		case []int8:
			idx = argReduce(d, x.Shape, g, isMax)
		case []uint8:
			idx = argReduce(d, x.Shape, g, isMax)
		case []int16:
			idx = argReduce(d, x.Shape, g, isMax)
		case []uint16:
			idx = argReduce(d, x.Shape, g, isMax)
		case []int32:
			idx = argReduce(d, x.Shape, g, isMax)
		case []int64:
			idx = argReduce(d, x.Shape, g, isMax)
		case []uint32:
			idx = argReduce(d, x.Shape, g, isMax)
		case []uint64:
			idx = argReduce(d, x.Shape, g, isMax)
		case []bool:
			b := make([]uint8, len(d))
			for i, v := range d {
				if v {
					b[i] = 1
				}
			}
			idx = argReduce(b, x.Shape, g, isMax)
		default:
			return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
		}
		out := &Tensor{DType: outType, Shape: g.outShape}
		switch outType {
		case tpb.DataType_DT_INT64:
			out.Data = idx
		case tpb.DataType_DT_INT32:
			out.Data = mapTo(idx, func(v int64) int32 { return int32(v) })
		case tpb.DataType_DT_INT16:
			out.Data = mapTo(idx, func(v int64) int16 { return int16(v) })
		case tpb.DataType_DT_UINT16:
			out.Data = mapTo(idx, func(v int64) uint16 { return uint16(v) })
		default:
			return nil, ctx.Unsupported("output_type %s", dtypeName(outType))
		}
		return []*Tensor{out}, nil
	}
}

// argState tracks the best value and its index during an arg reduction.
type argState[T any] struct {
	v   T
	i   int64
	n   int64 // elements seen
	nan bool
}

func argReduce[T number](src []T, shape []int, g *reduceGeom, isMax bool) []int64 {
	step := func(s argState[T], v T) argState[T] {
		k := s.n
		s.n++
		if v != v { // NaN never compares greater or less: it never wins
			return s
		}
		if !s.nan || (isMax && v > s.v) || (!isMax && v < s.v) {
			s.v, s.i, s.nan = v, k, true // nan: a value has been seen
		}
		return s
	}
	acc := reduceWith(src, shape, g, argState[T]{}, step)
	return finish(acc, func(s argState[T]) int64 { return s.i })
}
