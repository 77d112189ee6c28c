package scan

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/reports"
	"github.com/tfscan/tfscan/reports/jsonout"
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
		phases    []string
	}{
		{"no-placement", []string{"ascend", "cpu", "musa", "rocm", "xla"}, PlacementOptions{Disabled: true}, nil},
		{"placement", []string{"cpu", "musa", "rocm"}, PlacementOptions{}, nil},
		{"amp-hard", []string{"intel-xpu"}, PlacementOptions{Precision: "mixed_float16", NoSoftPlacement: true}, nil},
		{"cleared-all-phases", []string{"musa", "ascend"}, PlacementOptions{ClearDevices: true}, []string{"all"}},
	} {
		for _, from := range []string{"cuda", "rocm", "none"} {
			t.Run(c.name+"/"+from, func(t *testing.T) {
				opts := Options{Paths: []string{corpus}, Targets: c.targets, From: from, Version: "test", Placement: c.placement,
					Phases: c.phases}
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

// A scan of one signature (a scope smaller than the model) chooses its
// nodes alike.
func TestAttentionListsNoWholeListOfASignature(t *testing.T) {
	model := filepath.Join(testutil.Corpus(t), "tf", "sm_half_plus_two_v1")
	for _, placement := range []PlacementOptions{{Disabled: true}, {}} {
		opts := Options{Paths: []string{model}, Targets: []string{"musa", "ascend"}, Version: "test",
			Signature: "classify_x2_to_y3", Placement: placement}
		_, early := runJSON(t, opts)
		opts.listEvery = true
		_, every := runJSON(t, opts)
		require.Equal(t, string(every), string(early))
	}
}

func runJSON(t *testing.T, opts Options) (*reports.Report, []byte) {
	t.Helper()
	rep, err := Run(context.Background(), opts)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, jsonout.WriteJSON(&b, rep))
	return rep, b.Bytes()
}
