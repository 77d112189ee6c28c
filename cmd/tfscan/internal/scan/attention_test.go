package scan

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/reports"
)

// TestAttentionListsNoWholeList checks that a scan that lists the nodes
// needing attention, picking them as it matches them (after placing the
// target, and the source without a node list), reports byte for byte what
// listing every node and then keeping those needing attention reports, on
// the whole corpus, with and without placement, with the source outside
// the targets, among them, and none.
func TestAttentionListsNoWholeList(t *testing.T) {
	corpus := testutil.Corpus(t)
	for _, c := range []struct {
		name      string
		targets   []string
		placement PlacementOptions
	}{
		{"no-placement", []string{"ascend", "cpu", "musa", "rocm", "xla"}, PlacementOptions{Disabled: true}},
		{"placement", []string{"cpu", "musa", "rocm"}, PlacementOptions{}},
		{"amp-hard", []string{"intel-xpu"}, PlacementOptions{Precision: "mixed_float16", NoSoftPlacement: true}},
	} {
		for _, from := range []string{"cuda", "rocm", "none"} {
			t.Run(c.name+"/"+from, func(t *testing.T) {
				opts := Options{Paths: []string{corpus}, Targets: c.targets, From: from, Version: "test", Placement: c.placement}
				rep, early := runJSON(t, opts)
				opts.listEvery = true
				_, every := runJSON(t, opts)
				require.Equal(t, string(every), string(early))
				placed, amp := 0, 0
				for _, m := range rep.Models {
					for _, tg := range m.Targets {
						if tg.Placement != nil {
							amp += len(tg.Placement.AMP)
						}
						for _, n := range tg.Nodes {
							if n.Device != "" && reports.IsCovered(n.Reason) {
								placed++ // listed for its device, not its coverage
							}
						}
					}
				}
				if !c.placement.Disabled {
					assert.Positive(t, placed)
				}
				if c.placement.Precision != "" {
					assert.Positive(t, amp)
				}
				if from == "none" {
					return
				}
				// Not vacuous: some nodes are listed only for the delta.
				changed := 0
				for _, m := range rep.Models {
					for _, tg := range m.Targets {
						for _, n := range tg.Nodes {
							if n.Change == reports.ChangeBetterOnTarget || n.Change == reports.ChangeAlreadyOnCPU && reports.IsCovered(n.Reason) {
								changed++
							}
						}
					}
				}
				assert.Positive(t, changed)
			})
		}
	}
}

func runJSON(t *testing.T, opts Options) (*reports.Report, []byte) {
	t.Helper()
	rep, err := Run(context.Background(), opts)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, reports.WriteJSON(&b, rep))
	return rep, b.Bytes()
}
