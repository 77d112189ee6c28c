package kernels

import (
	"slices"
	"strings"
)

// Einsum, after TensorFlow's linalg/einsum_op_impl.h: one or two operands,
// explicit ("ab,bc->ac") or implicit ("ab,bc") output, ellipsis ("...")
// broadcasting, repeated labels within an operand (diagonals). It reduces
// to the batched GEMM: labels only in one operand and not in the output are
// summed first; the others become batch (in both and the output),
// contracted (in both, not in the output) or free dims; each operand is
// transposed to [batch, free, contracted] / [batch, contracted, free], the
// product is one BatchMatMulV2 (which broadcasts batch dims of size 1 and
// honours the precision emulation), and the result is transposed to the
// output order.

func init() {
	Register("Einsum", func(ctx *Context) ([]*Tensor, error) {
		if len(ctx.Inputs) != 1 && len(ctx.Inputs) != 2 {
			return nil, ctx.Unsupported("%d operands (only 1 or 2)", len(ctx.Inputs))
		}
		if err := nnInputs(ctx, len(ctx.Inputs)); err != nil {
			return nil, err
		}
		return byFloat(ctx, ctx.Inputs[0].DType, allFloats, einsumOp[float32], einsumOp[float64])
	})
}

// einsumTerm is an operand (or the output) with one label per dim.
type einsumTerm[T nnFloat] struct {
	labels []rune
	shape  []int
	data   []T
}

// ellipsis labels are runes from this base up, counted from the left of the
// longest ellipsis so shorter ones align right as in broadcasting.
const einsumEllipsisBase = 0x10000

func einsumOp[T nnFloat](ctx *Context) ([]*Tensor, error) {
	eq, err := ctx.AttrString("equation")
	if err != nil {
		return nil, err
	}
	eq = strings.ReplaceAll(eq, " ", "")
	lhs, rhs, explicit := strings.Cut(eq, "->")
	ins := strings.Split(lhs, ",")
	if len(ins) != len(ctx.Inputs) {
		return nil, ctx.Errorf("equation %q has %d operands, the node has %d inputs", eq, len(ins), len(ctx.Inputs))
	}
	// Expand ellipses.
	maxE := 0
	ops := make([]*einsumTerm[T], len(ins))
	for i, s := range ins {
		x := ctx.Inputs[i]
		if x.DType != ctx.Inputs[0].DType {
			return nil, ctx.Errorf("operand dtypes differ: %s and %s", ctx.Inputs[0].DType, x.DType)
		}
		d, err := floatsOf[T](x)
		if err != nil {
			return nil, ctx.Errorf("%v", err)
		}
		pre, post, hasE := strings.Cut(s, "...")
		if strings.Contains(post, "...") || strings.Contains(post, ".") || strings.Contains(pre, ".") {
			return nil, ctx.Errorf("invalid equation %q", eq)
		}
		named := []rune(pre + post)
		for _, r := range named {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				return nil, ctx.Errorf("invalid label %q in equation %q", r, eq)
			}
		}
		e := len(x.Shape) - len(named)
		if e < 0 || (!hasE && e != 0) {
			return nil, ctx.Errorf("operand %d of rank %d does not match %q", i, len(x.Shape), s)
		}
		maxE = max(maxE, e)
		ops[i] = &einsumTerm[T]{shape: nnCloneShape(x.Shape), data: d}
		ops[i].labels = []rune(pre)
		for j := 0; j < e; j++ {
			ops[i].labels = append(ops[i].labels, -1-rune(e-j)) // placeholder: distance from the right
		}
		ops[i].labels = append(ops[i].labels, []rune(post)...)
	}
	for _, op := range ops {
		for j, r := range op.labels {
			if r < 0 {
				op.labels[j] = einsumEllipsisBase + rune(maxE) - (-1 - r)
			}
		}
	}
	var ellipsis []rune
	for j := 0; j < maxE; j++ {
		ellipsis = append(ellipsis, einsumEllipsisBase+rune(j))
	}
	// Output labels.
	var out []rune
	if explicit {
		pre, post, hasE := strings.Cut(rhs, "...")
		out = append(out, []rune(pre)...)
		if hasE {
			out = append(out, ellipsis...)
		}
		out = append(out, []rune(post)...)
		for _, r := range out {
			if r < einsumEllipsisBase && !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				return nil, ctx.Errorf("invalid output label %q in equation %q", r, eq)
			}
		}
	} else {
		count := map[rune]int{}
		for _, op := range ops {
			for _, r := range op.labels {
				count[r]++
			}
		}
		var once []rune
		for r, c := range count {
			if c == 1 && r < einsumEllipsisBase {
				once = append(once, r)
			}
		}
		slices.Sort(once)
		out = append(append(out, ellipsis...), once...)
	}
	// Label sizes, broadcasting ellipsis dims of size 1.
	size := map[rune]int{}
	for _, op := range ops {
		for j, r := range op.labels {
			d := op.shape[j]
			if s, ok := size[r]; ok && s != d {
				if r >= einsumEllipsisBase && (s == 1 || d == 1) {
					size[r] = max(s, d)
					continue
				}
				return nil, ctx.Errorf("label %q has sizes %d and %d in equation %q", r, s, d, eq)
			}
			if _, ok := size[r]; !ok {
				size[r] = d
			}
		}
	}
	inOut := map[rune]bool{}
	for _, r := range out {
		if _, ok := size[r]; !ok {
			if r >= einsumEllipsisBase {
				size[r] = 1
			} else {
				return nil, ctx.Errorf("output label %q does not appear in the inputs of %q", r, eq)
			}
		}
		if inOut[r] {
			return nil, ctx.Errorf("output label %q repeats in %q", r, eq)
		}
		inOut[r] = true
	}
	// Diagonals, then sum labels that appear in one operand only and not in
	// the output.
	for _, op := range ops {
		op.diagonal()
	}
	for i, op := range ops {
		var drop []rune
		for _, r := range op.labels {
			if inOut[r] {
				continue
			}
			other := false
			for k, o := range ops {
				if k != i && slices.Contains(o.labels, r) {
					other = true
				}
			}
			if !other {
				drop = append(drop, r)
			}
		}
		op.sumOut(drop)
	}
	var res *einsumTerm[T]
	if len(ops) == 1 {
		res = ops[0]
	} else {
		x, y := ops[0], ops[1]
		var batch, contract, freeX, freeY []rune
		for _, r := range x.labels {
			switch {
			case slices.Contains(y.labels, r) && inOut[r]:
				batch = append(batch, r)
			case slices.Contains(y.labels, r):
				contract = append(contract, r)
			default:
				freeX = append(freeX, r)
			}
		}
		for _, r := range y.labels {
			if !slices.Contains(x.labels, r) {
				freeY = append(freeY, r)
			}
		}
		xt := x.transposeTo(concatRunes(batch, freeX, contract))
		yt := y.transposeTo(concatRunes(batch, contract, freeY))
		prod := func(t *einsumTerm[T], ls []rune, start int) int {
			n := 1
			for j := range ls {
				n *= t.shape[start+j]
			}
			return n
		}
		nb := len(batch)
		m, k := prod(xt, freeX, nb), prod(xt, contract, nb+len(freeX))
		k2, n := prod(yt, contract, nb), prod(yt, freeY, nb+len(contract))
		if k != k2 {
			return nil, ctx.Errorf("contracted dims differ in size in %q", eq)
		}
		xs := append(nnCloneShape(xt.shape[:nb]), m, k)
		ys := append(nnCloneShape(yt.shape[:nb]), k, n)
		p, err := planMatMul(ctx, xs, ys, false, false, true)
		if err != nil {
			return nil, err
		}
		var data []T
		// float16 contracts as TensorFlow's BatchMatMul does, every
		// partial sum rounded to float16 (matMulStorage).
		if xf, ok := any(xt.data).([]float32); ok && ctx.Inputs[0].DType == nnF16 && ctx.Emu == nil {
			data = any(matMulStorage(p, xf, any(yt.data).([]float32), RoundFloat16)).([]T)
		} else {
			data = matMulFloat(nil, p, xt.data, yt.data, ctx.Emu)
		}
		shape := nnCloneShape(p.outShape[:nb])
		for _, r := range freeX {
			shape = append(shape, size[r])
		}
		for _, r := range freeY {
			shape = append(shape, size[r])
		}
		res = &einsumTerm[T]{labels: concatRunes(batch, freeX, freeY), shape: shape, data: data}
	}
	// Labels still present but not in the output (contracted in a
	// one-operand equation) are summed; output labels missing from the
	// result are ellipsis dims of size 1.
	var drop []rune
	for _, r := range res.labels {
		if !inOut[r] {
			drop = append(drop, r)
		}
	}
	res.sumOut(drop)
	for _, r := range out {
		if !slices.Contains(res.labels, r) {
			res.labels = append(res.labels, r)
			res.shape = append(res.shape, 1)
		}
	}
	res = res.transposeTo(out)
	// Broadcast ellipsis dims that are still 1 against the other operand.
	want := make([]int, len(out))
	for i, r := range out {
		want[i] = size[r]
	}
	if !slices.Equal(want, res.shape) {
		b, ok := broadcastTo(res.data, res.shape, want)
		if !ok {
			return nil, ctx.Errorf("cannot broadcast result %v to %v", res.shape, want)
		}
		res.data, res.shape = b, want
	}
	return []*Tensor{tensorFrom(ctx.Inputs[0].DType, append([]int{}, res.shape...), res.data)}, nil
}

func concatRunes(parts ...[]rune) []rune {
	var out []rune
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// stridedGather reads the elements of a view with the given shape and
// element strides into a new row-major slice.
func stridedGather[T any](src []T, shape, strides []int) []T {
	n := 1
	for _, d := range shape {
		n *= d
	}
	out := make([]T, n)
	if n == 0 {
		return out
	}
	idx := make([]int, len(shape))
	o := 0
	for i := 0; i < n; i++ {
		out[i] = src[o]
		for a := len(shape) - 1; a >= 0; a-- {
			idx[a]++
			o += strides[a]
			if idx[a] < shape[a] {
				break
			}
			o -= strides[a] * shape[a]
			idx[a] = 0
		}
	}
	return out
}

func rowStrides(shape []int) []int {
	st := make([]int, len(shape))
	s := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = s
		s *= shape[i]
	}
	return st
}

// diagonal replaces repeated labels by their diagonal.
func (t *einsumTerm[T]) diagonal() {
	st := rowStrides(t.shape)
	var labels []rune
	var shape, strides []int
	for j, r := range t.labels {
		if k := slices.Index(labels, r); k >= 0 {
			strides[k] += st[j]
			continue
		}
		labels = append(labels, r)
		shape = append(shape, t.shape[j])
		strides = append(strides, st[j])
	}
	if len(labels) == len(t.labels) {
		return
	}
	t.data = stridedGather(t.data, shape, strides)
	t.labels, t.shape = labels, shape
}

// transposeTo permutes the dims to the label order want (a permutation of
// t.labels).
func (t *einsumTerm[T]) transposeTo(want []rune) *einsumTerm[T] {
	if slices.Equal(want, t.labels) {
		return t
	}
	st := rowStrides(t.shape)
	shape := make([]int, len(want))
	strides := make([]int, len(want))
	for i, r := range want {
		j := slices.Index(t.labels, r)
		shape[i], strides[i] = t.shape[j], st[j]
	}
	return &einsumTerm[T]{labels: slices.Clone(want), shape: shape, data: stridedGather(t.data, shape, strides)}
}

// sumOut sums over the given labels.
func (t *einsumTerm[T]) sumOut(drop []rune) {
	if len(drop) == 0 {
		return
	}
	var keep []rune
	for _, r := range t.labels {
		if !slices.Contains(drop, r) {
			keep = append(keep, r)
		}
	}
	u := t.transposeTo(append(slices.Clone(keep), drop...))
	inner := 1
	for j := len(keep); j < len(u.shape); j++ {
		inner *= u.shape[j]
	}
	outer := 1
	for j := 0; j < len(keep); j++ {
		outer *= u.shape[j]
	}
	data := make([]T, outer)
	for i := range data {
		var s T
		for _, v := range u.data[i*inner : (i+1)*inner] {
			s += v
		}
		data[i] = s
	}
	t.labels, t.shape, t.data = keep, nnCloneShape(u.shape[:len(keep)]), data
}
