package kernels_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/kernels/npz"
)

func TestScratch(t *testing.T) {
	for _, m := range []string{"emotion", "mobilefacenet", "meet"} {
		e := loadExecutor(t, "tfjs/"+m, kernels.ExecOptions{})
		ins := kernels.PlaceholderInputs(e.Graph())
		fetches := kernels.SinkOutputs(e.Graph())
		if len(e.Graph().Signatures) > 0 {
			ins = e.Graph().Signatures[0].Inputs
			fetches = nil
			for _, o := range e.Graph().Signatures[0].Outputs {
				fetches = append(fetches, o.Name)
			}
		}
		fmt.Println(fetches)
		feeds := map[string]*kernels.Tensor{}
		for _, in := range ins {
			node, _, _ := kernels.ParseTensorName(in.Name)
			x, err := kernels.SeededInput(node, 1, in.DType, kernels.InputShape(in.Shape, in.UnknownRank, 128))
			require.NoError(t, err)
			feeds[in.Name] = x
			o, err := npz.Read("/tmp/oout/" + m + "/inputs/" + node + ".npy")
			require.NoError(t, err)
			require.Equal(t, o["arr_0"].Data, x.Data)
		}
		start := time.Now()
		out, err := e.Run(context.Background(), feeds, fetches)
		fmt.Println(m, time.Since(start), err)
		if err != nil {
			continue
		}
		for k, v := range out {
			fmt.Println(k, v.Shape, v.DType == tpb.DataType_DT_FLOAT)
			d := v.Data.([]float32)
			fmt.Println(d[:min(8, len(d))])
		}
		_ = math.Abs
	}
}
