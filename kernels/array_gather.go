package kernels

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tfscan/tfscan/dtype"
)

// Gather, GatherV2, GatherNd, ScatterNd, TensorScatterUpdate/Add/Sub/Max/Min
// and OneHot (gather_op.cc, gather_functor.h, gather_nd_op.cc,
// scatter_nd_op.cc, one_hot_op.cc). As on TensorFlow's CPU, an
// out-of-range index is an error (GPU kernels would return zeros instead).

// indexPos formats the position of flat element i of an index tensor of the
// given shape as "[i0,i1,...]".
func indexPos(shape []int, i int) string {
	parts := make([]string, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] > 0 {
			parts[d] = fmt.Sprint(i % shape[d])
			i /= shape[d]
		}
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func gatherKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 2); err != nil {
		return nil, err
	}
	params, indices := ctx.Inputs[0], ctx.Inputs[1]
	var axis, batchDims int64
	if ctx.Op == "GatherV2" {
		if err := wantInputs(ctx, 3); err != nil {
			return nil, err
		}
		a, err := scalarIndex(ctx.Inputs[2], "axis")
		if err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		axis = a
		if ctx.HasAttr("batch_dims") {
			batchDims, _ = ctx.AttrInt("batch_dims")
		}
	}
	pr, ir := int64(len(params.Shape)), int64(len(indices.Shape))
	if axis < -pr || axis >= pr || pr == 0 {
		return nil, ctx.Errorf("Expected axis in the range [%d, %d), but got %d", -pr, pr, axis)
	}
	if axis < 0 {
		axis += pr
	}
	if batchDims < 0 {
		batchDims += ir
	}
	if batchDims < 0 || batchDims > ir {
		return nil, ctx.Errorf("Expected batch_dims in the range [%d, %d], but got %d", -ir, ir, batchDims)
	}
	if batchDims > axis {
		return nil, ctx.Errorf("batch_dims (%d) must be less than or equal to axis (%d).", batchDims, axis)
	}
	for d := 0; d < int(batchDims); d++ {
		if params.Shape[d] != indices.Shape[d] {
			return nil, ctx.Errorf("params.shape[%d]: %d should be equal to indices.shape[%d]: %d", d, params.Shape[d], d, indices.Shape[d])
		}
	}
	idx, err := indexValues(indices)
	if err != nil {
		return nil, ctx.Errorf("indices: %v", err)
	}
	b, ax := int(batchDims), int(axis)
	limit := params.Shape[ax]
	for i, v := range idx {
		if v < 0 || v >= int64(limit) {
			return nil, ctx.Errorf("indices%s = %d is not in [0, %d)", indexPos(indices.Shape, i), v, limit)
		}
	}
	batch := product(params.Shape[:b])
	pre := product(params.Shape[b:ax])
	post := product(params.Shape[ax+1:])
	nI := product(indices.Shape[b:])
	outShape := append(append(append([]int{}, params.Shape[:ax]...), indices.Shape[b:]...), params.Shape[ax+1:]...)
	if _, err := CheckShape(outShape); err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	var spans []span
	if post > 0 {
		spans = make([]span, 0, batch*pre*nI)
		for bi := 0; bi < batch; bi++ {
			for p := 0; p < pre; p++ {
				base := (bi*pre + p) * limit * post
				for _, v := range idx[bi*nI : (bi+1)*nI] {
					spans = append(spans, span{0, base + int(v)*post, post})
				}
			}
		}
	}
	out, err := copySpans(ctx, params, []*Tensor{params}, spans, outShape)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{out}, nil
}

// ndOffsets validates the index tuples of a GatherNd/ScatterNd indices
// tensor against shape and returns each tuple's element offset and the size
// of the slice each tuple selects.
func ndOffsets(indices *Tensor, shape []int, what string) (offs []int, slice int, err error) {
	if len(indices.Shape) == 0 {
		return nil, 0, errorf("indices must be at least a vector")
	}
	k := indices.Shape[len(indices.Shape)-1]
	if k > len(shape) {
		return nil, 0, errorf("index innermost dimension length must be <= %s rank; saw: %d vs. %d", what, k, len(shape))
	}
	idx, err := indexValues(indices)
	if err != nil {
		return nil, 0, errorf("indices: %v", err)
	}
	strides := rowMajorStrides(shape)
	slice = product(shape[k:])
	n := product(indices.Shape[:len(indices.Shape)-1])
	offs = make([]int, n)
	for i := range offs {
		tuple := idx[i*k : (i+1)*k]
		off := 0
		for j, v := range tuple {
			if v < 0 || v >= int64(shape[j]) {
				vals := make([]string, k)
				for t, x := range tuple {
					vals[t] = fmt.Sprint(x)
				}
				return nil, 0, errorf("indices%s = [%s] does not index into %s shape %s",
					indexPos(indices.Shape[:len(indices.Shape)-1], i), strings.Join(vals, ", "), what, dimsString(shape))
			}
			off += int(v) * strides[j]
		}
		offs[i] = off
	}
	return offs, slice, nil
}

func gatherNdKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 2); err != nil {
		return nil, err
	}
	params, indices := ctx.Inputs[0], ctx.Inputs[1]
	offs, slice, err := ndOffsets(indices, params.Shape, "param")
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	k := indices.Shape[len(indices.Shape)-1]
	outShape := append(append([]int{}, indices.Shape[:len(indices.Shape)-1]...), params.Shape[k:]...)
	var spans []span
	if slice > 0 {
		spans = make([]span, len(offs))
		for i, o := range offs {
			spans[i] = span{0, o, slice}
		}
	}
	out, err := copySpans(ctx, params, []*Tensor{params}, spans, outShape)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{out}, nil
}

// scatterT applies f(old, update) for every index tuple in order, so
// duplicates accumulate (add) or the last one wins (update), as TF's CPU
// kernels do.
func scatterT[T any](out, upd []T, offs []int, slice int, f func(a, b T) T) {
	for i, o := range offs {
		dst := out[o : o+slice]
		src := upd[i*slice : (i+1)*slice]
		for j := range dst {
			dst[j] = f(dst[j], src[j])
		}
	}
}

func assignT[T any](_, b T) T { return b }

// scatterFn returns the combiner for op on numeric T.
func scatterFn[T number](op string) func(a, b T) T {
	switch op {
	case "add":
		return addT[T]
	case "sub":
		return subT[T]
	case "max":
		return scatterMaxT[T]
	case "min":
		return scatterMinT[T]
	}
	return assignT[T]
}

// scatterMaxT and scatterMinT are Eigen's cwiseMax and cwiseMin as
// scatter_nd_op_cpu_impl.h applies them, a < b ? b : a with a the value in
// place: a NaN in place stays, a NaN update leaves the value in place
// (Maximum and Minimum propagate either NaN).
func scatterMaxT[T number](a, b T) T {
	if a < b {
		return b
	}
	return a
}

func scatterMinT[T number](a, b T) T {
	if b < a {
		return b
	}
	return a
}

func halfFn(op string, rnd func(float32) float32) func(a, b float32) float32 {
	f := scatterFn[float32](op)
	return func(a, b float32) float32 { return rnd(f(a, b)) }
}

// scatterInto applies updates to out (a fresh tensor) in place.
func scatterInto(out, updates *Tensor, offs []int, slice int, op string) (bool, error) {
	if dtype.Base(out.DType) != dtype.Base(updates.DType) {
		return false, errorf("updates dtype %s does not match %s", dtypeName(updates.DType), dtypeName(out.DType))
	}
	ok := true
	switch d := out.Data.(type) {
	case []float32:
		scatterT(d, updates.Data.([]float32), offs, slice, scatterFn[float32](op))
	case []float64:
		scatterT(d, updates.Data.([]float64), offs, slice, scatterFn[float64](op))
	case []int8:
		scatterT(d, updates.Data.([]int8), offs, slice, scatterFn[int8](op))
	case []uint8:
		scatterT(d, updates.Data.([]uint8), offs, slice, scatterFn[uint8](op))
	case []int16:
		scatterT(d, updates.Data.([]int16), offs, slice, scatterFn[int16](op))
	case []uint16:
		scatterT(d, updates.Data.([]uint16), offs, slice, scatterFn[uint16](op))
	case []int32:
		scatterT(d, updates.Data.([]int32), offs, slice, scatterFn[int32](op))
	case []int64:
		scatterT(d, updates.Data.([]int64), offs, slice, scatterFn[int64](op))
	case []uint32:
		scatterT(d, updates.Data.([]uint32), offs, slice, scatterFn[uint32](op))
	case []uint64:
		scatterT(d, updates.Data.([]uint64), offs, slice, scatterFn[uint64](op))
	case []Float16:
		f := halfFn(op, RoundFloat16)
		scatterT(d, updates.Data.([]Float16), offs, slice, func(a, b Float16) Float16 {
			return Float16FromFloat32(f(a.Float32(), b.Float32()))
		})
	case []BFloat16:
		f := halfFn(op, RoundBFloat16)
		scatterT(d, updates.Data.([]BFloat16), offs, slice, func(a, b BFloat16) BFloat16 {
			return BFloat16FromFloat32(f(a.Float32(), b.Float32()))
		})
	default:
		if op != "update" {
			return false, nil
		}
		switch d := out.Data.(type) {
		case []bool:
			scatterT(d, updates.Data.([]bool), offs, slice, assignT[bool])
		case [][]byte:
			scatterT(d, updates.Data.([][]byte), offs, slice, assignT[[]byte])
		default:
			ok = false
		}
	}
	return ok, nil
}

// checkUpdates verifies updates.shape == indices.shape[:-1] + shape[k:].
func checkUpdates(indices, updates *Tensor, shape []int) error {
	k := indices.Shape[len(indices.Shape)-1]
	want := append(append([]int{}, indices.Shape[:len(indices.Shape)-1]...), shape[k:]...)
	if !slices.Equal(want, updates.Shape) {
		return errorf("Dimensions [0,%d) of indices[shape=%s] = %s must match dimensions [0,%d) of updates[shape=%s]",
			len(indices.Shape)-1, dimsString(indices.Shape), dimsString(indices.Shape[:len(indices.Shape)-1]),
			len(indices.Shape)-1, dimsString(updates.Shape))
	}
	return nil
}

func scatterNdKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 3); err != nil {
		return nil, err
	}
	indices, updates := ctx.Inputs[0], ctx.Inputs[1]
	shape, err := dimsFrom(ctx, ctx.Inputs[2], "shape")
	if err != nil {
		return nil, err
	}
	offs, slice, err := ndOffsets(indices, shape, "output")
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	if err := checkUpdates(indices, updates, shape); err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	out, err := NewTensor(dtype.Base(updates.DType), shape)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	ok, err := scatterInto(out, updates, offs, slice, "add")
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	if !ok {
		return nil, ctx.Unsupported("dtype %s", dtypeName(updates.DType))
	}
	return []*Tensor{out}, nil
}

func tensorScatterKernel(op string) KernelFunc {
	return func(ctx *Context) ([]*Tensor, error) {
		if err := wantInputs(ctx, 3); err != nil {
			return nil, err
		}
		tensor, indices, updates := ctx.Inputs[0], ctx.Inputs[1], ctx.Inputs[2]
		offs, slice, err := ndOffsets(indices, tensor.Shape, "input")
		if err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		if err := checkUpdates(indices, updates, tensor.Shape); err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		out := tensor.Clone()
		out.DType = dtype.Base(out.DType)
		ok, err := scatterInto(out, updates, offs, slice, op)
		if err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		if !ok {
			return nil, ctx.Unsupported("dtype %s", dtypeName(tensor.DType))
		}
		return []*Tensor{out}, nil
	}
}

func oneHotT[T any](idx []int64, outer, depth, inner int, on, off T) []T {
	out := make([]T, outer*depth*inner)
	for i := range out {
		out[i] = off
	}
	for o := 0; o < outer; o++ {
		for in := 0; in < inner; in++ {
			v := idx[o*inner+in]
			if v >= 0 && v < int64(depth) {
				out[(o*depth+int(v))*inner+in] = on
			}
		}
	}
	return out
}

func oneHotKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 4); err != nil {
		return nil, err
	}
	indices := ctx.Inputs[0]
	depth, err := scalarIndex(ctx.Inputs[1], "depth")
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	if depth < 0 {
		return nil, ctx.Errorf("depth must be non-negative, got: %d", depth)
	}
	var idx []int64
	if u, ok := indices.Data.([]uint8); ok {
		idx = mapTo(u, func(v uint8) int64 { return int64(v) })
	} else if idx, err = indexValues(indices); err != nil {
		return nil, ctx.Errorf("indices: %v", err)
	}
	on, off := ctx.Inputs[2], ctx.Inputs[3]
	if on.NumElements() != 1 || off.NumElements() != 1 || dtype.Base(on.DType) != dtype.Base(off.DType) {
		return nil, ctx.Errorf("on_value and off_value must be scalars of the same dtype")
	}
	rank := len(indices.Shape)
	axis := int64(-1)
	if ctx.HasAttr("axis") {
		axis, _ = ctx.AttrInt("axis")
	}
	if axis < -1 || axis > int64(rank) {
		return nil, ctx.Errorf("Expected axis to be -1 or between [0, %d).  But received: %d", rank+1, axis)
	}
	a := int(axis)
	if a == -1 {
		a = rank
	}
	outShape := append(append(append([]int{}, indices.Shape[:a]...), int(min(depth, int64(MaxElements)))), indices.Shape[a:]...)
	if _, err := CheckShape(outShape); err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	outer, inner, d := product(indices.Shape[:a]), product(indices.Shape[a:]), int(depth)
	out := &Tensor{DType: dtype.Base(on.DType), Shape: outShape}
	switch v := on.Data.(type) {
	case []float32:
		out.Data = oneHotT(idx, outer, d, inner, v[0], off.Data.([]float32)[0])
	case []float64:
		out.Data = oneHotT(idx, outer, d, inner, v[0], off.Data.([]float64)[0])
	case []Float16:
		out.Data = oneHotT(idx, outer, d, inner, v[0], off.Data.([]Float16)[0])
	case []BFloat16:
		out.Data = oneHotT(idx, outer, d, inner, v[0], off.Data.([]BFloat16)[0])
	case []int8:
		out.Data = oneHotT(idx, outer, d, inner, v[0], off.Data.([]int8)[0])
	case []uint8:
		out.Data = oneHotT(idx, outer, d, inner, v[0], off.Data.([]uint8)[0])
	case []int16:
		out.Data = oneHotT(idx, outer, d, inner, v[0], off.Data.([]int16)[0])
	case []uint16:
		out.Data = oneHotT(idx, outer, d, inner, v[0], off.Data.([]uint16)[0])
	case []int32:
		out.Data = oneHotT(idx, outer, d, inner, v[0], off.Data.([]int32)[0])
	case []int64:
		out.Data = oneHotT(idx, outer, d, inner, v[0], off.Data.([]int64)[0])
	case []uint32:
		out.Data = oneHotT(idx, outer, d, inner, v[0], off.Data.([]uint32)[0])
	case []uint64:
		out.Data = oneHotT(idx, outer, d, inner, v[0], off.Data.([]uint64)[0])
	case []bool:
		out.Data = oneHotT(idx, outer, d, inner, v[0], off.Data.([]bool)[0])
	case [][]byte:
		out.Data = oneHotT(idx, outer, d, inner, v[0], off.Data.([][]byte)[0])
	default:
		return nil, ctx.Unsupported("dtype %s", dtypeName(on.DType))
	}
	return []*Tensor{out}, nil
}

func init() {
	Register("Gather", gatherKernel)
	Register("GatherV2", gatherKernel)
	Register("GatherNd", gatherNdKernel)
	Register("ScatterNd", scatterNdKernel)
	Register("TensorScatterUpdate", tensorScatterKernel("update"))
	Register("TensorScatterAdd", tensorScatterKernel("add"))
	Register("TensorScatterSub", tensorScatterKernel("sub"))
	Register("TensorScatterMax", tensorScatterKernel("max"))
	Register("TensorScatterMin", tensorScatterKernel("min"))
	Register("OneHot", oneHotKernel)
}
