package executor_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	expb "github.com/wamuir/graft/tensorflow/core/example/example_protos_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	"google.golang.org/protobuf/proto"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/kernels"
)

// TestHalfPlusTwoRegress runs the regress signature of the canonical TF1
// model end to end: serialized tf.Examples → ParseExample → y = 0.5x + 2.
func TestHalfPlusTwoRegress(t *testing.T) {
	e := loadExecutor(t, "tf/sm_half_plus_two_v1", executor.Options{})
	var ser [][]byte
	for _, x := range []float32{0, 1, 10} {
		b, err := proto.Marshal(&expb.Example{Features: &expb.Features{Feature: map[string]*expb.Feature{
			"x": {Kind: &expb.Feature_FloatList{FloatList: &expb.FloatList{Value: []float32{x}}}},
		}}})
		require.NoError(t, err)
		ser = append(ser, b)
	}
	in := &kernels.Tensor{DType: tpb.DataType_DT_STRING, Shape: []int{3}, Data: ser}
	out, err := e.RunSignature(context.Background(), "regress_x_to_y", map[string]*kernels.Tensor{"inputs": in})
	require.NoError(t, err)
	require.Contains(t, out, "outputs")
	got, ok := out["outputs"].Float64s()
	require.True(t, ok)
	assert.Equal(t, []float64{2, 2.5, 7}, got)
}
