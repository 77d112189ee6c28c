package html

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/reportstest"
)

func TestHTMLIsSelfContainedAndEscaped(t *testing.T) {
	r := reportstest.Fixture()
	evil := `</script><script>alert(1)</script>`
	r.Models[1].Targets[0].Nodes[0].Path = evil
	r.Models[1].Targets[0].Uncovered[0].Nodes = []string{evil}
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, r))
	out := b.String()
	require.False(t, strings.Contains(out, evil), "unescaped script in the page")
	require.Equal(t, 2, strings.Count(out, "<script"), "only the data element and the inline script")
	// No external resources: no src/href to another address (only in-page anchors).
	for _, m := range regexp.MustCompile(`(?i)(src|href)\s*=\s*"([^"]*)"`).FindAllStringSubmatch(out, -1) {
		require.True(t, strings.HasPrefix(m[2], "#"), "external reference %q", m[0])
	}
	require.NotRegexp(t, `(?i)https?://`, stripDataAndText(out))
	// The embedded JSON parses back.
	start := strings.Index(out, `id="tfscan-nodes">`) + len(`id="tfscan-nodes">`)
	end := strings.Index(out[start:], "</script>")
	var data nodeTables
	require.NoError(t, json.Unmarshal([]byte(out[start:start+end]), &data))
	require.Len(t, data.Models, 2)
	require.Equal(t, evil, data.Models[0].Rows[0][0])
}

// stripDataAndText removes the places where an address may legitimately
// appear as text (registry sources, the CSP meta tag's none).
func stripDataAndText(s string) string {
	s = regexp.MustCompile(`(?s)<script type="application/json".*?</script>`).ReplaceAllString(s, "")
	return regexp.MustCompile(`(?s)<code>.*?</code>`).ReplaceAllString(s, "")
}

// A 100,000-node model must render quickly and keep the DOM small: the node
// rows live in the JSON data, not in the page.
func TestHTMLLargeModel(t *testing.T) {
	if testing.Short() {
		t.Skip("large report")
	}
	r := reportstest.Big(100_000)
	var b bytes.Buffer
	require.NoError(t, WriteHTML(&b, r))
	out := b.String()
	require.Less(t, b.Len(), 40<<20)
	tables := regexp.MustCompile(`(?s)<table class="data" id="node-table">.*?</table>`).FindString(out)
	require.False(t, strings.Contains(tables, "<td>"), "node rows are drawn by the script, page by page")
}

// TestWriteHTMLExamples writes the fixture report, a 100,000-node report and
// a report with models that could not be scanned to $TFSCAN_HTML_OUT for tools/html_check (make html-check); it does
// nothing otherwise.
func TestWriteHTMLExamples(t *testing.T) {
	dir := os.Getenv("TFSCAN_HTML_OUT")
	if dir == "" {
		t.Skip("TFSCAN_HTML_OUT not set")
	}
	for name, r := range map[string]*reports.Report{"fixture.html": reportstest.Fixture(), "attention.html": reportstest.Attention(), "big.html": reportstest.Big(100_000), "errors.html": reportstest.Errors()} {
		var b bytes.Buffer
		require.NoError(t, WriteHTML(&b, r))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644))
	}
}
