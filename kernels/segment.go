package kernels

import (
	"math"
	"slices"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// Segment reductions (core/kernels/segment_reduction_ops_impl.h and
// segment_reduction_ops_impl_{1..5}.cc), as embedding and graph models use
// them:
//
//   - SegmentSum/Mean/Prod/Max/Min: sorted segment ids along dimension 0;
//     output rows = last id + 1; a missing segment is 0 for every op (the
//     kernel's default_value). A one-row segment is copied; a longer one is
//     reduced in row order from Eigen's reducer identity (0, 1, -inf/lowest,
//     +inf/highest) in the data's own dtype.
//   - UnsortedSegmentSum/Max/Min/Prod: segment ids of any shape that prefixes
//     data's; negative ids are dropped; the output starts at Zero, Lowest
//     (numeric_limits::lowest, i.e. -FLT_MAX for float, not -inf), Highest or
//     One and rows are combined in input order.
//   - SparseSegmentSum/Mean/SqrtN (+WithNumSegments): rows picked by indices,
//     summed in the grouped order of SparseSegmentReductionOpBase::ReduceImpl
//     (a first group of r = num&7 rows, or 8/9, scaled by 1/num or
//     1/sqrt(num) when num < 10, then groups of 8, then divided when
//     num >= 10); half and bfloat16 are summed in float32 and rounded once.
//
// Every op is registered by TensorFlow on CPU for TF_CALL_REAL_NUMBER_TYPES
// (Mean and SqrtN of the sparse ops only for float types). For half and
// bfloat16 the dense segment ops compute in the dtype itself: each add or
// multiply is rounded to it, as Eigen's scalar half/bfloat16 arithmetic does.
//
// Max and Min follow Eigen's scalar rule maxi(x, acc) = (x < acc) ? acc : x,
// so a NaN row propagates until a later row replaces it; TensorFlow's
// vectorised CPU path can order NaNs differently.

type segKind int

const (
	segSum segKind = iota
	segMean
	segProd
	segMax
	segMin
	segSqrtN
)

// segCombine folds src into acc elementwise: acc = acc (op) src.
func segCombine[T number](k segKind, acc, src []T) {
	src = src[:len(acc)]
	switch k {
	case segSum, segMean:
		for i, v := range src {
			acc[i] += v
		}
	case segProd:
		for i, v := range src {
			acc[i] *= v
		}
	case segMax:
		for i, v := range src {
			if !(v < acc[i]) {
				acc[i] = v
			}
		}
	case segMin:
		for i, v := range src {
			if !(acc[i] < v) {
				acc[i] = v
			}
		}
	}
}

// segLimits returns numeric_limits<T>::lowest() and highest() and, for
// floats, -inf and +inf (integers: lowest and highest again), the initial
// values of Eigen's and TensorFlow's max/min reducers.
func segLimits[T number]() (lowest, highest, negInf, posInf T) {
	var lo, hi, ni, pi any
	switch any(lowest).(type) {
	case float32:
		lo, hi, ni, pi = float32(-math.MaxFloat32), float32(math.MaxFloat32), float32(math.Inf(-1)), float32(math.Inf(1))
	case float64:
		lo, hi, ni, pi = -math.MaxFloat64, math.MaxFloat64, math.Inf(-1), math.Inf(1)
	case int8:
		lo, hi = int8(math.MinInt8), int8(math.MaxInt8)
	case uint8:
		lo, hi = uint8(0), uint8(math.MaxUint8)
	case int16:
		lo, hi = int16(math.MinInt16), int16(math.MaxInt16)
	case uint16:
		lo, hi = uint16(0), uint16(math.MaxUint16)
	case int32:
		lo, hi = int32(math.MinInt32), int32(math.MaxInt32)
	case uint32:
		lo, hi = uint32(0), uint32(math.MaxUint32)
	case int64:
		lo, hi = int64(math.MinInt64), int64(math.MaxInt64)
	case uint64:
		lo, hi = uint64(0), uint64(math.MaxUint64)
	}
	if ni == nil {
		ni, pi = lo, hi
	}
	return lo.(T), hi.(T), ni.(T), pi.(T)
}

// segRound describes how a float32 accumulator stands for a half or
// bfloat16 value: the rounding to the storage dtype and that dtype's
// numeric_limits lowest/highest. nil for dtypes computed exactly in their
// own representation.
type segRound *segRounding

type segRounding struct {
	f               func(float32) float32
	lowest, highest float32
}

var (
	halfRounding = &segRounding{f: RoundFloat16, lowest: -65504, highest: 65504}
	bf16Rounding = &segRounding{f: RoundBFloat16,
		lowest: BFloat16(0xff7f).Float32(), highest: BFloat16(0x7f7f).Float32()}
)

func roundRowFn(dt tpb.DataType) segRound {
	switch dt {
	case tpb.DataType_DT_HALF:
		return halfRounding
	case tpb.DataType_DT_BFLOAT16:
		return bf16Rounding
	}
	return nil
}

// roundT applies rnd to every element of row when T is float32 and rnd is
// set (half and bfloat16 are computed in float32 rows).
func roundT[T number](rnd segRound, row []T) {
	if rnd == nil {
		return
	}
	if r, ok := any(row).([]float32); ok {
		for i, v := range r {
			r[i] = rnd.f(v)
		}
	}
}

// countT converts a row count to T as TensorFlow's T(count) does, rounding
// it to the storage dtype for half and bfloat16.
func countT[T number](rnd segRound, n int) T {
	c := T(n)
	if rnd != nil {
		if _, ok := any(c).(float32); ok {
			c = T(rnd.f(float32(n)))
		}
	}
	return c
}

// sortedSegmentT is SegmentReductionOp::Compute over data viewed as
// [len(ids), cols]; it returns the output rows or an error message.
func sortedSegmentT[T number](k segKind, data []T, ids []int64, cols int, rnd segRound) ([]T, int, error) {
	n := len(ids)
	if n == 0 {
		return []T{}, 0, nil
	}
	rows := ids[n-1] + 1
	if rows <= 0 {
		return nil, 0, errorf("segment ids must be >= 0")
	}
	if rows > int64(MaxElements) || (cols > 0 && rows > int64(MaxElements/cols)) {
		return nil, 0, errorf("output shape with %d rows is too large", rows)
	}
	out := make([]T, int(rows)*cols)
	_, _, negInf, posInf := segLimits[T]()
	var init T
	switch k {
	case segProd:
		init = 1
	case segMax:
		init = negInf
	case segMin:
		init = posInf
	}
	// Rows no id names (gaps) hold the kernel's default value: 1 for
	// SegmentProd, 0 for the others (segment_reduction_ops_impl.h).
	if k == segProd {
		for i := range out {
			out[i] = 1
		}
	}
	start := 0
	for start < n {
		id := ids[start]
		end := start + 1
		for end < n && ids[end] == id {
			end++
		}
		if end < n && ids[end] < id {
			return nil, 0, errorf("segment ids are not increasing")
		}
		if id < 0 || id >= rows {
			return nil, 0, errorf("Segment id %d out of range [0, %d), possibly because 'segment_ids' input is not sorted.", id, rows)
		}
		acc := out[int(id)*cols : int(id+1)*cols]
		if end-start == 1 {
			copy(acc, data[start*cols:(start+1)*cols])
		} else {
			for i := range acc {
				acc[i] = init
			}
			for r := start; r < end; r++ {
				segCombine(k, acc, data[r*cols:(r+1)*cols])
				if k != segMax && k != segMin {
					roundT(rnd, acc)
				}
			}
			if k == segMean {
				c := countT[T](rnd, end-start)
				for i := range acc {
					acc[i] /= c
				}
				roundT(rnd, acc)
			}
		}
		start = end
	}
	return out, int(rows), nil
}

// unsortedSegmentT is UnsortedSegmentFunctor<CPUDevice>: ids index the
// leading dims of data (flattened to len(ids) rows of cols).
func unsortedSegmentT[T number](k segKind, data []T, ids []int64, idShape []int, cols, rows int, rnd segRound) ([]T, error) {
	out := make([]T, rows*cols)
	lowest, highest, _, _ := segLimits[T]()
	if rnd != nil { // half/bfloat16 in float32: their own limits
		if _, ok := any(lowest).(float32); ok {
			lowest, highest = T(rnd.lowest), T(rnd.highest)
		}
	}
	var init T
	switch k {
	case segProd:
		init = 1
	case segMax:
		init = lowest
	case segMin:
		init = highest
	}
	if init != 0 {
		for i := range out {
			out[i] = init
		}
	}
	for i, j := range ids {
		if j < 0 {
			continue
		}
		if j >= int64(rows) {
			pos := ""
			if len(idShape) > 0 {
				pos = indexPos(idShape, i)
			}
			return nil, errorf("segment_ids%s = %d is out of range [0, %d)", pos, j, rows)
		}
	}
	if cols == 0 {
		return out, nil
	}
	for i, j := range ids {
		if j < 0 {
			continue
		}
		acc := out[int(j)*cols : int(j+1)*cols]
		segCombine(k, acc, data[i*cols:(i+1)*cols])
		if k == segSum || k == segProd {
			roundT(rnd, acc)
		}
	}
	return out, nil
}

// segIDs reads the segment ids of any integer dtype.
func segIDs(ctx *Context, t *Tensor, what string) ([]int64, error) {
	v, err := indexValues(t)
	if err != nil {
		return nil, ctx.Errorf("%s: %v", what, err)
	}
	return v, nil
}

// segDispatch runs fn on data's values as one of the number types, with
// half and bfloat16 widened to float32 and narrowed back.
func segDispatch(ctx *Context, x *Tensor, outShape []int,
	f32 func([]float32, segRound) ([]float32, error),
	f64 func([]float64) ([]float64, error),
	ints func(x *Tensor) (any, error),
) ([]*Tensor, error) {
	out := &Tensor{DType: dtype.Base(x.DType), Shape: outShape}
	var err error
	switch d := x.Data.(type) {
	case []float32:
		out.Data, err = f32(d, nil)
	case []float64:
		out.Data, err = f64(d)
	case []Float16:
		var r []float32
		if r, err = f32(widenHalf(d), roundRowFn(tpb.DataType_DT_HALF)); err == nil {
			out.Data = narrowHalf(r)
		}
	case []BFloat16:
		var r []float32
		if r, err = f32(widenBF16(d), roundRowFn(tpb.DataType_DT_BFLOAT16)); err == nil {
			out.Data = narrowBF16(r)
		}
	case []int8, []uint8, []int16, []uint16, []int32, []int64, []uint32, []uint64:
		if ints == nil {
			return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
		}
		out.Data, err = ints(x)
	default:
		return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
	}
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{out}, nil
}

// intDispatch runs a generic integer implementation on x's data.
func intDispatch(x *Tensor, f8 func([]int8) (any, error), fu8 func([]uint8) (any, error),
	f16 func([]int16) (any, error), fu16 func([]uint16) (any, error),
	f32 func([]int32) (any, error), f64 func([]int64) (any, error),
	fu32 func([]uint32) (any, error), fu64 func([]uint64) (any, error)) (any, error) {
	switch d := x.Data.(type) {
	case []int8:
		return f8(d)
	case []uint8:
		return fu8(d)
	case []int16:
		return f16(d)
	case []uint16:
		return fu16(d)
	case []int32:
		return f32(d)
	case []int64:
		return f64(d)
	case []uint32:
		return fu32(d)
	case []uint64:
		return fu64(d)
	}
	return nil, errorf("unsupported dtype %s", dtypeName(x.DType))
}

func sortedInts[T number](k segKind, ids []int64, cols int) func([]T) (any, error) {
	return func(d []T) (any, error) {
		out, _, err := sortedSegmentT(k, d, ids, cols, nil)
		return out, err
	}
}

func segmentKernel(k segKind) KernelFunc {
	return func(ctx *Context) ([]*Tensor, error) {
		if err := wantInputs(ctx, 2); err != nil {
			return nil, err
		}
		x, idT := ctx.Inputs[0], ctx.Inputs[1]
		if len(x.Shape) < 1 {
			return nil, ctx.Errorf("input must be at least rank 1")
		}
		if len(idT.Shape) != 1 {
			return nil, ctx.Errorf("segment_ids should be a vector.")
		}
		if idT.Shape[0] != x.Shape[0] {
			return nil, ctx.Errorf("segment_ids should be the same size as dimension 0 of input.")
		}
		ids, err := segIDs(ctx, idT, "segment_ids")
		if err != nil {
			return nil, err
		}
		cols := product(x.Shape[1:])
		rows := 0
		if n := len(ids); n > 0 {
			if ids[n-1] >= 0 && ids[n-1] < int64(MaxElements) {
				rows = int(ids[n-1]) + 1
			}
		}
		shape := append([]int{rows}, x.Shape[1:]...)
		return segDispatch(ctx, x, shape,
			func(d []float32, rnd segRound) ([]float32, error) {
				out, _, err := sortedSegmentT(k, d, ids, cols, rnd)
				return out, err
			},
			func(d []float64) ([]float64, error) {
				out, _, err := sortedSegmentT(k, d, ids, cols, nil)
				return out, err
			},
			func(x *Tensor) (any, error) {
				return intDispatch(x, sortedInts[int8](k, ids, cols), sortedInts[uint8](k, ids, cols),
					sortedInts[int16](k, ids, cols), sortedInts[uint16](k, ids, cols),
					sortedInts[int32](k, ids, cols), sortedInts[int64](k, ids, cols),
					sortedInts[uint32](k, ids, cols), sortedInts[uint64](k, ids, cols))
			})
	}
}

func unsortedInts[T number](k segKind, ids []int64, idShape []int, cols, rows int) func([]T) (any, error) {
	return func(d []T) (any, error) { return unsortedSegmentT(k, d, ids, idShape, cols, rows, nil) }
}

func unsortedSegmentKernel(k segKind) KernelFunc {
	return func(ctx *Context) ([]*Tensor, error) {
		if err := wantInputs(ctx, 3); err != nil {
			return nil, err
		}
		x, idT, nT := ctx.Inputs[0], ctx.Inputs[1], ctx.Inputs[2]
		if len(nT.Shape) != 0 {
			return nil, ctx.Errorf("num_segments should be a scalar, not shape %s", dimsString(nT.Shape))
		}
		if len(idT.Shape) > len(x.Shape) || !slices.Equal(idT.Shape, x.Shape[:len(idT.Shape)]) {
			return nil, ctx.Errorf("data.shape = %s does not start with segment_ids.shape = %s", dimsString(x.Shape), dimsString(idT.Shape))
		}
		ns, err := scalarIndex(nT, "num_segments")
		if err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		if ns < 0 {
			return nil, ctx.Errorf("Input num_segments == %d must not be negative.", ns)
		}
		if ns > int64(MaxElements) {
			return nil, ctx.Errorf("num_segments %d is too large", ns)
		}
		ids, err := segIDs(ctx, idT, "segment_ids")
		if err != nil {
			return nil, err
		}
		rows := int(ns)
		shape := append([]int{rows}, x.Shape[len(idT.Shape):]...)
		if _, err := CheckShape(shape); err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		cols := product(x.Shape[len(idT.Shape):])
		idShape := idT.Shape
		return segDispatch(ctx, x, shape,
			func(d []float32, rnd segRound) ([]float32, error) {
				return unsortedSegmentT(k, d, ids, idShape, cols, rows, rnd)
			},
			func(d []float64) ([]float64, error) {
				return unsortedSegmentT(k, d, ids, idShape, cols, rows, nil)
			},
			func(x *Tensor) (any, error) {
				return intDispatch(x, unsortedInts[int8](k, ids, idShape, cols, rows), unsortedInts[uint8](k, ids, idShape, cols, rows),
					unsortedInts[int16](k, ids, idShape, cols, rows), unsortedInts[uint16](k, ids, idShape, cols, rows),
					unsortedInts[int32](k, ids, idShape, cols, rows), unsortedInts[int64](k, ids, idShape, cols, rows),
					unsortedInts[uint32](k, ids, idShape, cols, rows), unsortedInts[uint64](k, ids, idShape, cols, rows))
			})
	}
}

// sparseSegmentT is SparseSegmentReductionOpBase::Compute with ReduceImpl's
// grouped summation, computed in T (float32 for half and bfloat16, whose
// caller rounds the result once).
func sparseSegmentT[T number](k segKind, data []T, dataRows int, idx, ids []int64, cols, rows int) ([]T, error) {
	out := make([]T, rows*cols)
	n := len(idx)
	if n == 0 {
		return out, nil
	}
	if rows <= 0 {
		return nil, errorf("segment ids must be >= 0")
	}
	row := func(i int) ([]T, error) {
		v := idx[i]
		if v < 0 || v >= int64(dataRows) {
			return nil, errorf("Bad: indices[%d] == %d out of range [0, %d)", i, v, dataRows)
		}
		return data[int(v)*cols : int(v+1)*cols], nil
	}
	start := 0
	for start < n {
		id := ids[start]
		end := start + 1
		for end < n && ids[end] == id {
			end++
		}
		if end < n && ids[end] < id {
			return nil, errorf("segment ids are not increasing")
		}
		if id < 0 || id >= int64(rows) {
			return nil, errorf("Segment id %d out of range [0, %d), possibly because 'segment_ids' input is not sorted.", id, rows)
		}
		acc := out[int(id)*cols : int(id+1)*cols]
		num := end - start
		// Bounds-check the segment's indices in order first, as the
		// INDEX macros do before each group is summed.
		for i := start; i < end; i++ {
			if _, err := row(i); err != nil {
				return nil, err
			}
		}
		if num == 1 {
			r, _ := row(start)
			copy(acc, r)
			start = end
			continue
		}
		m := T(1)
		if k == segMean && num < 10 {
			m = T(num)
		}
		if k == segSqrtN && num < 10 {
			m = T(math.Sqrt(float64(num)))
		}
		scale := T(1) / m
		first := num & 7
		if first == 0 {
			first = 8
		} else if first == 1 {
			first = 9
		}
		group := make([]T, cols)
		sumGroup := func(lo, hi int) {
			r, _ := row(lo)
			copy(group, r)
			for i := lo + 1; i < hi; i++ {
				r, _ := row(i)
				for c, v := range r {
					group[c] += v
				}
			}
		}
		sumGroup(start, start+first)
		for c, v := range group {
			acc[c] = v * scale
		}
		for r := first; r < num; r += 8 {
			sumGroup(start+r, start+r+8)
			for c, v := range group {
				acc[c] += v
			}
		}
		if num >= 10 {
			switch k {
			case segMean:
				d := T(num)
				for c := range acc {
					acc[c] /= d
				}
			case segSqrtN:
				d := T(math.Sqrt(float64(num)))
				for c := range acc {
					acc[c] /= d
				}
			}
		}
		start = end
	}
	return out, nil
}

func sparseInts[T number](k segKind, rowsIn int, idx, ids []int64, cols, rows int) func([]T) (any, error) {
	return func(d []T) (any, error) { return sparseSegmentT(k, d, rowsIn, idx, ids, cols, rows) }
}

// sparseSegmentKernel implements SparseSegmentSum/Mean/SqrtN (k is segSum,
// segMean or segSqrtN), with or without the num_segments input.
func sparseSegmentKernel(k segKind, withNum bool) KernelFunc {
	return func(ctx *Context) ([]*Tensor, error) {
		nin := 3
		if withNum {
			nin = 4
		}
		if err := wantInputs(ctx, nin); err != nil {
			return nil, err
		}
		x, idxT, idT := ctx.Inputs[0], ctx.Inputs[1], ctx.Inputs[2]
		rows := int64(-1)
		if withNum {
			nT := ctx.Inputs[3]
			if len(nT.Shape) != 0 {
				return nil, ctx.Errorf("num_segments should be a scalar, not shape %s", dimsString(nT.Shape))
			}
			v, err := scalarIndex(nT, "num_segments")
			if err != nil {
				return nil, ctx.Errorf("%v", err)
			}
			if v < 0 {
				return nil, ctx.Errorf("segment ids must be >= 0")
			}
			rows = v
		}
		if len(idxT.Shape) != 1 {
			return nil, ctx.Errorf("indices should be a vector.")
		}
		if len(idT.Shape) != 1 {
			return nil, ctx.Errorf("segment_ids should be a vector.")
		}
		if idxT.Shape[0] != idT.Shape[0] {
			return nil, ctx.Errorf("segment_ids and indices should have same size.")
		}
		if len(x.Shape) < 1 {
			return nil, ctx.Errorf("Shape must be at least rank 1")
		}
		idx, err := segIDs(ctx, idxT, "indices")
		if err != nil {
			return nil, err
		}
		ids, err := segIDs(ctx, idT, "segment_ids")
		if err != nil {
			return nil, err
		}
		lastPlus1 := int64(0)
		if n := len(ids); n > 0 {
			lastPlus1 = ids[n-1] + 1
		}
		if withNum {
			if rows < lastPlus1 {
				return nil, ctx.Errorf("segment ids must be < num_segments")
			}
		} else {
			rows = lastPlus1
		}
		if rows < 0 {
			return nil, ctx.Errorf("segment ids must be >= 0")
		}
		shape := append([]int{0}, x.Shape[1:]...)
		if rows > int64(MaxElements) {
			return nil, ctx.Errorf("output with %d rows is too large", rows)
		}
		shape[0] = int(rows)
		if _, err := CheckShape(shape); err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		cols := product(x.Shape[1:])
		r, dataRows := int(rows), x.Shape[0]
		var ints func(*Tensor) (any, error)
		if k == segSum {
			ints = func(x *Tensor) (any, error) {
				return intDispatch(x, sparseInts[int8](k, dataRows, idx, ids, cols, r), sparseInts[uint8](k, dataRows, idx, ids, cols, r),
					sparseInts[int16](k, dataRows, idx, ids, cols, r), sparseInts[uint16](k, dataRows, idx, ids, cols, r),
					sparseInts[int32](k, dataRows, idx, ids, cols, r), sparseInts[int64](k, dataRows, idx, ids, cols, r),
					sparseInts[uint32](k, dataRows, idx, ids, cols, r), sparseInts[uint64](k, dataRows, idx, ids, cols, r))
			}
		}
		return segDispatch(ctx, x, shape,
			func(d []float32, _ segRound) ([]float32, error) {
				return sparseSegmentT(k, d, dataRows, idx, ids, cols, r)
			},
			func(d []float64) ([]float64, error) {
				return sparseSegmentT(k, d, dataRows, idx, ids, cols, r)
			}, ints)
	}
}

func init() {
	for name, k := range map[string]segKind{
		"SegmentSum": segSum, "SegmentMean": segMean, "SegmentProd": segProd,
		"SegmentMax": segMax, "SegmentMin": segMin,
	} {
		Register(name, segmentKernel(k))
	}
	for name, k := range map[string]segKind{
		"UnsortedSegmentSum": segSum, "UnsortedSegmentProd": segProd,
		"UnsortedSegmentMax": segMax, "UnsortedSegmentMin": segMin,
	} {
		Register(name, unsortedSegmentKernel(k))
	}
	for name, k := range map[string]segKind{
		"SparseSegmentSum": segSum, "SparseSegmentMean": segMean, "SparseSegmentSqrtN": segSqrtN,
	} {
		Register(name, sparseSegmentKernel(k, false))
		Register(name+"WithNumSegments", sparseSegmentKernel(k, true))
	}
}
