package scan

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/internal/testutil"
)

// A scan makes what its placements share ahead, on goroutines of its own,
// with one target places the --from source beside it, and with more reads
// each placement behind the next; it reports byte for byte what making
// each step when needed, one after the other, reports, on the whole
// corpus, with auto mixed precision, cleared devices and hard placement,
// against one target and several, the source among them or not. make
// test runs it under the race detector too.
func TestAheadReportsAsOneAtATime(t *testing.T) {
	corpus := testutil.Corpus(t)
	for _, c := range []struct {
		name, from string
		targets    []string
		placement  PlacementOptions
		beside     bool
	}{
		{"musa", "cuda", []string{"musa"}, PlacementOptions{}, true},
		{"ascend-cleared", "cuda", []string{"ascend"}, PlacementOptions{ClearDevices: true}, true},
		{"rocm-amp-hard", "intel-xpu", []string{"rocm"}, PlacementOptions{Precision: "mixed_float16", NoSoftPlacement: true}, true},
		{"several", "cuda", []string{"ascend", "musa", "rocm"}, PlacementOptions{}, false},
		{"several-amp", "cuda", []string{"musa", "ascend", "intel-xpu"}, PlacementOptions{Precision: "mixed_bfloat16"}, false},
		{"source-among-targets", "cuda", []string{"musa", "cuda"}, PlacementOptions{ClearDevices: true}, false},
		{"no-source", "none", []string{"intel-xpu", "directml"}, PlacementOptions{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := Options{Paths: []string{corpus}, Targets: c.targets, From: c.from, Version: "test", Placement: c.placement}
			ts, err := ResolveTargets(opts.Targets, nil)
			require.NoError(t, err)
			require.NoError(t, ts.SetFrom(c.from))
			require.Equal(t, c.beside, placesBeside(ts, ts.fromTarget(), opts), "the case places side by side")
			require.Equal(t, !c.beside, readsBehind(ts, ts.fromTarget(), c.beside, true, opts), "the case reads each placement behind the next")
			_, ahead := runJSON(t, opts)
			opts.oneAtATime = true
			_, one := runJSON(t, opts)
			require.Equal(t, string(one), string(ahead))
		})
	}
}
