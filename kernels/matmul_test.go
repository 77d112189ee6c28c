package kernels

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// nnRefMatMul is the textbook triple loop in float64.
func nnRefMatMul(m, n, k int, a, b []float32, ta, tb bool) []float32 {
	out := make([]float32, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s float64
			for p := 0; p < k; p++ {
				av := a[i*k+p]
				if ta {
					av = a[p*m+i]
				}
				bv := b[p*n+j]
				if tb {
					bv = b[j*k+p]
				}
				s += float64(av) * float64(bv)
			}
			out[i*n+j] = float32(s)
		}
	}
	return out
}

// randMatMul is a float32 MatMul of random operands, as the kernel ran it.
type randMatMul struct {
	a, b   []float32
	as, bs []int // the operands' shapes, transposed as asked
	out    *Tensor
}

// runRandMatMul runs MatMul on a random m×k by k×n product, each operand
// transposed where tr says.
func runRandMatMul(t *testing.T, r *rand.Rand, m, n, k int, tr [2]bool) randMatMul {
	t.Helper()
	mm := randMatMul{a: nnRandF32(r, m*k), b: nnRandF32(r, k*n), as: []int{m, k}, bs: []int{k, n}}
	if tr[0] {
		mm.as = []int{k, m}
	}
	if tr[1] {
		mm.bs = []int{n, k}
	}
	out, err := nnRunOp(t, "MatMul", xattrs("transpose_a", tr[0], "transpose_b", tr[1]), nnF32T(mm.as, mm.a), nnF32T(mm.bs, mm.b))
	require.NoError(t, err)
	mm.out = out[0]
	return mm
}

func TestMatMulAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	sizes := [][3]int{{1, 1, 1}, {3, 5, 7}, {6, 16, 1}, {7, 17, 300}, {97, 33, 513}, {130, 257, 64}, {0, 4, 3}, {4, 0, 3}, {4, 5, 0}}
	for _, s := range sizes {
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			m, n, k := s[0], s[1], s[2]
			mm := runRandMatMul(t, r, m, n, k, tr)
			require.Equal(t, []int{m, n}, mm.out.Shape)
			a, b, as, bs, got := mm.a, mm.b, mm.as, mm.bs, mm.out.Data.([]float32)
			want := nnRefMatMul(m, n, k, a, b, tr[0], tr[1])
			require.Equal(t, -1, nnCloseF32(got, want, 1e-4, 1e-5), "size %v transpose %v", s, tr)

			// float64 through the same GEMM driver.
			a64, b64 := make([]float64, len(a)), make([]float64, len(b))
			for i, v := range a {
				a64[i] = float64(v)
			}
			for i, v := range b {
				b64[i] = float64(v)
			}
			out, err := nnRunOp(t, "MatMul", xattrs("transpose_a", tr[0], "transpose_b", tr[1]),
				&Tensor{DType: tpb.DataType_DT_DOUBLE, Shape: as, Data: a64}, &Tensor{DType: tpb.DataType_DT_DOUBLE, Shape: bs, Data: b64})
			require.NoError(t, err)
			got64 := out[0].Data.([]float64)
			for i := range want {
				require.InDelta(t, float64(want[i]), got64[i], 1e-5)
			}
		}
	}
}

func TestMatMulPortableKernel(t *testing.T) {
	// The Go micro-kernel must agree with the one in use (assembly on AVX2).
	r := rand.New(rand.NewPCG(3, 4))
	m, n, k := 37, 45, 300
	a, b := nnRandF32(r, m*k), nnRandF32(r, k*n)
	out := make([]float32, m*n)
	job := []gemmJob[float32]{{m: m, n: n, k: k, a: gemmOperand[float32]{data: a, rs: k, cs: 1}, b: gemmOperand[float32]{data: b, rs: n, cs: 1}, c: out, ldc: n}}
	gemmRun(job, gemmBlocking{mr: 4, nr: 8, mc: 16, kc: 64, nc: 32}, gemmKernelGo[float32](4, 8))
	require.Equal(t, -1, nnCloseF32(out, nnRefMatMul(m, n, k, a, b, false, false), 1e-4, 1e-5))
}

func TestBatchMatMulBroadcast(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	// x [2,1,3,4] · y [3,4,5] -> [2,3,3,5]
	x, y := nnRandF32(r, 2*3*4), nnRandF32(r, 3*4*5)
	out, err := nnRunOp(t, "BatchMatMulV2", xattrs("adj_x", false, "adj_y", false), nnF32T([]int{2, 1, 3, 4}, x), nnF32T([]int{3, 4, 5}, y))
	require.NoError(t, err)
	require.Equal(t, []int{2, 3, 3, 5}, out[0].Shape)
	got := out[0].Data.([]float32)
	for b0 := 0; b0 < 2; b0++ {
		for b1 := 0; b1 < 3; b1++ {
			want := nnRefMatMul(3, 5, 4, x[b0*12:b0*12+12], y[b1*20:b1*20+20], false, false)
			o := (b0*3 + b1) * 15
			require.Equal(t, -1, nnCloseF32(got[o:o+15], want, 1e-5, 1e-6))
		}
	}
	// V1 rejects broadcasting; mismatched k is an error, not a panic.
	_, err = nnRunOp(t, "BatchMatMul", xattrs("adj_x", false, "adj_y", false), nnF32T([]int{2, 1, 3, 4}, x), nnF32T([]int{3, 4, 5}, y))
	require.Error(t, err)
	_, err = nnRunOp(t, "BatchMatMulV2", xattrs("adj_x", true, "adj_y", false), nnF32T([]int{2, 1, 3, 4}, x), nnF32T([]int{3, 4, 5}, y))
	require.ErrorContains(t, err, "size-incompatible")
}

func TestMatMulEmulation(t *testing.T) {
	a := nnF32T([]int{1, 3}, []float32{1, 1e-4, 1e-4})
	b := nnF32T([]int{3, 1}, []float32{1, 1, 1})
	ctx := &Context{Op: "MatMul", Path: "n", Attrs: xattrs("transpose_a", false, "transpose_b", false), Inputs: []*Tensor{a, b}}
	out, err := matMulKernel(ctx)
	require.NoError(t, err)
	require.InDelta(t, 1.0002, out[0].Data.([]float32)[0], 1e-6)
	// fp16 accumulation: 1 + 1e-4 rounds back to 1 at every step.
	ctx.Emu = &Emulation{RoundAccum: RoundFloat16}
	out, err = matMulKernel(ctx)
	require.NoError(t, err)
	require.Equal(t, float32(1), out[0].Data.([]float32)[0])
	// bf16 operands: 1e-4 becomes its bf16 neighbour.
	ctx.Emu = &Emulation{RoundOperand: RoundBFloat16}
	out, err = matMulKernel(ctx)
	require.NoError(t, err)
	require.Equal(t, 1+2*RoundBFloat16(1e-4), out[0].Data.([]float32)[0])
}

func TestMatMulDTypes(t *testing.T) {
	// int32 wraps; half rounds the output once.
	x := &Tensor{DType: tpb.DataType_DT_INT32, Shape: []int{1, 2}, Data: []int32{1 << 30, 1 << 30}}
	y := &Tensor{DType: tpb.DataType_DT_INT32, Shape: []int{2, 1}, Data: []int32{2, 2}}
	out, err := nnRunOp(t, "MatMul", xattrs("transpose_a", false, "transpose_b", false), x, y)
	require.NoError(t, err)
	require.Equal(t, []int32{0}, out[0].Data.([]int32))

	h := &Tensor{DType: tpb.DataType_DT_HALF, Shape: []int{1, 2}, Data: []Float16{Float16FromFloat32(1), Float16FromFloat32(0.5)}}
	hy := &Tensor{DType: tpb.DataType_DT_HALF, Shape: []int{2, 1}, Data: []Float16{Float16FromFloat32(3), Float16FromFloat32(0.25)}}
	out, err = nnRunOp(t, "MatMul", xattrs("transpose_a", false, "transpose_b", false), h, hy)
	require.NoError(t, err)
	require.Equal(t, float32(3.125), out[0].Data.([]Float16)[0].Float32())

	_, err = nnRunOp(t, "MatMul", xattrs("transpose_a", false, "transpose_b", false),
		&Tensor{DType: tpb.DataType_DT_BOOL, Shape: []int{1, 1}, Data: []bool{true}}, &Tensor{DType: tpb.DataType_DT_BOOL, Shape: []int{1, 1}, Data: []bool{true}})
	var ue *UnsupportedError
	require.ErrorAs(t, err, &ue)
}
