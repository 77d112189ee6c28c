package format

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/jsonout"
	"github.com/tfscan/tfscan/reports/reportstest"
)

// The rewrite section in every writer that shows it, and check's mention
// of what a rewrite would remove.
func TestRewriteGolden(t *testing.T) {
	s := reportstest.CompileSchema(t, "report.schema.json", reports.Schema())
	for _, format := range []string{"table", "json", "markdown", "html"} {
		t.Run(format, func(t *testing.T) {
			b := writeGolden(t, format, "rewrite", reportstest.Rewritten())
			if format == "json" {
				require.NoError(t, reportstest.Validate(t, s, b))
			}
		})
	}

	preview := reportstest.Fixture()
	n := 2
	preview.Models[1].Targets[1].RewriteRemovesFallback = &n
	for _, format := range []string{"table", "markdown", "html"} {
		w, err := Writer(format)
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, w(&b, preview))
		assert.Contains(t, b.String(), "would remove 2 fallback node(s)", format)
	}
	var b bytes.Buffer
	require.NoError(t, jsonout.WriteJSON(&b, preview))
	require.NoError(t, reportstest.Validate(t, s, b.Bytes()))
	var back reports.Report
	require.NoError(t, json.Unmarshal(b.Bytes(), &back))
	var found []int
	for _, m := range back.Models {
		for _, t := range m.Targets {
			if t.RewriteRemovesFallback != nil {
				found = append(found, *t.RewriteRemovesFallback)
			}
		}
	}
	assert.Equal(t, []int{2}, found)
}

// The schema holds the rewrite section's fields: a report without a
// required one is refused.
func TestSchemaRejectsBadRewrite(t *testing.T) {
	s := reportstest.CompileSchema(t, "report.schema.json", reports.Schema())
	var b bytes.Buffer
	require.NoError(t, jsonout.WriteJSON(&b, reportstest.Rewritten()))
	for _, cut := range []string{`"proof": {`, `"exactness": "exact",`} {
		doc := b.String()
		require.Contains(t, doc, cut)
		bad := strings.Replace(doc, cut, strings.Replace(cut, `"`, `"x_`, 1), 1)
		assert.Error(t, reportstest.Validate(t, s, []byte(bad)), cut)
	}
}
