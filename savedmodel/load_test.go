package savedmodel

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"

	"github.com/tfscan/tfscan/savedmodel/modelgen"
)

// TestLoadGenerated loads every model of testdata/models.
func TestLoadGenerated(t *testing.T) {
	tests := []struct {
		path         string
		format       Format
		file         string
		tags         []string
		nodes, funcs int
		sigs         []string
	}{
		{"convnet_frozen.pb", FormatGraphDef, "convnet_frozen.pb", nil, 14, 0, nil},
		{"convnet.meta", FormatMetaGraph, "convnet.meta", []string{"serve"}, 14, 0, []string{"serving_default"}},
		{"convnet_saved_model", FormatSavedModel, "convnet_saved_model/saved_model.pb", []string{"serve"}, 14, 0, []string{"serving_default"}},
		{"convnet_saved_model/saved_model.pb", FormatSavedModel, "convnet_saved_model/saved_model.pb", []string{"serve"}, 14, 0, []string{"serving_default"}},
		{"tf2_while_saved_model", FormatSavedModel, "tf2_while_saved_model/saved_model.pb", []string{"serve"}, 5, 11, []string{"serving_default"}},
		{"keras_pinned_frozen.pb", FormatGraphDef, "keras_pinned_frozen.pb", nil, 21, 0, nil},
		{"resource_vars.pbtxt", FormatGraphDefText, "resource_vars.pbtxt", nil, 6, 0, nil},
		{"string_ops_meta.pbtxt", FormatMetaGraphText, "string_ops_meta.pbtxt", []string{"serve"}, 4, 0, []string{"serving_default"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			m, err := Load(modelsDir(tt.path))
			require.NoError(t, err)
			assert.Equal(t, tt.format, m.Format)
			assert.Equal(t, modelsDir(tt.file), m.File)
			require.Len(t, m.MetaGraphs, 1)
			mg := m.MetaGraphs[0]
			assert.Equal(t, tt.tags, mg.Tags)
			nodes, funcs := countNodes(m)
			assert.Equal(t, tt.nodes, nodes)
			assert.Equal(t, tt.funcs, funcs)
			var keys []string
			for _, s := range mg.Signatures {
				keys = append(keys, s.Key)
			}
			assert.Equal(t, tt.sigs, keys)
			assert.Empty(t, m.VariablesPrefix)
			assert.Nil(t, m.Weights)
		})
	}
}

func TestLoadGeneratedSignatures(t *testing.T) {
	m, err := Load(modelsDir("tf2_while_saved_model"))
	require.NoError(t, err)
	sig := m.MetaGraphs[0].Signatures[0]
	assert.Equal(t, &Signature{
		Key:     "serving_default",
		Method:  "tensorflow/serving/predict",
		Inputs:  []*TensorInfo{{Key: "x", Name: "serving_default_x:0", DType: tpb.DataType_DT_FLOAT, Shape: []int64{}}},
		Outputs: []*TensorInfo{{Key: "output_0", Name: "StatefulPartitionedCall:0", DType: tpb.DataType_DT_FLOAT, Shape: []int64{}}},
	}, sig)

	m, err = Load(modelsDir("string_ops_meta.pbtxt"))
	require.NoError(t, err)
	sig = m.MetaGraphs[0].Signatures[0]
	assert.Equal(t, []int64{-1}, sig.Inputs[0].Shape)
	assert.Equal(t, tpb.DataType_DT_STRING, sig.Inputs[0].DType)
	assert.Equal(t, tpb.DataType_DT_INT64, sig.Outputs[0].DType)
}

// TestLoadKeepsProto checks that Load hands out the decoded proto as is:
// Const payloads are the decoded bytes, equal to what was written.
func TestLoadKeepsProto(t *testing.T) {
	m, err := Load(modelsDir("convnet_frozen.pb"))
	require.NoError(t, err)
	want := modelgen.ConvNetGraphDef()
	assert.True(t, proto.Equal(want, m.MetaGraphs[0].Def.GetGraphDef()))
}

// TestLoadSniffsByContent renames models so that their extensions lie.
func TestLoadSniffsByContent(t *testing.T) {
	dir := t.TempDir()
	read := func(p string) []byte {
		b, err := os.ReadFile(modelsDir(p))
		require.NoError(t, err)
		return b
	}
	tests := []struct {
		name string
		data []byte
		want Format
	}{
		{"graph.pbtxt", read("convnet_frozen.pb"), FormatGraphDef},
		{"graph.meta", read("convnet_frozen.pb"), FormatGraphDef},
		{"meta.pb", read("convnet.meta"), FormatMetaGraph},
		{"sm.bin", read("convnet_saved_model/saved_model.pb"), FormatSavedModel},
		{"text.pb", read("resource_vars.pbtxt"), FormatGraphDefText},
		{"model", read("string_ops_meta.pbtxt"), FormatMetaGraphText},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Load(writeFile(t, dir, tt.name, tt.data))
			require.NoError(t, err)
			assert.Equal(t, tt.want, m.Format)
		})
	}
}

// TestLoadSavedModelDir checks VariablesPrefix, Assets and the choice of
// saved_model.pb over saved_model.pbtxt.
func TestLoadSavedModelDir(t *testing.T) {
	dir := t.TempDir()
	sm, err := proto.Marshal(modelgen.ConvNetSavedModel())
	require.NoError(t, err)
	writeFile(t, dir, "saved_model.pb", sm)
	writeFile(t, dir, "saved_model.pbtxt", []byte("this would not parse"))
	writeFile(t, dir, "variables/variables.index", nil)
	writeFile(t, dir, "variables/variables.data-00000-of-00001", nil)
	writeFile(t, dir, "assets/vocab.txt", []byte("a\n"))
	writeFile(t, dir, "assets/sub/b.txt", []byte("b\n"))

	m, err := Load(dir)
	require.NoError(t, err)
	assert.Equal(t, FormatSavedModel, m.Format)
	assert.Equal(t, filepath.Join(dir, "saved_model.pb"), m.File)
	assert.Equal(t, filepath.Join(dir, "variables", "variables"), m.VariablesPrefix)
	assert.Equal(t, []string{"sub/b.txt", "vocab.txt"}, m.Assets)
}

func TestLoadSavedModelText(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "saved_model.pbtxt", modelgen.MarshalText(modelgen.WhileSavedModel()))
	m, err := Load(dir)
	require.NoError(t, err)
	assert.Equal(t, FormatSavedModelText, m.Format)
	assert.True(t, proto.Equal(modelgen.WhileSavedModel().GetMetaGraphs()[0], m.MetaGraphs[0].Def))
}

// TestSniffBinary covers the ambiguous layouts: the three messages share
// field numbers, so which one a file holds is told from nested fields.
func TestSniffBinary(t *testing.T) {
	marshal := func(m proto.Message) []byte {
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		require.NoError(t, err)
		return b
	}
	gd := modelgen.ConvNetGraphDef()
	single := modelgen.ConvNetGraphDef()
	single.Node = single.Node[:1]
	single.Versions = nil
	libOnly := modelgen.WhileSavedModel().GetMetaGraphs()[0].GetGraphDef()
	libOnly.Node, libOnly.Versions = nil, nil
	mgGraphOnly := &mgpb.MetaGraphDef{GraphDef: modelgen.ConvNetGraphDef()}
	smNoVersion := &mgpb.SavedModel{MetaGraphs: []*mgpb.MetaGraphDef{modelgen.ConvNetMetaGraph()}}
	tests := []struct {
		name string
		data []byte
		want protoKind
	}{
		{"GraphDef", marshal(gd), kindGraphDef},
		{"GraphDef with one node and no versions", marshal(single), kindGraphDef},
		{"GraphDef with only a library", marshal(libOnly), kindGraphDef},
		{"MetaGraphDef", marshal(modelgen.ConvNetMetaGraph()), kindMetaGraph},
		{"MetaGraphDef with only graph_def", marshal(mgGraphOnly), kindMetaGraph},
		{"SavedModel", marshal(modelgen.ConvNetSavedModel()), kindSavedModel},
		{"SavedModel without schema version", marshal(smNoVersion), kindSavedModel},
		{"TF2 SavedModel", marshal(modelgen.WhileSavedModel()), kindSavedModel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sniffBinary(tt.data)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestLoadRandomBytesNeverPanics(t *testing.T) {
	gd, err := os.ReadFile(modelsDir("convnet_frozen.pb"))
	require.NoError(t, err)
	dir := t.TempDir()
	// Every truncation of a real model either loads or gives one line.
	for n := 0; n < len(gd); n += 7 {
		p := writeFile(t, dir, "cut.pb", gd[:n])
		_, err := Load(p)
		if err != nil {
			assert.NotContains(t, err.Error(), "\n")
			assert.True(t, bytes.HasPrefix([]byte(err.Error()), []byte(p+": ")), err.Error())
		}
	}
}
