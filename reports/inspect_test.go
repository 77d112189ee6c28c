package reports

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
	"google.golang.org/protobuf/encoding/prototext"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/savedmodel"
)

// inspectFixture is a fixed report covering every field: two models, one
// with several meta graphs, unknown ops, diagnostics and a long histogram.
func inspectFixture() *InspectReport {
	big := &InspectModel{
		Path: "models/resnet", File: "models/resnet/saved_model.pb", Format: "saved_model",
		GraphNodes: 12, Functions: 2, FunctionNodes: 60, ReachableNodes: 50,
		OpTypes:    []string{},
		UnknownOps: []string{"MyCustomOp"},
		OpDefs:     "TensorFlow 2.15.0",
		MetaGraphs: []InspectMetaGraph{
			{Tags: []string{"serve"}, Signatures: []string{"serving_default"}, Selected: true},
			{Tags: []string{"serve", "gpu"}, Signatures: []string{}},
		},
		Signatures: []InspectSignature{{
			Key: "serving_default", Method: "tensorflow/serving/predict",
			Inputs:  []InspectTensor{{Key: "image", Name: "serving_default_image:0", DType: "float32", Shape: []int64{-1, 224, 224, 3}}},
			Outputs: []InspectTensor{{Key: "logits", Name: "StatefulPartitionedCall:0", DType: "float16", Shape: nil}},
		}},
		Diagnostics: []InspectDiagnostic{{Kind: "unknown_op", Path: "serving_default/StatefulPartitionedCall/f/custom", Message: `op "MyCustomOp" of node "custom" is in no op registry (a custom op?)`}},
	}
	for i := 0; i < 44; i++ {
		op := fmt.Sprintf("Op%02d", i)
		big.OpTypes = append(big.OpTypes, op)
		big.OpHistogram = append(big.OpHistogram, OpCount{Op: op, Count: 50 - i, Reachable: (50 - i) / 2})
	}
	small := &InspectModel{
		Path: "frozen.pbtxt", File: "frozen.pbtxt", Format: "graph_def_pbtxt",
		GraphNodes: 3, ReachableNodes: 3,
		OpTypes: []string{"Add", "Placeholder"}, UnknownOps: []string{}, Signatures: []InspectSignature{},
		MetaGraphs:  []InspectMetaGraph{{Tags: []string{}, Signatures: []string{}, Selected: true}},
		OpHistogram: []OpCount{{"Placeholder", 2, 2}, {"Add", 1, 1}},
		OpDefs:      "TensorFlow 2.15.0",
		Diagnostics: []InspectDiagnostic{},
	}
	return &InspectReport{SchemaVersion: InspectSchemaVersion, Models: []*InspectModel{big, small}}
}

func TestInspectGolden(t *testing.T) {
	for _, tt := range []struct {
		name  string
		write func(*bytes.Buffer, *InspectReport) error
	}{
		{"inspect.json", func(b *bytes.Buffer, r *InspectReport) error { return WriteInspectJSON(b, r) }},
		{"inspect.txt", func(b *bytes.Buffer, r *InspectReport) error { return WriteInspectTable(b, r) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var a, b bytes.Buffer
			require.NoError(t, tt.write(&a, inspectFixture()))
			require.NoError(t, tt.write(&b, inspectFixture()))
			require.Equal(t, a.String(), b.String(), "output must be deterministic")
			checkGolden(t, tt.name, a.Bytes())
		})
	}
}

// The JSON keys the brief fixes must be there, with these exact names.
func TestInspectJSONKeys(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteInspectJSON(&buf, inspectFixture()))
	var top map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(buf.Bytes(), &top))
	assert.Equal(t, "1", string(top["schema_version"]))
	var models []map[string]any
	require.NoError(t, json.Unmarshal(top["models"], &models))
	for _, k := range []string{"path", "format", "graph_nodes", "functions", "function_nodes", "op_types", "unknown_ops", "signatures"} {
		assert.Contains(t, models[0], k)
	}
}

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
	assert.Equal(t, OpCount{Op: "Relu", Count: 2, Reachable: 1}, im.OpHistogram[0])
	require.Len(t, im.Signatures, 1)
	assert.Equal(t, []int64{-1, 3}, im.Signatures[0].Inputs[0].Shape)
	assert.Nil(t, im.Signatures[0].Outputs[0].Shape)
	assert.Equal(t, "float32", im.Signatures[0].Outputs[0].DType)
	assert.Equal(t, []InspectMetaGraph{{Tags: []string{"serve"}, Signatures: []string{"serving_default"}, Selected: true}}, im.MetaGraphs)
	require.Len(t, im.Diagnostics, 1)
	assert.Equal(t, "unknown_op", im.Diagnostics[0].Kind)
}
