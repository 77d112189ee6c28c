package savedmodel

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	shapepb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"

	"github.com/tfscan/tfscan/savedmodel/modelgen"
)

func marshalT(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	require.NoError(t, err)
	return b
}

// constShape sets the shape of the Const value named name in gd.
func constShape(gd *gpb.GraphDef, name string, dims ...int64) *gpb.GraphDef {
	for _, n := range gd.GetNode() {
		if n.GetName() == name {
			sh := &shapepb.TensorShapeProto{}
			for _, d := range dims {
				sh.Dim = append(sh.Dim, &shapepb.TensorShapeProto_Dim{Size: d})
			}
			n.GetAttr()["value"].GetTensor().TensorShape = sh
		}
	}
	return gd
}

// TestLoadBadInput checks that every kind of bad input gives one *Error
// naming the file, with the problem in one line.
func TestLoadBadInput(t *testing.T) {
	noValue := modelgen.ConvNetGraphDef()
	delete(noValue.Node[1].Attr, "value")

	fnNoValue := modelgen.WhileSavedModel()
	delete(fnNoValue.MetaGraphs[0].GraphDef.Library.Function[1].NodeDef[0].Attr, "value")

	sigNeg := modelgen.ConvNetSavedModel()
	sigNeg.MetaGraphs[0].SignatureDef["serving_default"].Inputs["x"].TensorShape.Dim[0].Size = -2
	sigHuge := modelgen.ConvNetSavedModel()
	sigHuge.MetaGraphs[0].SignatureDef["serving_default"].Inputs["x"].TensorShape.Dim[1].Size = 1 << 62
	sigProduct := modelgen.ConvNetSavedModel()
	for _, d := range sigProduct.MetaGraphs[0].SignatureDef["serving_default"].Inputs["x"].TensorShape.Dim {
		d.Size = 1 << 20
	}

	placeholderHuge := modelgen.ConvNetGraphDef()
	placeholderHuge.Node[0].Attr["shape"] = &attrpb.AttrValue{Value: &attrpb.AttrValue_Shape{Shape: &shapepb.TensorShapeProto{
		Dim: []*shapepb.TensorShapeProto_Dim{{Size: -1}, {Size: -7}},
	}}}

	tests := []struct {
		name  string
		file  string
		data  []byte
		want  string
		isDir bool
	}{
		{name: "empty file", file: "m.pb", data: []byte{}, want: "file is empty"},
		{name: "random bytes", file: "m.pb", data: []byte{0xff, 0xff, 0xff, 0xff, 0x0f, 0x01},
			want: "not a protobuf file (truncated or not a model): bad value of field 536870911 at byte 5: cannot parse reserved wire type"},
		{name: "truncated", file: "m.pb", data: marshalT(t, modelgen.ConvNetGraphDef())[:100],
			want: "not a protobuf file (truncated or not a model): bad value of field 1 at byte 61: unexpected EOF"},
		{name: "wire fits no model", file: "m.pb", data: []byte{0x50, 0x01}, // field 10, varint
			want: "not a TensorFlow model: its fields fit none of SavedModel, MetaGraphDef or GraphDef"},
		{name: "text syntax error", file: "m.pbtxt", data: []byte("node {\n  name: \"x\"\n  op: \"Const\"\n  attr { key: }\n}\n"),
			want: "text GraphDef syntax error: line 4:15: invalid scalar value: }"},
		{name: "text not a model", file: "notes.pbtxt", data: []byte("# a comment\nhello world\n"),
			want: `not a model: text proto syntax error: line 2:1: unknown field: hello ("hello" is no field of SavedModel, MetaGraphDef or GraphDef)`},
		{name: "Const without value", file: "m.pb", data: marshalT(t, noValue),
			want: `node "conv1/weights" (Const) has no "value" attr`},
		{name: "Const without value in a function", file: "saved_model.pb", data: marshalT(t, fnNoValue),
			want: `function "while_cond_8": node "Less/y" (Const) has no "value" attr`},
		{name: "negative signature dim", file: "saved_model.pb", data: marshalT(t, sigNeg),
			want: `signature "serving_default" tensor "x": shape [-2 8 8 1] has negative dimension -2`},
		{name: "absurd signature dim", file: "saved_model.pb", data: marshalT(t, sigHuge),
			want: `signature "serving_default" tensor "x": shape [1 4611686018427387904 8 1] has dimension 4611686018427387904, over the limit of 1099511627776 elements`},
		{name: "absurd signature product", file: "saved_model.pb", data: marshalT(t, sigProduct),
			want: `signature "serving_default" tensor "x": shape [1048576 1048576 1048576 1048576] has more than 1099511627776 elements`},
		{name: "absurd Const shape", file: "m.pb", data: marshalT(t, constShape(modelgen.ConvNetGraphDef(), "conv1/bias", 1<<62)),
			want: `node "conv1/bias" (Const) attr "value": shape [4611686018427387904] has dimension 4611686018427387904, over the limit of 2147483648 elements`},
		{name: "unknown dim in a Const", file: "m.pb", data: marshalT(t, constShape(modelgen.ConvNetGraphDef(), "conv1/bias", -1)),
			want: `node "conv1/bias" (Const) attr "value": shape [-1] has negative dimension -1`},
		{name: "tensor_content of the wrong size", file: "m.pb", data: marshalT(t, constShape(modelgen.ConvNetGraphDef(), "conv1/bias", 5)),
			want: `node "conv1/bias" (Const) attr "value": tensor_content has 16 bytes, shape [5] of DT_FLOAT needs 20`},
		{name: "negative shape attr", file: "m.pb", data: marshalT(t, placeholderHuge),
			want: `node "x" (Placeholder) attr "shape": shape [-1 -7] has negative dimension -7`},
		{name: "SavedModel without meta graphs", file: "m.pb", data: marshalT(t, &mgpb.SavedModel{SavedModelSchemaVersion: 1}),
			want: "not a TensorFlow model: its fields fit none of SavedModel, MetaGraphDef or GraphDef"},
		{name: "saved_model.pb holding a GraphDef", file: "saved_model.pb", data: marshalT(t, modelgen.ConvNetGraphDef()),
			want: "holds a GraphDef, not a SavedModel", isDir: true},
		{name: "chunked SavedModel", file: "saved_model.cpb", data: []byte("riegeli"),
			want: "chunked SavedModel is not supported yet", isDir: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := writeFile(t, dir, tt.file, tt.data)
			path := p
			if tt.isDir {
				path = dir
			}
			_, err := Load(path)
			require.Error(t, err)
			var e *Error
			require.True(t, errors.As(err, &e), "%T %v", err, err)
			assert.Equal(t, p, e.File)
			assert.Equal(t, p+": "+tt.want, err.Error())
		})
	}
}

func TestLoadBadPaths(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(filepath.Join(dir, "missing"))
	assert.EqualError(t, err, filepath.Join(dir, "missing")+": no such file or directory")

	_, err = Load(dir)
	assert.EqualError(t, err, dir+": no model found (expected saved_model.pb, saved_model.pbtxt or model.json)")
	assert.ErrorIs(t, err, ErrNoModel)

	_, err = Load(writeFile(t, dir, "saved_model.cpb", nil))
	assert.ErrorIs(t, err, ErrChunked)
}

// TestLoadRefusesHugeFiles uses a sparse file just over the limit; Load must
// refuse it from its size alone.
func TestLoadRefusesHugeFiles(t *testing.T) {
	p := filepath.Join(t.TempDir(), "huge.pb")
	f, err := os.Create(p)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(MaxFileSize+1))
	require.NoError(t, f.Close())
	_, err = Load(p)
	assert.EqualError(t, err, p+": file is 2147483649 bytes, over the 2147483648-byte limit")
}
