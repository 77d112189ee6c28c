package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/reports"
)

// --nodes attention (the default) and --nodes all: both reports validate
// against the schema, the first lists fewer nodes, and the gate, its
// baseline comparison and every writer that lists no nodes say the same
// from either, scanned or from --results.
func TestNodesModes(t *testing.T) {
	models := filepath.Join(testutil.RepoRoot(), "testdata", "models")
	dir := t.TempDir()
	schema := reportSchema(t)

	scan := []string{"baseline", models, "--target", "musa,ascend,intel-xpu", "--dim", "batch=2"}
	listed := map[string]int{}
	for _, mode := range []string{"attention", "all"} {
		code, stderr := runCLI(t, dir, append(scan, "--nodes", mode, "-o", mode+".json")...)
		require.Equal(t, ExitOK, code, stderr)
		b, err := os.ReadFile(filepath.Join(dir, mode+".json"))
		require.NoError(t, err)
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		require.NoError(t, err)
		require.NoError(t, schema.Validate(v), mode)
		r, err := reports.ReadJSON(filepath.Join(dir, mode+".json"))
		require.NoError(t, err)
		require.Equal(t, mode, r.Options.Nodes)
		for _, m := range r.Models {
			for _, tg := range m.Targets {
				listed[mode] += len(tg.Nodes)
			}
		}
	}
	require.Positive(t, listed["attention"])
	require.Less(t, listed["attention"], listed["all"])

	gate := []string{"--max-fallback-nodes", "3", "--max-new-fallback-nodes", "0", "--fail-on", "unknown_op,no_kernel"}
	outputs := func(args ...string) string {
		var out strings.Builder
		code, stderr := runCLI(t, dir, append(append(args, gate...), "--format", "table=gate.txt", "--format", "markdown=gate.md", "--format", "junit=gate.xml", "--format", "sarif=gate.sarif")...)
		out.WriteString(stderr)
		out.WriteByte(byte('0' + code))
		for _, f := range []string{"gate.txt", "gate.md", "gate.xml", "gate.sarif"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			require.NoError(t, err)
			out.Write(b)
		}
		return out.String()
	}
	want := outputs("check", "--results", "all.json")
	require.Contains(t, want, "gate failed")
	require.Equal(t, want, outputs("check", "--results", "attention.json"))
	// A fresh check adds rewrite's preview, which a report written by
	// baseline does not hold: without it the outputs agree, and the check's
	// own report read back gives the same preview.
	fresh := outputs("check", models, "--target", "musa,ascend,intel-xpu", "--dim", "batch=2", "--format", "json=check.json")
	require.Contains(t, fresh, "would remove")
	require.Equal(t, want, rewritePreview.ReplaceAllString(fresh, ""))
	require.Equal(t, fresh, outputs("check", "--results", "check.json"))
	against := outputs("check", "--results", "all.json", "--baseline", "all.json")
	require.Equal(t, against, outputs("check", "--results", "attention.json", "--baseline", "all.json"))
	require.Equal(t, against, outputs("check", "--results", "attention.json", "--baseline", "attention.json"))
	require.Equal(t, against, outputs("check", "--results", "all.json", "--baseline", "attention.json"))
}

// rewritePreview matches check's "tfscan rewrite would remove N" lines in
// the table and Markdown views.
var rewritePreview = regexp.MustCompile("(\n[^\n]*tfscan rewrite would remove[^\n]*|\n\n\\*\\*[a-z-]+\\*\\* — `tfscan rewrite` would remove[^\n]*)")

// reportSchema is the embedded JSON Schema of the report, compiled.
func reportSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(reports.Schema()))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("report.schema.json", doc))
	s, err := c.Compile("report.schema.json")
	require.NoError(t, err)
	return s
}
