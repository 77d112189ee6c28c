package kernels

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

func TestToleranceAndAbsError(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tol := Tolerance{ATol: 1e-3, RTol: 1e-2}
	tests := []struct {
		a, b  float64
		close bool
		abs   float64
	}{
		{1, 1, true, 0},
		{1.005, 1, true, 0.005},
		{1.02, 1, false, 0.02},
		{0.0009, 0, true, 0.0009},
		{nan, nan, true, 0},
		{nan, 1, false, ErrInf},
		{1, nan, false, ErrInf},
		{inf, inf, true, 0},
		{inf, -inf, false, ErrInf},
		{inf, 1, false, ErrInf},
		{math.MaxFloat64, -math.MaxFloat64, false, ErrInf},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.close, tol.Close(tt.a, tt.b), "Close(%v, %v)", tt.a, tt.b)
		assert.InDelta(t, tt.abs, AbsError(tt.a, tt.b), 1e-12, "AbsError(%v, %v)", tt.a, tt.b)
	}
}

func TestIdenticalAndFloatValues(t *testing.T) {
	negZero := math.Copysign(0, -1)
	f := func(v ...float32) *Tensor {
		return &Tensor{DType: tpb.DataType_DT_FLOAT, Shape: []int{len(v)}, Data: v}
	}
	assert.True(t, Identical(f(1, 2), f(1, 2)))
	assert.False(t, Identical(f(0), f(float32(negZero))), "-0 is another bit pattern")
	assert.False(t, Identical(f(1, 2), f(1, 3)))
	assert.True(t, Identical(ScalarString("a"), ScalarString("a")))
	assert.False(t, Identical(ScalarString("a"), ScalarString("b")))
	assert.Equal(t, []float64{1, 0.5}, FloatValues(f(1, 0.5)))
	assert.Equal(t, []float64{1.5}, FloatValues(ScalarHalf(1.5)))
	assert.Nil(t, FloatValues(ScalarInt32(3)))
	assert.Nil(t, FloatValues(ScalarBool(true)))
}
