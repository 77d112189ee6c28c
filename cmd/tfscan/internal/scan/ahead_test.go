package scan

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The packs decoded ahead are those a scan reads besides its targets'.
func TestPacksAhead(t *testing.T) {
	noPlacement := PlacementOptions{Disabled: true}
	for _, tc := range []struct {
		name string
		opts Options
		want []string
	}{
		{"default", Options{Targets: []string{"musa"}, From: "cuda"}, []string{"cuda", "cpu"}},
		{"another source", Options{Targets: []string{"musa"}, From: "rocm"}, []string{"rocm", "cpu"}},
		{"no source: cuda for fusions", Options{Targets: []string{"musa"}, From: "none"}, []string{"cuda", "cpu"}},
		{"the source is a target", Options{Targets: []string{"musa", "cuda"}, From: "cuda"}, []string{"cpu"}},
		{"registry files", Options{Targets: []string{"musa"}, From: "cuda", Registries: []string{"r.json"}}, []string{"cpu"}},
		{"no placement", Options{Targets: []string{"musa"}, From: "cuda", Placement: noPlacement}, []string{"cuda"}},
		{"neither", Options{Targets: []string{"musa"}, From: "none", Placement: noPlacement}, nil},
	} {
		assert.Equal(t, tc.want, packsAhead(tc.opts), tc.name)
	}
}
