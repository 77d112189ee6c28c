package kernels

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tfscan/tfscan/internal/tfenv"
)

// BenchmarkMatMul reports float32 MatMul GFLOP/s for square sizes.
func BenchmarkMatMul(b *testing.B) {
	// 1040 beside 1024: the same work with rows not 4 KiB apart.
	for _, n := range []int{256, 512, 1024, 1040} {
		b.Run(fmt.Sprintf("f32/%d", n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, uint64(n)))
			x, y := nnF32T([]int{n, n}, nnRandF32(r, n*n)), nnF32T([]int{n, n}, nnRandF32(r, n*n))
			attrs := xattrs("transpose_a", false, "transpose_b", false)
			ctx := &Context{Op: "MatMul", Path: "bench", Attrs: attrs, Inputs: []*Tensor{x, y}}
			b.ResetTimer()
			cpu0 := processCPUTime()
			for i := 0; i < b.N; i++ {
				if _, err := matMulKernel(ctx); err != nil {
					b.Fatal(err)
				}
			}
			flops := 2 * float64(n) * float64(n) * float64(n) * float64(b.N)
			b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			if cpu := (processCPUTime() - cpu0).Seconds(); cpu > 0 {
				b.ReportMetric(flops/cpu/1e9, "GFLOP/cpu-s")
			}
		})
	}
}

// BenchmarkMatMulOpenBLAS compares the float32 GEMM with OpenBLAS (NumPy's
// matmul in the pinned TensorFlow environment, tools/tf/bench_exec.py) on
// the same sizes, both single-threaded (GOMAXPROCS=1, OPENBLAS_NUM_THREADS=1),
// alternating rounds of each in the same run. It reports each side's
// GFLOP per CPU-second (median over the products) and go/blas, their ratio
// (above 1: the Go GEMM is faster), and the same of each side's fastest
// product (go/blas-best), which a loaded host moves least. The Go side is
// the MatMul kernel as the executor runs it: its output drawn from a
// buffer pool (Context.Buffers),
// to which the previous call's result goes back before the next call, as
// the executor hands back a dead tensor's buffer and NumPy's allocator the
// freed result of the last product. go-gemm is the bare GEMM writing into
// one output the benchmark keeps (gemm/blas its ratio): what the kernel
// adds to it is planning the product and taking the buffer.
//
//	make bench-exec   # or: go test ./kernels -run '^$' -bench MatMulOpenBLAS -benchtime 1x
//
// TFSCAN_BENCH_ROUNDS sets the rounds (default 5).
func BenchmarkMatMulOpenBLAS(b *testing.B) {
	srv := tfenv.StartBench(b, tfenv.BenchConfig{Threads: 1})
	rounds := 5
	if v, err := strconv.Atoi(os.Getenv("TFSCAN_BENCH_ROUNDS")); err == nil && v > 0 {
		rounds = v
	}
	for _, n := range []int{256, 512, 1024} {
		b.Run(fmt.Sprintf("f32/%d", n), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			r := rand.New(rand.NewPCG(1, uint64(n)))
			x, y := nnF32T([]int{n, n}, nnRandF32(r, n*n)), nnF32T([]int{n, n}, nnRandF32(r, n*n))
			pool := &benchPool{}
			ctx := &Context{Op: "MatMul", Path: "bench", Attrs: xattrs("transpose_a", false, "transpose_b", false), Inputs: []*Tensor{x, y}, Buffers: pool}
			flops := 2 * float64(n) * float64(n) * float64(n)
			reps := max(3, int(3e8/flops))
			// matMul runs the kernel and hands its result back to the
			// pool, as the executor does once the result's readers ran.
			matMul := func() {
				out, err := matMulKernel(ctx)
				if err != nil {
					b.Fatal(err)
				}
				pool.put(out[0].Data.([]float32))
			}
			matMul()
			// The same product into one output kept across calls.
			out := make([]float32, n*n)
			gemmOnce := func() {
				a := gemmOperand[float32]{data: x.Data.([]float32), rs: n, cs: 1}
				bb := gemmOperand[float32]{data: y.Data.([]float32), rs: n, cs: 1}
				runGemm([]gemmJob[float32]{{m: n, n: n, k: n, a: a, b: bb, c: out, ldc: n}})
			}
			var goCPU, gemmCPU, blasCPU []time.Duration
			goRound := func() {
				// Untimed products first, as the server's round starts
				// with one: after the wait on the server the runtime's
				// monitor thread polls every 20 µs for a few milliseconds
				// (goWarmup), a cost of the wake, not of a product.
				for t0 := time.Now(); time.Since(t0) < goWarmup; {
					matMul()
					gemmOnce()
				}
				// The kernel and the bare GEMM alternate call by call,
				// each first in every other pair, so that neither gains
				// from its place in the round.
				for i := 0; i < reps; i++ {
					if i%2 == 0 {
						goCPU = append(goCPU, timeCPU(matMul))
						gemmCPU = append(gemmCPU, timeCPU(gemmOnce))
					} else {
						gemmCPU = append(gemmCPU, timeCPU(gemmOnce))
						goCPU = append(goCPU, timeCPU(matMul))
					}
				}
			}
			blasRound := func() {
				t, err := srv.MatMul(n, reps)
				if err != nil {
					b.Fatal(err)
				}
				blasCPU = append(blasCPU, t.CPU...)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for r := 0; r < rounds; r++ {
					if r%2 == 0 {
						goRound()
						blasRound()
					} else {
						blasRound()
						goRound()
					}
				}
			}
			b.StopTimer()
			g, o := tfenv.Median(goCPU).Seconds(), tfenv.Median(blasCPU).Seconds()
			gg := tfenv.Median(gemmCPU).Seconds()
			if g <= 0 || o <= 0 || gg <= 0 {
				b.Skip("no CPU time on this platform")
			}
			b.ReportMetric(flops/g/1e9, "go-GFLOP/cpu-s")
			b.ReportMetric(flops/gg/1e9, "go-gemm-GFLOP/cpu-s")
			b.ReportMetric(flops/o/1e9, "blas-GFLOP/cpu-s")
			b.ReportMetric(o/g, "go/blas")
			b.ReportMetric(o/gg, "gemm/blas")
			// The fastest product of each side: what a background load,
			// which only slows a product, moves least.
			gb, ob := slices.Min(goCPU).Seconds(), slices.Min(blasCPU).Seconds()
			if gb > 0 && ob > 0 {
				b.ReportMetric(flops/gb/1e9, "go-best-GFLOP/cpu-s")
				b.ReportMetric(flops/ob/1e9, "blas-best-GFLOP/cpu-s")
				b.ReportMetric(ob/gb, "go/blas-best")
			}
		})
	}
}

// benchPool is the executor's buffer pool reduced to what the MatMul
// benchmark needs: float32 buffers by length, handed back by put.
type benchPool struct {
	free map[int][][]float32
}

// Get implements Buffers.
func (p *benchPool) Get(like any, n int, zero bool) any {
	if _, ok := like.([]float32); !ok {
		return nil
	}
	l := p.free[n]
	if len(l) == 0 {
		return make([]float32, n)
	}
	s := l[len(l)-1]
	p.free[n] = l[:len(l)-1]
	if zero {
		clear(s)
	}
	return s
}

func (p *benchPool) put(s []float32) {
	if p.free == nil {
		p.free = map[int][][]float32{}
	}
	p.free[len(s)] = append(p.free[len(s)], s)
}

// timeCPU returns the process CPU time f takes.
func timeCPU(f func()) time.Duration {
	c0 := tfenv.CPUTime()
	f()
	return tfenv.CPUTime() - c0
}

// goWarmup is how long the Go side of BenchmarkMatMulOpenBLAS runs untimed
// products at the start of each round. The Go runtime's monitor thread
// (sysmon) sleeps while every goroutine waits, as the benchmark's does on
// the server's answer; the first system call after that wakes it into
// polling every 20 µs for 50 rounds before it backs off, about a tenth of
// a core for some 5 ms on a virtual machine, which the process's CPU time
// counts and which slows the computing thread as well. A product of 256
// takes about 0.3 ms, so without the warm-up the first products of every
// round carry it: a cost of each wake, not of the kernel.
const goWarmup = 10 * time.Millisecond
