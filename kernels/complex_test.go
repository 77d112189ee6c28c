package kernels

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// TestComplexDivPacketTail checks which elements of a complex64 Div take
// Eigen's packet quotient and which the scalar one: TensorFlow 2.15's
// x86 wheel (AVX, 4 complex64 to a packet) gives, for x / y with the
// values below, the packet result P on whole packets of 4 and Smith's S
// on the rest (tf.math.divide on vectors of n copies).
func TestComplexDivPacketTail(t *testing.T) {
	x := complex(float32(0.292881), float32(1.2911361))
	y := complex(float32(0.61658025), float32(0.2692991))
	P := complex(float32(1.1669854), float32(1.5843322))
	S := complex(float32(1.1669855), float32(1.5843322))
	tests := []struct {
		n    int
		want []complex64
	}{
		{3, []complex64{S, S, S}},
		{5, []complex64{P, P, P, P, S}},
		{6, []complex64{P, P, P, P, S, S}},
		{8, []complex64{P, P, P, P, P, P, P, P}},
	}
	for _, tt := range tests {
		xs, ys := make([]complex64, tt.n), make([]complex64, tt.n)
		for i := range xs {
			xs[i], ys[i] = x, y
		}
		ctx := &Context{Op: "Div", Inputs: []*Tensor{
			{DType: tpb.DataType_DT_COMPLEX64, Shape: []int{tt.n}, Data: xs},
			{DType: tpb.DataType_DT_COMPLEX64, Shape: []int{tt.n}, Data: ys}}}
		out, err := Find("Div").Fn(ctx)
		require.NoError(t, err)
		assert.Equal(t, tt.want, out[0].Data, "n=%d", tt.n)
	}
}

// TestComplexDivFlushed holds complex Div on a divisor with a part at the
// largest finite value to TensorFlow's result under FTZ: the other part
// scaled by it (1/FLT_MAX, 1/DBL_MAX) is subnormal and reads as zero, so
// the infinite numerator times it is NaN, in the packets and in Smith's
// tail alike (without the flush it is -Inf).
func TestComplexDivFlushed(t *testing.T) {
	inf := math.Inf(1)
	for _, n := range []int{3, 4, 5} {
		xs, ys := make([]complex64, n), make([]complex64, n)
		xd, yd := make([]complex128, n), make([]complex128, n)
		for i := range xs {
			xs[i], ys[i] = complex(float32(inf), 0), complex(float32(math.MaxFloat32), 1)
			xd[i], yd[i] = complex(inf, 0), complex(math.MaxFloat64, 1)
		}
		for _, in := range [][]*Tensor{
			{{DType: tpb.DataType_DT_COMPLEX64, Shape: []int{n}, Data: xs}, {DType: tpb.DataType_DT_COMPLEX64, Shape: []int{n}, Data: ys}},
			{{DType: tpb.DataType_DT_COMPLEX128, Shape: []int{n}, Data: xd}, {DType: tpb.DataType_DT_COMPLEX128, Shape: []int{n}, Data: yd}},
		} {
			out, err := Find("Div").Fn(&Context{Op: "Div", Inputs: in})
			require.NoError(t, err)
			var got []complex128
			switch d := out[0].Data.(type) {
			case []complex64:
				got = widenC64(d)
			case []complex128:
				got = d
			}
			require.Len(t, got, n)
			for i, v := range got {
				assert.True(t, math.IsInf(real(v), 1) && math.IsNaN(imag(v)), "%s n=%d element %d: %v, want (+Inf, NaN)", in[0].DType, n, i, v)
			}
		}
	}
}
