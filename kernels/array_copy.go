package kernels

import (
	"fmt"

	"github.com/tfscan/tfscan/dtype"
)

// Two data-movement primitives that the shape/array kernels are built on.
// Both only move elements, so one generic implementation serves every dtype
// (strings, resources and variants included).
//
//   - gatherDims: out[i0, i1, ...] = in[m0[i0], m1[i1], ...] with one index
//     map per dimension (-1 selects a fill value). Slice, StridedSlice, Tile,
//     Pad, MirrorPad, Reverse, BroadcastTo, Gather and Unpack are all this.
//   - spans: the output is a concatenation of contiguous runs copied from
//     several sources (Concat, Pack, GatherNd).

// gatherDimsT implements gatherDims for one element type.
func gatherDimsT[T any](src []T, inShape []int, maps [][]int, fill []T) []T {
	n := 1
	for _, m := range maps {
		n *= len(m)
	}
	return gatherDimsTo(make([]T, n), src, inShape, maps, fill)
}

// gatherDimsTo is gatherDimsT writing every element of out (of the
// maps' size).
func gatherDimsTo[T any](out, src []T, inShape []int, maps [][]int, fill []T) []T {
	rank := len(maps)
	outShape := make([]int, rank)
	for d, m := range maps {
		outShape[d] = len(m)
	}
	n := len(out)
	if n == 0 {
		return out
	}
	if rank == 0 {
		out[0] = src[0]
		return out
	}
	strides := rowMajorStrides(inShape)
	// Innermost map as runs: contiguous input ranges or fills.
	type run struct{ out, in, n int } // in == -1: fill
	var runs []run
	inner := maps[rank-1]
	for j := 0; j < len(inner); {
		k := j + 1
		if inner[j] < 0 {
			for k < len(inner) && inner[k] < 0 {
				k++
			}
			runs = append(runs, run{j, -1, k - j})
		} else {
			for k < len(inner) && inner[k] == inner[k-1]+1 {
				k++
			}
			runs = append(runs, run{j, inner[j], k - j})
		}
		j = k
	}
	innerStride := strides[rank-1]
	rowLen := len(inner)
	rows := n / rowLen
	var fv T
	if len(fill) > 0 {
		fv = fill[0]
	}
	parallelFor(rows, rowLen, func(lo, hi int) {
		idx := make([]int, rank-1)
		rem := lo
		for d := rank - 2; d >= 0; d-- {
			idx[d] = rem % outShape[d]
			rem /= outShape[d]
		}
		for r := lo; r < hi; r++ {
			dst := out[r*rowLen : (r+1)*rowLen]
			base, filled := 0, false
			for d, i := range idx {
				m := maps[d][i]
				if m < 0 {
					filled = true
					break
				}
				base += m * strides[d]
			}
			if filled {
				for i := range dst {
					dst[i] = fv
				}
			} else {
				for _, ru := range runs {
					seg := dst[ru.out : ru.out+ru.n]
					switch {
					case ru.in < 0:
						for i := range seg {
							seg[i] = fv
						}
					case innerStride == 1:
						copy(seg, src[base+ru.in:base+ru.in+ru.n])
					default:
						for i := range seg {
							seg[i] = src[base+(ru.in+i)*innerStride]
						}
					}
				}
			}
			for d := rank - 2; d >= 0; d-- {
				idx[d]++
				if idx[d] < outShape[d] {
					break
				}
				idx[d] = 0
			}
		}
	})
	return out
}

// gatherDims applies per-dimension index maps to x. fill, when non-nil, is a
// one-element tensor of x's dtype used where a map holds -1.
func gatherDims(x *Tensor, maps [][]int, fill *Tensor) (*Tensor, error) {
	shape := make([]int, len(maps))
	for d, m := range maps {
		shape[d] = len(m)
	}
	if _, err := CheckShape(shape); err != nil {
		return nil, err
	}
	var fd any
	if fill != nil {
		fd = fill.Data
	}
	out := &Tensor{DType: dtype.Base(x.DType), Shape: shape}
	var ok bool
	switch d := x.Data.(type) {
	case []float32:
		out.Data, ok = gdT(d, x.Shape, maps, fd)
	case []float64:
		out.Data, ok = gdT(d, x.Shape, maps, fd)
	case []Float16:
		out.Data, ok = gdT(d, x.Shape, maps, fd)
	case []BFloat16:
		out.Data, ok = gdT(d, x.Shape, maps, fd)
	case []int8:
		out.Data, ok = gdT(d, x.Shape, maps, fd)
	case []uint8:
		out.Data, ok = gdT(d, x.Shape, maps, fd)
	case []int16:
		out.Data, ok = gdT(d, x.Shape, maps, fd)
	case []uint16:
		out.Data, ok = gdT(d, x.Shape, maps, fd)
	case []int32:
		out.Data, ok = gdT(d, x.Shape, maps, fd)
	case []int64:
		out.Data, ok = gdT(d, x.Shape, maps, fd)
	case []uint32:
		out.Data, ok = gdT(d, x.Shape, maps, fd)
	case []uint64:
		out.Data, ok = gdT(d, x.Shape, maps, fd)
	case []bool:
		out.Data, ok = gdT(d, x.Shape, maps, fd)
	case [][]byte:
		out.Data, ok = gdT(d, x.Shape, maps, fd)
	case []*Resource:
		out.Data, ok = gdT(d, x.Shape, maps, fd)
	case []any:
		out.Data, ok = gdT(d, x.Shape, maps, fd)
	default:
		return nil, fmt.Errorf("unsupported tensor data %T", x.Data)
	}
	if !ok {
		return nil, fmt.Errorf("fill value dtype %s does not match input dtype %s", dtypeName(fill.DType), dtypeName(x.DType))
	}
	return out, nil
}

func gdT[T any](src []T, inShape []int, maps [][]int, fill any) ([]T, bool) {
	var f []T
	if fill != nil {
		var ok bool
		if f, ok = fill.([]T); !ok {
			return nil, false
		}
	}
	return gatherDimsT(src, inShape, maps, f), true
}

// span is a contiguous run copied from source src at offset off.
type span struct{ src, off, n int }

// spansT copies spans into a new []T of total elements, from ctx's Buffers
// when ctx is set.
func spansT[T any](ctx *Context, srcs []any, spans []span, total int) ([]T, bool) {
	typed := make([][]T, len(srcs))
	for i, s := range srcs {
		t, ok := s.([]T)
		if !ok {
			return nil, false
		}
		typed[i] = t
	}
	starts := make([]int, len(spans))
	o := 0
	for i, sp := range spans {
		starts[i] = o
		o += sp.n
	}
	var out []T
	if o == total {
		out = newOutFull[T](ctx, total)
	} else {
		out = newOut[T](ctx, total)
	}
	parallelFor(len(spans), max(1, total/max(len(spans), 1)), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			sp := spans[i]
			copy(out[starts[i]:starts[i]+sp.n], typed[sp.src][sp.off:sp.off+sp.n])
		}
	})
	return out, true
}

// copySpans builds a tensor of dtype dt and shape from spans over srcs (all
// of dt's Go type).
func copySpans(ctx *Context, first *Tensor, srcs []*Tensor, spans []span, shape []int) (*Tensor, error) {
	total, err := CheckShape(shape)
	if err != nil {
		return nil, err
	}
	data := make([]any, len(srcs))
	for i, s := range srcs {
		data[i] = s.Data
	}
	out := &Tensor{DType: dtype.Base(first.DType), Shape: shape}
	var ok bool
	switch first.Data.(type) {
	case []float32:
		out.Data, ok = spansT[float32](ctx, data, spans, total)
	case []float64:
		out.Data, ok = spansT[float64](ctx, data, spans, total)
	case []Float16:
		out.Data, ok = spansT[Float16](nil, data, spans, total)
	case []BFloat16:
		out.Data, ok = spansT[BFloat16](nil, data, spans, total)
	case []int8:
		out.Data, ok = spansT[int8](nil, data, spans, total)
	case []uint8:
		out.Data, ok = spansT[uint8](nil, data, spans, total)
	case []int16:
		out.Data, ok = spansT[int16](nil, data, spans, total)
	case []uint16:
		out.Data, ok = spansT[uint16](nil, data, spans, total)
	case []int32:
		out.Data, ok = spansT[int32](nil, data, spans, total)
	case []int64:
		out.Data, ok = spansT[int64](nil, data, spans, total)
	case []uint32:
		out.Data, ok = spansT[uint32](nil, data, spans, total)
	case []uint64:
		out.Data, ok = spansT[uint64](nil, data, spans, total)
	case []bool:
		out.Data, ok = spansT[bool](nil, data, spans, total)
	case [][]byte:
		out.Data, ok = spansT[[]byte](nil, data, spans, total)
	case []*Resource:
		out.Data, ok = spansT[*Resource](nil, data, spans, total)
	case []any:
		out.Data, ok = spansT[any](nil, data, spans, total)
	default:
		return nil, fmt.Errorf("unsupported tensor data %T", first.Data)
	}
	if !ok {
		return nil, fmt.Errorf("inputs have different dtypes")
	}
	return out, nil
}

// rangeMap returns [start, start+1, ..., start+n-1].
func rangeMap(start, n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = start + i
	}
	return m
}

// identityMaps returns the maps that select all of shape.
func identityMaps(shape []int) [][]int {
	maps := make([][]int, len(shape))
	for d, n := range shape {
		maps[d] = rangeMap(0, n)
	}
	return maps
}
