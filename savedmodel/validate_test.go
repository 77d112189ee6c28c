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

// A signature shape no tensor has loads as an unknown shape: TensorFlow's
// loaders find signature tensors by name and never read their shapes.
func TestLoadReadsImpossibleSignatureShapesAsUnknown(t *testing.T) {
	for name, dims := range map[string][]int64{
		"negative":       {-2, 8, 8, 1},
		"absurd dim":     {1, 1 << 62, 8, 1},
		"absurd product": {1 << 20, 1 << 20, 1 << 20, 1 << 20},
	} {
		t.Run(name, func(t *testing.T) {
			sm := modelgen.ConvNetSavedModel()
			for i, d := range sm.MetaGraphs[0].SignatureDef["serving_default"].Inputs["x"].TensorShape.Dim {
				d.Size = dims[i]
			}
			m, err := Load(writeFile(t, t.TempDir(), "saved_model.pb", marshalT(t, sm)))
			require.NoError(t, err)
			in := m.MetaGraphs[0].Signatures[0].Inputs[0]
			assert.True(t, in.UnknownRank)
			assert.Nil(t, in.Shape)
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

// Grappler's remapper, under oneDNN (TensorFlow's default on x86 Linux),
// gives fused nodes an _input_shapes attr whose unknown dimensions are
// symbolic (-2, -3, ...); TensorFlow loads the graph, and so does tfscan.
// Symbolic dimensions stay refused elsewhere, and _input_shapes is still
// held to the size limit.
func TestLoadSymbolicInputShapes(t *testing.T) {
	shapes := func(dims ...int64) *attrpb.AttrValue {
		sh := &shapepb.TensorShapeProto{}
		for _, d := range dims {
			sh.Dim = append(sh.Dim, &shapepb.TensorShapeProto_Dim{Size: d})
		}
		return &attrpb.AttrValue{Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{Shape: []*shapepb.TensorShapeProto{sh}}}}
	}
	for _, tc := range []struct {
		name, attr string
		dims       []int64
		want       string
	}{
		{"symbolic _input_shapes", "_input_shapes", []int64{-2, -3, -4, 3}, ""},
		{"unknown _input_shapes", "_input_shapes", []int64{-1, 8}, ""},
		{"absurd _input_shapes", "_input_shapes", []int64{-2, 1 << 62}, `node "conv1/Conv2D" (Conv2D) attr "_input_shapes": shape [-1 4611686018427387904] has dimension 4611686018427387904, over the limit of 1099511627776 elements`},
		{"symbolic _output_shapes", "_output_shapes", []int64{-2, 8}, `node "conv1/Conv2D" (Conv2D) attr "_output_shapes": shape [-2 8] has negative dimension -2`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gd := modelgen.ConvNetGraphDef()
			var found bool
			for _, n := range gd.GetNode() {
				if n.GetName() == "conv1/Conv2D" {
					n.Attr[tc.attr] = shapes(tc.dims...)
					found = true
				}
			}
			require.True(t, found)
			p := writeFile(t, t.TempDir(), "m.pb", marshalT(t, gd))
			_, err := Load(p)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, p+": "+tc.want)
		})
	}
}
