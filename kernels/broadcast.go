package kernels

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// Broadcasting and the element-iteration machinery shared by the elementwise
// kernels. The rules are TensorFlow's BCast
// (tensorflow/core/util/bcast.h): shapes are aligned at their last dimension,
// and every pair of dimensions must be equal or one of them 1; the output
// takes the larger one (a 0 pairs only with 0 or 1).

// bcastPlan iterates over the output of a broadcasting op. The output shape
// is collapsed: size-1 dimensions are dropped and neighbouring dimensions
// that every input walks contiguously (or broadcasts together) are merged,
// so that typical cases (same shape, scalar operand, bias over the last
// dimension) become one or two long runs.
type bcastPlan struct {
	out     []int   // the full (uncollapsed) output shape
	dims    []int   // collapsed output dims, outermost first
	strides [][]int // per input, per collapsed dim: elements to step (0 = broadcast)
	n       int     // number of output elements
}

// shapeString formats a shape as TensorFlow's TensorShape::DebugString does.
func dimsString(s []int) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = strconv.Itoa(d)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// broadcastShapes returns the broadcast output shape of shapes, or TF's
// "Incompatible shapes" error.
func broadcastShapes(shapes ...[]int) ([]int, error) {
	rank := 0
	for _, s := range shapes {
		rank = max(rank, len(s))
	}
	out := make([]int, rank)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		off := rank - len(s)
		for i, d := range s {
			o := out[off+i]
			switch {
			case d == o || d == 1:
			case o == 1:
				out[off+i] = d
			default:
				parts := make([]string, len(shapes))
				for j, sh := range shapes {
					parts[j] = dimsString(sh)
				}
				return nil, fmt.Errorf("Incompatible shapes: %s", strings.Join(parts, " vs. "))
			}
		}
	}
	return out, nil
}

// newBcastPlan builds the iteration plan for inputs of the given shapes.
func newBcastPlan(shapes ...[]int) (*bcastPlan, error) {
	out, err := broadcastShapes(shapes...)
	if err != nil {
		return nil, err
	}
	return planFor(out, shapes), nil
}

// planFor builds the plan for inputs broadcast to out (already validated).
func planFor(out []int, shapes [][]int) *bcastPlan {
	rank := len(out)
	p := &bcastPlan{out: out, n: 1}
	for _, d := range out {
		p.n *= d
	}
	full := make([][]int, len(shapes)) // full-rank strides per input
	for k, s := range shapes {
		st := make([]int, rank)
		off := rank - len(s)
		acc := 1
		for i := len(s) - 1; i >= 0; i-- {
			if s[i] != 1 {
				st[off+i] = acc
			}
			acc *= s[i]
		}
		full[k] = st
	}
	p.strides = make([][]int, len(shapes))
	for i := 0; i < rank; i++ {
		if out[i] == 1 {
			continue
		}
		if len(p.dims) > 0 {
			last := len(p.dims) - 1
			// Merge dim i into the previous collapsed dim when, for every
			// input, stepping the previous dim equals stepping dim i out[i]
			// times: prev.stride == stride_i * out[i].
			merge := true
			for k := range shapes {
				if p.strides[k][last] != full[k][i]*out[i] {
					merge = false
					break
				}
			}
			if merge {
				p.dims[last] *= out[i]
				for k := range shapes {
					p.strides[k][last] = full[k][i]
				}
				continue
			}
		}
		p.dims = append(p.dims, out[i])
		for k := range shapes {
			p.strides[k] = append(p.strides[k], full[k][i])
		}
	}
	if len(p.dims) == 0 { // scalar output (or all dims 1)
		p.dims = []int{1}
		for k := range shapes {
			p.strides[k] = []int{0}
		}
	}
	return p
}

// inner returns the innermost collapsed dim and each input's step along it.
func (p *bcastPlan) inner() (n int, steps []int) {
	last := len(p.dims) - 1
	steps = make([]int, len(p.strides))
	for k := range p.strides {
		steps[k] = p.strides[k][last]
	}
	return p.dims[last], steps
}

// runs calls fn for each maximal run of output elements in [lo, hi) that lie
// along the innermost collapsed dimension: output o..o+n-1 reads input k
// from offs[k] with step steps[k] (0 or the input's innermost stride). offs
// is reused between calls.
func (p *bcastPlan) runs(lo, hi int, fn func(o int, offs []int, n int)) {
	if lo >= hi {
		return
	}
	rank := len(p.dims)
	idx := make([]int, rank)
	offs := make([]int, len(p.strides))
	rem := lo
	for d := rank - 1; d >= 0; d-- {
		idx[d] = rem % p.dims[d]
		rem /= p.dims[d]
	}
	for k, st := range p.strides {
		for d, i := range idx {
			offs[k] += i * st[d]
		}
	}
	// The offsets follow the index: a run steps the innermost dim, and a
	// carry steps the next one out and rewinds the one it leaves.
	inner := p.dims[rank-1]
	o := lo
	for o < hi {
		n := min(inner-idx[rank-1], hi-o)
		fn(o, offs, n)
		o += n
		idx[rank-1] += n
		for k, st := range p.strides {
			offs[k] += n * st[rank-1]
		}
		for d := rank - 1; d > 0 && idx[d] >= p.dims[d]; d-- {
			idx[d] = 0
			idx[d-1]++
			for k, st := range p.strides {
				offs[k] += st[d-1] - p.dims[d]*st[d]
			}
		}
	}
}

// parallelThreshold is the amount of work (elements times a rough per-element
// cost) below which a kernel runs on the calling goroutine: smaller tensors
// do not repay the goroutine start-up.
const parallelThreshold = 1 << 15

// parallelFor splits [0, n) into contiguous chunks and runs fn on them
// concurrently when n*cost is large enough, else calls fn(0, n) directly.
// cost is a rough relative per-element cost (1 for an add).
func parallelFor(n, cost int, fn func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if n <= 0 {
		return
	}
	if workers <= 1 || n*max(cost, 1) < parallelThreshold || n < 2 {
		fn(0, n)
		return
	}
	chunks := min(workers, n)
	// Keep each chunk above the threshold so tiny slices do not fan out.
	if maxChunks := n * max(cost, 1) / (parallelThreshold / 4); maxChunks < chunks {
		chunks = max(maxChunks, 1)
	}
	if chunks == 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	step := (n + chunks - 1) / chunks
	for lo := 0; lo < n; lo += step {
		hi := min(lo+step, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}

// binaryBroadcast computes out[i] = f(a[ia], b[ib]) over the broadcast of the
// two inputs, in parallel over output chunks. The per-run loops are
// specialised on whether each side steps or repeats, so the hot loop is a
// plain slice loop.
func binaryBroadcast[T, R any](p *bcastPlan, a, b []T, out []R, cost int, f func(T, T) R) {
	_, steps := p.inner()
	sa, sb := steps[0], steps[1]
	parallelFor(p.n, cost, func(lo, hi int) {
		p.runs(lo, hi, func(o int, offs []int, n int) {
			dst := out[o : o+n]
			ia, ib := offs[0], offs[1]
			switch {
			case sa == 1 && sb == 1:
				x, y := a[ia:ia+n], b[ib:ib+n]
				for i := range dst {
					dst[i] = f(x[i], y[i])
				}
			case sa == 1 && sb == 0:
				x, y := a[ia:ia+n], b[ib]
				for i := range dst {
					dst[i] = f(x[i], y)
				}
			case sa == 0 && sb == 1:
				x, y := a[ia], b[ib:ib+n]
				for i := range dst {
					dst[i] = f(x, y[i])
				}
			case sa == 0 && sb == 0:
				x, y := a[ia], b[ib]
				for i := range dst {
					dst[i] = f(x, y)
				}
			default:
				for i := range dst {
					dst[i] = f(a[ia+i*sa], b[ib+i*sb])
				}
			}
		})
	})
}

// broadcastCopy writes src broadcast to plan p's output into out (plan built
// for exactly one input).
func broadcastCopy[T any](p *bcastPlan, src, out []T) {
	_, steps := p.inner()
	s := steps[0]
	parallelFor(p.n, 1, func(lo, hi int) {
		p.runs(lo, hi, func(o int, offs []int, n int) {
			dst := out[o : o+n]
			switch s {
			case 1:
				copy(dst, src[offs[0]:offs[0]+n])
			case 0:
				v := src[offs[0]]
				for i := range dst {
					dst[i] = v
				}
			default:
				for i := range dst {
					dst[i] = src[offs[0]+i*s]
				}
			}
		})
	})
}

// Arithmetic codes for the closure-free fast path of the hottest binary ops
// (vecBroadcast): the operator is chosen once per run, so the inner loops
// are plain slice loops the compiler can optimise.
const (
	vecNone = iota
	vecAdd
	vecSub
	vecMul
	vecDiv
)

// vecBroadcast is binaryBroadcast for op in {vecAdd, vecSub, vecMul,
// vecDiv} without a per-element function call. Integer division must have
// been checked for zero divisors by the caller.
func vecBroadcast[T number](p *bcastPlan, a, b, out []T, op int) {
	_, steps := p.inner()
	sa, sb := steps[0], steps[1]
	// float32 runs go to vec32 where there is one (nil slices otherwise).
	out32, _ := any(out).([]float32)
	a32, _ := any(a).([]float32)
	b32, _ := any(b).([]float32)
	fast := vec32 != nil && out32 != nil && sa <= 1 && sb <= 1 && sa+sb > 0
	parallelFor(p.n, 1, func(lo, hi int) {
		p.runs(lo, hi, func(o int, offs []int, n int) {
			dst := out[o : o+n]
			ia, ib := offs[0], offs[1]
			switch {
			case fast:
				vec32(op, out32[o:o+n], a32[ia:ia+max(n*sa, 1)], b32[ib:ib+max(n*sb, 1)], sa == 1, sb == 1)
			case sa == 1 && sb == 1:
				vecVV(op, dst, a[ia:ia+n], b[ib:ib+n])
			case sa == 1 && sb == 0:
				vecVS(op, dst, a[ia:ia+n], b[ib])
			case sa == 0 && sb == 1:
				vecSV(op, dst, a[ia], b[ib:ib+n])
			default:
				for i := range dst {
					dst[i] = vecApply(op, a[ia+i*sa], b[ib+i*sb])
				}
			}
		})
	})
}

func vecApply[T number](op int, x, y T) T {
	switch op {
	case vecAdd:
		return x + y
	case vecSub:
		return x - y
	case vecMul:
		return x * y
	}
	return x / y
}

// vec32 is vecVV, vecVS and vecSV on float32 in one, where the CPU has
// vector instructions for them (binary_amd64.go; nil elsewhere), with the
// Go loops' arithmetic: dst[i] = x[i] op y[i], where x and y hold len(dst)
// values, or one repeated where xVec or yVec is false.
var vec32 func(op int, dst, x, y []float32, xVec, yVec bool)

func vecVV[T number](op int, dst, x, y []T) {
	x, y = x[:len(dst)], y[:len(dst)]
	switch op {
	case vecAdd:
		for i := range dst {
			dst[i] = x[i] + y[i]
		}
	case vecSub:
		for i := range dst {
			dst[i] = x[i] - y[i]
		}
	case vecMul:
		for i := range dst {
			dst[i] = x[i] * y[i]
		}
	default:
		for i := range dst {
			dst[i] = x[i] / y[i]
		}
	}
}

func vecVS[T number](op int, dst, x []T, y T) {
	x = x[:len(dst)]
	switch op {
	case vecAdd:
		for i := range dst {
			dst[i] = x[i] + y
		}
	case vecSub:
		for i := range dst {
			dst[i] = x[i] - y
		}
	case vecMul:
		for i := range dst {
			dst[i] = x[i] * y
		}
	default:
		for i := range dst {
			dst[i] = x[i] / y
		}
	}
}

func vecSV[T number](op int, dst []T, x T, y []T) {
	y = y[:len(dst)]
	switch op {
	case vecAdd:
		for i := range dst {
			dst[i] = x + y[i]
		}
	case vecSub:
		for i := range dst {
			dst[i] = x - y[i]
		}
	case vecMul:
		for i := range dst {
			dst[i] = x * y[i]
		}
	default:
		for i := range dst {
			dst[i] = x / y[i]
		}
	}
}
