package kernels

import (
	"errors"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

func TestReduceErrors(t *testing.T) {
	x := f32s([]int{2, 3}, 1, 2, 3, 4, 5, 6)
	_, err := ewRun(t, "Sum", ewAttrs("keep_dims", false), x, i32s([]int{1}, 2))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Invalid reduction dimension (2 for input with 2 dimension(s)")
	_, err = ewRun(t, "Sum", ewAttrs("keep_dims", false), x, i32s([]int{2}, 1, -1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Axes contains duplicate dimension: 1")
	_, err = ewRun(t, "ArgMax", ewAttrs("output_type", tpb.DataType_DT_INT64), f32s([]int{2, 0}), i32s([]int{}, 1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Reduction axis 1 is empty in shape [2,0]")
	_, err = ewRun(t, "All", ewAttrs("keep_dims", false), x, i32s([]int{1}, 0))
	var ue *UnsupportedError
	require.True(t, errors.As(err, &ue))
	_, err = ewRun(t, "Sum", ewAttrs("keep_dims", false), bools([]int{1}, true), i32s([]int{1}, 0))
	require.True(t, errors.As(err, &ue))
}

func TestReduceIdentitiesAndIntegers(t *testing.T) {
	empty := i32s([]int{0, 2})
	axis0 := i32s([]int{1}, 0)
	for op, want := range map[string][]int32{
		"Sum": {0, 0}, "Prod": {1, 1}, "Max": {math.MinInt32, math.MinInt32},
		"Min": {math.MaxInt32, math.MaxInt32}, "Mean": {0, 0},
	} {
		assert.Equal(t, want, ewOne(t, op, ewAttrs("keep_dims", false), empty, axis0).Data, op)
	}
	assert.Equal(t, []bool{true}, ewOne(t, "All", ewAttrs("keep_dims", false), bools([]int{0}), axis0).Data)
	assert.Equal(t, []bool{false}, ewOne(t, "Any", ewAttrs("keep_dims", false), bools([]int{0}), axis0).Data)
	// int8 Sum wraps; Mean sums in int64 and truncates toward zero.
	x := i8s([]int{3}, 100, 100, -7)
	assert.Equal(t, []int8{-63}, ewOne(t, "Sum", ewAttrs("keep_dims", false), x, axis0).Data)
	assert.Equal(t, []int8{64}, ewOne(t, "Mean", ewAttrs("keep_dims", false), x, axis0).Data)
	assert.Equal(t, []int32{-2}, ewOne(t, "Mean", ewAttrs("keep_dims", false), i32s([]int{2}, -1, -4), axis0).Data)
	// Scalar input with no axes.
	s := ewOne(t, "Sum", ewAttrs("keep_dims", false), f32s([]int{}, 2.5), i32s([]int{0}))
	assert.Equal(t, []int{}, s.Shape)
	assert.Equal(t, []float32{2.5}, s.Data)
}

func TestReduceNaN(t *testing.T) {
	nan := float32(math.NaN())
	x := f32s([]int{2, 3}, 1, nan, 3, 4, 5, 6)
	mx := ewOne(t, "Max", ewAttrs("keep_dims", false), x, i32s([]int{1}, 1)).Data.([]float32)
	assert.True(t, mx[0] != mx[0], "Max propagates NaN")
	assert.Equal(t, float32(6), mx[1])
	mn := ewOne(t, "Min", ewAttrs("keep_dims", true), x, i32s([]int{1}, 0))
	assert.Equal(t, []int{1, 3}, mn.Shape)
	assert.True(t, mn.Data.([]float32)[1] != mn.Data.([]float32)[1])
	// ArgMax: first index of the maximum; a NaN never wins (Eigen's tuple
	// reducer compares with > and <, unlike NumPy; testdata/tf holds it).
	am := ewOne(t, "ArgMax", ewAttrs("output_type", tpb.DataType_DT_INT32), x, i32s([]int{}, 1))
	assert.Equal(t, []int32{2, 2}, am.Data)
	am = ewOne(t, "ArgMin", ewAttrs("output_type", tpb.DataType_DT_INT64), i32s([]int{4}, 3, 1, 1, 2), i64s([]int{}, 0))
	assert.Equal(t, []int64{1}, am.Data)
}

// TestReduceRoundAccum: with fp16 accumulation, adding 1 to 2048 stalls.
func TestReduceRoundAccum(t *testing.T) {
	n := 4096
	ones := make([]float32, n)
	for i := range ones {
		ones[i] = 1
	}
	x := f32s([]int{n}, ones...)
	exact := ewOne(t, "Sum", ewAttrs("keep_dims", false), x, i32s([]int{1}, 0))
	assert.Equal(t, []float32{4096}, exact.Data)
	fn := Lookup("Sum")
	outs, err := fn(&Context{Op: "Sum", Attrs: ewAttrs("keep_dims", false), Inputs: []*Tensor{x, i32s([]int{1}, 0)},
		Emu: &Emulation{RoundAccum: RoundFloat16}})
	require.NoError(t, err)
	assert.Equal(t, []float32{2048}, outs[0].Data)
	outs, err = Lookup("Mean")(&Context{Op: "Mean", Attrs: ewAttrs("keep_dims", false), Inputs: []*Tensor{x, i32s([]int{1}, 0)},
		Emu: &Emulation{RoundAccum: RoundFloat16}})
	require.NoError(t, err)
	assert.Equal(t, []float32{0.5}, outs[0].Data)
	// Max is not an accumulation: unaffected.
	outs, err = Lookup("Max")(&Context{Op: "Max", Attrs: ewAttrs("keep_dims", false), Inputs: []*Tensor{x, i32s([]int{1}, 0)},
		Emu: &Emulation{RoundAccum: RoundFloat16}})
	require.NoError(t, err)
	assert.Equal(t, []float32{1}, outs[0].Data)
	// Cumsum rounds every partial sum too.
	outs, err = Lookup("Cumsum")(&Context{Op: "Cumsum", Attrs: ewAttrs("exclusive", false, "reverse", false), Inputs: []*Tensor{x, i32s([]int{}, 0)},
		Emu: &Emulation{RoundAccum: RoundFloat16}})
	require.NoError(t, err)
	assert.Equal(t, float32(2048), outs[0].Data.([]float32)[n-1])
}

// TestHalfReductions: half/bfloat16 sums accumulate in float and round once.
func TestHalfReductions(t *testing.T) {
	v := make([]float32, 3000)
	for i := range v {
		v[i] = 1
	}
	h := ewOne(t, "Sum", ewAttrs("keep_dims", false), halfs([]int{3000}, v...), i32s([]int{1}, 0)).Data.([]Float16)
	assert.Equal(t, float32(3000), h[0].Float32())
	b := ewOne(t, "Mean", ewAttrs("keep_dims", false), bf16s([]int{2}, 1, 2), i32s([]int{1}, 0)).Data.([]BFloat16)
	assert.Equal(t, float32(1.5), b[0].Float32())
	// Cumsum on half rounds every partial sum (Eigen scan in half).
	c := ewOne(t, "Cumsum", ewAttrs("exclusive", false, "reverse", false), halfs([]int{3}, 2048, 1, 1), i32s([]int{}, 0)).Data.([]Float16)
	assert.Equal(t, []float32{2048, 2048, 2048}, []float32{c[0].Float32(), c[1].Float32(), c[2].Float32()})
}

// TestReduceMatchesNaive checks random shapes and axis sets (including the
// transposing path) against a direct float64 sum.
func TestReduceMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for iter := 0; iter < 40; iter++ {
		rank := 1 + r.Intn(5)
		shape := make([]int, rank)
		for i := range shape {
			shape[i] = 1 + r.Intn(5)
		}
		n := product(shape)
		data := make([]float32, n)
		for i := range data {
			data[i] = float32(r.Intn(1000))
		}
		var axes []int32
		red := make([]bool, rank)
		for d := 0; d < rank; d++ {
			if r.Intn(2) == 0 {
				axes = append(axes, int32(d-rank*r.Intn(2)))
				red[d] = true
			}
		}
		keep := r.Intn(2) == 0
		got := ewOne(t, "Sum", ewAttrs("keep_dims", keep), f32s(shape, data...), i32s([]int{len(axes)}, axes...))
		var outShape []int
		for d, s := range shape {
			if !red[d] {
				outShape = append(outShape, s)
			} else if keep {
				outShape = append(outShape, 1)
			}
		}
		if outShape == nil {
			outShape = []int{}
		}
		require.Equal(t, outShape, got.Shape)
		want := make([]float64, got.NumElements())
		idx := make([]int, rank)
		for i, v := range data {
			rem := i
			for d := rank - 1; d >= 0; d-- {
				idx[d] = rem % shape[d]
				rem /= shape[d]
			}
			o := 0
			for d := 0; d < rank; d++ {
				if !red[d] {
					o = o*shape[d] + idx[d]
				}
			}
			want[o] += float64(v)
		}
		for i, w := range want {
			require.Equal(t, float32(w), got.Data.([]float32)[i], "iter %d shape %v axes %v", iter, shape, axes)
		}
	}
}

func BenchmarkSumAxis(b *testing.B) {
	x := make([]float32, 1<<20)
	for i := range x {
		x[i] = float32(i % 7)
	}
	for _, bc := range []struct {
		name string
		axis int32
	}{{"rows", 1}, {"cols", 0}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := &Context{Op: "Sum", Attrs: ewAttrs("keep_dims", false),
				Inputs: []*Tensor{f32s([]int{1024, 1024}, x...), i32s([]int{1}, bc.axis)}}
			fn := Lookup("Sum")
			b.SetBytes(4 << 20)
			for i := 0; i < b.N; i++ {
				if _, err := fn(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestReduceLargeParallel covers the parallel row and column paths.
func TestReduceLargeParallel(t *testing.T) {
	shape := []int{3, 20000, 7}
	data := make([]float32, product(shape))
	for i := range data {
		data[i] = float32(i % 13)
	}
	for _, axis := range []int32{0, 1, 2} {
		got := ewOne(t, "Sum", ewAttrs("keep_dims", false), f32s(shape, data...), i32s([]int{1}, axis)).Data.([]float32)
		want := make([]float64, len(got))
		for i, v := range data {
			a, b, c := i/(shape[1]*shape[2]), i/shape[2]%shape[1], i%shape[2]
			switch axis {
			case 0:
				want[b*shape[2]+c] += float64(v)
			case 1:
				want[a*shape[2]+c] += float64(v)
			case 2:
				want[a*shape[1]+b] += float64(v)
			}
		}
		for i := range want {
			if float32(want[i]) != got[i] {
				t.Fatalf("axis %d: out[%d] = %v, want %v", axis, i, got[i], want[i])
			}
		}
	}
}
