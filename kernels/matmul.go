package kernels

import (
	"strings"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// MatMul and the BatchMatMul family, after TensorFlow's
// core/kernels/matmul_op_impl.h: MatMul is a rank-2 BatchMatMul with
// transpose_a/transpose_b; BatchMatMul (V1) needs equal batch dims,
// BatchMatMulV2/V3 broadcast them; V3 adds Ta, Tb and Tout. CPU dtypes
// (matmul_op_real.cc, matmul_op_complex.cc): float, double, half, bfloat16,
// int16, int32, int64, complex64, complex128, and for V3 int8/uint8
// operands with an int32 result.

func init() {
	Register("MatMul", matMulKernel)
	Register("BatchMatMul", func(ctx *Context) ([]*Tensor, error) { return batchMatMulKernel(ctx, false) })
	Register("BatchMatMulV2", func(ctx *Context) ([]*Tensor, error) { return batchMatMulKernel(ctx, true) })
	Register("BatchMatMulV3", func(ctx *Context) ([]*Tensor, error) { return batchMatMulKernel(ctx, true) })
}

func matMulKernel(ctx *Context) ([]*Tensor, error) {
	if err := nnInputs(ctx, 2); err != nil {
		return nil, err
	}
	ta, err := ctx.AttrBool("transpose_a")
	if err != nil {
		return nil, err
	}
	tb, err := ctx.AttrBool("transpose_b")
	if err != nil {
		return nil, err
	}
	x, y := ctx.Inputs[0], ctx.Inputs[1]
	if len(x.Shape) != 2 || len(y.Shape) != 2 {
		return nil, ctx.Errorf("In[0] and In[1] must be matrices, got shapes %v and %v", x.Shape, y.Shape)
	}
	out, err := matMulAny(ctx, x, y, ta, tb, false, x.DType)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

func batchMatMulKernel(ctx *Context, broadcast bool) ([]*Tensor, error) {
	if err := nnInputs(ctx, 2); err != nil {
		return nil, err
	}
	adjX, err := ctx.AttrBool("adj_x")
	if err != nil {
		return nil, err
	}
	adjY, err := ctx.AttrBool("adj_y")
	if err != nil {
		return nil, err
	}
	x, y := ctx.Inputs[0], ctx.Inputs[1]
	tout := x.DType
	if ctx.HasAttr("Tout") {
		if tout, err = ctx.AttrType("Tout"); err != nil {
			return nil, err
		}
	}
	out, err := matMulAny(ctx, x, y, adjX, adjY, broadcast, tout)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

// matMulPlan is the shape bookkeeping of one (batched) matmul.
type matMulPlan struct {
	m, n, k  int
	outShape []int
	// xOff[b], yOff[b] are the offsets of batch b's matrices.
	xOff, yOff []int
	adjX, adjY bool
	// off backs xOff and yOff when there is one pair of matrices (MatMul),
	// so that the plan is one allocation.
	off [2]int
}

// planMatMul checks the shapes of x [..., m, k] and y [..., k, n] (each
// possibly adjointed) and maps every output batch to its input matrices.
func planMatMul(ctx *Context, xs, ys []int, adjX, adjY, broadcast bool) (*matMulPlan, error) {
	if len(xs) < 2 || len(ys) < 2 {
		return nil, ctx.Errorf("inputs must have rank >= 2, got shapes %v and %v", xs, ys)
	}
	rx, ry := len(xs), len(ys)
	m, kx := xs[rx-2], xs[rx-1]
	if adjX {
		m, kx = kx, m
	}
	ky, n := ys[ry-2], ys[ry-1]
	if adjY {
		ky, n = n, ky
	}
	if kx != ky {
		return nil, ctx.Errorf("matrix size-incompatible: In[0]: %v, In[1]: %v", xs, ys)
	}
	bx, by := xs[:rx-2], ys[:ry-2]
	var bshape []int
	if !broadcast {
		if len(bx) != len(by) {
			return nil, ctx.Errorf("In[0] and In[1] has different ndims: %v vs. %v", xs, ys)
		}
		for i := range bx {
			if bx[i] != by[i] {
				return nil, ctx.Errorf("In[0].dim(%d) and In[1].dim(%d) must be the same: %v vs %v", i, i, xs, ys)
			}
		}
		bshape = nnCloneShape(bx)
	} else {
		nb := max(len(bx), len(by))
		bshape = make([]int, nb)
		for i := 0; i < nb; i++ {
			dx, dy := 1, 1
			if j := i - (nb - len(bx)); j >= 0 {
				dx = bx[j]
			}
			if j := i - (nb - len(by)); j >= 0 {
				dy = by[j]
			}
			switch {
			case dx == dy, dy == 1:
				bshape[i] = dx
			case dx == 1:
				bshape[i] = dy
			default:
				return nil, ctx.Errorf("In[0] and In[1] must have compatible batch dimensions: %v vs. %v", xs, ys)
			}
		}
	}
	outShape := append(nnCloneShape(bshape), m, n)
	if _, err := CheckShape(outShape); err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	batches := 1
	for _, d := range bshape {
		batches *= d
	}
	p := &matMulPlan{m: m, n: n, k: kx, outShape: outShape, adjX: adjX, adjY: adjY}
	if batches == 1 {
		p.xOff, p.yOff = p.off[:1:1], p.off[1:2:2]
	} else {
		p.xOff, p.yOff = make([]int, batches), make([]int, batches)
	}
	xm, ym := xs[rx-2]*xs[rx-1], ys[ry-2]*ys[ry-1]
	idx := make([]int, len(bshape))
	for b := 0; b < batches; b++ {
		// Map the batch index to each input's (broadcast) batch index.
		xo, yo := 0, 0
		xst, yst := xm, ym
		for i := len(bshape) - 1; i >= 0; i-- {
			if j := i - (len(bshape) - len(bx)); j >= 0 {
				if bx[j] != 1 {
					xo += idx[i] * xst
				}
				xst *= bx[j]
			}
			if j := i - (len(bshape) - len(by)); j >= 0 {
				if by[j] != 1 {
					yo += idx[i] * yst
				}
				yst *= by[j]
			}
		}
		p.xOff[b], p.yOff[b] = xo, yo
		for i := len(bshape) - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < bshape[i] {
				break
			}
			idx[i] = 0
		}
	}
	return p, nil
}

// operands returns the strided views of batch b's x and y matrices.
func matOperands[T nnFloat](p *matMulPlan, b int, x, y []T) (gemmOperand[T], gemmOperand[T]) {
	a := gemmOperand[T]{data: x, off: p.xOff[b], rs: p.k, cs: 1}
	if p.adjX { // stored [k, m]
		a.rs, a.cs = 1, p.m
	}
	bb := gemmOperand[T]{data: y, off: p.yOff[b], rs: p.n, cs: 1}
	if p.adjY { // stored [n, k]
		bb.rs, bb.cs = 1, p.k
	}
	return a, bb
}

// matMulFloat runs the plan on float data: the blocked GEMM, with operand
// rounding applied while packing, or the exact accumulation-order loop when
// the emulation rounds partial sums.
func matMulFloat[T nnFloat](ctx *Context, p *matMulPlan, x, y []T, emu *Emulation) []T {
	// Both paths write every element of the result (the GEMM's first
	// depth block stores, later ones add; an empty k clears), so a
	// recycled buffer needs no zeroing.
	out := newOutFull[T](ctx, p.m*p.n*len(p.xOff))
	ro, ra := roundOperand[T](emu), roundAccum[T](emu)
	if ra != nil {
		nnParallel(len(p.xOff), p.m*p.n*p.k, func(b int) {
			a, bb := matOperands(p, b, x, y)
			naiveGemmRounded(p.m, p.n, p.k, a, bb, out[b*p.m*p.n:], ro, ra)
		})
		return out
	}
	var bc *PackCache
	if ctx != nil && len(ctx.Inputs) > 1 {
		bc = stableB(ctx, 1) // a dense layer's weights
	}
	var one [1]gemmJob[T] // a MatMul's one job, on the stack
	jobs := one[:]
	if len(p.xOff) != 1 {
		jobs = make([]gemmJob[T], len(p.xOff))
	}
	for b := range jobs {
		a, bb := matOperands(p, b, x, y)
		jobs[b] = gemmJob[T]{m: p.m, n: p.n, k: p.k, a: a, b: bb, c: out, coff: b * p.m * p.n, ldc: p.n, round: ro, bCache: bc}
	}
	runGemm(jobs)
	return out
}

// naiveGemmRounded computes C = A·B summing in k order and rounding every
// operand with ro and every partial sum with ra (fp16 accumulation).
func naiveGemmRounded[T nnFloat](m, n, k int, a, b gemmOperand[T], c []T, ro, ra func(T) T) {
	id := func(v T) T { return v }
	if ro == nil {
		ro = id
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var acc T
			for p := 0; p < k; p++ {
				acc = ra(acc + ro(a.at(i, p))*ro(b.at(p, j)))
			}
			c[i*n+j] = acc
		}
	}
}

// matMulStorage is a float16 matmul as TensorFlow's CPU kernel computes it:
// Eigen's contraction on Eigen::half scalars, whose every product and every
// partial sum is rounded to float16 (Eigen's half arithmetic computes in
// float and rounds each result), the sum running over k in order from zero.
// The kernel goldens (kernels/testdata/tf) hold it bit-identical to
// TensorFlow; accumulating in float32 and rounding once differs by up to
// hundreds of float16 ULPs on long sums.
func matMulStorage(p *matMulPlan, x, y []float32, rnd func(float32) float32) []float32 {
	out := make([]float32, p.m*p.n*len(p.xOff))
	nnParallel(len(p.xOff), p.m*p.n*p.k, func(b int) {
		a, bb := matOperands(p, b, x, y)
		c := out[b*p.m*p.n:]
		for i := 0; i < p.m; i++ {
			for j := 0; j < p.n; j++ {
				var acc float32
				for q := 0; q < p.k; q++ {
					acc = rnd(acc + rnd(a.at(i, q)*bb.at(q, j)))
				}
				c[i*p.n+j] = acc
			}
		}
	})
	return out
}

// matMulAny dispatches a (batched) matmul on the operand dtypes.
func matMulAny(ctx *Context, x, y *Tensor, adjX, adjY, broadcast bool, tout tpb.DataType) (*Tensor, error) {
	p, err := planMatMul(ctx, x.Shape, y.Shape, adjX, adjY, broadcast)
	if err != nil {
		return nil, err
	}
	if x.DType == y.DType && tout == x.DType {
		switch x.DType {
		case nnF32, nnF16, nnBF16:
			xd, err := floatsOf[float32](x)
			if err != nil {
				return nil, ctx.Errorf("%v", err)
			}
			yd, err := floatsOf[float32](y)
			if err != nil {
				return nil, ctx.Errorf("%v", err)
			}
			if x.DType == nnF16 && ctx.Emu == nil {
				return tensorFrom(x.DType, p.outShape, matMulStorage(p, xd, yd, RoundFloat16)), nil
			}
			fc := ctx
			if x.DType != nnF32 {
				// The float32 sums of a half type are rounded into a new
				// tensor: their buffer would outlive nothing.
				fc = nil
			}
			return tensorFrom(x.DType, p.outShape, matMulFloat(fc, p, xd, yd, ctx.Emu)), nil
		case nnF64:
			xd, err := floatsOf[float64](x)
			if err != nil {
				return nil, ctx.Errorf("%v", err)
			}
			yd, err := floatsOf[float64](y)
			if err != nil {
				return nil, ctx.Errorf("%v", err)
			}
			return tensorFrom(nnF64, p.outShape, matMulFloat(ctx, p, xd, yd, ctx.Emu)), nil
		case nnI32:
			return intMatMul[int32](ctx, p, x, y)
		case nnI64:
			return intMatMul[int64](ctx, p, x, y)
		case tpb.DataType_DT_INT16:
			return intMatMul[int16](ctx, p, x, y)
		}
	}
	if x.DType == y.DType && tout == x.DType && (x.DType == tpb.DataType_DT_COMPLEX64 || x.DType == tpb.DataType_DT_COMPLEX128) {
		// BatchMatMul's adj_x/adj_y conjugate as well as transpose;
		// MatMul's transpose_a/transpose_b only transpose.
		return complexMatMul(ctx, p, x, y, strings.HasPrefix(ctx.Op, "BatchMatMul"))
	}
	// BatchMatMulV3's 8-bit operands with an int32 result.
	is8 := func(dt tpb.DataType) bool { return dt == tpb.DataType_DT_INT8 || dt == tpb.DataType_DT_UINT8 }
	if is8(x.DType) && is8(y.DType) && tout == nnI32 {
		xi, yi := widen8(x), widen8(y)
		out := make([]int32, p.m*p.n*len(p.xOff))
		intMatMulData(p, xi, yi, out)
		return &Tensor{DType: nnI32, Shape: p.outShape, Data: out}, nil
	}
	return nil, ctx.Unsupported("dtypes %s x %s -> %s", x.DType, y.DType, tout)
}

func widen8(t *Tensor) []int32 {
	switch d := t.Data.(type) {
	case []int8:
		out := make([]int32, len(d))
		for i, v := range d {
			out[i] = int32(v)
		}
		return out
	case []uint8:
		out := make([]int32, len(d))
		for i, v := range d {
			out[i] = int32(v)
		}
		return out
	}
	return nil
}

type nnInt interface{ ~int16 | ~int32 | ~int64 }

func intMatMul[T nnInt](ctx *Context, p *matMulPlan, x, y *Tensor) (*Tensor, error) {
	xd, ok1 := x.Data.([]T)
	yd, ok2 := y.Data.([]T)
	if !ok1 || !ok2 {
		return nil, ctx.Errorf("%s tensors hold %T and %T", x.DType, x.Data, y.Data)
	}
	out := make([]T, p.m*p.n*len(p.xOff))
	intMatMulData(p, xd, yd, out)
	return &Tensor{DType: x.DType, Shape: p.outShape, Data: out}, nil
}

// intMatMulData is integer matmul with two's-complement wrap-around, as
// Eigen's integer contraction behaves in practice.
func intMatMulData[T nnInt](p *matMulPlan, x, y, out []T) {
	nnParallel(len(p.xOff), p.m*p.n*p.k, func(b int) {
		c := out[b*p.m*p.n : (b+1)*p.m*p.n]
		xo, yo := p.xOff[b], p.yOff[b]
		for i := 0; i < p.m; i++ {
			row := c[i*p.n : (i+1)*p.n]
			for q := 0; q < p.k; q++ {
				var av T
				if p.adjX {
					av = x[xo+q*p.m+i]
				} else {
					av = x[xo+i*p.k+q]
				}
				if av == 0 {
					continue
				}
				for j := range row {
					var bv T
					if p.adjY {
						bv = y[yo+j*p.k+q]
					} else {
						bv = y[yo+q*p.n+j]
					}
					row[j] += av * bv
				}
			}
		}
	})
}
