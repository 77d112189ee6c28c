package savedmodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	tensorpb "github.com/wamuir/graft/tensorflow/core/framework/tensor_go_proto"
	shapepb "github.com/wamuir/graft/tensorflow/core/framework/tensor_shape_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// roundTrip writes m into a fresh path and loads it back.
func roundTrip(t *testing.T, m *Model, name string) (*Model, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), name)
	require.NoError(t, Write(m, out))
	back, err := Load(out)
	require.NoError(t, err)
	return back, out
}

// assertSameModel compares what Load read: format, every MetaGraphDef
// (graph, library, signatures, collections, saver), TF.js weights and op
// renames, checkpoint and assets.
func assertSameModel(t *testing.T, want, got *Model) {
	t.Helper()
	assert.Equal(t, want.Format, got.Format)
	assert.Equal(t, want.SchemaVersion, got.SchemaVersion)
	require.Len(t, got.MetaGraphs, len(want.MetaGraphs))
	for i := range want.MetaGraphs {
		assert.True(t, proto.Equal(want.MetaGraphs[i].Def, got.MetaGraphs[i].Def), "meta graph %d differs", i)
		assert.Equal(t, want.MetaGraphs[i].Signatures, got.MetaGraphs[i].Signatures)
		assert.Equal(t, want.MetaGraphs[i].Tags, got.MetaGraphs[i].Tags)
	}
	assert.Equal(t, want.Weights, got.Weights)
	assert.Equal(t, want.Renamed, got.Renamed)
	assert.Equal(t, want.Assets, got.Assets)
	assert.Equal(t, want.VariablesPrefix != "", got.VariablesPrefix != "")
}

// TestWriteRoundTrip loads every readable model of the generated set and
// the shared corpus, writes it, loads it again and finds the same model;
// checkpoint and asset files come across byte for byte.
func TestWriteRoundTrip(t *testing.T) {
	paths := []string{
		modelsDir("convnet_frozen.pb"), modelsDir("convnet.meta"), modelsDir("convnet_saved_model"),
		modelsDir("keras_saved_model"), modelsDir("tf2_while_saved_model"),
		modelsDir("resource_vars.pbtxt"), modelsDir("string_ops_meta.pbtxt"),
	}
	corpus := sharedDir(t, "corpus")
	for _, p := range []string{
		"tf/sm_half_plus_two_v1", "tf/sm_half_plus_two_pbtxt", "tf/sm_simple_while_loop", "tf/sm_static_hashtable",
		"tf/sm_x_plus_y_debuginfo", "tf/gd_if_op/if_op.pbtxt", "tf/gd_lstm_layer_inference/lstm_layer_inference.pbtxt",
		"tf/gd_keras_imagenet_train/keras_imagenet_main.pbtxt", "tf/gd_unknown_op/test_graph_tfunknownop.pbtxt",
		"tf/mg_text_in_dot_pb/metrics_export_meta_graph.pb",
		"tfjs/emotion", "tfjs/meet", "tfjs/mobilefacenet", "tfjs/centernet",
	} {
		paths = append(paths, filepath.Join(corpus, p))
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			m, err := Load(p)
			require.NoError(t, err)
			name := filepath.Base(p)
			back, out := roundTrip(t, m, name)
			assertSameModel(t, m, back)
			if m.VariablesPrefix != "" {
				for _, ext := range []string{".index", ".data-00000-of-00001"} {
					assertSameFile(t, m.VariablesPrefix+ext, back.VariablesPrefix+ext)
				}
			}
			for _, a := range m.Assets {
				assertSameFile(t, filepath.Join(filepath.Dir(m.File), "assets", a), filepath.Join(out, "assets", a))
			}
			// The same model written twice gives the same bytes.
			again := filepath.Join(t.TempDir(), name)
			require.NoError(t, Write(m, again))
			assertSameFile(t, back.File, filepath.Join(again, mustRel(t, out, back.File)))
		})
	}
}

func mustRel(t *testing.T, base, p string) string {
	t.Helper()
	rel, err := filepath.Rel(base, p)
	require.NoError(t, err)
	return rel
}

func assertSameFile(t *testing.T, want, got string) {
	t.Helper()
	a, err := os.ReadFile(want)
	require.NoError(t, err)
	b, err := os.ReadFile(got)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(a, b), "%s and %s differ", want, got)
}

// TestWriteTFJSNewConstants adds Consts to a TF.js model, as rewrite does:
// their values go to one new shard, the old shards are copied unchanged,
// and the model loads back with the same values as weights.
func TestWriteTFJSNewConstants(t *testing.T) {
	corpus := sharedDir(t, "corpus")
	src := filepath.Join(corpus, "tfjs", "emotion")
	m, err := Load(src)
	require.NoError(t, err)
	gd := m.MetaGraphs[0].Def.GetGraphDef()
	f32 := &nodepb.NodeDef{Name: "added/alpha", Op: "Const", Attr: map[string]*attrpb.AttrValue{
		"dtype": {Value: &attrpb.AttrValue_Type{Type: tpb.DataType_DT_FLOAT}},
		"value": {Value: &attrpb.AttrValue_Tensor{Tensor: &tensorpb.TensorProto{
			Dtype: tpb.DataType_DT_FLOAT, TensorShape: &shapepb.TensorShapeProto{Dim: []*shapepb.TensorShapeProto_Dim{{Size: 2}}},
			FloatVal: []float32{0.25, -3}}}},
	}}
	i32 := &nodepb.NodeDef{Name: "added/axis", Op: "Const", Attr: map[string]*attrpb.AttrValue{
		"dtype": {Value: &attrpb.AttrValue_Type{Type: tpb.DataType_DT_INT32}},
		"value": {Value: &attrpb.AttrValue_Tensor{Tensor: &tensorpb.TensorProto{
			Dtype: tpb.DataType_DT_INT32, TensorShape: &shapepb.TensorShapeProto{}, IntVal: []int32{-1}}}},
	}}
	gd.Node = append(gd.Node, f32, i32)
	back, out := roundTrip(t, m, "emotion")
	assert.Equal(t, le32(0.25, -3), back.Weights["added/alpha"].Data)
	assert.Equal(t, []int64{2}, back.Weights["added/alpha"].Shape)
	assert.Equal(t, leI32(-1), back.Weights["added/axis"].Data)
	assert.Equal(t, []int64{}, back.Weights["added/axis"].Shape)
	for name, w := range m.Weights {
		assert.Equal(t, w, back.Weights[name], name)
	}
	assertSameFile(t, filepath.Join(src, "emotion.bin"), filepath.Join(out, "emotion.bin"))
	// TF.js reads a "quantization" key, even null, as a quantized weight.
	assert.NotContains(t, string(mustRead(t, filepath.Join(out, "model.json"))), `"quantization": null`)
	assert.FileExists(t, filepath.Join(out, tfjsNewShard+".bin"))
	// The Const nodes keep dtype and shape, not the values.
	for _, n := range back.MetaGraphs[0].Def.GetGraphDef().GetNode() {
		if n.GetName() == "added/alpha" {
			v := n.GetAttr()["value"].GetTensor()
			assert.Empty(t, v.GetFloatVal())
			assert.Equal(t, int64(2), v.GetTensorShape().GetDim()[0].GetSize())
		}
	}
	// Every key of model.json but the graph and manifest is as it was.
	origKeys, origVals, err := orderedObject(mustRead(t, filepath.Join(src, "model.json")))
	require.NoError(t, err)
	keys, vals, err := orderedObject(mustRead(t, filepath.Join(out, "model.json")))
	require.NoError(t, err)
	assert.Equal(t, origKeys, keys)
	for i, k := range keys {
		if k != "modelTopology" && k != "weightsManifest" {
			var a, b bytes.Buffer
			require.NoError(t, compactJSON(&a, origVals[i]))
			require.NoError(t, compactJSON(&b, vals[i]))
			assert.Equal(t, a.String(), b.String(), k)
		}
	}
}

// TestWriteTFJSRenamesBack checks that TF.js's own op names are written
// back (the loader renames FusedDepthwiseConv2dNative).
func TestWriteTFJSRenamesBack(t *testing.T) {
	m, err := Load(filepath.Join(sharedDir(t, "corpus"), "tfjs", "centernet"))
	require.NoError(t, err)
	require.NotEmpty(t, m.Renamed)
	_, out := roundTrip(t, m, "centernet")
	b := mustRead(t, filepath.Join(out, "model.json"))
	assert.Contains(t, string(b), `"op": "FusedDepthwiseConv2dNative"`)
	assert.NotContains(t, string(b), `"_FusedDepthwiseConv2dNative"`)
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}

// TestWriteRefuses covers the outputs Write must not touch and the failures
// that must leave nothing behind.
func TestWriteRefuses(t *testing.T) {
	m, err := Load(modelsDir("convnet_saved_model"))
	require.NoError(t, err)
	dir := t.TempDir()

	full := filepath.Join(dir, "full")
	require.NoError(t, os.MkdirAll(full, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(full, "x"), []byte("x"), 0o644))
	err = Write(m, full)
	assert.True(t, errors.Is(err, ErrOutputExists), "%v", err)
	assert.Contains(t, err.Error(), full+": output path exists and is a directory that is not empty")

	file := filepath.Join(dir, "file.pb")
	require.NoError(t, os.WriteFile(file, []byte("x"), 0o644))
	assert.ErrorIs(t, Write(m, file), ErrOutputExists)
	// A file is refused as a file, even an empty one, and left as it was.
	zero := filepath.Join(dir, "zero")
	require.NoError(t, os.WriteFile(zero, nil, 0o644))
	err = Write(m, zero)
	assert.ErrorIs(t, err, ErrOutputExists)
	assert.EqualError(t, err, zero+": output path exists and is a file (it must not exist, or be an empty directory)")
	assert.Empty(t, mustRead(t, zero))

	// An empty directory is replaced.
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	require.NoError(t, Write(m, empty))
	assert.FileExists(t, filepath.Join(empty, "saved_model.pb"))

	// A GraphDef into an empty directory's path becomes a file there.
	gdm, err := Load(modelsDir("convnet_frozen.pb"))
	require.NoError(t, err)
	empty2 := filepath.Join(dir, "empty2")
	require.NoError(t, os.Mkdir(empty2, 0o755))
	require.NoError(t, Write(gdm, empty2))
	fi, err := os.Stat(empty2)
	require.NoError(t, err)
	assert.True(t, fi.Mode().IsRegular())

	// Not inside the model's own directory.
	err = Write(m, filepath.Join(filepath.Dir(m.File), "rewritten"))
	assert.ErrorContains(t, err, "output is inside the model directory")

	// A TF.js constant TF.js cannot hold fails, and nothing is left.
	tj, err := Load(filepath.Join(sharedDir(t, "corpus"), "tfjs", "emotion"))
	require.NoError(t, err)
	gd := tj.MetaGraphs[0].Def.GetGraphDef()
	gd.Node = append(gd.Node, &nodepb.NodeDef{Name: "i64", Op: "Const", Attr: map[string]*attrpb.AttrValue{
		"dtype": {Value: &attrpb.AttrValue_Type{Type: tpb.DataType_DT_INT64}},
		"value": {Value: &attrpb.AttrValue_Tensor{Tensor: &tensorpb.TensorProto{Dtype: tpb.DataType_DT_INT64, TensorShape: &shapepb.TensorShapeProto{}, Int64Val: []int64{1}}}},
	}})
	bad := filepath.Join(dir, "bad")
	err = Write(tj, bad)
	assert.ErrorContains(t, err, `Const "i64": TF.js weights cannot hold INT64 values`)
	var oe *OutputError
	assert.False(t, errors.As(err, &oe), "a model that cannot be written is not the output's problem: %v", err)
	assert.NoFileExists(t, bad)
	// ... nor the parent folders Write made for it.
	err = Write(tj, filepath.Join(dir, "new", "sub", "bad"))
	assert.ErrorContains(t, err, `TF.js weights cannot hold INT64 values`)
	assert.NoDirExists(t, filepath.Join(dir, "new"))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		assert.NotContains(t, e.Name(), ".tmp-", "a temporary folder was left behind")
	}
}

// TestWriteDropsFingerprint checks that a SavedModel's fingerprint, which
// would name the original model, is not copied.
func TestWriteDropsFingerprint(t *testing.T) {
	src := t.TempDir()
	b, err := os.ReadFile(modelsDir("convnet_saved_model", "saved_model.pb"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(src, "saved_model.pb"), b, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(src, fingerprintPb), []byte{8, 1}, 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(src, "assets.extra"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "assets.extra", "note"), []byte("kept"), 0o644))
	m, err := Load(src)
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "out")
	require.NoError(t, Write(m, out))
	assert.NoFileExists(t, filepath.Join(out, fingerprintPb))
	assert.FileExists(t, filepath.Join(out, "assets.extra", "note"))
	got, err := Load(out)
	require.NoError(t, err)
	assert.True(t, proto.Equal(m.MetaGraphs[0].Def, got.MetaGraphs[0].Def))
}

func compactJSON(dst *bytes.Buffer, b []byte) error { return json.Compact(dst, b) }

// TestCheckOutput covers every kind of output path: what may be written,
// and for the rest an *OutputError naming the path and what is wrong, with
// the path left as it was.
func TestCheckOutput(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	full := filepath.Join(dir, "full")
	require.NoError(t, os.MkdirAll(filepath.Join(full, "x"), 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "empty"), 0o755))
	require.NoError(t, os.Symlink(full, filepath.Join(dir, "link")))
	for _, tc := range []struct {
		out  string // relative to dir
		want string // the error after "PATH: "; "" when out may be written
		is   error
	}{
		{out: "new"},
		{out: "new/deeper/still"},
		{out: "empty"},
		{out: "file", want: "output path exists and is a file (it must not exist, or be an empty directory)", is: ErrOutputExists},
		{out: "full", want: "output path exists and is a directory that is not empty (it must not exist, or be an empty directory)", is: ErrOutputExists},
		{out: "link", want: "output path exists and is a symbolic link (it must not exist, or be an empty directory)", is: ErrOutputExists},
		{out: "file/out", want: "cannot be created: " + file + " is a file, not a directory"},
		{out: "file/a/b", want: "cannot be created: " + file + " is a file, not a directory"},
	} {
		t.Run(tc.out, func(t *testing.T) {
			out := filepath.Join(dir, filepath.FromSlash(tc.out))
			before := listDir(t, dir)
			err := CheckOutput(out)
			assert.Equal(t, before, listDir(t, dir), "CheckOutput changed the folder")
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			var oe *OutputError
			require.True(t, errors.As(err, &oe), "%v", err)
			assert.EqualError(t, err, out+": "+tc.want)
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
		})
	}
	t.Run("not writable", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root may write into a read-only directory")
		}
		ro := filepath.Join(dir, "ro")
		require.NoError(t, os.Mkdir(ro, 0o555))
		t.Cleanup(func() { os.Chmod(ro, 0o755) })
		err := CheckOutput(filepath.Join(ro, "out"))
		assert.EqualError(t, err, filepath.Join(ro, "out")+": cannot be created in "+ro+": permission denied")
		assert.Empty(t, listDir(t, ro))
	})
}

// listDir is every path under dir, for checks that nothing changed.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		paths = append(paths, p)
		return err
	}))
	return paths
}
