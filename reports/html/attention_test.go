package html

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/reports/reportstest"
)

// The HTML's charts and matrix are the same whether a report lists every
// node or only those that need attention.
func TestAttentionKeepsCharts(t *testing.T) {
	all, att := reportstest.Fixture(), reportstest.Attention()
	for i, m := range all.Models {
		am := att.Models[i]
		require.Equal(t, buildMatrix(m), buildMatrix(am), m.Path)
		for j, t0 := range m.Targets {
			require.Equal(t, coverageSegments(t0), coverageSegments(am.Targets[j]), "%s on %s", m.Path, t0.Target)
		}
	}

}
