package slab

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Values and slices handed out are zeroed, never overlap, and cannot be
// appended into a neighbour, across chunk boundaries and for lengths above
// what a chunk serves.
func TestValuesNeverOverlap(t *testing.T) {
	var s Of[[3]int64]
	seen := map[*[3]int64]bool{}
	for i := 0; i < 5000; i++ {
		n := i % 7
		if i%1000 == 999 {
			n = maxTake + 1
		}
		xs := s.Take(n)
		assert.Equal(t, n, len(xs))
		assert.Equal(t, n, cap(xs))
		for k := range xs {
			assert.Equal(t, [3]int64{}, xs[k])
			assert.False(t, seen[&xs[k]], "value handed out twice")
			seen[&xs[k]] = true
			xs[k] = [3]int64{int64(i), 1, 1}
		}
		p := s.New()
		assert.Equal(t, [3]int64{}, *p)
		assert.False(t, seen[p], "value handed out twice")
		seen[p] = true
		*p = [3]int64{-1, -1, -1}
	}
}

func TestZeroSized(t *testing.T) {
	var s Of[struct{}]
	assert.NotNil(t, s.New())
	assert.Len(t, s.Take(3), 3)
}
