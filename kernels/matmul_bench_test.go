package kernels

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkMatMul reports float32 MatMul GFLOP/s for square sizes.
func BenchmarkMatMul(b *testing.B) {
	for _, n := range []int{256, 512, 1024} {
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

// BenchmarkMatMulNumPy measures NumPy's float32 matmul (OpenBLAS on Debian)
// on the same sizes in the same run, as the reference for BenchmarkMatMul.
// It is skipped when /usr/bin/python3 cannot import numpy.
func BenchmarkMatMulNumPy(b *testing.B) {
	const script = `
import sys, time, numpy as np
n = int(sys.argv[1])
a = np.random.rand(n, n).astype(np.float32); c = np.random.rand(n, n).astype(np.float32)
a @ c
reps = max(3, int(2e9 / (2 * n**3)))
t, p = time.perf_counter(), time.process_time()
for _ in range(reps): a @ c
dt, dp = time.perf_counter() - t, time.process_time() - p
print(2 * n**3 * reps / dt / 1e9, 2 * n**3 * reps / dp / 1e9)
`
	if err := exec.Command("/usr/bin/python3", "-c", "import numpy").Run(); err != nil {
		b.Skip("no /usr/bin/python3 with numpy")
	}
	for _, n := range []int{256, 512, 1024} {
		b.Run(fmt.Sprintf("f32/%d", n), func(b *testing.B) {
			var gf, gfc float64
			for i := 0; i < b.N; i++ {
				out, err := exec.Command("/usr/bin/python3", "-c", script, strconv.Itoa(n)).Output()
				if err != nil {
					b.Fatal(err)
				}
				f := strings.Fields(string(out))
				if len(f) != 2 {
					b.Fatalf("numpy printed %q", out)
				}
				if gf, err = strconv.ParseFloat(f[0], 64); err != nil {
					b.Fatal(err)
				}
				if gfc, err = strconv.ParseFloat(f[1], 64); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(gf, "GFLOP/s")
			b.ReportMetric(gfc, "GFLOP/cpu-s")
		})
	}
}
