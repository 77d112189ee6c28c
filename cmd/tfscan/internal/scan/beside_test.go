package scan

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/internal/testutil"
)

// A scan of one target places the --from source beside it, on a goroutine
// of its own, and reports byte for byte what placing one after the other
// reports, on the whole corpus, with auto mixed precision, cleared devices
// and hard placement. make test runs it under the race detector too.
func TestBesideReportsAsOneAtATime(t *testing.T) {
	corpus := testutil.Corpus(t)
	for _, c := range []struct {
		name, target, from string
		placement          PlacementOptions
	}{
		{"musa", "musa", "cuda", PlacementOptions{}},
		{"ascend-cleared", "ascend", "cuda", PlacementOptions{ClearDevices: true}},
		{"rocm-amp-hard", "rocm", "intel-xpu", PlacementOptions{Precision: "mixed_float16", NoSoftPlacement: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := Options{Paths: []string{corpus}, Targets: []string{c.target}, From: c.from, Version: "test", Placement: c.placement}
			ts, err := ResolveTargets(opts.Targets, nil)
			require.NoError(t, err)
			require.NoError(t, ts.SetFrom(c.from))
			require.True(t, placesBeside(ts, ts.fromTarget(), opts), "the case places side by side")
			_, beside := runJSON(t, opts)
			opts.oneAtATime = true
			_, one := runJSON(t, opts)
			require.Equal(t, string(one), string(beside))
		})
	}
}
