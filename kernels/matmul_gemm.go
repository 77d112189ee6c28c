package kernels

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// float is the element type the GEMM and the NN kernels compute in: float32
// (also used for float16 and bfloat16 tensors) or float64.
type nnFloat interface{ ~float32 | ~float64 }

// gemmBlocking holds the cache-blocking sizes of one micro-kernel. A is packed
// into mr-row panels of an mc×kc block (L2), B into nr-column panels of a
// kc×nc block; one kc×nr panel of B stays in L1 while the micro-kernel walks
// the panels of A (the GotoBLAS/BLIS scheme).
type gemmBlocking struct {
	mr, nr, mc, kc, nc int
}

// gemmKernel computes the mr×nr tile (row-major, stride nr) of the product of
// one packed A panel (k steps of mr values) and one packed B panel (k steps of
// nr values), overwriting tile.
type gemmKernel[T nnFloat] func(k int, a, b, tile []T)

// gemmOperand describes a strided matrix view: element (i, j) is
// data[off + i*rs + j*cs]. Transposed operands are views with swapped strides;
// packing makes them contiguous, so the micro-kernel never sees a stride.
type gemmOperand[T nnFloat] struct {
	data   []T
	off    int
	rs, cs int
	// fill, when set (A operands only), produces the values instead of
	// data: it writes A[i, p0:p0+kb] to dst[0], dst[stride], ... It lets a
	// convolution pack its patches straight from the input (implicit
	// im2col).
	fill func(i, p0, kb int, dst []T, stride int)
	// panel, when set beside fill, packs a whole mr-row panel (mr ≤ 16) at once:
	// rows i0..i0+mm-1 of A[:, p0:p0+kb] into pan, k-major (pan[p*mr+i]),
	// rows mm..mr-1 zero. It writes each k's mr values side by side, as
	// packA12 does, where fill's row-at-a-time writes are mr apart.
	panel func(i0, mm, p0, kb, mr int, pan []T)
}

func (o gemmOperand[T]) at(i, j int) T { return o.data[o.off+i*o.rs+j*o.cs] }

// gemmJob is one C = A·B with A m×k, B k×n and C m×n row-major at c[coff:].
type gemmJob[T nnFloat] struct {
	m, n, k int
	a, b    gemmOperand[T]
	c       []T
	coff    int
	ldc     int
	// round, when non-nil, is applied to every operand element as it is
	// packed (precision emulation: tf32/fp16/bf16 operands).
	round func(T) T
	// bCache, when set, keeps B's packed panels across calls (B is a
	// stable input: PackCache).
	bCache *PackCache
}

// gemmTask is one mc×nc block of C of one job.
type gemmTask struct {
	job    int
	ic, jc int
}

// gemmPackedB holds one job's B packed once for all its blocks: for every kc
// block pc, nr-column panels at pc*nPad, each panel kb steps deep.
type gemmPackedB[T nnFloat] struct {
	b    []T
	nPad int
	// cached marks panels that belong to a PackCache, not to this call.
	cached bool
}

// gemmScratch is one worker's space: the mr×nr tile of an edge block, and
// the mc×kc block of A it packs (or, when A is read in place, its last
// panel of fewer than mr rows, zero-padded).
type gemmScratch[T nnFloat] struct {
	buf, tile, a []T
}

// gemmRun computes every job with the micro-kernel kern and blocking bl.
func gemmRun[T nnFloat](jobs []gemmJob[T], bl gemmBlocking, kern gemmKernel[T]) {
	gemmRunC(jobs, gemmImpl[T]{bl: bl, kern: kern})
}

// gemmDirectA reports whether g's strided micro-kernel reads j's A in place:
// row-major with unit column stride, no fill and no rounding (MatMul without
// transpose_a, 1x1 convolutions), so that A needs no packing.
func gemmDirectA[T nnFloat](g *gemmImpl[T], j *gemmJob[T]) bool {
	return g.kernS != nil && j.a.fill == nil && j.a.cs == 1 && j.round == nil && !gemmRowsCollide[T](j.a.rs, g.bl.mr)
}

// gemmRowsCollide reports whether mr rows of stride rs elements, read side
// by side, would crowd one set of a 32 KiB 8-way L1 data cache (64 sets of
// 64-byte lines, so addresses 4 KiB apart share a set): more than six of
// them in one set leave too few ways for the B panel, and the rows evict
// each other at every step (a 1024-wide float32 A puts all twelve rows of
// a panel in one set). Such an A is packed instead.
func gemmRowsCollide[T nnFloat](rs, mr int) bool {
	var z T
	size := int(unsafe.Sizeof(z))
	var count [64]int
	for r := 0; r < mr; r++ {
		set := (r * rs * size / 64) % 64
		count[set]++
		if count[set] > 6 {
			return true
		}
	}
	return false
}

// gemmRunC computes every job with g. It packs each job's B once (in
// parallel), then splits C into mc×nc blocks that run in parallel across
// GOMAXPROCS goroutines reading the shared packed B; each block packs its
// own rows of A, kc columns at a time, just before it uses them, so that they
// are in the cache (the GotoBLAS/BLIS scheme), unless the micro-kernel reads A
// in place. Blocks write disjoint parts of C, so they need no
// synchronisation. Every output is the same sum whatever the blocking but
// kc: kc-long chains of multiply-adds in k order, each added to the
// previous blocks' sum.
func gemmRunC[T nnFloat](jobs []gemmJob[T], g gemmImpl[T]) {
	st := gemmStates[T]().Get().(*gemmState[T])
	defer st.release()
	st.g = g
	// The state's own copy of the jobs, so that the caller's slice stays
	// where the caller made it (often on its stack).
	st.jobs = append(st.jobs[:0], jobs...)
	st.run()
}

// gemmState is one gemmRunC call's bookkeeping: the jobs, their packed B,
// the packing tasks and the blocks. It comes from a sync.Pool and the
// serial path (one worker) makes no closures, so that a call allocates
// nothing of its own: a small model's GEMMs are mostly tiny (a recurrent
// layer's step is a 2×64 by 64×256 product, about 5 µs), and there
// allocating the bookkeeping would cost a tenth of the call.
type gemmState[T nnFloat] struct {
	g       gemmImpl[T]
	jobs    []gemmJob[T]
	packed  []gemmPackedB[T]
	packs   []gemmPackTask
	tasks   []gemmTask
	scratch []gemmScratch[T]
	nc      int
}

// gemmPackTask is one kc block pc of one nc column block j0 of a job's B.
type gemmPackTask struct {
	job, pc, j0 int
}

var (
	gemmStates32 = sync.Pool{New: func() any { return new(gemmState[float32]) }}
	gemmStates64 = sync.Pool{New: func() any { return new(gemmState[float64]) }}
)

func gemmStates[T nnFloat]() *sync.Pool {
	var z T
	if _, ok := any(z).(float32); ok {
		return &gemmStates32
	}
	return &gemmStates64
}

// release hands the pack buffers back and the state to its pool, holding
// no reference to the jobs' data.
func (st *gemmState[T]) release() {
	for _, p := range st.packed {
		if !p.cached && p.b != nil {
			gemmPutBuf(p.b)
		}
	}
	for _, s := range st.scratch {
		gemmPutBuf(s.buf)
	}
	clear(st.jobs)
	clear(st.packed)
	clear(st.scratch)
	st.g = gemmImpl[T]{}
	st.jobs, st.packed, st.packs, st.tasks, st.scratch = st.jobs[:0], st.packed[:0], st.packs[:0], st.tasks[:0], st.scratch[:0]
	gemmStates[T]().Put(st)
}

func (st *gemmState[T]) run() {
	jobs, bl := st.jobs, st.g.bl
	var flops float64
	for _, j := range jobs {
		flops += 2 * float64(j.m) * float64(j.n) * float64(j.k)
	}
	workers := runtime.GOMAXPROCS(0)
	if flops < 1<<17 {
		workers = 1
	}
	nc := bl.nc
	// Shrink the column block until there are enough blocks to keep every
	// worker busy (down to 4 micro-panels wide).
	count := func(nc int) int {
		t := 0
		for _, j := range jobs {
			t += nnCeilDiv(j.m, bl.mc) * nnCeilDiv(j.n, nc)
		}
		return t
	}
	for nc > 4*bl.nr && count(nc) < 2*workers {
		nc /= 2
	}
	st.nc = nc
	st.packed = slices.Grow(st.packed[:0], len(jobs))[:len(jobs)] // zero: release clears it
	for ji, j := range jobs {
		if j.m == 0 || j.n == 0 {
			continue
		}
		if j.k == 0 {
			for i := 0; i < j.m; i++ {
				clear(j.c[j.coff+i*j.ldc : j.coff+i*j.ldc+j.n])
			}
			continue
		}
		if j.bCache != nil {
			if pb, ok := packedB(j.bCache, &st.g, &jobs[ji]); ok {
				pb.cached = true
				st.packed[ji] = pb
				st.addTasks(ji, nc)
				continue
			}
		}
		nPad := nnRoundUp(j.n, bl.nr)
		st.packed[ji] = gemmPackedB[T]{b: gemmGetBuf[T](nPad * j.k), nPad: nPad}
		for pc := 0; pc < j.k; pc += bl.kc {
			for jc := 0; jc < j.n; jc += nc {
				st.packs = append(st.packs, gemmPackTask{job: ji, pc: pc, j0: jc})
			}
		}
		st.addTasks(ji, nc)
	}
	if len(st.tasks) == 0 {
		return
	}
	if workers == 1 || len(st.packs) <= 1 {
		for i := range st.packs {
			st.pack(i)
		}
	} else {
		nnParallelN(workers, len(st.packs), st.pack)
	}
	workers = min(workers, len(st.tasks))
	for range max(workers, 1) {
		tile := bl.mr * bl.nr
		buf := gemmGetBuf[T](tile + bl.mc*bl.kc)
		st.scratch = append(st.scratch, gemmScratch[T]{buf: buf, tile: buf[:tile:tile], a: buf[tile:]})
	}
	if workers <= 1 {
		for i := range st.tasks {
			st.block(0, i)
		}
	} else {
		nnParallelW(workers, len(st.tasks), st.block)
	}
}

// addTasks appends job ji's mc×nc blocks.
func (st *gemmState[T]) addTasks(ji, nc int) {
	j := &st.jobs[ji]
	for jc := 0; jc < j.n; jc += nc {
		for ic := 0; ic < j.m; ic += st.g.bl.mc {
			st.tasks = append(st.tasks, gemmTask{job: ji, ic: ic, jc: jc})
		}
	}
}

// pack runs packing task i.
func (st *gemmState[T]) pack(i int) {
	t := st.packs[i]
	j, p := &st.jobs[t.job], &st.packed[t.job]
	kb := min(st.g.bl.kc, j.k-t.pc)
	packB(p.b[t.pc*p.nPad+t.j0*kb:], j.b, t.pc, kb, t.j0, min(st.nc, j.n-t.j0), st.g.bl.nr, j.round)
}

// block computes block i on worker w's scratch.
func (st *gemmState[T]) block(w, i int) {
	t := st.tasks[i]
	gemmBlock(&st.g, &st.jobs[t.job], &st.packed[t.job], t.ic, t.jc, st.nc, &st.scratch[w])
}

// gemmBlock computes C[ic:ic+mc, jc:jc+nc] of one job from its packed B.
func gemmBlock[T nnFloat](g *gemmImpl[T], j *gemmJob[T], p *gemmPackedB[T], ic, jc, nc int, s *gemmScratch[T]) {
	bl := &g.bl
	mb := min(bl.mc, j.m-ic)
	nb := min(nc, j.n-jc)
	mr, nr := bl.mr, bl.nr
	direct := gemmDirectA(g, j)
	// With A read in place, the block's last panel, when shorter than mr
	// rows, is packed (zero-padded) so that no row past A's end is read.
	edge := mb - mb%mr
	for pc := 0; pc < j.k; pc += bl.kc {
		kb := min(bl.kc, j.k-pc)
		bp := p.b[pc*p.nPad : pc*p.nPad+kb*p.nPad]
		acc := pc > 0
		switch {
		case !direct:
			packA(s.a, j.a, ic, mb, pc, kb, mr, j.round)
		case edge < mb:
			packA(s.a[:kb*mr], j.a, ic+edge, mb-edge, pc, kb, mr, nil)
		}
		for jr := jc; jr < jc+nb; jr += nr {
			bpan := bp[jr*kb : jr*kb+kb*nr]
			nn := min(nr, jc+nb-jr)
			for ir := ic; ir < ic+mb; ir += mr {
				mm := min(mr, ic+mb-ir)
				o := j.coff + ir*j.ldc + jr
				// The A panel as the strided micro-kernel reads it.
				var ap []T
				lda, ks := 1, mr
				switch {
				case direct && mm == mr:
					ap, lda, ks = j.a.data[j.a.off+ir*j.a.rs+pc:], j.a.rs, 1
				case direct:
					ap = s.a[:kb*mr]
				default:
					ap = s.a[(ir-ic)*kb : (ir-ic)*kb+kb*mr]
				}
				switch {
				case g.kernS == nil:
					g.kern(kb, ap, bpan, s.tile)
				case mm == mr && nn == nr:
					g.kernS(kb, ap, lda, ks, bpan, j.c[o:], j.ldc, acc)
					continue
				case g.kernHalf != nil && mm <= mr/2:
					// A short last panel: half the rows' work.
					g.kernHalf(kb, ap, lda, ks, bpan, s.tile, nr, false)
				default:
					g.kernS(kb, ap, lda, ks, bpan, s.tile, nr, false)
				}
				for i := 0; i < mm; i++ {
					o := j.coff + (ir+i)*j.ldc + jr
					dst := j.c[o : o+nn]
					src := s.tile[i*nr : i*nr+nn]
					if !acc {
						copy(dst, src)
					} else {
						for x := range dst {
							dst[x] += src[x]
						}
					}
				}
			}
		}
	}
}

// packA copies A[i0:i0+mb, p0:p0+kb] into mr-row panels: panel r holds, for
// each p, the mr values of rows r*mr..r*mr+mr-1 (zero past the last row).
func packA[T nnFloat](dst []T, a gemmOperand[T], i0, mb, p0, kb, mr int, round func(T) T) {
	if mr == 6 && a.cs == 1 && a.fill == nil && round == nil {
		packA6(dst, a, i0, mb, p0, kb)
		return
	}
	if mr == 12 && a.cs == 1 && a.fill == nil && round == nil && mb%12 == 0 {
		packA12(dst, a, i0, mb, p0, kb)
		return
	}
	if a.panel != nil && round == nil && mr <= 16 {
		for ir := 0; ir < mb; ir += mr {
			a.panel(i0+ir, min(mr, mb-ir), p0, kb, mr, dst[ir*kb:ir*kb+kb*mr])
		}
		return
	}
	for ir := 0; ir < mb; ir += mr {
		pan := dst[ir*kb : ir*kb+kb*mr]
		mm := min(mr, mb-ir)
		for i := 0; i < mr; i++ {
			if i >= mm {
				for p := 0; p < kb; p++ {
					pan[p*mr+i] = 0
				}
				continue
			}
			if a.fill != nil {
				a.fill(i0+ir+i, p0, kb, pan[i:], mr)
				if round != nil {
					for p := 0; p < kb; p++ {
						pan[p*mr+i] = round(pan[p*mr+i])
					}
				}
				continue
			}
			base := a.off + (i0+ir+i)*a.rs + p0*a.cs
			if round == nil {
				for p := 0; p < kb; p++ {
					pan[p*mr+i] = a.data[base+p*a.cs]
				}
			} else {
				for p := 0; p < kb; p++ {
					pan[p*mr+i] = round(a.data[base+p*a.cs])
				}
			}
		}
	}
}

// packA6 is packA for the assembly kernels' 6-row panels of a row-major
// A (unit column stride, no fill, no rounding): six row slices read side by
// side, the common case of MatMul and of 1x1 convolutions.
func packA6[T nnFloat](dst []T, a gemmOperand[T], i0, mb, p0, kb int) {
	for ir := 0; ir < mb; ir += 6 {
		pan := dst[ir*kb : ir*kb+kb*6]
		mm := min(6, mb-ir)
		if mm < 6 {
			for i := 0; i < 6; i++ {
				if i >= mm {
					for p := 0; p < kb; p++ {
						pan[p*6+i] = 0
					}
					continue
				}
				row := a.data[a.off+(i0+ir+i)*a.rs+p0:][:kb]
				for p, v := range row {
					pan[p*6+i] = v
				}
			}
			continue
		}
		base := a.off + (i0+ir)*a.rs + p0
		r0 := a.data[base : base+kb]
		r1 := a.data[base+a.rs : base+a.rs+kb]
		r2 := a.data[base+2*a.rs : base+2*a.rs+kb]
		r3 := a.data[base+3*a.rs : base+3*a.rs+kb]
		r4 := a.data[base+4*a.rs : base+4*a.rs+kb]
		r5 := a.data[base+5*a.rs : base+5*a.rs+kb]
		for p := range r0 {
			q := pan[p*6 : p*6+6 : p*6+6]
			q[0], q[1], q[2], q[3], q[4], q[5] = r0[p], r1[p], r2[p], r3[p], r4[p], r5[p]
		}
	}
}

// packA12 is packA6 for the AVX-512 kernel's 12-row panels, whole panels
// only (mb a multiple of 12).
func packA12[T nnFloat](dst []T, a gemmOperand[T], i0, mb, p0, kb int) {
	for ir := 0; ir < mb; ir += 12 {
		pan := dst[ir*kb : ir*kb+kb*12]
		base := a.off + (i0+ir)*a.rs + p0
		r0 := a.data[base : base+kb]
		r1 := a.data[base+a.rs : base+a.rs+kb]
		r2 := a.data[base+2*a.rs : base+2*a.rs+kb]
		r3 := a.data[base+3*a.rs : base+3*a.rs+kb]
		r4 := a.data[base+4*a.rs : base+4*a.rs+kb]
		r5 := a.data[base+5*a.rs : base+5*a.rs+kb]
		base += 6 * a.rs
		r6 := a.data[base : base+kb]
		r7 := a.data[base+a.rs : base+a.rs+kb]
		r8 := a.data[base+2*a.rs : base+2*a.rs+kb]
		r9 := a.data[base+3*a.rs : base+3*a.rs+kb]
		r10 := a.data[base+4*a.rs : base+4*a.rs+kb]
		r11 := a.data[base+5*a.rs : base+5*a.rs+kb]
		for p := range r0 {
			q := pan[p*12 : p*12+12 : p*12+12]
			q[0], q[1], q[2], q[3], q[4], q[5] = r0[p], r1[p], r2[p], r3[p], r4[p], r5[p]
			q[6], q[7], q[8], q[9], q[10], q[11] = r6[p], r7[p], r8[p], r9[p], r10[p], r11[p]
		}
	}
}

// packB copies B[p0:p0+kb, j0:j0+nb] into nr-column panels: panel r holds,
// for each p, the nr values of columns r*nr..r*nr+nr-1 (zero past the end).
func packB[T nnFloat](dst []T, b gemmOperand[T], p0, kb, j0, nb, nr int, round func(T) T) {
	if nr == 16 && b.cs == 1 && round == nil {
		// The assembly kernels' 16-column panels of a row-major B: whole
		// panels as fixed-size array copies, not a copy call per row.
		full := nb / 16
		if f, ok := any(packB16F32).(func(dst, src []T, ldb, kb, panels int)); ok && f != nil && full > 0 {
			f(dst, b.data[b.off+p0*b.rs+j0:], b.rs, kb, full)
		} else {
			for jr := 0; jr+16 <= nb; jr += 16 {
				pan := dst[jr*kb : jr*kb+kb*16]
				base := b.off + p0*b.rs + j0 + jr
				for p := 0; p < kb; p++ {
					*(*[16]T)(pan[p*16:]) = *(*[16]T)(b.data[base+p*b.rs:])
				}
			}
		}
		if rem := nb % 16; rem != 0 {
			jr := nb - rem
			packBRows(dst[jr*kb:], b, p0, kb, j0+jr, rem, 16, nil)
		}
		return
	}
	packBRows(dst, b, p0, kb, j0, nb, nr, round)
}

// packB16F32, when set (assembly), packs whole 16-column panels of a
// row-major float32 B: kb rows of panels×16 columns, row stride ldb, into
// dst as packB lays them out.
var packB16F32 func(dst, src []float32, ldb, kb, panels int)

// packBRows is packB's general loop: any panel width, stride and rounding.
func packBRows[T nnFloat](dst []T, b gemmOperand[T], p0, kb, j0, nb, nr int, round func(T) T) {
	for jr := 0; jr < nb; jr += nr {
		pan := dst[jr*kb : jr*kb+kb*nr]
		nn := min(nr, nb-jr)
		for p := 0; p < kb; p++ {
			row := pan[p*nr : p*nr+nr]
			base := b.off + (p0+p)*b.rs + (j0+jr)*b.cs
			if b.cs == 1 && round == nil {
				copy(row[:nn], b.data[base:base+nn])
			} else {
				for j := 0; j < nn; j++ {
					v := b.data[base+j*b.cs]
					if round != nil {
						v = round(v)
					}
					row[j] = v
				}
			}
			clear(row[nn:])
		}
	}
}

// gemmKernelGo is the portable micro-kernel: a register-blocked loop over
// 4-column strips that the Go compiler keeps in registers. Each output is
// the chain of multiply-adds the assembly kernels compute, fused where
// goFMA holds (fma_amd64.go) or the compiler fuses them (arm64, ppc64x,
// s390x, riscv64).
func gemmKernelGo[T nnFloat](mr, nr int) gemmKernel[T] {
	return func(k int, a, b, tile []T) {
		for i := 0; i < mr; i++ {
			j := 0
			if goFMA {
				// Eight chains at once: each fused step converts to
				// float64 and back, a longer chain to hide.
				for ; j+8 <= nr; j += 8 {
					gemmStripFMA(k, mr, nr, a[i:], b[j:], tile[i*nr+j:i*nr+j+8:i*nr+j+8])
				}
			}
			for ; j+4 <= nr; j += 4 {
				gemmStrip(k, mr, nr, a[i:], b[j:], tile[i*nr+j:i*nr+j+4:i*nr+j+4])
			}
		}
	}
}

// gemmStrip computes four outputs of a tile: row a[0], a[mr], ... against
// columns b[0:4], b[nr:nr+4], ... .
func gemmStrip[T nnFloat](k, mr, nr int, a, b, t []T) {
	var c0, c1, c2, c3 T
	ai, bj := 0, 0
	for p := 0; p < k; p++ {
		av := a[ai]
		bb := b[bj : bj+4 : bj+4]
		c0 += av * bb[0]
		c1 += av * bb[1]
		c2 += av * bb[2]
		c3 += av * bb[3]
		ai += mr
		bj += nr
	}
	t[0], t[1], t[2], t[3] = c0, c1, c2, c3
}

// gemmStripFMA is gemmStrip over eight columns with each multiply-add
// rounded once.
func gemmStripFMA[T nnFloat](k, mr, nr int, a, b, t []T) {
	var c0, c1, c2, c3, c4, c5, c6, c7 T
	ai, bj := 0, 0
	for p := 0; p < k; p++ {
		av := a[ai]
		bb := b[bj : bj+8 : bj+8]
		c0 = fusedMulAdd(av, bb[0], c0)
		c1 = fusedMulAdd(av, bb[1], c1)
		c2 = fusedMulAdd(av, bb[2], c2)
		c3 = fusedMulAdd(av, bb[3], c3)
		c4 = fusedMulAdd(av, bb[4], c4)
		c5 = fusedMulAdd(av, bb[5], c5)
		c6 = fusedMulAdd(av, bb[6], c6)
		c7 = fusedMulAdd(av, bb[7], c7)
		ai += mr
		bj += nr
	}
	t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7] = c0, c1, c2, c3, c4, c5, c6, c7
}

// Pack buffers are recycled between GEMM calls (a model runs thousands):
// packing overwrites every element, padding included, so a recycled buffer
// needs no clearing. They are kept in a free list rather than a sync.Pool,
// which a garbage collection empties: a model's steady stream of new
// tensors collects often, and a buffer allocated anew is zeroed and its
// pages touched again. The list holds at most gemmFreeMax buffers of at
// most gemmFreeBytes in all.
type gemmFree[T nnFloat] struct {
	mu    sync.Mutex
	bufs  [][]T
	bytes int
}

const (
	gemmFreeMax   = 16
	gemmFreeBytes = 64 << 20
)

var (
	gemmFree32 gemmFree[float32]
	gemmFree64 gemmFree[float64]
)

func gemmFreeList[T nnFloat]() *gemmFree[T] {
	var z T
	if _, ok := any(z).(float32); ok {
		return any(&gemmFree32).(*gemmFree[T])
	}
	return any(&gemmFree64).(*gemmFree[T])
}

func gemmElemBytes[T nnFloat]() int {
	var z T
	if _, ok := any(z).(float32); ok {
		return 4
	}
	return 8
}

// gemmGetBuf returns a buffer of n elements: the smallest free one that is
// large enough, or a new one.
func gemmGetBuf[T nnFloat](n int) []T {
	f := gemmFreeList[T]()
	f.mu.Lock()
	best := -1
	for i, b := range f.bufs {
		if cap(b) >= n && (best < 0 || cap(b) < cap(f.bufs[best])) {
			best = i
		}
	}
	if best >= 0 {
		b := f.bufs[best]
		last := len(f.bufs) - 1
		f.bufs[best] = f.bufs[last]
		f.bufs[last] = nil
		f.bufs = f.bufs[:last]
		f.bytes -= cap(b) * gemmElemBytes[T]()
		f.mu.Unlock()
		return b[:n]
	}
	f.mu.Unlock()
	return make([]T, n)
}

// gemmPutBuf hands b back to the free list; when the list is full, the
// smallest buffer (b or one in the list) is dropped.
func gemmPutBuf[T nnFloat](b []T) {
	size := cap(b) * gemmElemBytes[T]()
	if size == 0 || size > gemmFreeBytes {
		return
	}
	f := gemmFreeList[T]()
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.bufs) > 0 && (len(f.bufs) >= gemmFreeMax || f.bytes+size > gemmFreeBytes) {
		small := 0
		for i, x := range f.bufs {
			if cap(x) < cap(f.bufs[small]) {
				small = i
			}
		}
		if cap(f.bufs[small]) >= cap(b) {
			return
		}
		f.bytes -= cap(f.bufs[small]) * gemmElemBytes[T]()
		last := len(f.bufs) - 1
		f.bufs[small] = f.bufs[last]
		f.bufs[last] = nil
		f.bufs = f.bufs[:last]
	}
	f.bufs = append(f.bufs, b[:cap(b)])
	f.bytes += size
}

func nnCeilDiv(a, b int) int { return (a + b - 1) / b }

func nnRoundUp(a, b int) int { return nnCeilDiv(a, b) * b }

// nnParallel runs fn(i) for i in [0, n) on up to GOMAXPROCS goroutines.
// Work below about 64k scalar operations in total (cost is per item) runs
// on the calling goroutine.
func nnParallel(n int, cost int, fn func(i int)) {
	workers := runtime.GOMAXPROCS(0)
	if n*cost < 1<<16 {
		workers = 1
	}
	nnParallelN(workers, n, fn)
}

// nnParallelN runs fn(i) for i in [0, n) on up to workers goroutines.
func nnParallelN(workers, n int, fn func(i int)) {
	nnParallelW(workers, n, func(_, i int) { fn(i) })
}

// nnParallelW runs fn(w, i) for i in [0, n) on up to workers goroutines; w
// is the goroutine's index in [0, workers), for per-worker scratch space.
func nnParallelW(workers, n int, fn func(w, i int)) {
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		for i := 0; i < n; i++ {
			fn(0, i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(w, i)
			}
		}()
	}
	wg.Wait()
}
