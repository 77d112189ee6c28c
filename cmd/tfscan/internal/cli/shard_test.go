package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/reports"
)

// The corpus and the generated models, split into 4 shards, scanned shard
// by shard and merged, give the report one run over all of them gives,
// byte for byte; check --results gates the merged report as check gates a
// scan.
func TestShardsMergeToTheSingleRun(t *testing.T) {
	corpus := testutil.Corpus(t)
	models := filepath.Join(testutil.RepoRoot(), "testdata", "models")
	dir := t.TempDir()
	scanArgs := []string{"scan", corpus, models, "--target", "intel-xpu,musa,ascend", "--dim", "batch=4"}

	code, stderr := runCLI(t, dir, append(scanArgs, "--format", "json=all.json")...)
	require.Equal(t, ExitInput, code, "the corpus holds a model TensorFlow refuses: %s", stderr)
	single, err := os.ReadFile(filepath.Join(dir, "all.json"))
	require.NoError(t, err)

	const n = 4
	shards := []string{"merge"}
	total := 0
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("shard%d.json", i)
		code, stderr := runCLI(t, dir, append(scanArgs, "--shard", fmt.Sprintf("%d/%d", i, n), "--format", "json="+name)...)
		require.Contains(t, []int{ExitOK, ExitInput}, code, stderr)
		r, err := reports.ReadJSON(filepath.Join(dir, name))
		require.NoError(t, err)
		require.Equal(t, &reports.Shard{Index: i, Count: n}, r.Options.Shard)
		// a real split: no shard takes (nearly) everything
		require.Less(t, len(r.Models)+len(r.Errors), 15, "shard %d", i)
		total += len(r.Models) + len(r.Errors)
		shards = append(shards, name)
	}
	code, stderr = runCLI(t, dir, append(shards, "-o", "merged.json")...)
	require.Equal(t, ExitOK, code, stderr)
	merged, err := os.ReadFile(filepath.Join(dir, "merged.json"))
	require.NoError(t, err)
	require.Equal(t, string(single), string(merged))
	var whole reports.Report
	require.NoError(t, json.Unmarshal(single, &whole))
	require.Equal(t, len(whole.Models)+len(whole.Errors), total, "every model in exactly one shard")

	// check --results on the merged report = check on a scan.
	gate := []string{"--max-fallback-nodes", "50", "--fail-on", "unknown_op"}
	_, scanned := runCLI(t, dir, append(append([]string{"check", corpus, models, "--target", "intel-xpu,musa,ascend", "--dim", "batch=4"}, gate...), "--format", "json=checked.json")...)
	code2, fromResults := runCLI(t, dir, append(append([]string{"check", "--results", "merged.json"}, gate...), "--format", "json=gated.json")...)
	require.Equal(t, ExitInput, code2, "a model could not be scanned: 3 wins over the gate")
	require.Equal(t, scanned, fromResults)
	checked, err := os.ReadFile(filepath.Join(dir, "checked.json"))
	require.NoError(t, err)
	gated, err := os.ReadFile(filepath.Join(dir, "gated.json"))
	require.NoError(t, err)
	// check's rewrite preview needs the models, which check --results does
	// not read: the merged report has none, and the rest is the same.
	require.Contains(t, string(checked), `"rewrite_removes_fallback_nodes"`)
	require.NotContains(t, string(gated), `"rewrite_removes_fallback_nodes"`)
	require.Equal(t, withoutRewritePreview(string(checked)), string(gated))
	require.Contains(t, string(gated), `"rule": "fail_on"`)
}

// withoutRewritePreview drops check's rewrite preview lines from a JSON
// report.
func withoutRewritePreview(report string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(report, "\n") {
		if !strings.Contains(line, `"rewrite_removes_fallback_nodes"`) {
			b.WriteString(line)
		}
	}
	return b.String()
}

// The shard of a model depends on its path relative to the path given, not
// on where the checkout is.
func TestShardKeyIsRelative(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	src := filepath.Join(testutil.RepoRoot(), "testdata", "models")
	for _, d := range []string{a, b} {
		require.NoError(t, os.CopyFS(filepath.Join(d, "checkout", "models"), os.DirFS(src)))
	}
	paths := func(root string) []string {
		models := filepath.Join(root, "models")
		code, stderr := runCLI(t, root, "scan", models, "--target", "musa", "--no-placement", "--shard", "3/3", "--format", "json=s.json")
		require.Equal(t, ExitOK, code, stderr)
		r, err := reports.ReadJSON(filepath.Join(root, "s.json"))
		require.NoError(t, err)
		var out []string
		for _, m := range r.Models {
			rel, err := filepath.Rel(models, m.Path)
			require.NoError(t, err)
			out = append(out, rel)
		}
		return out
	}
	got := paths(filepath.Join(a, "checkout"))
	require.NotEmpty(t, got)
	require.Equal(t, got, paths(filepath.Join(b, "checkout")))
}
