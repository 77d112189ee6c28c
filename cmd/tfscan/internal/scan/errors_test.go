package scan

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/reports"
)

// damagedRepo builds a folder of models as a repository holds them: good
// SavedModels and a frozen GraphDef from testdata/models, a SavedModel whose
// saved_model.pb was cut in half, and one whose saved_model.pb is garbage.
// It returns the folder and the paths of the good and the damaged models in
// path order.
func damagedRepo(t *testing.T) (root string, good, bad []string) {
	t.Helper()
	models := filepath.Join(testutil.RepoRoot(), "testdata", "models")
	root = t.TempDir()
	copyFile := func(src, dst string, cut func([]byte) []byte) {
		b, err := os.ReadFile(src)
		require.NoError(t, err)
		if cut != nil {
			b = cut(b)
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		require.NoError(t, os.WriteFile(dst, b, 0o644))
	}
	sm := filepath.Join(models, "convnet_saved_model", "saved_model.pb")
	copyFile(sm, filepath.Join(root, "a_convnet", "saved_model.pb"), nil)
	copyFile(sm, filepath.Join(root, "b_truncated", "saved_model.pb"), func(b []byte) []byte { return b[:len(b)/2] })
	copyFile(filepath.Join(models, "convnet_frozen.pb"), filepath.Join(root, "c_frozen.pb"), nil)
	copyFile(sm, filepath.Join(root, "d_garbage", "saved_model.pb"), func([]byte) []byte { return []byte("\xff\xff\xff not a protobuf") })
	copyFile(filepath.Join(models, "tf2_while_saved_model", "saved_model.pb"), filepath.Join(root, "e_while", "saved_model.pb"), nil)
	j := func(p string) string { return filepath.Join(root, p) }
	return root, []string{j("a_convnet"), j("c_frozen.pb"), j("e_while")}, []string{j("b_truncated"), j("d_garbage")}
}

func modelPaths(rep *reports.Report) []string {
	var out []string
	for _, m := range rep.Models {
		out = append(out, m.Path)
	}
	return out
}

// One damaged model among good ones: every good model is in the report, each
// damaged one is an error naming its file, and the report is the same
// whatever the parallelism.
func TestRunDamagedModelAmongGood(t *testing.T) {
	root, good, bad := damagedRepo(t)
	var first []byte
	for _, jobs := range []int{1, 3} {
		rep, err := Run(context.Background(), Options{Paths: []string{root}, Targets: []string{"cuda", "cpu"}, Jobs: jobs})
		require.NoError(t, err)
		assert.Equal(t, good, modelPaths(rep))
		for _, m := range rep.Models {
			assert.Len(t, m.Targets, 2, m.Path)
		}
		require.Len(t, rep.Errors, 2)
		for i, e := range rep.Errors {
			assert.Equal(t, bad[i], e.Path)
			assert.Equal(t, reports.ErrorClassModel, e.Class)
			assert.Contains(t, e.Message, filepath.Join(bad[i], "saved_model.pb"), "the message names the file")
			assert.Equal(t, filepath.Join(bad[i], "saved_model.pb"), e.File)
		}
		b, err := json.Marshal(rep)
		require.NoError(t, err)
		if first == nil {
			first = b
		} else {
			assert.JSONEq(t, string(first), string(b), "-j 1 and -j 3 differ")
		}
	}
}

// --fail-fast stops at the first damaged model in path order: the report
// holds exactly the models before it and its error, however many workers
// ran and in whatever order they finished.
func TestRunFailFast(t *testing.T) {
	root, good, bad := damagedRepo(t)
	for _, jobs := range []int{1, 2, 8} {
		for range 3 {
			rep, err := Run(context.Background(), Options{Paths: []string{root}, Targets: []string{"cpu"}, Jobs: jobs, FailFast: true})
			require.NoError(t, err)
			assert.Equal(t, good[:1], modelPaths(rep), "-j %d", jobs)
			require.Len(t, rep.Errors, 1, "-j %d", jobs)
			assert.Equal(t, bad[0], rep.Errors[0].Path)
		}
	}
	// A path that does not exist is a model error like the others, in path
	// order with them.
	rep, err := Run(context.Background(), Options{Paths: []string{root, filepath.Join(root, "0_missing")}, Targets: []string{"cpu"}, FailFast: true})
	require.NoError(t, err)
	assert.Empty(t, rep.Models)
	require.Len(t, rep.Errors, 1)
	assert.Equal(t, filepath.Join(root, "0_missing"), rep.Errors[0].Path)

	// Without --fail-fast nothing stops.
	rep, err = Run(context.Background(), Options{Paths: []string{root, filepath.Join(root, "0_missing")}, Targets: []string{"cpu"}})
	require.NoError(t, err)
	assert.Equal(t, good, modelPaths(rep))
	assert.Len(t, rep.Errors, 3)
}

// Usage errors stop the run before any model is read.
func TestRunUsageErrorsBeforeScanning(t *testing.T) {
	root, _, _ := damagedRepo(t)
	read := 0
	_, err := Run(context.Background(), Options{Paths: []string{root}, Targets: []string{"no-such-target"},
		Progress: func(int, int) { read++ }})
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	assert.Zero(t, read)
}
