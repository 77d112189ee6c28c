package kernels

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"

	"github.com/stretchr/testify/require"
)

// A stable filter's or weight's panels kept in a PackCache give the bits
// of packing them on every call, on every GEMM this CPU runs: Conv2D 1x1
// (A read in place), 3x3 (patches packed), grouped, and MatMul with B
// plain and transposed. The first call packs, the second finds the panels;
// a new array of the same shape (a variable's new value) packs again.
func TestPackCacheSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	conv := func(h, w, c, k, cg, o int) [2]*Tensor {
		return [2]*Tensor{nnF32T([]int{1, h, w, c}, nnRandF32(r, h*w*c)), nnF32T([]int{k, k, cg, o}, nnRandF32(r, k*k*cg*o))}
	}
	cases := []struct {
		name  string
		op    string
		attrs func() map[string]*attrpb.AttrValue
		in    [2]*Tensor
	}{
		{"conv1x1", "Conv2D", func() map[string]*attrpb.AttrValue { return nnConvTestAttrs([]int{1, 1, 1, 1}, "SAME") }, conv(9, 7, 20, 1, 20, 40)},
		{"conv3x3", "Conv2D", func() map[string]*attrpb.AttrValue { return nnConvTestAttrs([]int{1, 1, 1, 1}, "SAME") }, conv(11, 10, 24, 3, 24, 35)},
		{"grouped", "Conv2D", func() map[string]*attrpb.AttrValue { return nnConvTestAttrs([]int{1, 2, 2, 1}, "VALID") }, conv(10, 10, 16, 3, 8, 32)},
		{"matmul", "MatMul", func() map[string]*attrpb.AttrValue { return xattrs("transpose_a", false, "transpose_b", false) },
			[2]*Tensor{nnF32T([]int{30, 300}, nnRandF32(r, 9000)), nnF32T([]int{300, 50}, nnRandF32(r, 15000))}},
		{"matmul-tb", "MatMul", func() map[string]*attrpb.AttrValue { return xattrs("transpose_a", false, "transpose_b", true) },
			[2]*Tensor{nnF32T([]int{30, 300}, nnRandF32(r, 9000)), nnF32T([]int{50, 300}, nnRandF32(r, 15000))}},
	}
	for _, name := range gemmVariantNames() {
		withGemm32(gemm32Variants[name], func() {
			for _, tc := range cases {
				want, err := nnRunOp(t, tc.op, tc.attrs(), tc.in[0], tc.in[1])
				require.NoError(t, err)
				pc := NewPackCache(DefaultPackCacheBytes)
				run := func(w *Tensor) []float32 {
					ctx := &Context{Op: tc.op, Path: "test", Attrs: tc.attrs(), Inputs: []*Tensor{tc.in[0], w}, Stable: 2, Packs: pc}
					out, err := Lookup(tc.op)(ctx)
					require.NoError(t, err)
					return out[0].Data.([]float32)
				}
				for i := 0; i < 2; i++ {
					require.True(t, slices.Equal(want[0].Data.([]float32), run(tc.in[1])), "%s %s call %d", name, tc.name, i)
				}
				hits, misses := pc.Stats()
				groups := 1
				if tc.name == "grouped" {
					groups = 2
				}
				require.Equal(t, groups, misses, "%s %s", name, tc.name)
				require.Equal(t, groups, hits, "%s %s", name, tc.name)
				// A new value of the same shape packs again.
				w2 := nnF32T(slices.Clone(tc.in[1].Shape), nnRandF32(r, len(tc.in[1].Data.([]float32))))
				want2, err := nnRunOp(t, tc.op, tc.attrs(), tc.in[0], w2)
				require.NoError(t, err)
				require.True(t, slices.Equal(want2[0].Data.([]float32), run(w2)), "%s %s new value", name, tc.name)
				_, misses = pc.Stats()
				require.Equal(t, 2*groups, misses, "%s %s", name, tc.name)
			}
		})
	}
}

// The cache holds at most its bound and keeps the panels it has: an
// operand that does not fit is packed on every call, until the collector
// frees the array behind an entry, which then makes room.
func TestPackCacheBound(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	x := nnF32T([]int{8, 64}, nnRandF32(r, 512))
	ws := make([]*Tensor, 4)
	for i := range ws {
		ws[i] = nnF32T([]int{64, 32}, nnRandF32(r, 64*32))
	}
	// Room for two sets of panels of 64×32 (32 a multiple of every panel width).
	pc := NewPackCache(2 * 64 * 32 * 4)
	attrs := xattrs("transpose_a", false, "transpose_b", false)
	run := func(i int) {
		ctx := &Context{Op: "MatMul", Path: "test", Attrs: attrs, Inputs: []*Tensor{x, ws[i]}, Stable: 2, Packs: pc}
		got, err := matMulKernel(ctx)
		require.NoError(t, err)
		want, err := nnRunOp(t, "MatMul", attrs, x, ws[i])
		require.NoError(t, err)
		require.Equal(t, want[0].Data, got[0].Data)
		require.LessOrEqual(t, pc.bytes, pc.maxBytes)
	}
	// 0, 1 miss and are kept; 0 hits; 2 misses and is not kept; 0, 1 hit;
	// 2 misses again.
	for _, i := range []int{0, 1, 0, 2, 0, 1, 2} {
		run(i)
	}
	hits, misses := pc.Stats()
	require.Equal(t, 3, hits)
	require.Equal(t, 4, misses)

	// Once 1's array is gone its entry is dead: 3 misses and takes its room,
	// after which it hits.
	ws[1] = nil
	runtime.GC()
	run(3)
	run(3)
	hits, misses = pc.Stats()
	require.Equal(t, 4, hits)
	require.Equal(t, 5, misses)
	require.Len(t, pc.entries, 2)
}
