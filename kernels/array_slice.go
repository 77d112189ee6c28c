package kernels

// Slice and StridedSlice (slice_op.cc, strided_slice_op.cc and
// tensorflow/core/util/strided_slice_op.cc ValidateStridedSliceOp, whose
// sparse→dense spec expansion and canonicalisation this follows).

func sliceKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 3); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	begin, err1 := indexValues(ctx.Inputs[1])
	size, err2 := indexValues(ctx.Inputs[2])
	rank := len(x.Shape)
	if err1 != nil || err2 != nil || len(begin) != rank || len(size) != rank {
		return nil, ctx.Errorf("Expected begin and size arguments to be 1-D tensors of size %d, but got shapes %s and %s instead.",
			rank, dimsString(ctx.Inputs[1].Shape), dimsString(ctx.Inputs[2].Shape))
	}
	maps := make([][]int, rank)
	for d := range rank {
		b, s, dim := begin[d], size[d], int64(x.Shape[d])
		if s == -1 {
			s = dim - b
		}
		if b < 0 || b > dim || s < 0 || b+s > dim {
			return nil, ctx.Errorf("Expected size[%d] in [0, %d], but got %d", d, dim-b, s)
		}
		maps[d] = rangeMap(int(b), int(s))
	}
	out, err := gatherDims(x, maps, nil)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{out}, nil
}

// stridedSpec is the result of ValidateStridedSliceOp: per input dim the
// selected indices, and the final output shape.
type stridedSpec struct {
	maps       [][]int
	finalShape []int
}

const (
	gatherNewAxis    = -1
	gatherShrinkAxis = -2
)

func computeStridedSlice(shape []int, begin, end, strides []int64, beginMask, endMask, ellipsisMask, newAxisMask, shrinkMask int64) (*stridedSpec, error) {
	n := len(begin)
	if len(end) != n || len(strides) != n {
		return nil, errorf("Expected begin, end, and strides to be 1D equal size tensors, but got shapes [%d], [%d], and [%d] instead.", len(begin), len(end), len(strides))
	}
	if n > 64 {
		return nil, errorf("too many slice dimensions (%d)", n)
	}
	if ellipsisMask&(ellipsisMask-1) != 0 {
		return nil, errorf("Multiple ellipses in slice spec not allowed")
	}
	// Sparse spec; an implicit ellipsis at the end when there is none.
	sparseDims := n
	if ellipsisMask == 0 {
		ellipsisMask = 1 << n
		sparseDims++
	}
	rank := len(shape)
	// Dense spec.
	dBegin := make([]int64, rank)
	dEnd := make([]int64, rank)
	dStride := make([]int64, rank)
	var dBeginMask, dEndMask, dShrink int64
	var gather []int // final shape gather indices (>=0 dense dim, or gatherNewAxis / gatherShrinkAxis)
	full := 0
	for i := 0; i < sparseDims; i++ {
		bit := int64(1) << i
		switch {
		case ellipsisMask&bit != 0:
			numNewAfter := 0
			for j := i + 1; j < sparseDims; j++ {
				if newAxisMask&(1<<j) != 0 {
					numNewAfter++
				}
			}
			next := min(rank-(sparseDims-i)+1+numNewAfter, rank)
			for ; full < next; full++ {
				dBegin[full], dEnd[full], dStride[full] = 0, 0, 1
				dBeginMask |= 1 << full
				dEndMask |= 1 << full
				gather = append(gather, full)
			}
		case newAxisMask&bit != 0:
			gather = append(gather, gatherNewAxis)
		default:
			if full >= rank {
				return nil, errorf("Index out of range using input dim %d; input has only %d dims", full, rank)
			}
			dBegin[full], dEnd[full], dStride[full] = begin[i], end[i], strides[i]
			if beginMask&bit != 0 {
				dBeginMask |= 1 << full
			}
			if endMask&bit != 0 {
				dEndMask |= 1 << full
			}
			if shrinkMask&bit != 0 {
				gather = append(gather, gatherShrinkAxis)
				dShrink |= 1 << full
			} else {
				gather = append(gather, full)
			}
			full++
		}
	}
	spec := &stridedSpec{maps: make([][]int, rank)}
	sizes := make([]int, rank)
	for i := 0; i < rank; i++ {
		b, e, s := dBegin[i], dEnd[i], dStride[i]
		dim := int64(shape[i])
		if s == 0 {
			return nil, errorf("strides[%d] must be non-zero", i)
		}
		shrink := dShrink&(1<<i) != 0
		if shrink && s <= 0 {
			return nil, errorf("only stride 1 allowed on non-range indexing.")
		}
		lo, hi := int64(0), dim // valid range for s > 0
		if s < 0 {
			lo, hi = -1, dim-1
		}
		canonical := func(x int64, masked bool, c int) int64 {
			if masked {
				if s > 0 {
					return [2]int64{lo, hi}[c]
				}
				return [2]int64{lo, hi}[(c+1)&1]
			}
			xf := x
			if x < 0 {
				xf = dim + x
			}
			return max(lo, min(hi, xf))
		}
		if shrink {
			xf := b
			if b < 0 {
				xf = dim + b
			}
			if xf < 0 || xf >= dim {
				return nil, errorf("slice index %d of dimension %d out of bounds.", b, i)
			}
			b, e = xf, xf+1
		} else {
			b = canonical(b, dBeginMask&(1<<i) != 0, 0)
			e = canonical(e, dEndMask&(1<<i) != 0, 1)
		}
		interval := e - b
		var size int64
		if interval == 0 || (interval < 0) != (s < 0) {
			size = 0
		} else {
			size = interval / s
			if interval%s != 0 {
				size++
			}
		}
		m := make([]int, size)
		for k := range m {
			m[k] = int(b + int64(k)*s)
		}
		spec.maps[i] = m
		sizes[i] = int(size)
	}
	spec.finalShape = []int{}
	for _, g := range gather {
		switch g {
		case gatherNewAxis:
			spec.finalShape = append(spec.finalShape, 1)
		case gatherShrinkAxis:
		default:
			spec.finalShape = append(spec.finalShape, sizes[g])
		}
	}
	return spec, nil
}

func stridedSliceKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 4); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	var vals [3][]int64
	for i := range vals {
		v, err := indexValues(ctx.Inputs[i+1])
		if err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		vals[i] = v
	}
	mask := func(name string) int64 {
		if !ctx.HasAttr(name) {
			return 0
		}
		v, _ := ctx.AttrInt(name)
		return v
	}
	spec, err := computeStridedSlice(x.Shape, vals[0], vals[1], vals[2],
		mask("begin_mask"), mask("end_mask"), mask("ellipsis_mask"), mask("new_axis_mask"), mask("shrink_axis_mask"))
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	out, err := gatherDims(x, spec.maps, nil)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	out.Shape = spec.finalShape
	return []*Tensor{out}, nil
}

func init() {
	Register("Slice", sliceKernel)
	Register("StridedSlice", stridedSliceKernel)
}
