package kernels_test

import (
	"context"
	"fmt"
	"testing"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/kernels"
)

func TestScratch(t *testing.T) {
	for _, m := range []string{"emotion", "mobilefacenet", "meet", "centernet"} {
		for _, opts := range []kernels.ExecOptions{{Compute: tpb.DataType_DT_DOUBLE}, {Emu: &kernels.Emulation{RoundStorage: kernels.RoundFloat16}}} {
			e := loadExecutor(t, "tfjs/"+m, opts)
			ins := kernels.PlaceholderInputs(e.Graph())
			fetches := kernels.SinkOutputs(e.Graph())
			if len(e.Graph().Signatures) > 0 {
				ins = e.Graph().Signatures[0].Inputs
				fetches = nil
				for _, o := range e.Graph().Signatures[0].Outputs {
					fetches = append(fetches, o.Name)
				}
			}
			feeds := map[string]*kernels.Tensor{}
			for _, in := range ins {
				node, _, _ := kernels.ParseTensorName(in.Name)
				x, _ := kernels.SeededInput(node, 1, in.DType, kernels.InputShape(in.Shape, in.UnknownRank, 128))
				feeds[in.Name] = x
			}
			out, err := e.Run(context.Background(), feeds, fetches)
			if err != nil {
				fmt.Println(m, err)
				continue
			}
			for k, v := range out {
				vals, _ := v.Float64s()
				fmt.Println(m, k, v.DType, vals[:min(4, len(vals))])
			}
		}
	}
}
