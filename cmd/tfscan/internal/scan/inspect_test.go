package scan

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
	"google.golang.org/protobuf/encoding/prototext"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/savedmodel"
)

func TestNewInspectModel(t *testing.T) {
	def := &mgpb.MetaGraphDef{}
	require.NoError(t, prototext.Unmarshal([]byte(`graph_def {
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "call" op: "PartitionedCall" input: "x"
    attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } }
    attr { key: "f" value { func { name: "f" } } } }
  node { name: "orphan" op: "Weird" }
  library { function {
    signature { name: "f" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "b" type: DT_FLOAT } }
    node_def { name: "r" op: "Relu" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "r2" op: "Relu" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "b" value: "r:activations:0" }
  } }
}`), def))
	mg := &savedmodel.MetaGraph{Tags: []string{"serve"}, Def: def, Signatures: []*savedmodel.Signature{{
		Key: "serving_default", Method: "tensorflow/serving/predict",
		Inputs:  []*savedmodel.TensorInfo{{Key: "x", Name: "x:0", DType: tpb.DataType_DT_FLOAT, Shape: []int64{-1, 3}}},
		Outputs: []*savedmodel.TensorInfo{{Key: "y", Name: "call:0", DType: tpb.DataType_DT_FLOAT, UnknownRank: true}},
	}}}
	m := &savedmodel.Model{Path: "m", File: "m/saved_model.pb", Format: savedmodel.FormatSavedModel, MetaGraphs: []*savedmodel.MetaGraph{mg}}
	g, err := graph.Build(m, mg)
	require.NoError(t, err)
	im := NewInspectModel(g)
	assert.Equal(t, 3, im.GraphNodes)
	assert.Equal(t, 1, im.Functions)
	assert.Equal(t, 2, im.FunctionNodes)
	assert.Equal(t, []string{"PartitionedCall", "Placeholder", "Relu", "Weird"}, im.OpTypes)
	assert.Equal(t, []string{"Weird"}, im.UnknownOps)
	assert.Equal(t, 3, im.ReachableNodes) // x, call, f/r
	assert.Equal(t, reports.OpCount{Op: "Relu", Count: 2, Reachable: 1}, im.OpHistogram[0])
	require.Len(t, im.Signatures, 1)
	assert.Equal(t, []int64{-1, 3}, im.Signatures[0].Inputs[0].Shape)
	assert.Nil(t, im.Signatures[0].Outputs[0].Shape)
	assert.Equal(t, "float32", im.Signatures[0].Outputs[0].DType)
	assert.Equal(t, []reports.InspectMetaGraph{{Tags: []string{"serve"}, Signatures: []string{"serving_default"}, Selected: true}}, im.MetaGraphs)
	require.Len(t, im.Diagnostics, 1)
	assert.Equal(t, "unknown_op", im.Diagnostics[0].Kind)
}

// A TF.js model whose weights the converter stored narrower than their
// Consts declare says in its diagnostics that tfscan reads them back in the
// declared dtypes.
func TestNewInspectModelTFJSNarrowedWeights(t *testing.T) {
	const mixed = "4 float16 (first StatefulPartitionedCall/model/conv2d/Conv2D/Cast) stored as float32, the values exactly"
	for _, tc := range []struct {
		model string
		want  string // in the message; "" for no diagnostic
	}{
		{"mixed", mixed},
		{"mixed_q16", mixed},
		{"float32_q16", ""},
		{"wide", "1 float64 (first StatefulPartitionedCall/mul/ReadVariableOp) stored as float32, the values as the converter kept them, rounded to float32; " +
			"1 int64 (first StatefulPartitionedCall/add/ReadVariableOp) stored as int32"},
	} {
		t.Run(tc.model, func(t *testing.T) {
			m, err := savedmodel.Load(filepath.Join(testutil.RepoRoot(), "savedmodel", "testdata", "tfjs_dtypes", tc.model))
			require.NoError(t, err)
			g, err := graph.Build(m, m.MetaGraphs[0])
			require.NoError(t, err)
			var got []reports.InspectDiagnostic
			for _, d := range NewInspectModel(g).Diagnostics {
				if d.Kind == "tfjs_narrowed_weights" {
					got = append(got, d)
				}
			}
			if tc.want == "" {
				assert.Empty(t, got)
				return
			}
			require.Len(t, got, 1)
			assert.False(t, got[0].Fatal)
			assert.Equal(t, m.RestoredDTypes[0].Node, got[0].Path)
			assert.Equal(t, savedmodel.RestoredDTypesNote(m.RestoredDTypes), got[0].Message)
			assert.Contains(t, got[0].Message, tc.want)
		})
	}
}
