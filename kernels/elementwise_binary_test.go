package kernels

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// Edge cases where TensorFlow's semantics are specific (and NumPy's differ
// or raise): integer division by zero, INT_MIN / -1, negative FloorMod,
// NaN propagation, overflow wraparound, half/bfloat16 rounding.

func TestIntegerDivisionByZero(t *testing.T) {
	// TF: safe_div_or_mod_op sets an error -> "Integer division by zero"
	// (cwise_ops_common.cc). NumPy would warn and return 0.
	for _, op := range []string{"Div", "FloorDiv", "FloorMod", "TruncateDiv", "TruncateMod", "Mod"} {
		t.Run(op, func(t *testing.T) {
			_, err := ewRun(t, op, nil, i32s([]int{2}, 5, 6), i32s([]int{2}, 1, 0))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "Integer division by zero")
			assert.Contains(t, err.Error(), "test/"+op)
		})
	}
	// An empty output divides nothing: no error.
	out := ewOne(t, "FloorDiv", nil, i32s([]int{0}), i32s([]int{1}, 0))
	assert.Equal(t, []int{0}, out.Shape)
	// Float division by zero is IEEE.
	out = ewOne(t, "RealDiv", nil, f32s([]int{3}, 1, -1, 0), f32s([]int{}, 0))
	d := out.Data.([]float32)
	assert.True(t, math.IsInf(float64(d[0]), 1) && math.IsInf(float64(d[1]), -1) && d[2] != d[2])
}

func TestIntegerDivisionSemantics(t *testing.T) {
	tests := []struct {
		op   string
		a, b []int32
		want []int32
	}{
		// Div on ints truncates toward zero (C++), unlike Python's //.
		{"Div", []int32{7, -7, 7, -7}, []int32{2, 2, -2, -2}, []int32{3, -3, -3, 3}},
		{"FloorDiv", []int32{7, -7, 7, -7}, []int32{2, 2, -2, -2}, []int32{3, -4, -4, 3}},
		// FloorMod: the sign follows the divisor.
		{"FloorMod", []int32{7, -7, 7, -7, 6}, []int32{3, 3, -3, -3, -3}, []int32{1, 2, -2, -1, 0}},
		// TruncateMod: the sign follows the dividend.
		{"TruncateMod", []int32{7, -7, 7, -7}, []int32{3, 3, -3, -3}, []int32{1, -1, 1, -1}},
		// INT_MIN / -1 wraps to INT_MIN rather than trapping (safe_div_or_mod_op).
		{"Div", []int32{math.MinInt32}, []int32{-1}, []int32{math.MinInt32}},
		{"FloorDiv", []int32{math.MinInt32}, []int32{-1}, []int32{math.MinInt32}},
		{"FloorMod", []int32{math.MinInt32}, []int32{-1}, []int32{0}},
		// Overflow wraps.
		{"AddV2", []int32{math.MaxInt32}, []int32{1}, []int32{math.MinInt32}},
		{"Mul", []int32{1 << 30}, []int32{4}, []int32{0}},
		{"Pow", []int32{3, -2, 2, 7}, []int32{4, 3, 31, 0}, []int32{81, -8, math.MinInt32, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.op, func(t *testing.T) {
			n := []int{len(tt.a)}
			out := ewOne(t, tt.op, nil, i32s(n, tt.a...), i32s(n, tt.b...))
			assert.Equal(t, tt.want, out.Data)
		})
	}
	// Unsigned FloorDiv/FloorMod are plain division and remainder.
	out := ewOne(t, "FloorMod", nil, u8s([]int{2}, 250, 7), u8s([]int{2}, 7, 250))
	assert.Equal(t, []uint8{5, 7}, out.Data)
	out = ewOne(t, "Sub", nil, u8s([]int{1}, 1), u8s([]int{1}, 2))
	assert.Equal(t, []uint8{255}, out.Data)
	out = ewOne(t, "AddV2", nil, i8s([]int{2}, 127, -128), i8s([]int{2}, 1, -1))
	assert.Equal(t, []int8{-128, 127}, out.Data)
}

func TestIntegerPowNegativeExponent(t *testing.T) {
	_, err := ewRun(t, "Pow", nil, i32s([]int{2}, 2, 2), i32s([]int{2}, 1, -1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Integers to negative integer powers are not allowed")
}

func TestFloatFloorModAndDiv(t *testing.T) {
	out := ewOne(t, "FloorMod", nil, f32s([]int{4}, 7, -7, 7, -7), f32s([]int{4}, 3, 3, -3, -3))
	assert.Equal(t, []float32{1, 2, -2, -1}, out.Data)
	out = ewOne(t, "FloorDiv", nil, f32s([]int{3}, 7, -7, 1), f32s([]int{3}, 2, 2, 0))
	d := out.Data.([]float32)
	assert.Equal(t, []float32{3, -4}, d[:2])
	assert.True(t, math.IsInf(float64(d[2]), 1))
	out = ewOne(t, "TruncateDiv", nil, f32s([]int{2}, 7, -7), f32s([]int{2}, 2, 2))
	assert.Equal(t, []float32{3, -3}, out.Data)
}

func TestMaximumMinimumNaNAndZeros(t *testing.T) {
	nan := float32(math.NaN())
	negZero := float32(math.Copysign(0, -1))
	out := ewOne(t, "Maximum", nil, f32s([]int{4}, nan, 1, negZero, 0), f32s([]int{4}, 1, nan, 0, negZero))
	d := out.Data.([]float32)
	assert.True(t, d[0] != d[0] && d[1] != d[1], "NaN propagates (PropagateNaN)")
	// std::max(a, b) returns a when equal: max(-0, +0) = -0, max(+0, -0) = +0.
	assert.True(t, math.Signbit(float64(d[2])))
	assert.False(t, math.Signbit(float64(d[3])))
	out = ewOne(t, "Minimum", nil, halfs([]int{2}, nan, 2), halfs([]int{2}, 1, -3))
	h := out.Data.([]Float16)
	assert.True(t, h[0].IsNaN())
	assert.Equal(t, float32(-3), h[1].Float32())
}

func TestNoNanOps(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	out := ewOne(t, "DivNoNan", nil, f32s([]int{4}, 0, inf, nan, 6), f32s([]int{4}, 0, 0, 0, 3))
	assert.Equal(t, []float32{0, 0, 0, 2}, out.Data)
	out = ewOne(t, "MulNoNan", nil, f32s([]int{3}, inf, nan, 2), f32s([]int{3}, 0, 0, 3))
	assert.Equal(t, []float32{0, 0, 6}, out.Data)
}

func TestHalfAndBFloat16Rounding(t *testing.T) {
	// 2048 + 1 is not representable in binary16: RNE keeps 2048.
	out := ewOne(t, "AddV2", nil, halfs([]int{2}, 2048, 1), halfs([]int{2}, 1, 1))
	h := out.Data.([]Float16)
	assert.Equal(t, []float32{2048, 2}, []float32{h[0].Float32(), h[1].Float32()})
	// SquaredDifference rounds the difference to half before squaring
	// (Eigen scalar_squared_difference_op on Eigen::half): 200 - 0.15625 is
	// 199.84375, which half rounds to 199.875 (spacing 0.125 above 128).
	a, b := RoundFloat16(200), RoundFloat16(0.15625)
	out = ewOne(t, "SquaredDifference", nil, halfs([]int{1}, a), halfs([]int{1}, b))
	diff := RoundFloat16(a - b)
	require.Equal(t, float32(199.875), diff)
	assert.Equal(t, RoundFloat16(diff*diff), out.Data.([]Float16)[0].Float32())
	// FloorDiv on half floors the half-rounded quotient.
	out = ewOne(t, "FloorDiv", nil, halfs([]int{1}, 2047), halfs([]int{1}, 1023.5))
	assert.Equal(t, float32(math.Floor(float64(RoundFloat16(2047/1023.5)))), out.Data.([]Float16)[0].Float32())
	out = ewOne(t, "Mul", nil, bf16s([]int{1}, 3), bf16s([]int{1}, 1.0078125))
	assert.Equal(t, RoundBFloat16(3*1.0078125), out.Data.([]BFloat16)[0].Float32())
}

func TestBinaryErrors(t *testing.T) {
	_, err := ewRun(t, "AddV2", nil, f32s([]int{2, 3}), f32s([]int{4}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Incompatible shapes: [2,3] vs. [4]")

	_, err = ewRun(t, "AddV2", nil, bools([]int{1}, true), bools([]int{1}, true))
	var ue *UnsupportedError
	require.True(t, errors.As(err, &ue), "bool AddV2 has no TF kernel: %v", err)
	assert.Equal(t, "AddV2", ue.Op)

	// Add has no uint32 kernel but AddV2 does (cwise_op_add_2.cc).
	u := &Tensor{DType: tpb.DataType_DT_UINT32, Shape: []int{1}, Data: []uint32{math.MaxUint32}}
	_, err = ewRun(t, "Add", nil, u, u)
	require.True(t, errors.As(err, &ue))
	out := ewOne(t, "AddV2", nil, u, u)
	assert.Equal(t, []uint32{math.MaxUint32 - 1}, out.Data)

	_, err = ewRun(t, "Mul", nil, f32s([]int{1}, 1), i32s([]int{1}, 1))
	require.Error(t, err)
	_, err = ewRun(t, "Mul", nil, f32s([]int{1}, 1))
	require.Error(t, err)
}

func TestAddN(t *testing.T) {
	out := ewOne(t, "AddN", nil, i8s([]int{2}, 100, 1), i8s([]int{2}, 100, 2), i8s([]int{2}, 100, 3))
	assert.Equal(t, []int8{44, 6}, out.Data) // 300 wraps to 44
	_, err := ewRun(t, "AddN", nil, f32s([]int{2}, 1, 2), f32s([]int{3}, 1, 2, 3))
	require.Error(t, err)
	out = ewOne(t, "AddN", nil, halfs([]int{1}, 2048), halfs([]int{1}, 1), halfs([]int{1}, 1))
	assert.Equal(t, float32(2048), out.Data.([]Float16)[0].Float32(), "half rounds after each addition")
}

func TestCompareAndLogical(t *testing.T) {
	nan := float32(math.NaN())
	out := ewOne(t, "NotEqual", ewAttrs("incompatible_shape_error", true), f32s([]int{2}, nan, 1), f32s([]int{2}, nan, 1))
	assert.Equal(t, []bool{true, false}, out.Data)
	out = ewOne(t, "Equal", ewAttrs("incompatible_shape_error", false), f32s([]int{2}), f32s([]int{3}))
	assert.Equal(t, []bool{false}, out.Data)
	assert.Equal(t, []int{}, out.Shape)
	_, err := ewRun(t, "Equal", ewAttrs("incompatible_shape_error", true), f32s([]int{2}, 1, 2), f32s([]int{3}, 1, 2, 3))
	require.Error(t, err)
	out = ewOne(t, "Equal", nil, strs([]int{2}, "a", "b"), strs([]int{}, "a"))
	assert.Equal(t, []bool{true, false}, out.Data)
	_, err = ewRun(t, "Less", nil, bools([]int{1}, true), bools([]int{1}, false))
	var ue *UnsupportedError
	require.True(t, errors.As(err, &ue))
	out = ewOne(t, "GreaterEqual", nil, bf16s([]int{2}, 1, 2), bf16s([]int{}, 1.5))
	assert.Equal(t, []bool{false, true}, out.Data)
	out = ewOne(t, "LogicalAnd", nil, bools([]int{2, 1}, true, false), bools([]int{2}, true, false))
	assert.Equal(t, []bool{true, false, false, false}, out.Data)
	_, err = ewRun(t, "LogicalOr", nil, f32s([]int{1}, 1), f32s([]int{1}, 1))
	require.True(t, errors.As(err, &ue))
}

func TestBitwiseAndShifts(t *testing.T) {
	assert.Equal(t, []int32{0b1000, -8}, ewOne(t, "BitwiseAnd", nil, i32s([]int{2}, 0b1100, -8), i32s([]int{2}, 0b1010, -1)).Data)
	assert.Equal(t, []uint8{0xff}, ewOne(t, "BitwiseOr", nil, u8s([]int{1}, 0xf0), u8s([]int{1}, 0x0f)).Data)
	assert.Equal(t, []int8{-1}, ewOne(t, "BitwiseXor", nil, i8s([]int{1}, 85), i8s([]int{1}, -86)).Data)
	// Shift counts clamp to [0, bits-1]; right shifts of signed values are arithmetic.
	assert.Equal(t, []int8{2, -128, 1}, ewOne(t, "LeftShift", nil, i8s([]int{3}, 1, 1, 1), i8s([]int{3}, 1, 100, -3)).Data)
	assert.Equal(t, []int8{-1, 32}, ewOne(t, "RightShift", nil, i8s([]int{2}, -128, 64), i8s([]int{2}, 9, 1)).Data)
	assert.Equal(t, []uint8{1}, ewOne(t, "RightShift", nil, u8s([]int{1}, 255), u8s([]int{1}, 200)).Data)
	assert.Equal(t, []int32{-1, 0}, ewOne(t, "Invert", nil, i32s([]int{2}, 0, -1)).Data)
	var ue *UnsupportedError
	_, err := ewRun(t, "BitwiseAnd", nil, f32s([]int{1}, 1), f32s([]int{1}, 1))
	require.True(t, errors.As(err, &ue))
}
