package savedmodel

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	read := func(p string) []byte {
		b, err := os.ReadFile(modelsDir(p))
		require.NoError(t, err)
		return b
	}
	sm := read("convnet_saved_model/saved_model.pb")
	writeFile(t, root, "a/sm/saved_model.pb", sm)
	writeFile(t, root, "a/sm/variables/variables.index", nil)
	writeFile(t, root, "a/sm/extra/frozen.pb", read("convnet_frozen.pb")) // inside a SavedModel: not listed
	writeFile(t, root, "a/smtext/saved_model.pbtxt", []byte("saved_model_schema_version: 1\n"))
	writeFile(t, root, "b/frozen.pb", read("convnet_frozen.pb"))
	writeFile(t, root, "b/graph.pbtxt", read("resource_vars.pbtxt"))
	writeFile(t, root, "b/model.meta", read("convnet.meta"))
	writeFile(t, root, "b/notes.pbtxt", []byte("hello: 1\n"))         // text, no model field
	writeFile(t, root, "b/random.pb", []byte{0xff, 0xff, 0xff, 0xff}) // not a proto
	writeFile(t, root, "b/model.onnx", read("convnet_frozen.pb"))     // extension not considered
	writeFile(t, root, "c/tfjs/model.json", []byte(`{"modelTopology": {"node": []}}`))
	writeFile(t, root, "c/tfjs/group1-shard1of1.bin", nil)
	writeFile(t, root, "c/keras/model.json", []byte(`{"name": "not a tfjs model"}`))
	writeFile(t, root, "d/chunked/saved_model.cpb", nil)
	writeFile(t, root, ".git/objects/x.pb", read("convnet_frozen.pb"))

	got, err := Discover(root)
	require.NoError(t, err)
	var rel []string
	for _, p := range got {
		r, err := filepath.Rel(root, p)
		require.NoError(t, err)
		rel = append(rel, filepath.ToSlash(r))
	}
	assert.Equal(t, []string{"a/sm", "a/smtext", "b/frozen.pb", "b/graph.pbtxt", "b/model.meta", "c/tfjs", "d/chunked"}, rel)

	// A SavedModel root is itself the one model.
	got, err = Discover(filepath.Join(root, "a", "sm"))
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(root, "a", "sm")}, got)

	// A file is returned as is.
	got, err = Discover(filepath.Join(root, "b", "notes.pbtxt"))
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(root, "b", "notes.pbtxt")}, got)

	_, err = Discover(filepath.Join(root, "missing"))
	assert.EqualError(t, err, filepath.Join(root, "missing")+": no such file or directory")
}

// TestDiscoverCorpus finds every model of the shared corpus.
func TestDiscoverCorpus(t *testing.T) {
	root := sharedDir(t, "corpus")
	got, err := Discover(root)
	require.NoError(t, err)
	var rel []string
	for _, p := range got {
		r, err := filepath.Rel(root, p)
		require.NoError(t, err)
		rel = append(rel, filepath.ToSlash(r))
	}
	assert.Equal(t, []string{
		"tf/gd_if_op/if_op.pbtxt",
		"tf/gd_keras_imagenet_train/keras_imagenet_main.pbtxt",
		"tf/gd_lstm_layer_inference/lstm_layer_inference.pbtxt",
		"tf/gd_unknown_op/test_graph_tfunknownop.pbtxt",
		"tf/mg_text_in_dot_pb/metrics_export_meta_graph.pb",
		"tf/sm_fuzz_const_no_value",
		"tf/sm_half_plus_two_pbtxt",
		"tf/sm_half_plus_two_v1",
		"tf/sm_simple_while_loop",
		"tf/sm_static_hashtable",
		"tf/sm_x_plus_y_debuginfo",
		"tfjs/centernet",
		"tfjs/emotion",
		"tfjs/meet",
		"tfjs/mobilefacenet",
	}, rel)
}
