package opdefs

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

func TestLoad(t *testing.T) {
	list, err := Load()
	require.NoError(t, err)
	require.Len(t, list.Op, NumOps)
	assert.GreaterOrEqual(t, len(list.Op), 1400)
	assert.Equal(t, "2.15.0", TFVersion)
	byName := map[string]int{}
	for i, op := range list.Op {
		byName[op.Name] = i
		if i > 0 {
			require.Less(t, list.Op[i-1].Name, op.Name, "ops sorted and unique")
		}
	}
	for _, name := range []string{"Conv2D", "MatMul", "_FusedConv2D", "_FusedMatMul", "_FusedDepthwiseConv2dNative",
		"_FusedBatchNormEx", "_Arg", "_Retval", "_Send", "_Recv", "_HostSend", "_HostRecv"} {
		assert.Contains(t, byName, name)
	}
	fc := list.Op[byName["_FusedConv2D"]]
	require.Len(t, fc.InputArg, 4)
	assert.Equal(t, "args", fc.InputArg[2].Name)
	assert.Equal(t, "TArgs", fc.InputArg[2].TypeListAttr)
	// "host_args : num_host_args * float" in nn_ops.cc.
	assert.Equal(t, "num_host_args", fc.InputArg[3].NumberAttr)
	assert.Equal(t, tpb.DataType_DT_FLOAT, fc.InputArg[3].Type)
	var tAttr []tpb.DataType
	for _, a := range fc.Attr {
		if a.Name == "T" {
			tAttr = a.AllowedValues.GetList().Type
		}
	}
	assert.Contains(t, tAttr, tpb.DataType_DT_HALF)
	assert.Contains(t, tAttr, tpb.DataType_DT_FLOAT)
}
