// Package render holds the phrases, figures and rows that more than one
// writer prints, so that the table, Markdown, HTML, JUnit and the gate say
// the same thing the same way.
package render

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tfscan/tfscan/reports"
)

// PlacementErrorLine is the one-line summary of a placement error for the
// terminal: its first line (the Registered kernels section and the like
// stay in the JSON and HTML reports), said to apply with or without soft
// placement as simulated.
func PlacementErrorLine(pl *reports.Placement) string {
	first, rest, _ := strings.Cut(pl.Error, "\n")
	lead := "TensorFlow fails to place the model even with soft placement: "
	if !pl.SoftPlacement {
		lead = "without soft placement, TensorFlow fails: "
	}
	if rest != "" {
		first += fmt.Sprintf(" (%d more line(s) in the JSON report)", strings.Count(rest, "\n")+1)
	}
	return lead + first
}

// PinList names the device fields of pinned nodes with their counts, most
// frequent first, at most three.
func PinList(byDevice map[string]int) string {
	devs := slices.Sorted(maps.Keys(byDevice))
	slices.SortStableFunc(devs, func(a, b string) int { return byDevice[b] - byDevice[a] })
	parts := make([]string, 0, 4)
	for i, d := range devs {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("%d more", len(devs)-3))
			break
		}
		parts = append(parts, fmt.Sprintf("%d× %s", byDevice[d], d))
	}
	return strings.Join(parts, ", ")
}
