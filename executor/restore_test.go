package executor_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
	"google.golang.org/protobuf/encoding/prototext"

	"github.com/tfscan/tfscan/executor"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/kernels"
	"github.com/tfscan/tfscan/savedmodel"
)

// fakeWeights is an in-memory checkpoint.
type fakeWeights map[string]*kernels.Tensor

func (f fakeWeights) Prefix() string      { return "mem/variables/variables" }
func (f fakeWeights) Has(key string) bool { _, ok := f[key]; return ok }
func (f fakeWeights) ReadTensor(key string) (*kernels.Tensor, error) {
	t, ok := f[key]
	if !ok {
		return nil, fmt.Errorf("no tensor %q", key)
	}
	return t, nil
}

// tf2Restore is the shape of a TF2 SavedModel's restore path: the saver's
// restore op calls a function that runs RestoreV2 and assigns the values to
// the variable handles passed in.
const tf2Restore = `
graph_def {
  node { name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } attr { key: "shared_name" value { s: "v" } } }
  node { name: "saver_filename" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } attr { key: "shape" value { shape {} } } }
  node { name: "restore" op: "StatefulPartitionedCall" input: "saver_filename" input: "v"
    attr { key: "Tin" value { list { type: DT_STRING type: DT_RESOURCE } } }
    attr { key: "Tout" value { list {} } }
    attr { key: "f" value { func { name: "restore_fn" } } } }
  node { name: "read" op: "ReadVariableOp" input: "v" attr { key: "dtype" value { type: DT_FLOAT } } }
  library { function {
    signature { name: "restore_fn" input_arg { name: "prefix" type: DT_STRING } input_arg { name: "h" type: DT_RESOURCE } control_output: "assign" is_stateful: true }
    node_def { name: "names" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: "v/.ATTRIBUTES/VARIABLE_VALUE" } } } }
    node_def { name: "slices" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: "" } } } }
    node_def { name: "r" op: "RestoreV2" input: "prefix" input: "names:output:0" input: "slices:output:0" attr { key: "dtypes" value { list { type: DT_FLOAT } } } }
    node_def { name: "assign" op: "AssignVariableOp" input: "h" input: "r:tensors:0" attr { key: "dtype" value { type: DT_FLOAT } } }
    control_ret { key: "assign" value: "assign" }
  } }
}
saver_def { filename_tensor_name: "saver_filename:0" restore_op_name: "restore" }
`

func metaGraph(t *testing.T, text string) *graph.Graph {
	t.Helper()
	mgd := &mgpb.MetaGraphDef{}
	require.NoError(t, prototext.Unmarshal([]byte(text), mgd))
	m := &savedmodel.Model{Path: "m", File: "m/saved_model.pbtxt", Format: savedmodel.FormatSavedModelText,
		MetaGraphs: []*savedmodel.MetaGraph{{Def: mgd}}}
	g, err := graph.Build(m, m.MetaGraphs[0])
	require.NoError(t, err)
	return g
}

func TestTF2RestoreThroughSaver(t *testing.T) {
	w := fakeWeights{"v/.ATTRIBUTES/VARIABLE_VALUE": kernels.FloatTensor([]int{2}, []float32{1.5, -2})}
	e, err := executor.New(metaGraph(t, tf2Restore), w, executor.Options{})
	require.NoError(t, err)
	out, err := e.Run(context.Background(), nil, []string{"read"})
	require.NoError(t, err)
	assert.Equal(t, []float32{1.5, -2}, out["read"].Data)

	// A missing checkpoint key fails executor.New with the key named.
	_, err = executor.New(metaGraph(t, tf2Restore), fakeWeights{}, executor.Options{})
	assert.ErrorContains(t, err, "v/.ATTRIBUTES/VARIABLE_VALUE")
	assert.ErrorContains(t, err, "restoring variables")

	// A dtype that differs from RestoreV2's dtypes is an error.
	_, err = executor.New(metaGraph(t, tf2Restore), fakeWeights{"v/.ATTRIBUTES/VARIABLE_VALUE": kernels.ScalarInt32(1)}, executor.Options{})
	assert.ErrorContains(t, err, "dtype int32")
}

func TestRestoreByNameWithoutSaver(t *testing.T) {
	text := `graph_def {
  node { name: "a" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape {} } } }
  node { name: "h" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape {} } } attr { key: "shared_name" value { s: "hv" } } }
  node { name: "ra" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "rh" op: "ReadVariableOp" input: "h" attr { key: "dtype" value { type: DT_FLOAT } } }
}`
	w := fakeWeights{"a": kernels.ScalarFloat(0.5), "hv": kernels.ScalarFloat(2)}
	e, err := executor.New(metaGraph(t, text), w, executor.Options{})
	require.NoError(t, err)
	out, err := e.Run(context.Background(), nil, []string{"ra", "rh"})
	require.NoError(t, err)
	assert.Equal(t, []float32{0.5}, out["ra"].Data)
	assert.Equal(t, []float32{2}, out["rh"].Data)
}
