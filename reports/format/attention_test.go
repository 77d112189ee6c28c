package format

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/reportstest"
)

// What the list drops changes no figure: every writer but JSON and HTML
// (which list the nodes) writes the same bytes. The HTML's charts and
// matrix (html's TestAttentionKeepsCharts) and the gate's decisions
// (gate's TestAttentionKeepsGate) are the same too.
func TestAttentionKeepsAggregates(t *testing.T) {
	all, att := reportstest.Fixture(), reportstest.Attention()
	dropped := 0
	for i, m := range all.Models {
		for j, t := range m.Targets {
			dropped += len(t.Nodes) - len(att.Models[i].Targets[j].Nodes)
		}
	}
	require.Positive(t, dropped, "the fixture has nodes that need no attention")
	require.Equal(t, []reports.NodeResult{}, att.Models[0].Targets[1].Nodes, "tiny.pbtxt is covered everywhere, nothing to list")

	for _, format := range []string{"table", "markdown", "sarif", "junit"} {
		w, err := Writer(format)
		require.NoError(t, err)
		var a, b bytes.Buffer
		require.NoError(t, w(&a, reportstest.Fixture()))
		require.NoError(t, w(&b, reportstest.Attention()))
		require.Equal(t, a.String(), b.String(), format)
	}
	for i, m := range all.Models {
		for j, t0 := range m.Targets {
			require.Equal(t, t0.FallbackNodes(), att.Models[i].Targets[j].FallbackNodes())
		}
	}
}

// A report that lists only the nodes that need attention validates, and
// says so.
func TestAttentionGolden(t *testing.T) {
	s := reportstest.CompileSchema(t, "report.schema.json", reports.Schema())
	for _, format := range []string{"json", "html"} {
		b := writeGolden(t, format, "attention", reportstest.Attention())
		if format == "json" {
			require.NoError(t, reportstest.Validate(t, s, b))
			require.Contains(t, string(b), `"nodes": "attention"`)
		} else {
			require.Contains(t, string(b), "scan with <code>--nodes all</code> to list every node")
		}
	}
}
