package gate

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/reportstest"
)

// The gate decides the same whether a report lists every node or only those
// that need attention, with and without a baseline of either kind.
func TestAttentionKeepsGate(t *testing.T) {
	policies := map[string]Policy{
		"none":     {},
		"coverage": {Thresholds: Thresholds{MinCoverage: ptr(90.0)}},
		"fallback": {Thresholds: Thresholds{MaxFallbackNodes: ptr(0), MaxNewFallbackNodes: ptr(1)}},
		"fail_on":  {Thresholds: Thresholds{FailOn: []string{reports.ReasonLabelMismatch, reports.ReasonNoKernel, reports.ReasonCoveredDefault, reports.KindUnsafeOp, reports.ChangeNewFallback}}},
		"ignores": {Thresholds: Thresholds{MinCoverage: ptr(80.0), MaxNewFallbackNodes: ptr(0)},
			Ignore: []IgnoreRule{{Op: "Erf"}, {Node: "model/pool/*", Target: "musa"}}},
	}
	for name, p := range policies {
		for _, base := range []struct {
			name     string
			all, att *reports.Report
		}{{"no baseline", nil, nil}, {"baseline", gateFixture(), withoutPlacementErrors(reportstest.Attention())}} {
			want := EvaluateGate(reportstest.Fixture(), p, base.all, today)
			require.Equal(t, want, EvaluateGate(reportstest.Attention(), p, base.att, today), "%s, %s", name, base.name)
			if base.all != nil {
				require.Equal(t, want, EvaluateGate(reportstest.Attention(), p, base.all, today), "%s, a baseline listing every node", name)
			}
		}
	}
}
