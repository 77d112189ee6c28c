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

// TestAttentionWithoutPlacementListsNoWholeList checks that a scan without
// placement, which picks the nodes needing attention as it matches them
// (and the source without a node list), reports byte for byte what listing
// every node and then keeping those needing attention reports, on the
// whole corpus with the source outside the targets, among them, and none.
func TestAttentionWithoutPlacementListsNoWholeList(t *testing.T) {
	corpus := testutil.Corpus(t)
	targets := []string{"ascend", "cpu", "musa", "rocm", "xla"}
	for _, from := range []string{"cuda", "rocm", "none"} {
		t.Run(from, func(t *testing.T) {
			opts := Options{Paths: []string{corpus}, Targets: targets, From: from, Version: "test",
				Placement: PlacementOptions{Disabled: true}}
			rep, early := runJSON(t, opts)
			opts.listEvery = true
			_, every := runJSON(t, opts)
			require.Equal(t, string(every), string(early))
			if from == "none" {
				return
			}
			// Not vacuous: some listed nodes are there only for the delta.
			changed := 0
			for _, m := range rep.Models {
				for _, tg := range m.Targets {
					for _, n := range tg.Nodes {
						if n.Change == reports.ChangeBetterOnTarget {
							changed++
						}
					}
				}
			}
			assert.Positive(t, changed)
		})
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
