package table

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/reportstest"
)

// TestTableFitsWidth: every line of the default view fits the width it is
// given, and the whole text of what was cut is in -v.
func TestTableFitsWidth(t *testing.T) {
	for _, width := range []int{40, 60, 80, 100, 132} {
		var b bytes.Buffer
		require.NoError(t, TableWriter(TableOptions{Width: width})(&b, reportstest.Fixture()))
		for i, line := range strings.Split(b.String(), "\n") {
			assert.LessOrEqual(t, runewidth.StringWidth(line), width, "width %d, line %d: %q", width, i+1, line)
		}
	}
	var wide bytes.Buffer
	require.NoError(t, TableWriter(TableOptions{Width: 500})(&wide, reportstest.Fixture()))
	assert.NotContains(t, wide.String(), "…", "nothing is cut when it fits")
}

// TestTableFortyModels: a scan of 40 models against one target, a few of
// them with new fallbacks, fits on two screens (2 × 50 lines).
func TestTableFortyModels(t *testing.T) {
	src := reportstest.Fixture().Models[1] // models/resnet, three targets, with a delta
	for _, targets := range [][]string{{"musa"}, {"musa", "ascend-910b", "cpu"}, {"ascend-910b"}} {
		r := &reports.Report{Tool: reports.Tool{Name: "tfscan", Version: "0.1.0-test"}}
		for i := range 40 {
			m := *src
			m.Path = fmt.Sprintf("repo/models/team-%02d/saved_model_dir", i)
			m.Findings = nil
			m.Targets = nil
			for _, name := range targets {
				tg := cloneTarget(targetOf(src, name))
				tg.Parity = nil // a scan has none
				if i%4 != 0 {
					// most models lose nothing on the way
					tg.Delta = &reports.Delta{Source: "cuda", AlreadyOnCPUNodes: 1}
					tg.Placement, tg.Fusions, tg.Islands, tg.Wishlist = nil, nil, nil, nil
				}
				m.Targets = append(m.Targets, tg)
			}
			r.Models = append(r.Models, &m)
		}
		var b bytes.Buffer
		require.NoError(t, WriteTable(&b, r))
		lines := strings.Count(b.String(), "\n")
		assert.LessOrEqual(t, lines, tableLines, "%v: %d lines:\n%s", targets, lines, b.String())
		assert.Contains(t, b.String(), "team-39", "every model is in the summary")
	}
}

func cloneTarget(t *reports.Target) *reports.Target {
	c := *t
	if t.Delta != nil {
		d := *t.Delta
		c.Delta = &d
	}
	return &c
}
