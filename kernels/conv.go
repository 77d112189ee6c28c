package kernels

import (
	"unsafe"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// Conv2D and Conv3D, after TensorFlow's conv_ops.cc / conv_ops_impl.h and
// conv_ops_3d.cc: NHWC/NDHWC input, HWIO/DHWIO filter, strides, dilations,
// SAME/VALID/EXPLICIT padding and grouped convolution (filter depth dividing
// the input depth). They run as im2col + the blocked GEMM of matmul_gemm.go;
// a 1x1 stride-1 unpadded convolution multiplies the input directly, and a
// depthwise one (one channel per group) runs on the depthwise kernel's loop
// (conv_grouped.go).
//
// TensorFlow's CPU kernels accept only NHWC; NCHW (the GPU layout, common
// in models exported from NVIDIA machines) is computed here by transposing
// to NHWC and back, so results match the GPU kernels' semantics.

func init() {
	Register("Conv2D", convKernel(2))
	Register("Conv3D", convKernel(3))
}

func convKernel(ns int) KernelFunc {
	return func(ctx *Context) ([]*Tensor, error) {
		if err := nnInputs(ctx, 2); err != nil {
			return nil, err
		}
		return byFloat(ctx, ctx.Inputs[0].DType, allFloats,
			func(c *Context) ([]*Tensor, error) { return convOp[float32](c, ns) },
			func(c *Context) ([]*Tensor, error) { return convOp[float64](c, ns) })
	}
}

func convOp[T nnFloat](ctx *Context, ns int) ([]*Tensor, error) {
	r, err := convCompute[T](ctx, ctx.Inputs[0], ctx.Inputs[1], ns)
	if err != nil {
		return nil, err
	}
	return []*Tensor{r.finish(ctx.Inputs[0].DType)}, nil
}

// convResult is a convolution output in channels-last layout, with what is
// needed to return it in the node's layout.
type convResult[T nnFloat] struct {
	data         []T
	shape        []int // channels-last
	channelsLast bool
}

// channels returns the channel count (the last dim).
func (r *convResult[T]) channels() int { return r.shape[len(r.shape)-1] }

// finish builds the output tensor in the node's data_format.
func (r *convResult[T]) finish(dt tpb.DataType) *Tensor {
	data, shape := r.data, r.shape
	if !r.channelsLast {
		n, c := shape[0], shape[len(shape)-1]
		sp := 1
		for _, d := range shape[1 : len(shape)-1] {
			sp *= d
		}
		data = toChannelsFirst(data, n, c, sp)
		shape = append([]int{n, c}, shape[1:len(shape)-1]...)
	}
	return tensorFrom(dt, shape, data)
}

// convPlan is the geometry of one convolution, spatial dims padded to 3
// (depth, height, width; unused leading ones have size 1).
type convPlan struct {
	n, c, o, groups int
	sp              [3]windowDim
	// packs, when set, keeps the filter's packed panels (a stable filter).
	packs *PackCache
}

func (p *convPlan) outRows() int { return p.n * p.sp[0].out * p.sp[1].out * p.sp[2].out }

// convCompute checks the shapes and attrs of a Conv2D/Conv3D-like node
// (input x, filter f with ns spatial dims) and computes the convolution.
func convCompute[T nnFloat](ctx *Context, x, f *Tensor, ns int) (*convResult[T], error) {
	cl, err := dataFormatChannelsLast(ctx)
	if err != nil {
		return nil, err
	}
	rank := ns + 2
	if len(x.Shape) != rank || len(f.Shape) != rank {
		return nil, ctx.Errorf("input and filter must be %d-dimensional, got shapes %v and %v", rank, x.Shape, f.Shape)
	}
	if f.DType != x.DType {
		return nil, ctx.Errorf("filter dtype %s differs from input dtype %s", f.DType, x.DType)
	}
	attrs, err := readSpatialAttrs(ctx, ns, cl, "filter")
	if err != nil {
		return nil, err
	}
	xd, err := floatsOf[T](x)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	fd, err := floatsOf[T](f)
	if err != nil {
		return nil, ctx.Errorf("%v", err)
	}
	xs := nnCloneShape(x.Shape)
	if !cl {
		sp := 1
		for _, d := range xs[2:] {
			sp *= d
		}
		xd = toChannelsLast(xd, xs[0], xs[1], sp)
		xs = append(append([]int{xs[0]}, xs[2:]...), xs[1])
	}
	p := &convPlan{n: xs[0], c: xs[rank-1], o: f.Shape[rank-1]}
	if len(ctx.Inputs) > 1 && f == ctx.Inputs[1] {
		p.packs = stableB(ctx, 1)
	}
	cg := f.Shape[rank-2]
	if cg <= 0 {
		return nil, ctx.Errorf("filter depth must be strictly positive, got %d", cg)
	}
	if p.c%cg != 0 {
		return nil, ctx.Errorf("input depth must be evenly divisible by filter depth: %d vs %d", p.c, cg)
	}
	p.groups = p.c / cg
	if p.groups == 0 || p.o%p.groups != 0 {
		return nil, ctx.Errorf("output depth must be evenly divisible by number of groups: %d vs %d", p.o, p.groups)
	}
	for i := 0; i < 3; i++ {
		p.sp[i] = windowDim{in: 1, k: 1, stride: 1, dil: 1, out: 1}
	}
	for i := 0; i < ns; i++ {
		d, err := windowOutput(ctx, xs[1+i], f.Shape[i], attrs.strides[i], attrs.dils[i], attrs.padding, attrs.before[i], attrs.after[i])
		if err != nil {
			return nil, err
		}
		p.sp[3-ns+i] = d
	}
	outShape := []int{p.n}
	for i := 0; i < ns; i++ {
		outShape = append(outShape, p.sp[3-ns+i].out)
	}
	outShape = append(outShape, p.o)
	if _, err := CheckShape(outShape); err != nil {
		return nil, ctx.Errorf("output %v", err)
	}
	var out []T
	// Conv3D's float16 and bfloat16 follow TensorFlow's rounding
	// (convStorage); Conv2D's kernel sums in another order and is held
	// to the summation tolerance, on the fast GEMM path.
	if isDepthwiseGrouped(p, ns) {
		out = convDepthwiseGrouped(ctx, p, xd, fd)
	} else if rs := storageRound[T](x.DType); rs != nil && ctx.Emu == nil && ns == 3 {
		out = convStorage(p, xd, fd, rs)
	} else {
		var buf []T
		if roundAccum[T](ctx.Emu) == nil {
			// The GEMM writes every element of C (its first depth block
			// stores, later ones add).
			buf = newOutFull[T](ctx, p.outRows()*p.o)
		} else {
			buf = newOut[T](ctx, p.outRows()*p.o)
		}
		out = convForward(p, xd, fd, ctx.Emu, buf)
	}
	return &convResult[T]{data: out, shape: outShape, channelsLast: cl}, nil
}

// im2colBudget bounds the im2col buffer (elements); larger convolutions
// run in chunks of output rows.
const im2colBudget = 1 << 22

// convForward computes the convolution into out (zeroed, rows*o
// elements) in channels-last layout: for each
// group, the patches matrix [rows, kd*kh*kw*cg] times the filter's
// [kd*kh*kw*cg, og] columns of that group.
func convForward[T nnFloat](p *convPlan, x, f []T, emu *Emulation, out []T) []T {
	rows := p.outRows()
	if rows == 0 || p.o == 0 {
		return out
	}
	cg, og := p.c/p.groups, p.o/p.groups
	kk := p.sp[0].k * p.sp[1].k * p.sp[2].k * cg
	ro, ra := roundOperand[T](emu), roundAccum[T](emu)
	pointwise := p.groups == 1
	for _, d := range p.sp {
		if d.k != 1 || d.stride != 1 || d.padBefore != 0 || d.padAfter != 0 {
			pointwise = false
		}
	}
	fOp := func(g int) gemmOperand[T] { return gemmOperand[T]{data: f, off: g * og, rs: p.o, cs: 1} }
	if pointwise {
		a := gemmOperand[T]{data: x, rs: p.c, cs: 1}
		if ra != nil {
			naiveGemmRounded(rows, p.o, kk, a, fOp(0), out, ro, ra)
		} else {
			runGemm([]gemmJob[T]{{m: rows, n: p.o, k: kk, a: a, b: fOp(0), c: out, ldc: p.o, round: ro, bCache: p.packs}})
		}
		return out
	}
	chunk := max(1, min(rows, im2colBudget/max(kk, 1)))
	if ra == nil {
		// Implicit im2col: the GEMM packs the patches straight from x.
		for g := 0; g < p.groups; g++ {
			for r0 := 0; r0 < rows; r0 += chunk {
				nr := min(chunk, rows-r0)
				a := gemmOperand[T]{fill: convPatchFill(p, x, r0, g*cg, cg), panel: convPanelFill(p, x, r0, g*cg, cg)}
				runGemm([]gemmJob[T]{{m: nr, n: og, k: kk, a: a, b: fOp(g), c: out, coff: r0*p.o + g*og, ldc: p.o, round: ro, bCache: p.packs}})
			}
		}
		return out
	}
	col := make([]T, chunk*kk)
	for g := 0; g < p.groups; g++ {
		for r0 := 0; r0 < rows; r0 += chunk {
			nr := min(chunk, rows-r0)
			im2col(p, x, col, r0, nr, g*cg, cg)
			a := gemmOperand[T]{data: col, rs: kk, cs: 1}
			tmp := make([]T, nr*og)
			naiveGemmRounded(nr, og, kk, a, fOp(g), tmp, ro, ra)
			for i := 0; i < nr; i++ {
				copy(out[(r0+i)*p.o+g*og:(r0+i)*p.o+g*og+og], tmp[i*og:(i+1)*og])
			}
		}
	}
	return out
}

// convStorage is convForward for float16 and bfloat16 as TensorFlow's CPU
// Conv3D kernel (CuboidConvolution) computes them: Eigen's contraction on Eigen::half (bfloat16)
// scalars, every product and partial sum rounded to the dtype, the sum
// running over the patch ((kd*kh + kh)*kw + kw)*cg + c in order.
func convStorage[T nnFloat](p *convPlan, x, f []T, rs func(T) T) []T {
	rows := p.outRows()
	out := make([]T, rows*p.o)
	if rows == 0 || p.o == 0 {
		return out
	}
	cg, og := p.c/p.groups, p.o/p.groups
	kk := p.sp[0].k * p.sp[1].k * p.sp[2].k * cg
	chunk := max(1, min(rows, im2colBudget/max(kk, 1)))
	col := make([]T, chunk*kk)
	for g := 0; g < p.groups; g++ {
		for r0 := 0; r0 < rows; r0 += chunk {
			nr := min(chunk, rows-r0)
			im2col(p, x, col, r0, nr, g*cg, cg)
			for i := 0; i < nr; i++ {
				patch := col[i*kk : (i+1)*kk]
				for j := 0; j < og; j++ {
					var acc T
					for q, v := range patch {
						acc = rs(acc + rs(v*f[q*p.o+g*og+j]))
					}
					out[(r0+i)*p.o+g*og+j] = acc
				}
			}
		}
	}
	return out
}

// convPatchFill returns the fill function of the patches matrix for output
// rows from r0 on: row i, column q = ((kd*kh + kh)*kw + kw)*cg + c is
// x[n, id, ih, iw, c0+c] for output position r0+i, zero in the padding.
func convPatchFill[T nnFloat](p *convPlan, x []T, r0, c0, cg int) func(i, p0, kb int, dst []T, stride int) {
	d0, d1, d2 := p.sp[0], p.sp[1], p.sp[2]
	return func(i, p0, kb int, dst []T, stride int) {
		r := r0 + i
		ow := r % d2.out
		t := r / d2.out
		oh := t % d1.out
		t /= d1.out
		od := t % d0.out
		n := t / d0.out
		q, c := p0/cg, p0%cg
		kw := q % d2.k
		q /= d2.k
		kh := q % d1.k
		kd := q / d1.k
		o := 0
		for left := kb; left > 0; {
			seg := min(cg-c, left)
			id := od*d0.stride - d0.padBefore + kd*d0.dil
			ih := oh*d1.stride - d1.padBefore + kh*d1.dil
			iw := ow*d2.stride - d2.padBefore + kw*d2.dil
			if id < 0 || id >= d0.in || ih < 0 || ih >= d1.in || iw < 0 || iw >= d2.in {
				for j := 0; j < seg; j++ {
					dst[(o+j)*stride] = 0
				}
			} else {
				src := x[(((n*d0.in+id)*d1.in+ih)*d2.in+iw)*p.c+c0+c:]
				src = src[:seg]
				for j, v := range src {
					dst[(o+j)*stride] = v
				}
			}
			o += seg
			left -= seg
			c = 0
			if kw++; kw == d2.k {
				kw = 0
				if kh++; kh == d1.k {
					kh = 0
					kd++
				}
			}
		}
	}
}

// convPanelFill returns the panel packer of the same patches matrix as
// convPatchFill (gemmOperand.panel): for each run of channels of one window
// tap it finds each panel row's source (none where the window hangs over
// the padding) once, then writes the run k by k, the rows side by side.
// Panels are at most 16 rows (packA uses fill beyond).
func convPanelFill[T nnFloat](p *convPlan, x []T, r0, c0, cg int) func(i0, mm, p0, kb, mr int, pan []T) {
	d0, d1, d2 := p.sp[0], p.sp[1], p.sp[2]
	zero := zerosOf[T]()
	_, f32 := any(zero).([]float32)
	return func(i0, mm, p0, kb, mr int, pan []T) {
		// Each row's sample and window origin.
		var n, id0, ih0, iw0 [16]int
		for i := 0; i < mm; i++ {
			r := r0 + i0 + i
			ow := r % d2.out
			t := r / d2.out
			oh := t % d1.out
			t /= d1.out
			od := t % d0.out
			n[i] = t / d0.out
			id0[i] = od*d0.stride - d0.padBefore
			ih0[i] = oh*d1.stride - d1.padBefore
			iw0[i] = ow*d2.stride - d2.padBefore
		}
		q, c := p0/cg, p0%cg
		kw := q % d2.k
		q /= d2.k
		kh := q % d1.k
		kd := q / d1.k
		var src [16][]T
		for o, left := 0, kb; left > 0; {
			seg := min(cg-c, left, len(zero))
			if c == 0 && seg == cg && cg == p.c && d2.dil == 1 {
				seg = cg * adjacentTaps(d0, d1, d2, kd, kh, kw, id0[:mm], ih0[:mm], iw0[:mm], min(left, len(zero))/cg)
			}
			for i := 0; i < mr; i++ {
				src[i] = zero[:seg]
				if i >= mm {
					continue
				}
				id, ih, iw := id0[i]+kd*d0.dil, ih0[i]+kh*d1.dil, iw0[i]+kw*d2.dil
				if id >= 0 && id < d0.in && ih >= 0 && ih < d1.in && iw >= 0 && iw < d2.in {
					off := (((n[i]*d0.in+id)*d1.in+ih)*d2.in+iw)*p.c + c0 + c
					src[i] = x[off : off+seg]
				}
			}
			dst := pan[o*mr : (o+seg)*mr]
			j0 := 0
			if f32 && (mr == 12 || mr == 6) {
				// T is float32: the same memory seen as []float32.
				j0 = panelVec(unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(dst))), len(dst)),
					(*[16][]float32)(unsafe.Pointer(&src)), seg, mr)
			}
			if mr == 12 {
				s0, s1, s2, s3, s4, s5 := src[0][:seg], src[1][:seg], src[2][:seg], src[3][:seg], src[4][:seg], src[5][:seg]
				s6, s7, s8, s9, s10, s11 := src[6][:seg], src[7][:seg], src[8][:seg], src[9][:seg], src[10][:seg], src[11][:seg]
				for j := j0; j < seg; j++ {
					d := dst[j*12 : j*12+12 : j*12+12]
					d[0], d[1], d[2], d[3], d[4], d[5] = s0[j], s1[j], s2[j], s3[j], s4[j], s5[j]
					d[6], d[7], d[8], d[9], d[10], d[11] = s6[j], s7[j], s8[j], s9[j], s10[j], s11[j]
				}
			} else if mr == 6 {
				// The AVX2 GEMM's panels, as the 12-row loop fills
				// its own.
				s0, s1, s2, s3, s4, s5 := src[0][:seg], src[1][:seg], src[2][:seg], src[3][:seg], src[4][:seg], src[5][:seg]
				for j := j0; j < seg; j++ {
					d := dst[j*6 : j*6+6 : j*6+6]
					d[0], d[1], d[2], d[3], d[4], d[5] = s0[j], s1[j], s2[j], s3[j], s4[j], s5[j]
				}
			} else {
				for i, s := range src[:mr] {
					for j, v := range s {
						dst[j*mr+i] = v
					}
				}
			}
			o += seg
			left -= seg
			for c += seg; c >= cg; c -= cg {
				if kw++; kw == d2.k {
					kw = 0
					if kh++; kh == d1.k {
						kh = 0
						kd++
					}
				}
			}
		}
	}
}

// adjacentTaps is how many window taps from kw on, at most limit, one run of
// a panel can cover, the input's channels being one group and the taps along
// the innermost dimension undilated: their pixels then lie side by side, so
// a row's channels over those taps are one contiguous run (a 7×7 stem over
// 3 channels: runs of 21 instead of 3). Every row whose window is inside the
// input at (kd, kh) must be so for all those taps; a row outside it reads
// zeros throughout.
func adjacentTaps(d0, d1, d2 windowDim, kd, kh, kw int, id0, ih0, iw0 []int, limit int) int {
	n := min(d2.k-kw, limit)
	for i := range id0 {
		if n <= 1 {
			return 1
		}
		id, ih := id0[i]+kd*d0.dil, ih0[i]+kh*d1.dil
		if id < 0 || id >= d0.in || ih < 0 || ih >= d1.in {
			continue
		}
		iw := iw0[i] + kw
		if iw < 0 {
			return 1
		}
		n = min(n, d2.in-iw)
	}
	return max(n, 1)
}

// zerosOf is a run of zeros that convPanelFill's padded rows read (never
// written): zeroWords seen as T, whose zero is all zero bits.
func zerosOf[T nnFloat]() []T {
	return unsafe.Slice((*T)(unsafe.Pointer(&zeroWords[0])), len(zeroWords))
}

var zeroWords [512]float64

// im2col fills col with the patches of output rows [r0, r0+nr): row r is
// the window of output position r, kd*kh*kw blocks of the cg input
// channels starting at c0, zero where the window hangs over the padding.
func im2col[T nnFloat](p *convPlan, x, col []T, r0, nr, c0, cg int) {
	d0, d1, d2 := p.sp[0], p.sp[1], p.sp[2]
	kk := d0.k * d1.k * d2.k * cg
	nnParallel(nr, kk, func(i int) {
		r := r0 + i
		ow := r % d2.out
		t := r / d2.out
		oh := t % d1.out
		t /= d1.out
		od := t % d0.out
		n := t / d0.out
		dst := col[i*kk : (i+1)*kk]
		q := 0
		for kd := 0; kd < d0.k; kd++ {
			id := od*d0.stride - d0.padBefore + kd*d0.dil
			for kh := 0; kh < d1.k; kh++ {
				ih := oh*d1.stride - d1.padBefore + kh*d1.dil
				for kw := 0; kw < d2.k; kw++ {
					iw := ow*d2.stride - d2.padBefore + kw*d2.dil
					seg := dst[q : q+cg]
					q += cg
					if id < 0 || id >= d0.in || ih < 0 || ih >= d1.in || iw < 0 || iw >= d2.in {
						clear(seg)
						continue
					}
					o := (((n*d0.in+id)*d1.in+ih)*d2.in+iw)*p.c + c0
					copy(seg, x[o:o+cg])
				}
			}
		}
	})
}
