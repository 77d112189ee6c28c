package kernels

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoundHalfToEven(t *testing.T) {
	in := []float32{0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 3.7, -3.7, 1e30}
	want := []float32{0, 2, 2, 0, -2, -2, 0, 4, -4, 1e30}
	out := ewOne(t, "Round", nil, f32s([]int{len(in)}, in...))
	assert.Equal(t, want, out.Data)
	assert.True(t, math.Signbit(float64(out.Data.([]float32)[3])), "Round(-0.5) is -0")
	h := ewOne(t, "Round", nil, halfs([]int{3}, 0.5, 2.5, -1.5)).Data.([]Float16)
	assert.Equal(t, []float32{0, 2, -2}, []float32{h[0].Float32(), h[1].Float32(), h[2].Float32()})
	// Integers are unchanged; Rint has no integer or half kernel.
	assert.Equal(t, []int64{-3, 9}, ewOne(t, "Round", nil, i64s([]int{2}, -3, 9)).Data)
	_, err := ewRun(t, "Rint", nil, halfs([]int{1}, 1))
	var ue *UnsupportedError
	require.True(t, errors.As(err, &ue))
}

func TestUnaryIntegerEdges(t *testing.T) {
	assert.Equal(t, []int32{math.MinInt32, 5}, ewOne(t, "Abs", nil, i32s([]int{2}, math.MinInt32, -5)).Data)
	assert.Equal(t, []int8{-128, -127}, ewOne(t, "Neg", nil, i8s([]int{2}, -128, 127)).Data)
	assert.Equal(t, []int8{0, 1}, ewOne(t, "Square", nil, i8s([]int{2}, 16, 127)).Data) // 256 and 16129 wrap
	assert.Equal(t, []int32{-1, 0, 1}, ewOne(t, "Sign", nil, i32s([]int{3}, -9, 0, 4)).Data)
	// Abs has no uint8 kernel and Sqrt no integer kernel in TF.
	var ue *UnsupportedError
	_, err := ewRun(t, "Abs", nil, u8s([]int{1}, 1))
	require.True(t, errors.As(err, &ue))
	_, err = ewRun(t, "Sqrt", nil, i32s([]int{1}, 4))
	require.True(t, errors.As(err, &ue))
	assert.Contains(t, err.Error(), "DT_INT32")
}

func TestUnaryFloatSpecials(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	x := f32s([]int{5}, nan, inf, -inf, 0, -1)
	sq := ewOne(t, "Sqrt", nil, x).Data.([]float32)
	assert.True(t, sq[0] != sq[0] && sq[4] != sq[4])
	assert.Equal(t, inf, sq[1])
	lg := ewOne(t, "Log", nil, x).Data.([]float32)
	assert.Equal(t, float32(math.Inf(-1)), lg[3])
	rs := ewOne(t, "Rsqrt", nil, x).Data.([]float32)
	assert.Equal(t, inf, rs[3])
	sg := ewOne(t, "Sign", nil, x).Data.([]float32)
	assert.True(t, sg[0] != sg[0], "Sign(NaN) is NaN")
	assert.Equal(t, []float32{1, -1, 0, -1}, sg[1:])
	assert.Equal(t, []bool{true, false, false, false, false}, ewOne(t, "IsNan", nil, x).Data)
	assert.Equal(t, []bool{false, true, true, false, false}, ewOne(t, "IsInf", nil, x).Data)
	assert.Equal(t, []bool{false, false, false, true, true}, ewOne(t, "IsFinite", nil, x).Data)
	hx := halfs([]int{3}, nan, inf, 1)
	assert.Equal(t, []bool{true, false, false}, ewOne(t, "IsNan", nil, hx).Data)
	assert.Equal(t, []bool{false, true, false}, ewOne(t, "IsInf", nil, bf16s([]int{3}, nan, inf, 1)).Data)
	// Exp overflows to +Inf in half at ln(65520) ≈ 11.09.
	e := ewOne(t, "Exp", nil, halfs([]int{2}, 11, 12)).Data.([]Float16)
	assert.Equal(t, RoundFloat16(float32(math.Exp(11))), e[0].Float32())
	assert.True(t, math.IsInf(float64(e[1].Float32()), 1))
}

func TestSoftplusThresholds(t *testing.T) {
	// softplus_op.h: x > -log(eps)-2 returns x, x < log(eps)+2 returns exp(x).
	thr := math.Log(float64(math.Nextafter32(1, 2)-1)) + 2 // ≈ -13.94 for float32
	out := ewOne(t, "Softplus", nil, f32s([]int{4}, 20, -20, 0, 1)).Data.([]float32)
	assert.Equal(t, float32(20), out[0])
	assert.Equal(t, float32(math.Exp(-20)), out[1])
	assert.InDelta(t, math.Log(2), float64(out[2]), 1e-7)
	assert.InDelta(t, math.Log1p(math.E), float64(out[3]), 1e-6)
	assert.Less(t, thr, -13.0)
	ss := ewOne(t, "Softsign", nil, f64s([]int{2}, 3, -1)).Data.([]float64)
	assert.Equal(t, []float64{0.75, -0.5}, ss)
}

// TestSoftsignFloat32Roundings holds float32 Softsign to TensorFlow's
// results where rounding 1 + |x| to float32 before dividing changes the
// last bit (the quotient correctly rounded from x / (1 + |x|) differs).
func TestSoftsignFloat32Roundings(t *testing.T) {
	cases := []struct{ x, tf float32 }{
		{0.001, 0.0009990009712055326},
		{-0.122053206, -0.10877667367458344},
		{-0.7801855, -0.43826082},
	}
	for _, c := range cases {
		got := ewOne(t, "Softsign", nil, f32s([]int{1}, c.x)).Data.([]float32)[0]
		assert.Equal(t, math.Float32bits(c.tf), math.Float32bits(got), "Softsign(%g) = %g, TensorFlow %g", c.x, got, c.tf)
	}
}

func TestLogicalNot(t *testing.T) {
	assert.Equal(t, []bool{false, true}, ewOne(t, "LogicalNot", nil, bools([]int{2}, true, false)).Data)
	_, err := ewRun(t, "LogicalNot", nil, i32s([]int{1}, 1))
	require.Error(t, err)
}
