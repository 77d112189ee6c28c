package scan

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/reports/jsonout"
)

// cacheZoo copies the generated models and three corpus models (a TF.js
// model with a weight shard, a SavedModel with variables and assets, a
// TF2 SavedModel) into a fresh directory.
func cacheZoo(t *testing.T) string {
	t.Helper()
	corpus := testutil.Corpus(t)
	dir := filepath.Join(t.TempDir(), "zoo")
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join(testutil.RepoRoot(), "testdata", "models"))))
	for _, m := range []string{"tfjs/emotion", "tf/sm_half_plus_two_v1", "tf/sm_static_hashtable"} {
		require.NoError(t, os.CopyFS(filepath.Join(dir, filepath.Base(m)), os.DirFS(filepath.Join(corpus, m))))
	}
	return dir
}

// scanJSON scans dir (with the cache when cacheDir is set) and returns the
// JSON report and what the cache did.
func scanJSON(t *testing.T, dir, cacheDir string, mutate ...func(*Options)) ([]byte, CacheStats) {
	t.Helper()
	var stats CacheStats
	opts := Options{Paths: []string{dir}, Targets: []string{"musa", "intel-xpu"}, From: "cuda", Jobs: 2, Version: "test",
		Cache: cacheDir, CacheDone: func(s CacheStats) { stats = s }}
	for _, m := range mutate {
		m(&opts)
	}
	rep, err := Run(context.Background(), opts)
	require.NoError(t, err)
	require.Empty(t, rep.Errors)
	var b bytes.Buffer
	require.NoError(t, jsonout.WriteJSON(&b, rep))
	return b.Bytes(), stats
}

func TestCache(t *testing.T) {
	zoo := cacheZoo(t)
	cacheDir := filepath.Join(t.TempDir(), "cache")
	fresh, _ := scanJSON(t, zoo, "")
	const n = 11

	first, stats := scanJSON(t, zoo, cacheDir)
	require.Equal(t, CacheStats{Scanned: n}, stats)
	require.Equal(t, string(fresh), string(first), "a run that fills the cache reports what a run without it does")

	hit, stats := scanJSON(t, zoo, cacheDir)
	require.Equal(t, CacheStats{Hits: n}, stats)
	require.Equal(t, string(fresh), string(hit), "cached results are byte-identical to fresh ones")

	t.Run("a model moved elsewhere hits and names its new place", func(t *testing.T) {
		moved := filepath.Join(t.TempDir(), "elsewhere")
		require.NoError(t, os.CopyFS(moved, os.DirFS(zoo)))
		got, stats := scanJSON(t, moved, cacheDir)
		require.Equal(t, CacheStats{Hits: n}, stats)
		want, _ := scanJSON(t, moved, "")
		require.Equal(t, string(want), string(got))
	})

	t.Run("a model given as its file does not reuse its directory's entry", func(t *testing.T) {
		file := filepath.Join(zoo, "keras_saved_model", "saved_model.pb")
		got, stats := scanJSON(t, file, cacheDir)
		require.Equal(t, CacheStats{Scanned: 1}, stats)
		want, _ := scanJSON(t, file, "")
		require.Equal(t, string(want), string(got))
	})

	t.Run("options that change results miss", func(t *testing.T) {
		_, stats := scanJSON(t, zoo, cacheDir, func(o *Options) { o.Placement.Dims = map[string]int64{"batch": 8} })
		require.Equal(t, CacheStats{Scanned: n}, stats)
		_, stats = scanJSON(t, zoo, cacheDir, func(o *Options) { o.Targets = []string{"musa"} })
		require.Equal(t, CacheStats{Scanned: n}, stats)
		_, stats = scanJSON(t, zoo, cacheDir, func(o *Options) { o.Version = "test2" })
		require.Equal(t, CacheStats{Scanned: n}, stats)
		_, stats = scanJSON(t, zoo, cacheDir, func(o *Options) { o.Jobs = 1 })
		require.Equal(t, CacheStats{Hits: n}, stats, "-j changes nothing")
	})

	// Every file of a model is part of its key: the graph file, a
	// SavedModel's variables index and assets, a TF.js weight shard.
	for _, file := range []string{
		"resource_vars.pbtxt",
		"sm_half_plus_two_v1/variables/variables.index",
		"sm_half_plus_two_v1/assets/foo.txt",
		"emotion/emotion.bin",
	} {
		t.Run("miss after a change to "+file, func(t *testing.T) {
			p := filepath.Join(zoo, file)
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			// Text protos take comments; the other files change a byte
			// that does not change the scan (a checksum, a weight, an
			// asset line).
			if filepath.Ext(p) == ".pbtxt" {
				b = append(b, "\n# changed\n"...)
			} else {
				b[len(b)-1] ^= 0x01
			}
			require.NoError(t, os.WriteFile(p, b, 0o644))
			got, stats := scanJSON(t, zoo, cacheDir)
			require.Equal(t, CacheStats{Hits: n - 1, Scanned: 1}, stats)
			want, _ := scanJSON(t, zoo, "")
			require.Equal(t, string(want), string(got))
		})
	}

	t.Run("a corrupt entry is ignored and rewritten", func(t *testing.T) {
		var entries []string
		require.NoError(t, filepath.WalkDir(cacheDir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				entries = append(entries, p)
			}
			return err
		}))
		require.NotEmpty(t, entries)
		// Corrupt every entry the same way a crash or a bad disk would:
		// truncated, one flipped byte in the payload, a valid-looking
		// payload under a wrong checksum.
		for i, e := range entries {
			b, err := os.ReadFile(e)
			require.NoError(t, err)
			switch i % 3 {
			case 0:
				b = b[:len(b)/2]
			case 1:
				b[len(b)-5] ^= 0x20
			case 2:
				b = bytes.Replace(b, []byte(`"nodes_total":`), []byte(`"nodes_total":1`), 1)
			}
			require.NoError(t, os.WriteFile(e, b, 0o644))
		}
		got, stats := scanJSON(t, zoo, cacheDir)
		require.Zero(t, stats.Hits, "no corrupt entry is trusted")
		want, _ := scanJSON(t, zoo, "")
		require.Equal(t, string(want), string(got))
		got, stats = scanJSON(t, zoo, cacheDir)
		require.Equal(t, CacheStats{Hits: n}, stats, "the entries were rewritten")
		require.Equal(t, string(want), string(got))
	})
}

func TestCacheDirectoryNotWritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err := Run(context.Background(), Options{Paths: []string{file}, Targets: []string{"musa"}, Cache: file})
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	require.ErrorContains(t, err, "--cache "+file+": cannot create the cache directory: not a directory")
}
