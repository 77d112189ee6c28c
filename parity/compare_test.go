package parity

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/kernels/precision"
)

func TestToleranceClose(t *testing.T) {
	tol := Tolerance{ATol: 1e-3, RTol: 1e-2}
	tests := []struct {
		a, b float64
		want bool
	}{
		{1, 1, true},
		{1.011, 1, true},   // 0.011 ≤ 0.001 + 0.01
		{1.0111, 1, false}, // just over
		{0, 0.0009, true},
		{0, 0.0011, false},
		{math.NaN(), math.NaN(), true},
		{math.NaN(), 1, false},
		{math.Inf(1), math.Inf(1), true},
		{math.Inf(1), math.Inf(-1), false},
		{math.Inf(1), 1e30, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tol.Close(tt.a, tt.b), "%v vs %v", tt.a, tt.b)
	}
}

func TestCompareValues(t *testing.T) {
	tol := Tolerance{ATol: 1e-3, RTol: 1e-3}
	got := []float64{1, 2.5, math.Inf(1), 0, 0, math.NaN()}
	ref := []float64{1, 2, 70000, 1e-9, 0.5, 3}
	m := CompareValues(got, ref, tpb.DataType_DT_HALF, true, tol)
	assert.Equal(t, 6, m.Count)
	assert.Equal(t, 4, m.Mismatches) // 2.5, Inf, 0 vs 0.5, NaN; 1e-9 is within atol
	assert.Equal(t, 1, m.Overflow)
	assert.Equal(t, 1, m.Underflow, "1e-9 is below half's smallest normal; 0.5 is not an underflow")
	assert.True(t, m.NaNInf)
	assert.Equal(t, ErrInf, m.MaxAbs)
	assert.Equal(t, ErrInf, m.MaxRel)
	assert.Equal(t, uint64(precision.NaNULP), m.MaxULP)
	assert.Equal(t, 70000.0, m.Scale)

	ints := CompareValues([]float64{1, 5}, []float64{1, 2}, tpb.DataType_DT_FLOAT, false, tol)
	assert.Equal(t, 1, ints.Mismatches)
	assert.Equal(t, 3.0, ints.MaxAbs)
	assert.Zero(t, ints.MaxULP, "no ULPs for integers")

	_, err := Compare(kernels.FloatTensor([]int{2}, []float32{1, 2}), kernels.FloatTensor([]int{1, 2}, []float32{1, 2}), tpb.DataType_DT_FLOAT, tol)
	assert.ErrorContains(t, err, "shape")
}

func TestErrorStats(t *testing.T) {
	// numpy: np.percentile(e, 50) = 4.5, np.percentile(e, 99) = 8.91 for e = 0..9.
	errs := []float64{9, 0, 1, 2, 3, 4, 5, 6, 7, 8}
	s := ErrorStats(errs)
	assert.Equal(t, 9.0, s.Max)
	assert.Equal(t, 4.5, s.Mean)
	assert.Equal(t, 4.5, s.Median)
	assert.InDelta(t, 8.91, s.P99, 1e-12)
	assert.Len(t, s.Histogram, HistBins)
	total := 0
	for _, b := range s.Histogram {
		total += b.Count
	}
	assert.Equal(t, 10, total)
	assert.Equal(t, 9.0, s.Histogram[HistBins-1].Hi)
	assert.Equal(t, 1, s.Histogram[HistBins-1].Count, "[8.1, 9] holds the max only")
	assert.Equal(t, 1, s.Histogram[8].Count, "[7.2, 8.1) holds 8")

	inf := ErrorStats([]float64{0, 1, ErrInf})
	assert.Equal(t, ErrInf, inf.Mean)
	assert.Equal(t, Bin{Lo: 1, Hi: ErrInf, Count: 1}, inf.Histogram[len(inf.Histogram)-1])

	zero := ErrorStats([]float64{0, 0})
	assert.Equal(t, []Bin{{0, 0, 2}}, zero.Histogram)
	assert.Equal(t, []Bin{}, ErrorStats(nil).Histogram)
}

func TestCompareOutputStrings(t *testing.T) {
	mk := func(v ...string) *kernels.Tensor {
		d := make([][]byte, len(v))
		for i, s := range v {
			d[i] = []byte(s)
		}
		return &kernels.Tensor{DType: tpb.DataType_DT_STRING, Shape: []int{len(v)}, Data: d}
	}
	o, err := CompareOutput("s", mk("a", "b"), mk("a", "c"), tpb.DataType_DT_STRING, Tolerance{})
	assert.NoError(t, err)
	assert.Equal(t, 1, o.Mismatches)
	assert.False(t, o.Pass)
	o, err = CompareOutput("s", mk("a"), mk("a"), tpb.DataType_DT_STRING, Tolerance{})
	assert.NoError(t, err)
	assert.True(t, o.Pass)
	_, err = CompareOutput("s", mk("a"), kernels.ScalarFloat(1), tpb.DataType_DT_STRING, Tolerance{})
	assert.Error(t, err)
}
