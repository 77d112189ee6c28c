package kernels

import (
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
