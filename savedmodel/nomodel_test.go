package savedmodel

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNoModelError(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	write("empty/notes.txt", "hello")
	write("empty/.hidden/x.pb", "junk")
	write("broken/sub/graph.pbtxt", "this is not a graph\n")
	write("json/model.json", "{}")

	for _, tc := range []struct {
		dir  string
		want string
	}{
		{"empty", "empty: no model found"},
		{"broken", "broken: no model found (" + filepath.Join("sub", "graph.pbtxt") + ": not a model: "},
		{"json", "json: no model found (model.json: not a TF.js graph model: "},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			dir := filepath.Join(root, tc.dir)
			found, err := Discover(dir)
			require.NoError(t, err)
			require.Empty(t, found)
			err = NoModelError(dir)
			assert.True(t, errors.Is(err, ErrNoModel), "got %v", err)
			assert.Contains(t, err.Error(), filepath.Join(root, tc.want))
		})
	}
}

// TestNoModelErrorCorpus: the corpus's malformed text GraphDef is named with
// its parse error, not reported as an empty folder.
func TestNoModelErrorCorpus(t *testing.T) {
	dir := sharedDir(t, "corpus", "tf", "gd_malformed")
	err := NoModelError(dir)
	assert.True(t, errors.Is(err, ErrNoModel))
	assert.Contains(t, err.Error(), "(graph-malformed.pbtxt: not a model: text proto syntax error")
}
