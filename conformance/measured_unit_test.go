package conformance

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDocDiffs(t *testing.T) {
	gen := "## Models\n| a | " + measured("within tolerance") + " | 2 | " + measured("3") + " |\nafter\n"
	tests := []struct {
		name, committed string
		diffs           int
	}{
		{"the same figures", "## Models\n| a | within tolerance | 2 | 3 |\nafter\n", 0},
		{"other measured figures", "## Models\n| a | bit-identical | 2 | 0 |\nafter\n", 0},
		{"a fixed cell moved", "## Models\n| a | within tolerance | 3 | 3 |\nafter\n", 1},
		{"a measured figure spilling into the next cell", "## Models\n| a | within | tolerance | 2 | 3 |\nafter\n", 1},
		{"a plain line moved", "## Models\n| a | within tolerance | 2 | 3 |\nbefore\n", 1},
		{"a line more", "## Models\n| a | within tolerance | 2 | 3 |\nafter\nmore\n", 2}, // the count and the first line apart
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Len(t, docDiffs(tt.committed, gen), tt.diffs)
		})
	}
	assert.Equal(t, "## Models\n| a | within tolerance | 2 | 3 |\nafter\n", unmark(gen))
	assert.Panics(t, func() { measured("a | b") })
}
