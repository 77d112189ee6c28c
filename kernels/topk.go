package kernels

import (
	"math"
	"slices"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// TopKV2 and TopK, after TensorFlow's topk_op.cc: the k largest entries of
// each last-dim row, in descending order, ties broken by the lower index
// (TensorFlow's stable comparator). NaN, which TensorFlow's comparator
// leaves unordered, is ranked here above +Inf so results are deterministic.
// Values keep the input dtype; indices are int32 (or index_type).

func init() {
	Register("TopKV2", func(ctx *Context) ([]*Tensor, error) {
		if err := nnInputs(ctx, 2); err != nil {
			return nil, err
		}
		k, ok := nnInts(ctx.Inputs[1])
		if !ok || len(k) != 1 || len(ctx.Inputs[1].Shape) != 0 {
			return nil, ctx.Errorf("k must be a scalar int32, got %s %v", ctx.Inputs[1].DType, ctx.Inputs[1].Shape)
		}
		return topK(ctx, k[0])
	})
	Register("TopK", func(ctx *Context) ([]*Tensor, error) {
		if err := nnInputs(ctx, 1); err != nil {
			return nil, err
		}
		k, err := ctx.AttrInt("k")
		if err != nil {
			return nil, err
		}
		return topK(ctx, k)
	})
}

func topK(ctx *Context, k int64) ([]*Tensor, error) {
	x := ctx.Inputs[0]
	if len(x.Shape) < 1 {
		return nil, ctx.Errorf("input must be >= 1-D, got shape %v", x.Shape)
	}
	if k < 0 {
		return nil, ctx.Errorf("need k >= 0, got %d", k)
	}
	n := x.Shape[len(x.Shape)-1]
	if int64(n) < k {
		return nil, ctx.Errorf("input must have at least k columns. Had %d, needed %d", n, k)
	}
	if x.DType == tpb.DataType_DT_BOOL {
		return nil, ctx.Unsupported("dtype %s", x.DType)
	}
	keys, ok := x.Float64s()
	if !ok {
		return nil, ctx.Unsupported("dtype %s", x.DType)
	}
	kk := int(k)
	rows := 1
	for _, d := range x.Shape[:len(x.Shape)-1] {
		rows *= d
	}
	idx := make([]int, rows*kk)
	nnParallel(rows, n*8, func(r int) {
		copy(idx[r*kk:(r+1)*kk], topKRow(keys[r*n:(r+1)*n], kk))
	})
	outShape := append(nnCloneShape(x.Shape[:len(x.Shape)-1]), kk)
	vals, err := gatherLastDim(x, idx, n, kk, outShape)
	if err != nil {
		return nil, ctx.Unsupported("%v", err)
	}
	idxType := tpb.DataType_DT_INT32
	if ctx.HasAttr("index_type") {
		if idxType, err = ctx.AttrType("index_type"); err != nil {
			return nil, err
		}
	}
	var it *Tensor
	switch idxType {
	case tpb.DataType_DT_INT64:
		d := make([]int64, len(idx))
		for i, v := range idx {
			d[i] = int64(v)
		}
		it = &Tensor{DType: idxType, Shape: nnCloneShape(outShape), Data: d}
	case tpb.DataType_DT_INT16:
		d := make([]int16, len(idx))
		for i, v := range idx {
			d[i] = int16(v)
		}
		it = &Tensor{DType: idxType, Shape: nnCloneShape(outShape), Data: d}
	default:
		d := make([]int32, len(idx))
		for i, v := range idx {
			d[i] = int32(v)
		}
		it = &Tensor{DType: tpb.DataType_DT_INT32, Shape: nnCloneShape(outShape), Data: d}
	}
	return []*Tensor{vals, it}, nil
}

// gatherLastDim picks, for each row r, the elements idx[r*k:(r+1)*k] of
// x's row r (rows of n).
func gatherLastDim(x *Tensor, idx []int, n, k int, shape []int) (*Tensor, error) {
	var data any
	switch d := x.Data.(type) {
	case []float32:
		data = gatherRows(d, idx, n, k)
	case []float64:
		data = gatherRows(d, idx, n, k)
	case []Float16:
		data = gatherRows(d, idx, n, k)
	case []BFloat16:
		data = gatherRows(d, idx, n, k)
	case []int32:
		data = gatherRows(d, idx, n, k)
	case []int64:
		data = gatherRows(d, idx, n, k)
	case []uint8:
		data = gatherRows(d, idx, n, k)
	case []int8:
		data = gatherRows(d, idx, n, k)
	case []int16:
		data = gatherRows(d, idx, n, k)
	case []uint16:
		data = gatherRows(d, idx, n, k)
	case []uint32:
		data = gatherRows(d, idx, n, k)
	case []uint64:
		data = gatherRows(d, idx, n, k)
	default:
		return nil, &UnsupportedError{What: "dtype " + x.DType.String()}
	}
	return &Tensor{DType: x.DType, Shape: shape, Data: data}, nil
}

func gatherRows[E any](x []E, idx []int, n, k int) []E {
	out := make([]E, len(idx))
	for i, j := range idx {
		out[i] = x[(i/max(k, 1))*n+j]
	}
	return out
}

// topKBefore reports whether element a of row ranks before element b:
// larger value first (NaN above everything), then lower index.
func topKBefore(row []float64, a, b int) bool {
	va, vb := row[a], row[b]
	na, nb := math.IsNaN(va), math.IsNaN(vb)
	switch {
	case na != nb:
		return na
	case !na && va != vb:
		return va > vb
	}
	return a < b
}

// topKRow returns the indices of the k top elements of row in rank order:
// a full sort when k is a large part of the row, else one pass keeping the
// k best in a heap whose root is the worst of them (O(n log k)).
func topKRow(row []float64, k int) []int {
	n := len(row)
	cmpf := func(a, b int) int {
		if topKBefore(row, a, b) {
			return -1
		}
		if topKBefore(row, b, a) {
			return 1
		}
		return 0
	}
	if k*4 >= n {
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, cmpf)
		return order[:k]
	}
	h := make([]int, 0, k)
	// worse(a, b): a ranks after b; the heap keeps the worst at h[0].
	worse := func(a, b int) bool { return topKBefore(row, b, a) }
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			m := l
			if r := l + 1; r < len(h) && worse(h[r], h[l]) {
				m = r
			}
			if !worse(h[m], h[i]) {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for i := 0; i < n; i++ {
		if len(h) < k {
			h = append(h, i)
			for j := len(h) - 1; j > 0; {
				p := (j - 1) / 2
				if !worse(h[j], h[p]) {
					break
				}
				h[j], h[p] = h[p], h[j]
				j = p
			}
			continue
		}
		if k > 0 && topKBefore(row, i, h[0]) {
			h[0] = i
			down(0)
		}
	}
	slices.SortFunc(h, cmpf)
	return h
}
