package kernels

import (
	"slices"
	"strings"

	"github.com/tfscan/tfscan/dtype"
)

// Pad, PadV2, MirrorPad, Tile, Reverse, ReverseV2 and BroadcastTo
// (pad_op.cc, mirror_pad_op.cc, tile_ops.cc, reverse_op.cc,
// broadcast_to_op.cc), for every dtype, all as per-dimension index maps.

// paddingPairs reads an [rank, 2] paddings tensor.
func paddingPairs(ctx *Context, p *Tensor, rank int) ([][2]int, error) {
	if len(p.Shape) != 2 || p.Shape[1] != 2 {
		return nil, ctx.Errorf("paddings must be a matrix with 2 columns: %s", dimsString(p.Shape))
	}
	if p.Shape[0] != rank {
		return nil, ctx.Errorf("The first dimension of paddings must be the rank of inputs%s", dimsString(p.Shape))
	}
	v, err := indexValues(p)
	if err != nil {
		return nil, ctx.Errorf("paddings: %v", err)
	}
	out := make([][2]int, rank)
	for d := range out {
		b, a := v[2*d], v[2*d+1]
		if b < 0 || a < 0 {
			return nil, ctx.Errorf("Paddings must be non-negative: %d %d", b, a)
		}
		if b > int64(MaxElements) || a > int64(MaxElements) {
			return nil, ctx.Errorf("paddings %d %d are too large", b, a)
		}
		out[d] = [2]int{int(b), int(a)}
	}
	return out, nil
}

// checkPadded rejects padded shapes too large to allocate before any index
// map is built.
func checkPadded(ctx *Context, shape []int, pads [][2]int) error {
	s := make([]int, len(shape))
	for d, n := range shape {
		s[d] = pads[d][0] + n + pads[d][1]
	}
	if _, err := CheckShape(s); err != nil {
		return ctx.Errorf("%v", err)
	}
	return nil
}

func padKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 2); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	pads, err := paddingPairs(ctx, ctx.Inputs[1], len(x.Shape))
	if err != nil {
		return nil, err
	}
	if err := checkPadded(ctx, x.Shape, pads); err != nil {
		return nil, err
	}
	var fill *Tensor
	if ctx.Op == "PadV2" && len(ctx.Inputs) > 2 && ctx.Inputs[2] != nil {
		fill = ctx.Inputs[2]
		if fill.NumElements() != 1 {
			return nil, ctx.Errorf("constant_values must be a scalar. Got: %s", dimsString(fill.Shape))
		}
	} else if fill, err = NewTensor(dtype.Base(x.DType), []int{}); err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	maps := make([][]int, len(x.Shape))
	for d, dim := range x.Shape {
		m := make([]int, pads[d][0]+dim+pads[d][1])
		for j := range m {
			k := j - pads[d][0]
			if k < 0 || k >= dim {
				m[j] = -1
			} else {
				m[j] = k
			}
		}
		maps[d] = m
	}
	if xd, ok := x.Data.([]float32); ok {
		if fd, ok := fill.Data.([]float32); ok {
			n := 1
			for _, m := range maps {
				n *= len(m)
			}
			shape := make([]int, len(maps))
			for d, m := range maps {
				shape[d] = len(m)
			}
			out := gatherDimsTo(newOutFull[float32](ctx, n), xd, x.Shape, maps, fd)
			return []*Tensor{{DType: dtype.Base(x.DType), Shape: shape, Data: out}}, nil
		}
	}
	out, err := gatherDims(x, maps, fill)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{out}, nil
}

func mirrorPadKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 2); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	mode, err := ctx.AttrString("mode")
	if err != nil {
		return nil, err
	}
	offset := 0
	switch strings.ToUpper(mode) {
	case "REFLECT":
		offset = 1
	case "SYMMETRIC":
	default:
		return nil, ctx.Unsupported("mode %q", mode)
	}
	pads, err := paddingPairs(ctx, ctx.Inputs[1], len(x.Shape))
	if err != nil {
		return nil, err
	}
	maps := make([][]int, len(x.Shape))
	for d, dim := range x.Shape {
		b, a := pads[d][0], pads[d][1]
		if b > dim-offset || a > dim-offset {
			return nil, ctx.Errorf("paddings must be no greater than the dimension size: %d, %d greater than %d", b, a, dim-offset)
		}
		m := make([]int, b+dim+a)
		for j := range m {
			k := j - b
			switch {
			case k < 0:
				k = -k - 1 + offset
			case k >= dim:
				k = 2*dim - 1 - k - offset
			}
			m[j] = k
		}
		maps[d] = m
	}
	out, err := gatherDims(x, maps, nil)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{out}, nil
}

func tileKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 2); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	mult, err := indexValues(ctx.Inputs[1])
	if err != nil {
		return nil, ctx.Errorf("multiples: %v", err)
	}
	if len(mult) != len(x.Shape) {
		return nil, ctx.Errorf("Expected multiples argument to be a vector of length %d but got length %d", len(x.Shape), len(mult))
	}
	maps := make([][]int, len(x.Shape))
	total := 1
	for d, dim := range x.Shape {
		if mult[d] < 0 {
			return nil, ctx.Errorf("Expected multiples[%d] >= 0, but got %d", d, mult[d])
		}
		n := int64(dim) * mult[d]
		if n > int64(MaxElements) || (n > 0 && total > MaxElements/int(n)) {
			return nil, ctx.Errorf("tiled shape is too large")
		}
		total *= int(n)
		m := make([]int, n)
		for j := range m {
			m[j] = j % dim
		}
		maps[d] = m
	}
	out, err := gatherDims(x, maps, nil)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{out}, nil
}

func reverseWith(ctx *Context, x *Tensor, rev []bool) ([]*Tensor, error) {
	maps := identityMaps(x.Shape)
	for d, r := range rev {
		if r {
			n := x.Shape[d]
			for j := range maps[d] {
				maps[d][j] = n - 1 - j
			}
		}
	}
	out, err := gatherDims(x, maps, nil)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{out}, nil
}

func reverseV2Kernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 2); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	axes, err := indexValues(ctx.Inputs[1])
	if err != nil {
		return nil, ctx.Errorf("axis: %v", err)
	}
	rank := len(x.Shape)
	rev := make([]bool, rank)
	for _, a := range axes {
		if a < -int64(rank) || a >= int64(rank) {
			return nil, ctx.Errorf("'axis'[%d] = %d is out of valid range [%d, %d", 0, a, 0, rank-1)
		}
		if a < 0 {
			a += int64(rank)
		}
		if rev[a] {
			return nil, ctx.Errorf("axis %d specified more than once.", a)
		}
		rev[a] = true
	}
	return reverseWith(ctx, x, rev)
}

func reverseKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 2); err != nil {
		return nil, err
	}
	x := ctx.Inputs[0]
	dims, ok := ctx.Inputs[1].Data.([]bool)
	if !ok || len(dims) != len(x.Shape) {
		return nil, ctx.Errorf("'dims' must have the same number of values as 'input' has dimensions. 'input' has %d'dims' has %d values", len(x.Shape), ctx.Inputs[1].NumElements())
	}
	return reverseWith(ctx, x, dims)
}

// BroadcastToTensor broadcasts x to shape with TensorFlow's rules.
func BroadcastToTensor(x *Tensor, shape []int) (*Tensor, error) {
	out, err := broadcastShapes(x.Shape, shape)
	if err != nil || !slices.Equal(out, shape) {
		return nil, errorf("Unable to broadcast tensor of shape %s to tensor of shape %s", dimsString(x.Shape), dimsString(shape))
	}
	rank := len(shape)
	padded := make([]int, rank)
	off := rank - len(x.Shape)
	for i := range padded {
		padded[i] = 1
		if i >= off {
			padded[i] = x.Shape[i-off]
		}
	}
	maps := make([][]int, rank)
	for d := range maps {
		if padded[d] == shape[d] {
			maps[d] = rangeMap(0, shape[d])
		} else {
			maps[d] = make([]int, shape[d]) // all zeros: repeat the single element
		}
	}
	return gatherDims(&Tensor{DType: x.DType, Shape: padded, Data: x.Data}, maps, nil)
}

func broadcastToKernel(ctx *Context) ([]*Tensor, error) {
	if err := wantInputs(ctx, 2); err != nil {
		return nil, err
	}
	sv, err := indexValues(ctx.Inputs[1])
	if err != nil {
		return nil, ctx.Errorf("shape: %v", err)
	}
	shape := make([]int, len(sv))
	for i, v := range sv {
		if v < 0 || v > int64(MaxElements) {
			return nil, ctx.Errorf("invalid dimension %d in shape", v)
		}
		shape[i] = int(v)
	}
	out, err := BroadcastToTensor(ctx.Inputs[0], shape)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	return []*Tensor{out}, nil
}

func init() {
	Register("Pad", padKernel)
	Register("PadV2", padKernel)
	Register("MirrorPad", mirrorPadKernel)
	Register("Tile", tileKernel)
	Register("Reverse", reverseKernel)
	Register("ReverseV2", reverseV2Kernel)
	Register("BroadcastTo", broadcastToKernel)
}
