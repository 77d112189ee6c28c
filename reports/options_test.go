package reports

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestOptionsSameResults(t *testing.T) {
	a := &Options{Targets: []string{"musa"}, From: "cuda", Phases: []string{"step"}, Shard: &Shard{1, 2}}
	b := &Options{Targets: []string{"musa"}, From: "cuda", Phases: []string{"step"}, Fetches: []string{}, Dims: map[string]int64{}}
	require.True(t, a.SameResults(b), "the shard and empty lists change nothing")
	b.From = "none"
	require.False(t, a.SameResults(b))
	require.Equal(t, []string{"from"}, a.Differences(b))
}
