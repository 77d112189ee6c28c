package kernels

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

func TestSegmentErrors(t *testing.T) {
	x := xf32([]int{4, 2}, 1, 2, 3, 4, 5, 6, 7, 8)
	xRunErrors(t, []xErrCase{
		{"ids not vector", "SegmentSum", nil, []*Tensor{x, xi32([]int{2, 2}, 0, 0, 1, 1)}, "segment_ids should be a vector."},
		{"ids size", "SegmentSum", nil, []*Tensor{x, xi32([]int{3}, 0, 0, 1)}, "segment_ids should be the same size as dimension 0 of input."},
		{"not increasing", "SegmentMax", nil, []*Tensor{x, xi32([]int{4}, 0, 2, 1, 3)}, "segment ids are not increasing"},
		{"negative last", "SegmentMean", nil, []*Tensor{x, xi32([]int{4}, -3, -2, -2, -1)}, "segment ids must be >= 0"},
		{"negative first", "SegmentProd", nil, []*Tensor{x, xi32([]int{4}, -1, 0, 0, 1)}, "Segment id -1 out of range [0, 2), possibly because 'segment_ids' input is not sorted."},
		{"scalar input", "SegmentSum", nil, []*Tensor{xf32([]int{}, 1), xi32([]int{1}, 0)}, "input must be at least rank 1"},
		{"unsorted oob", "UnsortedSegmentSum", nil, []*Tensor{x, xi32([]int{4}, 0, 5, 1, 1), xi32([]int{}, 3)}, "segment_ids[1] = 5 is out of range [0, 3)"},
		{"unsorted oob 2d", "UnsortedSegmentMax", nil, []*Tensor{x, xi64([]int{4, 2}, 0, 0, 0, 0, 0, 0, 9, 0), xi32([]int{}, 3)}, "segment_ids[3,0] = 9 is out of range [0, 3)"},
		{"unsorted prefix", "UnsortedSegmentSum", nil, []*Tensor{x, xi32([]int{2}, 0, 1), xi32([]int{}, 3)}, "data.shape = [4,2] does not start with segment_ids.shape = [2]"},
		{"num_segments shape", "UnsortedSegmentSum", nil, []*Tensor{x, xi32([]int{4}, 0, 0, 1, 1), xi32([]int{1}, 3)}, "num_segments should be a scalar, not shape [1]"},
		{"num_segments negative", "UnsortedSegmentMin", nil, []*Tensor{x, xi32([]int{4}, 0, 0, 1, 1), xi32([]int{}, -1)}, "Input num_segments == -1 must not be negative."},
		{"num_segments huge", "UnsortedSegmentProd", nil, []*Tensor{x, xi32([]int{4}, 0, 0, 1, 1), xi64([]int{}, 1<<40)}, "too large"},
		{"sparse bad index", "SparseSegmentSum", nil, []*Tensor{x, xi32([]int{3}, 0, 7, 1), xi32([]int{3}, 0, 0, 1)}, "Bad: indices[1] == 7 out of range [0, 4)"},
		{"sparse sizes", "SparseSegmentMean", nil, []*Tensor{x, xi32([]int{3}, 0, 1, 1), xi32([]int{2}, 0, 0)}, "segment_ids and indices should have same size."},
		{"sparse not increasing", "SparseSegmentSqrtN", nil, []*Tensor{x, xi32([]int{3}, 0, 1, 1), xi32([]int{3}, 1, 0, 0)}, "segment ids are not increasing"},
		{"sparse num too small", "SparseSegmentSumWithNumSegments", nil, []*Tensor{x, xi32([]int{2}, 0, 1), xi32([]int{2}, 0, 4), xi32([]int{}, 3)}, "segment ids must be < num_segments"},
		{"sparse indices rank", "SparseSegmentSum", nil, []*Tensor{x, xi32([]int{1, 1}, 0), xi32([]int{1}, 0)}, "indices should be a vector."},
	})
	// SparseSegmentMean is registered only for float types.
	_, err := xRun("SparseSegmentMean", nil, xi32([]int{2}, 1, 2), xi32([]int{2}, 0, 1), xi32([]int{2}, 0, 0))
	var u *UnsupportedError
	require.ErrorAs(t, err, &u)
}

func TestSegmentEdges(t *testing.T) {
	// Gaps are 0 for every sorted op, including Max and Min.
	out, err := xRun("SegmentMax", nil, xf32([]int{2}, -5, -7), xi32([]int{2}, 1, 1))
	require.NoError(t, err)
	assert.Equal(t, []float32{0, -5}, out[0].Data)
	// A multi-row max of -inf stays -inf (Eigen starts from -inf, not
	// lowest); UnsortedSegmentMax of an empty segment is lowest().
	inf := float32(math.Inf(-1))
	out, err = xRun("SegmentMax", nil, xf32([]int{2}, inf, inf), xi32([]int{2}, 0, 0))
	require.NoError(t, err)
	assert.Equal(t, []float32{inf}, out[0].Data)
	out, err = xRun("UnsortedSegmentMax", nil, xf32([]int{1}, 3), xi32([]int{1}, 0), xi32([]int{}, 2))
	require.NoError(t, err)
	assert.Equal(t, []float32{3, -math.MaxFloat32}, out[0].Data)
	// bfloat16: sums round to bfloat16 after every add, as Eigen's
	// bfloat16 arithmetic does: 256 + 1 + 1 stays 256 (ulp 2 at 256).
	bf := &Tensor{DType: tpb.DataType_DT_BFLOAT16, Shape: []int{3}, Data: []BFloat16{
		BFloat16FromFloat32(256), BFloat16FromFloat32(1), BFloat16FromFloat32(1)}}
	out, err = xRun("SegmentSum", nil, bf, xi32([]int{3}, 0, 0, 0))
	require.NoError(t, err)
	assert.Equal(t, float32(256), out[0].Data.([]BFloat16)[0].Float32())
	// SparseSegmentSum sums half/bfloat16 in float32 and rounds once:
	// 256 + 1 + 1 = 258, exact in bfloat16.
	out, err = xRun("SparseSegmentSum", nil, bf, xi32([]int{3}, 0, 1, 2), xi32([]int{3}, 0, 0, 0))
	require.NoError(t, err)
	assert.Equal(t, float32(258), out[0].Data.([]BFloat16)[0].Float32())
	out, err = xRun("UnsortedSegmentMin", nil, bf, xi32([]int{3}, 1, 1, 1), xi32([]int{}, 2))
	require.NoError(t, err)
	assert.Equal(t, BFloat16(0x7f7f), out[0].Data.([]BFloat16)[0], "empty segment is bfloat16's highest()")
	// Integer mean truncates.
	out, err = xRun("SegmentMean", nil, xi32([]int{2}, 1, 2), xi32([]int{2}, 0, 0))
	require.NoError(t, err)
	assert.Equal(t, []int32{1}, out[0].Data)
	// Empty ids with num_segments: all rows at the reducer's start value.
	out, err = xRun("SparseSegmentSqrtNWithNumSegments", nil, xf32([]int{1, 2}, 1, 2), xi32([]int{0}), xi32([]int{0}), xi32([]int{}, 2))
	require.NoError(t, err)
	assert.Equal(t, []float32{0, 0, 0, 0}, out[0].Data)
}

// BenchmarkSparseSegmentMean is the embedding-bag pattern: 4096 lookups
// into a 10000×64 table, 256 bags.
func BenchmarkSparseSegmentMean(b *testing.B) {
	table := make([]float32, 10000*64)
	for i := range table {
		table[i] = float32(i%97) / 97
	}
	idx := make([]int32, 4096)
	ids := make([]int32, 4096)
	for i := range idx {
		idx[i] = int32((i * 7919) % 10000)
		ids[i] = int32(i / 16)
	}
	x, it, st := xf32([]int{10000, 64}, table...), xi32([]int{4096}, idx...), xi32([]int{4096}, ids...)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := xRun("SparseSegmentMean", nil, x, it, st); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnsortedSegmentSum(b *testing.B) {
	data := make([]float32, 8192*64)
	ids := make([]int32, 8192)
	for i := range ids {
		ids[i] = int32((i * 31) % 512)
	}
	x, it, n := xf32([]int{8192, 64}, data...), xi32([]int{8192}, ids...), xi32([]int{}, 512)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := xRun("UnsortedSegmentSum", nil, x, it, n); err != nil {
			b.Fatal(err)
		}
	}
}
