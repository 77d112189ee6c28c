package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// withGemm32 runs f with g as the float32 GEMM in use, as if the CPU offered
// only that micro-kernel (the "go" variant is the fallback of a CPU without
// AVX2/FMA and of purego builds).
func withGemm32(g gemmImpl[float32], f func()) {
	old := gemm32
	gemm32 = g
	defer func() { gemm32 = old }()
	f()
}

// gemmVariantNames lists gemm32Variants in a fixed order.
func gemmVariantNames() []string {
	var names []string
	for k := range gemm32Variants {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// gemmFMAChains32 is the sum the assembly GEMMs promise, whatever their
// tiles, packing and threads: each output is kc-long chains (kc = 256) of
// fused multiply-adds in k order, the first from zero, each later chain's
// sum added to the previous total. The float32 fused multiply-add is
// computed exactly in float64 and rounded once (the product of two float32
// values is exact in float64; the sum with a float32 rounds, so a rare case
// could round twice: the fixed seeds below do not meet one).
func gemmFMAChains32(m, n, k int, a, b []float32, ta, tb bool) []float32 {
	out := make([]float32, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var total float32
			for p0 := 0; p0 < k; p0 += 256 {
				var s float32
				for p := p0; p < min(k, p0+256); p++ {
					av := a[i*k+p]
					if ta {
						av = a[p*m+i]
					}
					bv := b[p*n+j]
					if tb {
						bv = b[j*k+p]
					}
					s = float32(math.FMA(float64(av), float64(bv), float64(s)))
				}
				if p0 == 0 {
					total = s
				} else {
					total += s
				}
			}
			out[i*n+j] = total
		}
	}
	return out
}

// Every float32 GEMM this CPU can run (the Go fallback always) computes
// MatMul within the reference's tolerance, and the assembly ones (and the
// Go fallback where it fuses with math.FMA, goFMA) give exactly the bits
// of the FMA-chain model: with A read in place or packed
// (transposed, or rows whose stride crowds one cache set), on full tiles
// and on edges of rows and columns, over one kc block and several, on one
// worker and on several.
func TestMatMulGemmVariants(t *testing.T) {
	sizes := [][3]int{{1, 1, 1}, {5, 17, 3}, {12, 16, 256}, {13, 33, 257}, {25, 48, 600}, {37, 45, 300},
		{96, 64, 1024}, {100, 20, 513}, {130, 257, 64}, {7, 300, 40}, {24, 32, 512}}
	// One worker (plain loops) and several (goroutines).
	for _, procs := range []int{1, 3} {
		for _, name := range gemmVariantNames() {
			g := gemm32Variants[name]
			t.Run(fmt.Sprintf("%s/procs%d", name, procs), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				withGemm32(g, func() {
					r := rand.New(rand.NewPCG(11, 12))
					for _, s := range sizes {
						for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}} {
							m, n, k := s[0], s[1], s[2]
							mm := runRandMatMul(t, r, m, n, k, tr)
							a, b, got := mm.a, mm.b, mm.out.Data.([]float32)
							ref := nnRefMatMul(m, n, k, a, b, tr[0], tr[1])
							// float32 sums of up to 1024 terms of about 1
							// against float64's: a few 1e-5 near zero.
							if i := nnCloseF32(got, ref, 1e-4, 1e-4); i >= 0 {
								t.Fatalf("size %v transpose %v: [%d] %v, the float64 reference %v", s, tr, i, got[i], ref[i])
							}
							if name == "go" && !goFMA {
								continue
							}
							want := gemmFMAChains32(m, n, k, a, b, tr[0], tr[1])
							for i := range want {
								if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
									t.Fatalf("size %v transpose %v: [%d] %v, the FMA chains give %v", s, tr, i, got[i], want[i])
								}
							}
						}
					}
				})
			})
		}
	}
}

// A convolution built on the GEMM (1x1: A read in place; 3x3: patches
// packed from the input) gives the same bits on every assembly GEMM and
// stays within tolerance of them on the Go fallback.
func TestConvGemmVariants(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, tc := range []struct{ h, w, c, k, o int }{{9, 7, 20, 1, 24}, {11, 10, 8, 3, 19}, {6, 6, 64, 3, 32}} {
		x := nnF32T([]int{1, tc.h, tc.w, tc.c}, nnRandF32(r, tc.h*tc.w*tc.c))
		f := nnF32T([]int{tc.k, tc.k, tc.c, tc.o}, nnRandF32(r, tc.k*tc.k*tc.c*tc.o))
		results := map[string][]float32{}
		for _, name := range gemmVariantNames() {
			withGemm32(gemm32Variants[name], func() {
				out, err := nnRunOp(t, "Conv2D", nnConvTestAttrs([]int{1, 1, 1, 1}, "SAME"), x, f)
				require.NoError(t, err)
				results[name] = out[0].Data.([]float32)
			})
		}
		var first []float32
		for _, name := range gemmVariantNames() {
			got := results[name]
			if name == "go" {
				continue
			}
			if first == nil {
				first = got
				continue
			}
			require.True(t, slices.Equal(first, got), "%+v: %s differs from the other assembly GEMM", tc, name)
		}
		if first != nil {
			require.Equal(t, -1, nnCloseF32(results["go"], first, 1e-4, 1e-5), "%+v: the Go fallback", tc)
		}
	}
}
