package kernels

import (
	"fmt"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/dtype"
)

// SpaceToBatchND, BatchToSpaceND and their 4-D forms SpaceToBatch and
// BatchToSpace (core/kernels/spacetobatch_op.cc, batchtospace_op.cc,
// spacetobatch_functor.cc). They only move elements; TensorFlow registers
// them on CPU for TF_CALL_REAL_NUMBER_TYPES (every real numeric dtype, not
// bool or string). Dilated convolutions in Keras (and tf.nn.atrous_conv2d)
// lower to SpaceToBatchND → Conv2D → BatchToSpaceND.

// rowGather builds a tensor of shape out from rows of rowLen contiguous
// elements of x: row r of the output is x.Data[starts[r]:starts[r]+rowLen],
// or zeros when starts[r] < 0. It is the data-movement core of the kernels in
// this file and of ExtractImagePatches; one generic loop serves every dtype.
func rowGather(x *Tensor, out []int, starts []int, rowLen int) (*Tensor, error) {
	if _, err := CheckShape(out); err != nil {
		return nil, err
	}
	t := &Tensor{DType: dtype.Base(x.DType), Shape: out}
	switch d := x.Data.(type) {
	case []float32:
		t.Data = rowGatherT(d, starts, rowLen)
	case []float64:
		t.Data = rowGatherT(d, starts, rowLen)
	case []Float16:
		t.Data = rowGatherT(d, starts, rowLen)
	case []BFloat16:
		t.Data = rowGatherT(d, starts, rowLen)
	case []int8:
		t.Data = rowGatherT(d, starts, rowLen)
	case []uint8:
		t.Data = rowGatherT(d, starts, rowLen)
	case []int16:
		t.Data = rowGatherT(d, starts, rowLen)
	case []uint16:
		t.Data = rowGatherT(d, starts, rowLen)
	case []int32:
		t.Data = rowGatherT(d, starts, rowLen)
	case []int64:
		t.Data = rowGatherT(d, starts, rowLen)
	case []uint32:
		t.Data = rowGatherT(d, starts, rowLen)
	case []uint64:
		t.Data = rowGatherT(d, starts, rowLen)
	case []bool:
		t.Data = rowGatherT(d, starts, rowLen)
	case [][]byte:
		t.Data = rowGatherT(d, starts, rowLen)
	default:
		return nil, fmt.Errorf("unsupported tensor data %T", x.Data)
	}
	return t, nil
}

func rowGatherT[T any](src []T, starts []int, rowLen int) []T {
	out := make([]T, len(starts)*rowLen)
	parallelFor(len(starts), rowLen, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			if s := starts[r]; s >= 0 {
				copy(out[r*rowLen:(r+1)*rowLen], src[s:s+rowLen])
			}
		}
	})
	return out
}

// isRealNumber reports whether dt is in TF_CALL_REAL_NUMBER_TYPES (and has a
// Go representation here).
func isRealNumber(t *Tensor) bool {
	switch t.Data.(type) {
	case []float32, []float64, []Float16, []BFloat16, []int8, []uint8, []int16, []uint16,
		[]int32, []int64, []uint32, []uint64:
		return true
	}
	return false
}

// blockArgs validates block_shape and paddings/crops as
// SpaceToBatchOpCompute / BatchToSpaceOpCompute do and returns them.
func blockArgs(ctx *Context, x, blockT, padT *Tensor, padName string) (block []int64, pads []int64, err error) {
	if len(blockT.Shape) != 1 {
		return nil, nil, ctx.Errorf("block_shape rank should be 1 instead of %d", len(blockT.Shape))
	}
	m := blockT.Shape[0]
	if len(x.Shape) < 1+m {
		return nil, nil, ctx.Errorf("input rank should be >= %d instead of %d", 1+m, len(x.Shape))
	}
	if len(padT.Shape) != 2 || padT.Shape[0] != m || padT.Shape[1] != 2 {
		return nil, nil, ctx.Errorf("%s should have shape [%d, 2] instead of %s", padName, m, dimsString(padT.Shape))
	}
	if block, err = indexValues(blockT); err != nil {
		return nil, nil, ctx.Errorf("block_shape: %v", err)
	}
	if pads, err = indexValues(padT); err != nil {
		return nil, nil, ctx.Errorf("%s: %v", padName, err)
	}
	prod := int64(1)
	for i, b := range block {
		if b < 1 {
			return nil, nil, ctx.Errorf("All values in block_shape must be positive, got value, %d at index %d.", b, i)
		}
		if prod > MaxElements/b {
			return nil, nil, ctx.Errorf("Product of block sizes is too large")
		}
		prod *= b
	}
	return block, pads, nil
}

// spaceToBatch implements SpaceToBatchND:
//
//	out[(k·B + b), j1..jM, r] = in[b, j1·s1 + k1 − p1, ..., r]  (0 outside)
//
// where k = (k1..kM) is the block offset flattened row-major and B the
// input batch.
func spaceToBatch(ctx *Context, x, blockT, padT *Tensor) ([]*Tensor, error) {
	if !isRealNumber(x) {
		return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
	}
	block, pads, err := blockArgs(ctx, x, blockT, padT, "paddings")
	if err != nil {
		return nil, err
	}
	m := len(block)
	batch := x.Shape[0]
	outSp := make([]int, m)
	prod := 1
	for i := 0; i < m; i++ {
		ps, pe := pads[2*i], pads[2*i+1]
		if ps < 0 || pe < 0 {
			return nil, ctx.Errorf("Paddings must be non-negative")
		}
		padded := int64(x.Shape[1+i]) + ps + pe
		if padded%block[i] != 0 {
			return nil, ctx.Errorf("padded_shape[%d]=%d is not divisible by block_shape[%d]=%d", i, padded, i, block[i])
		}
		if padded/block[i] > MaxElements {
			return nil, ctx.Errorf("padded_shape[%d]=%d is too large", i, padded)
		}
		outSp[i] = int(padded / block[i])
		prod *= int(block[i])
	}
	out := append([]int{batch * prod}, outSp...)
	out = append(out, x.Shape[1+m:]...)
	n, err := CheckShape(out)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	rowLen := product(x.Shape[1+m:])
	if rowLen == 0 || n == 0 {
		t, err := rowGather(x, out, nil, 0) // no elements to move
		if err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		return []*Tensor{t}, nil
	}
	inStr := rowMajorStrides(x.Shape)
	rows := n / rowLen
	starts := make([]int, rows)
	k := make([]int, m) // block offset of the current output batch
	j := make([]int, m) // spatial output index
	r := 0
	for ob := 0; ob < out[0]; ob++ {
		b := ob % batch
		rem := ob / batch
		for i := m - 1; i >= 0; i-- {
			k[i] = rem % int(block[i])
			rem /= int(block[i])
		}
		spRows := product(outSp)
		for i := range j {
			j[i] = 0
		}
		for s := 0; s < spRows; s++ {
			off := b * inStr[0]
			for i := 0; i < m && off >= 0; i++ {
				p := j[i]*int(block[i]) + k[i] - int(pads[2*i])
				if p < 0 || p >= x.Shape[1+i] {
					off = -1
					break
				}
				off += p * inStr[1+i]
			}
			starts[r] = off
			r++
			for i := m - 1; i >= 0; i-- {
				if j[i]++; j[i] < outSp[i] {
					break
				}
				j[i] = 0
			}
		}
	}
	t, err := rowGather(x, out, starts, rowLen)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{t}, nil
}

// batchToSpace implements BatchToSpaceND, the inverse of SpaceToBatchND
// with crops instead of paddings:
//
//	out[b, q1..qM, r] = in[(k·B' + b), j1..jM, r]  with qi = ji·si + ki − ci
//
// where B' = batch / prod(block).
func batchToSpace(ctx *Context, x, blockT, cropT *Tensor) ([]*Tensor, error) {
	if !isRealNumber(x) {
		return nil, ctx.Unsupported("dtype %s", dtypeName(x.DType))
	}
	block, crops, err := blockArgs(ctx, x, blockT, cropT, "crops")
	if err != nil {
		return nil, err
	}
	m := len(block)
	prod := 1
	for _, b := range block {
		prod *= int(b)
	}
	if x.Shape[0]%prod != 0 {
		return nil, ctx.Errorf("Input batch dimension (%d) is not divisible by product of block sizes (%d)", x.Shape[0], prod)
	}
	outBatch := x.Shape[0] / prod
	outSp := make([]int, m)
	for i := 0; i < m; i++ {
		cs, ce := crops[2*i], crops[2*i+1]
		if cs < 0 || ce < 0 {
			return nil, ctx.Errorf("Crops must be non-negative")
		}
		c := int64(x.Shape[1+i])*block[i] - cs - ce
		if c < 0 {
			return nil, ctx.Errorf("cropped_shape[%d]=%d must be non-negative", i, c)
		}
		outSp[i] = int(c)
	}
	out := append([]int{outBatch}, outSp...)
	out = append(out, x.Shape[1+m:]...)
	n, err := CheckShape(out)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	rowLen := product(x.Shape[1+m:])
	if rowLen == 0 || n == 0 {
		t, err := rowGather(x, out, nil, 0) // no elements to move
		if err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		return []*Tensor{t}, nil
	}
	inStr := rowMajorStrides(x.Shape)
	starts := make([]int, n/rowLen)
	q := make([]int, m)
	spRows := product(outSp)
	r := 0
	for b := 0; b < outBatch; b++ {
		for i := range q {
			q[i] = 0
		}
		for s := 0; s < spRows; s++ {
			// qi + ci = ji·si + ki.
			kflat, off := 0, 0
			for i := 0; i < m; i++ {
				v := q[i] + int(crops[2*i])
				kflat = kflat*int(block[i]) + v%int(block[i])
				off += (v / int(block[i])) * inStr[1+i]
			}
			starts[r] = off + (kflat*outBatch+b)*inStr[0]
			r++
			for i := m - 1; i >= 0; i-- {
				if q[i]++; q[i] < outSp[i] {
					break
				}
				q[i] = 0
			}
		}
	}
	t, err := rowGather(x, out, starts, rowLen)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{t}, nil
}

// blockSizeTensor turns the block_size attr of the 4-D ops into the
// block_shape input of the ND ops (spacetobatch_op.cc SpaceToBatchOp).
func blockSizeTensor(ctx *Context, x *Tensor) (*Tensor, error) {
	bs, err := ctx.AttrInt("block_size")
	if err != nil {
		return nil, err
	}
	if bs <= 1 {
		return nil, ctx.Errorf("Block size should be > 1: %d", bs)
	}
	if len(x.Shape) != 4 {
		return nil, ctx.Errorf("Input rank should be: 4 instead of: %d", len(x.Shape))
	}
	return &Tensor{DType: tpb.DataType_DT_INT64, Shape: []int{2}, Data: []int64{bs, bs}}, nil
}

func init() {
	Register("SpaceToBatchND", func(ctx *Context) ([]*Tensor, error) {
		if err := wantInputs(ctx, 3); err != nil {
			return nil, err
		}
		return spaceToBatch(ctx, ctx.Inputs[0], ctx.Inputs[1], ctx.Inputs[2])
	})
	Register("BatchToSpaceND", func(ctx *Context) ([]*Tensor, error) {
		if err := wantInputs(ctx, 3); err != nil {
			return nil, err
		}
		return batchToSpace(ctx, ctx.Inputs[0], ctx.Inputs[1], ctx.Inputs[2])
	})
	Register("SpaceToBatch", func(ctx *Context) ([]*Tensor, error) {
		if err := wantInputs(ctx, 2); err != nil {
			return nil, err
		}
		b, err := blockSizeTensor(ctx, ctx.Inputs[0])
		if err != nil {
			return nil, err
		}
		return spaceToBatch(ctx, ctx.Inputs[0], b, ctx.Inputs[1])
	})
	Register("BatchToSpace", func(ctx *Context) ([]*Tensor, error) {
		if err := wantInputs(ctx, 2); err != nil {
			return nil, err
		}
		b, err := blockSizeTensor(ctx, ctx.Inputs[0])
		if err != nil {
			return nil, err
		}
		return batchToSpace(ctx, ctx.Inputs[0], b, ctx.Inputs[1])
	})
}
