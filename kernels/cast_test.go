package kernels

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

func castTo(t *testing.T, x *Tensor, dst tpb.DataType, truncate bool) *Tensor {
	t.Helper()
	return ewOne(t, "Cast", ewAttrs("DstT", dst, "Truncate", truncate, "SrcT", x.DType), x)
}

// TestCastOutOfRange pins TF's x86-64 CPU behaviour for undefined C++ casts
// (cvttss2si "integer indefinite"), see cast.go.
func TestCastOutOfRange(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	x := f32s([]int{6}, 3e9, -3e9, nan, inf, -2.9, 2147483520)
	assert.Equal(t, []int32{math.MinInt32, math.MinInt32, math.MinInt32, math.MinInt32, -2, 2147483520},
		castTo(t, x, tpb.DataType_DT_INT32, false).Data)
	assert.Equal(t, []int64{3000000000, -3000000000, math.MinInt64, math.MinInt64, -2, 2147483520},
		castTo(t, x, tpb.DataType_DT_INT64, false).Data)
	// Narrow integers convert through int32 and keep the low bits: 100000 →
	// int16 is -31072 (tensorflow/tensorflow#12235), -1 → uint8 is 255.
	n := f32s([]int{4}, 100000, -1, 300.7, 3e9)
	assert.Equal(t, []int16{-31072, -1, 300, 0}, castTo(t, n, tpb.DataType_DT_INT16, false).Data)
	assert.Equal(t, []uint8{160, 255, 44, 0}, castTo(t, n, tpb.DataType_DT_UINT8, false).Data)
	assert.Equal(t, []int8{-96, -1, 44, 0}, castTo(t, n, tpb.DataType_DT_INT8, false).Data)
	d := f64s([]int{2}, 1e10, -0.5)
	assert.Equal(t, []int32{math.MinInt32, 0}, castTo(t, d, tpb.DataType_DT_INT32, false).Data)
}

func TestCastFloatRounding(t *testing.T) {
	// float → half rounds to nearest even: 1+2^-11 is a tie → 1; 1+3·2^-11 → 1+2^-9.
	x := f32s([]int{4}, 1+1.0/2048, 1+3.0/2048, 70000, 1e-8)
	h := castTo(t, x, tpb.DataType_DT_HALF, false).Data.([]Float16)
	assert.Equal(t, float32(1), h[0].Float32())
	assert.Equal(t, float32(1+1.0/512), h[1].Float32())
	assert.True(t, math.IsInf(float64(h[2].Float32()), 1))
	assert.Equal(t, float32(0), h[3].Float32())
	// Truncate=true zeroes the dropped mantissa bits instead (LSBZeroSetter).
	ht := castTo(t, f32s([]int{1}, 1+3.0/2048), tpb.DataType_DT_HALF, true).Data.([]Float16)
	assert.Equal(t, float32(1+1.0/1024), ht[0].Float32())
	b := castTo(t, f32s([]int{1}, 1.0+3.0/256), tpb.DataType_DT_BFLOAT16, false).Data.([]BFloat16)
	assert.Equal(t, float32(1+1.0/64), b[0].Float32())
	bt := castTo(t, f32s([]int{1}, 1.0+3.0/256), tpb.DataType_DT_BFLOAT16, true).Data.([]BFloat16)
	assert.Equal(t, float32(1+1.0/128), bt[0].Float32())
	// double → float rounds once; Truncate drops the bits.
	v := 1 + math.Pow(2, -23) + math.Pow(2, -24) + math.Pow(2, -30)
	assert.Equal(t, []float32{float32(v)}, castTo(t, f64s([]int{1}, v), tpb.DataType_DT_FLOAT, false).Data)
	assert.Equal(t, []float32{1 + 1.0/(1<<23)}, castTo(t, f64s([]int{1}, v), tpb.DataType_DT_FLOAT, true).Data)
	// Large int64 → float32 rounds once (no detour through float64).
	big := int64(1)<<40 + 1<<16 + 1
	assert.Equal(t, []float32{float32(big)}, castTo(t, i64s([]int{1}, big), tpb.DataType_DT_FLOAT, false).Data)
}

func TestCastBoolAndInts(t *testing.T) {
	nan := float32(math.NaN())
	assert.Equal(t, []bool{false, true, true, true}, castTo(t, f32s([]int{4}, 0, nan, -0.1, 3), tpb.DataType_DT_BOOL, false).Data)
	assert.Equal(t, []bool{false, false}, castTo(t, f32s([]int{2}, 0, float32(math.Copysign(0, -1))), tpb.DataType_DT_BOOL, false).Data)
	assert.Equal(t, []int32{1, 0}, castTo(t, bools([]int{2}, true, false), tpb.DataType_DT_INT32, false).Data)
	h := castTo(t, bools([]int{1}, true), tpb.DataType_DT_HALF, false).Data.([]Float16)
	assert.Equal(t, float32(1), h[0].Float32())
	assert.Equal(t, []int8{-1, 0, 127}, castTo(t, i64s([]int{3}, 255, 256, 127), tpb.DataType_DT_INT8, false).Data)
	assert.Equal(t, []uint64{math.MaxUint64}, castTo(t, i32s([]int{1}, -1), tpb.DataType_DT_UINT64, false).Data)
	assert.Equal(t, []int32{-7}, castTo(t, halfs([]int{1}, -7.9), tpb.DataType_DT_INT32, false).Data)
	// Same dtype is a copy.
	x := i32s([]int{2}, 1, 2)
	y := castTo(t, x, tpb.DataType_DT_INT32, false)
	y.Data.([]int32)[0] = 9
	assert.Equal(t, int32(1), x.Data.([]int32)[0])
	// Strings have no Cast kernel.
	_, err := ewRun(t, "Cast", ewAttrs("DstT", tpb.DataType_DT_FLOAT), strs([]int{1}, "1"))
	var ue *UnsupportedError
	require.True(t, errors.As(err, &ue))
}

// TestCastOutOfRangeByPosition pins x86 TensorFlow's position-dependent
// result for out-of-range floats (cast_x86.go): the vectorised loop
// saturates, the scalar remainder wraps.
func TestCastOutOfRangeByPosition(t *testing.T) {
	fill := func(n int, v float32) []float32 {
		d := make([]float32, n)
		for i := range d {
			d[i] = v
		}
		return d
	}
	fill64 := func(n int, v float64) []float64 {
		d := make([]float64, n)
		for i := range d {
			d[i] = v
		}
		return d
	}
	cases := []castByPosition{
		// float32: 32 a step, no epilogue.
		{"float32 int8 NaN", f32s([]int{33}, fill(33, float32(math.NaN()))...), tpb.DataType_DT_INT8, int8(-128), int8(0), 32},
		{"float32 uint16 1e6", f32s([]int{40}, fill(40, 1e6)...), tpb.DataType_DT_UINT16, uint16(65535), uint16(16960), 32},
		// float16: 32 a step, then 4 a step for int16, then scalar.
		{"float16 int16 65504", halfs([]int{63}, fill(63, 65504)...), tpb.DataType_DT_INT16, int16(32767), int16(-32), 60},
		// float64 → uint8 packs through uint16: 70000 reads as negative.
		{"float64 uint8 70000", f64s([]int{17}, fill64(17, 70000)...), tpb.DataType_DT_UINT8, uint8(0), uint8(112), 16},
		// uint32: 2^31 for NaN in the vector loop, 0 in the remainder.
		{"float32 uint32 NaN", f32s([]int{13}, fill(13, float32(math.NaN()))...), tpb.DataType_DT_UINT32, uint32(1 << 31), uint32(0), 8},
	}
	checkCastByPosition(t, cases)
	// uint64 is the same everywhere: 2^63 for NaN and beyond 2^64.
	u := castTo(t, f64s([]int{3}, math.NaN(), 1e20, 1.5e19), tpb.DataType_DT_UINT64, false).Data
	assert.Equal(t, []uint64{1 << 63, 1 << 63, 15000000000000000000}, u)
}

// castByPosition is an out-of-range cast whose result depends on the
// element's position: the first vectorized elements give vec, the rest tail.
type castByPosition struct {
	name       string
	x          *Tensor
	dst        tpb.DataType
	vec, tail  any
	vectorized int
}

func checkCastByPosition(t *testing.T, cases []castByPosition) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := castTo(t, c.x, c.dst, false)
			for i := range c.x.NumElements() {
				want := c.tail
				if i < c.vectorized {
					want = c.vec
				}
				assert.Equal(t, want, reflectIndex(out.Data, i), "element %d", i)
			}
		})
	}
}

func reflectIndex(data any, i int) any { return reflect.ValueOf(data).Index(i).Interface() }

func TestCastComplexTruncateRefused(t *testing.T) {
	x := &Tensor{DType: tpb.DataType_DT_COMPLEX128, Shape: []int{1}, Data: []complex128{1 + 2i}}
	_, err := castTensor(x, tpb.DataType_DT_COMPLEX64, true)
	assert.ErrorContains(t, err, "Truncate=true")
	y, err := castTensor(x, tpb.DataType_DT_COMPLEX64, false)
	require.NoError(t, err)
	assert.Equal(t, []complex64{1 + 2i}, y.Data)
}

// TestCastComplexOutOfRangeByPosition pins x86 TensorFlow's loop shapes for
// complex sources (castComplexToInt).
func TestCastComplexOutOfRangeByPosition(t *testing.T) {
	c128 := func(n int, v float64) *Tensor {
		d := make([]complex128, n)
		for i := range d {
			d[i] = complex(v, 1)
		}
		return &Tensor{DType: tpb.DataType_DT_COMPLEX128, Shape: []int{n}, Data: d}
	}
	c64 := func(n int, v float32) *Tensor {
		d := make([]complex64, n)
		for i := range d {
			d[i] = complex(v, 1)
		}
		return &Tensor{DType: tpb.DataType_DT_COMPLEX64, Shape: []int{n}, Data: d}
	}
	cases := []castByPosition{
		{"complex128 int8 70000, 16 elements", c128(16, 70000), tpb.DataType_DT_INT8, int8(127), int8(112), 0},
		{"complex128 int8 70000, 64 elements", c128(64, 70000), tpb.DataType_DT_INT8, int8(127), int8(112), 48},
		{"complex128 uint8 70000, 33 elements", c128(33, 70000), tpb.DataType_DT_UINT8, uint8(0), uint8(112), 32},
		{"complex64 uint32 1e10, 15 elements", c64(15, 1e10), tpb.DataType_DT_UINT32, uint32(1 << 31), uint32(1410065408), 8},
		{"complex64 int16 70000, 100 elements", c64(100, 70000), tpb.DataType_DT_INT16, int16(0), int16(4464), 0},
		{"complex128 uint32 1e10, 100 elements", c128(100, 1e10), tpb.DataType_DT_UINT32, uint32(0), uint32(1410065408), 0},
	}
	checkCastByPosition(t, cases)
}

// TestCastComplex128To16BitLanes holds complex128 → int16 and uint16 to
// TensorFlow's x86-64 results on 33 elements cycling through 12 values
// (tf.cast of complex(v, 1)): the first 32 run 8 a step, lanes 0 to 3
// keeping the low 16 bits of the 32-bit conversion and lanes 4 to 7
// saturating; the last element is the scalar remainder.
func TestCastComplex128To16BitLanes(t *testing.T) {
	base := []float64{70000.5, -70000.5, math.NaN(), 40000.7, -5.5, 100.2, 1e10, -1e10, math.Inf(1), math.Inf(-1), 65535.9, -32769}
	d := make([]complex128, 33)
	for i := range d {
		d[i] = complex(base[i%len(base)], 1)
	}
	x := &Tensor{DType: tpb.DataType_DT_COMPLEX128, Shape: []int{33}, Data: d}
	wantI16 := []int16{4464, -4464, 0, -25536, -5, 100, -32768, -32768, 0, 0, -1, 32767, 32767, -32768, -32768, 32767,
		-5, 100, 0, 0, -32768, -32768, 32767, -32768, 4464, -4464, 0, -25536, -5, 100, -32768, -32768, 0}
	wantU16 := []uint16{4464, 61072, 0, 40000, 0, 100, 0, 0, 0, 0, 65535, 32767, 65535, 0, 0, 40000,
		65531, 100, 0, 0, 0, 0, 65535, 0, 4464, 61072, 0, 40000, 0, 100, 0, 0, 0}
	assert.Equal(t, wantI16, castTo(t, x, tpb.DataType_DT_INT16, false).Data)
	assert.Equal(t, wantU16, castTo(t, x, tpb.DataType_DT_UINT16, false).Data)
}
