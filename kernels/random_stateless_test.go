package kernels

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// TestPhiloxKnownAnswers uses the Philox4x32-10 vectors TensorFlow's own
// test pins (compiler/tests/stateful_random_ops_test.py, from Random123).
func TestPhiloxKnownAnswers(t *testing.T) {
	for _, tt := range []struct {
		counter [4]uint32
		key     [2]uint32
		want    [4]uint32
	}{
		{[4]uint32{0, 0, 0, 0}, [2]uint32{0, 0}, [4]uint32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
		{[4]uint32{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, [2]uint32{0xffffffff, 0xffffffff}, [4]uint32{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
		{[4]uint32{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, [2]uint32{0xa4093822, 0x299f31d0}, [4]uint32{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
	} {
		g := &Philox4x32{Counter: tt.counter, Key: tt.key}
		assert.Equal(t, tt.want, g.Next())
	}
	// The counter carries across words.
	g := &Philox4x32{Counter: [4]uint32{0xffffffff, 0xffffffff, 7, 0}}
	g.Next()
	assert.Equal(t, [4]uint32{0, 0, 8, 0}, g.Counter)
}

func TestStatelessRandomUniform(t *testing.T) {
	run := func(dt tpb.DataType, n int, seed ...int64) *Tensor {
		out, err := xRun("StatelessRandomUniform", xattrs("dtype", dt), xi32([]int{1}, int32(n)), xi64([]int{2}, seed...))
		require.NoError(t, err)
		require.NoError(t, out[0].Validate())
		return out[0]
	}
	a := run(tpb.DataType_DT_FLOAT, 10, 1, 2).Data.([]float32)
	b := run(tpb.DataType_DT_FLOAT, 10, 1, 2).Data.([]float32)
	c := run(tpb.DataType_DT_FLOAT, 10, 2, 1).Data.([]float32)
	assert.Equal(t, a, b, "same seed, same numbers")
	assert.NotEqual(t, a, c)
	// A prefix of a longer draw is the shorter draw (groups of 4 in order).
	assert.Equal(t, a[:7], run(tpb.DataType_DT_FLOAT, 7, 1, 2).Data.([]float32))
	for _, v := range a {
		assert.True(t, v >= 0 && v < 1, "%v in [0,1)", v)
	}
	// float32 samples are the top of the Philox words: (bits&0x7fffff)/2^23.
	g := statelessPhilox(1, 2)
	s := g.Next()
	assert.Equal(t, float32(s[0]&0x7fffff)/(1<<23), a[0])
	for _, dt := range []tpb.DataType{tpb.DataType_DT_DOUBLE, tpb.DataType_DT_HALF, tpb.DataType_DT_BFLOAT16} {
		x := run(dt, 5, -3, 9)
		f, _ := x.Float64s()
		for _, v := range f {
			assert.True(t, v >= 0 && v < 1, "%s %v in [0,1)", dt, v)
		}
	}
	xRunErrors(t, []xErrCase{
		{"seed shape", "StatelessRandomUniform", xattrs("dtype", tpb.DataType_DT_FLOAT), []*Tensor{xi32([]int{1}, 3), xi64([]int{3}, 1, 2, 3)}, "seed must have shape [2], not [3]"},
		{"shape", "StatelessRandomUniform", xattrs("dtype", tpb.DataType_DT_FLOAT), []*Tensor{xi32([]int{1}, -3), xi64([]int{2}, 1, 2)}, "not a valid dimension"},
	})
}
