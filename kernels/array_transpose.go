package kernels

import (
	"fmt"

	"github.com/tfscan/tfscan/dtype"
)

// Transpose and ConjugateTranspose (transpose_op.cc, for all dtypes:
// elements are only moved). The permutation is simplified first (size-1
// dims dropped, runs of consecutive axes merged), then one of three paths
// runs: a plain copy, block copies when the innermost axis stays innermost,
// a cache-blocked 2-D transpose, or a general strided walk.

// simplifyPerm drops size-1 dims and merges input axes that stay adjacent
// and in order under perm. It returns the reduced input shape and perm.
func simplifyPerm(shape []int, perm []int) ([]int, []int) {
	keep := make([]int, 0, len(shape)) // old axis -> kept?
	newIdx := make([]int, len(shape))
	for i, d := range shape {
		newIdx[i] = -1
		if d != 1 {
			newIdx[i] = len(keep)
			keep = append(keep, i)
		}
	}
	var p []int
	for _, a := range perm {
		if newIdx[a] >= 0 {
			p = append(p, newIdx[a])
		}
	}
	s := make([]int, len(keep))
	for i, a := range keep {
		s[i] = shape[a]
	}
	// Merge: output positions j, j+1 with p[j+1] == p[j]+1 become one axis.
	type group struct{ first, last int }
	var groups []group
	for _, a := range p {
		if n := len(groups); n > 0 && groups[n-1].last+1 == a {
			groups[n-1].last = a
			continue
		}
		groups = append(groups, group{a, a})
	}
	// Order groups by their input position to build the merged input shape.
	order := make([]int, len(groups)) // input-order rank of each group
	for i := range groups {
		r := 0
		for j := range groups {
			if groups[j].first < groups[i].first {
				r++
			}
		}
		order[i] = r
	}
	mshape := make([]int, len(groups))
	for i, g := range groups {
		n := 1
		for a := g.first; a <= g.last; a++ {
			n *= s[a]
		}
		mshape[order[i]] = n
	}
	return mshape, order
}

// transposeData returns src (row-major with shape) permuted by perm.
func transposeData[T any](src []T, shape, perm []int) []T {
	out := make([]T, len(src))
	if len(src) == 0 {
		return out
	}
	s, p := simplifyPerm(shape, perm)
	rank := len(s)
	identity := true
	for i, a := range p {
		if a != i {
			identity = false
		}
	}
	if identity {
		copy(out, src)
		return out
	}
	if rank == 2 {
		transpose2D(src, out, s[0], s[1])
		return out
	}
	if rank == 3 && p[0] == 0 && p[1] == 2 && p[2] == 1 {
		// A batch of matrix transposes: NHWC <-> NCHW simplify to this.
		m := s[1] * s[2]
		if s[0] >= 4 && m < parallelThreshold {
			parallelFor(s[0], m, func(lo, hi int) {
				for b := lo; b < hi; b++ {
					transpose2DSerial(src[b*m:(b+1)*m], out[b*m:(b+1)*m], s[1], s[2])
				}
			})
			return out
		}
		for b := 0; b < s[0]; b++ {
			transpose2D(src[b*m:(b+1)*m], out[b*m:(b+1)*m], s[1], s[2])
		}
		return out
	}
	inStride := rowMajorStrides(s)
	od := make([]int, rank)
	ss := make([]int, rank)
	for i, a := range p {
		od[i] = s[a]
		ss[i] = inStride[a]
	}
	if p[rank-1] == rank-1 {
		// Innermost axis unchanged: copy blocks of s[rank-1] elements.
		inner := s[rank-1]
		blocks := len(src) / inner
		parallelFor(blocks, inner, func(lo, hi int) {
			idx := make([]int, rank-1)
			rem := lo
			for d := rank - 2; d >= 0; d-- {
				idx[d] = rem % od[d]
				rem /= od[d]
			}
			for b := lo; b < hi; b++ {
				off := 0
				for d, i := range idx {
					off += i * ss[d]
				}
				copy(out[b*inner:(b+1)*inner], src[off:off+inner])
				for d := rank - 2; d >= 0; d-- {
					idx[d]++
					if idx[d] < od[d] {
						break
					}
					idx[d] = 0
				}
			}
		})
		return out
	}
	// General: walk the output in order; the innermost output axis reads
	// src with stride ss[rank-1].
	inner, step := od[rank-1], ss[rank-1]
	rows := len(src) / inner
	parallelFor(rows, inner, func(lo, hi int) {
		idx := make([]int, rank-1)
		rem := lo
		for d := rank - 2; d >= 0; d-- {
			idx[d] = rem % od[d]
			rem /= od[d]
		}
		for r := lo; r < hi; r++ {
			off := 0
			for d, i := range idx {
				off += i * ss[d]
			}
			dst := out[r*inner : (r+1)*inner]
			for i := range dst {
				dst[i] = src[off+i*step]
			}
			for d := rank - 2; d >= 0; d-- {
				idx[d]++
				if idx[d] < od[d] {
					break
				}
				idx[d] = 0
			}
		}
	})
	return out
}

// transpose2D writes the transpose of the rows×cols matrix src into out in
// 32×32 tiles, so both sides stay in cache.
func transpose2D[T any](src, out []T, rows, cols int) {
	const tile = 32
	tilesR := (rows + tile - 1) / tile
	parallelFor(tilesR, tile*cols, func(lo, hi int) {
		for tr := lo; tr < hi; tr++ {
			r0 := tr * tile
			r1 := min(r0+tile, rows)
			for c0 := 0; c0 < cols; c0 += tile {
				c1 := min(c0+tile, cols)
				for r := r0; r < r1; r++ {
					row := src[r*cols : r*cols+cols]
					for c := c0; c < c1; c++ {
						out[c*rows+r] = row[c]
					}
				}
			}
		}
	})
}

// transpose2DSerial is transpose2D on the calling goroutine.
func transpose2DSerial[T any](src, out []T, rows, cols int) {
	const tile = 32
	for r0 := 0; r0 < rows; r0 += tile {
		r1 := min(r0+tile, rows)
		for c0 := 0; c0 < cols; c0 += tile {
			c1 := min(c0+tile, cols)
			for r := r0; r < r1; r++ {
				row := src[r*cols : r*cols+cols]
				for c := c0; c < c1; c++ {
					out[c*rows+r] = row[c]
				}
			}
		}
	}
}

// TransposeTensor returns x permuted by perm (no validation beyond what
// checkPerm does). Exported for the executor and other kernels (NCHW/NHWC).
func TransposeTensor(x *Tensor, perm []int) (*Tensor, error) {
	if err := checkPerm(perm, len(x.Shape)); err != nil {
		return nil, err
	}
	shape := make([]int, len(perm))
	for i, a := range perm {
		shape[i] = x.Shape[a]
	}
	out := &Tensor{DType: dtype.Base(x.DType), Shape: shape}
	switch d := x.Data.(type) {
	case []float32:
		out.Data = transposeData(d, x.Shape, perm)
	case []float64:
		out.Data = transposeData(d, x.Shape, perm)
	case []Float16:
		out.Data = transposeData(d, x.Shape, perm)
	case []BFloat16:
		out.Data = transposeData(d, x.Shape, perm)
	case []int8:
		out.Data = transposeData(d, x.Shape, perm)
	case []uint8:
		out.Data = transposeData(d, x.Shape, perm)
	case []int16:
		out.Data = transposeData(d, x.Shape, perm)
	case []uint16:
		out.Data = transposeData(d, x.Shape, perm)
	case []int32:
		out.Data = transposeData(d, x.Shape, perm)
	case []int64:
		out.Data = transposeData(d, x.Shape, perm)
	case []uint32:
		out.Data = transposeData(d, x.Shape, perm)
	case []uint64:
		out.Data = transposeData(d, x.Shape, perm)
	case []bool:
		out.Data = transposeData(d, x.Shape, perm)
	case [][]byte:
		out.Data = transposeData(d, x.Shape, perm)
	case []*Resource:
		out.Data = transposeData(d, x.Shape, perm)
	case []any:
		out.Data = transposeData(d, x.Shape, perm)
	default:
		return nil, fmt.Errorf("transpose: unsupported data %T", x.Data)
	}
	return out, nil
}

// checkPerm validates a permutation as transpose_op.cc does.
func checkPerm(perm []int, rank int) error {
	if len(perm) != rank {
		return fmt.Errorf("transpose expects a vector of size %d. But input(1) is a vector of size %d", rank, len(perm))
	}
	seen := make([]bool, rank)
	for _, a := range perm {
		if a < 0 || a >= rank {
			return fmt.Errorf("%d is out of range [0 .. %d)", a, rank)
		}
		if seen[a] {
			return fmt.Errorf("%d is duplicated in the permutation", a)
		}
		seen[a] = true
	}
	return nil
}

func transposeKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 2); err != nil {
		return nil, err
	}
	pv, err := indexValues(ctx.Inputs[1])
	if err != nil {
		return nil, ctx.Errorf("perm: %v", err)
	}
	perm := make([]int, len(pv))
	for i, v := range pv {
		// TF accepts negative... no: transpose_op.cc requires 0 <= d < rank.
		if v < 0 || v > 1<<30 {
			return nil, ctx.Errorf("%d is out of range [0 .. %d)", v, len(ctx.Inputs[0].Shape))
		}
		perm[i] = int(v)
	}
	out, err := TransposeTensor(ctx.Inputs[0], perm)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{out}, nil
}

func init() {
	Register("Transpose", transposeKernel)
	// Real dtypes only: the conjugate of a real number is itself.
	Register("ConjugateTranspose", transposeKernel)
}
