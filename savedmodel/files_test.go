package savedmodel

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFiles(t *testing.T) {
	half := sharedDir(t, "corpus", "tf", "sm_half_plus_two_v1")
	emotion := sharedDir(t, "corpus", "tfjs", "emotion")
	hashtable := sharedDir(t, "corpus", "tf", "sm_static_hashtable")
	for _, tc := range []struct {
		path string
		want []string
	}{
		// the pb, the checkpoint's index (not its data shards), the assets
		{half, []string{"assets/foo.txt", "saved_model.pb", "variables/variables.index"}},
		{filepath.Join(half, "saved_model.pb"), []string{"assets/foo.txt", "saved_model.pb", "variables/variables.index"}},
		{hashtable, []string{"assets/static_hashtable_asset.txt", "saved_model.pb", "variables/variables.index"}},
		// model.json and the shards its manifest names
		{emotion, []string{"emotion.bin", "model.json"}},
		{filepath.Join(emotion, "model.json"), []string{"emotion.bin", "model.json"}},
		{modelsDir("convnet_frozen.pb"), []string{"convnet_frozen.pb"}},
		{modelsDir("keras_saved_model"), []string{"saved_model.pb"}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			var got []string
			base := tc.path
			if filepath.Ext(base) != "" {
				base = filepath.Dir(base)
			}
			for _, f := range Files(tc.path) {
				rel, err := filepath.Rel(base, f)
				require.NoError(t, err)
				got = append(got, filepath.ToSlash(rel))
			}
			require.Equal(t, tc.want, got)
		})
	}
	require.Nil(t, Files(filepath.Join(t.TempDir(), "missing")))
	require.Nil(t, Files(t.TempDir()), "a directory without a model file")
}
