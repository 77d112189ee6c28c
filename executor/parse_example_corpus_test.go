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

// TestHalfPlusTwoSeededExamples: the tf.Example signatures get seeded
// serialized examples of the features their ParseExample reads (x, float,
// shape [1]), so seeded runs compute 0.5x + 2 on a drawn x instead of
// failing to parse words.
func TestHalfPlusTwoSeededExamples(t *testing.T) {
	e := loadExecutor(t, "tf/sm_half_plus_two_v1", executor.Options{})
	for _, key := range []string{"regress_x_to_y", "classify_x_to_y"} {
		sig := executor.FindSignature(e.Graph().Signatures, key)
		require.NotNil(t, sig)
		feeds, err := e.SeededFeeds(executor.Inputs(e.Graph(), sig), 1, 4)
		require.NoError(t, err)
		assert.Equal(t, "strings: tf.Examples for tf_example", e.StringSeeding(executor.Inputs(e.Graph(), sig)))
		in := feeds[sig.Inputs[0].Name]
		require.Equal(t, []int{1}, in.Shape, "ParseExample takes a vector")
		ex := &expb.Example{}
		require.NoError(t, proto.Unmarshal(in.Data.([][]byte)[0], ex))
		x := ex.GetFeatures().GetFeature()["x"].GetFloatList().GetValue()
		require.Len(t, x, 1)
		out, err := e.RunSignature(context.Background(), key, map[string]*kernels.Tensor{"inputs": in})
		require.NoError(t, err)
		for _, o := range out {
			got, ok := o.Float64s()
			require.True(t, ok)
			assert.Equal(t, []float64{float64(0.5*x[0] + 2)}, got, key)
		}
	}
}
