package graph

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNameIndex checks the index against a map over names that repeat,
// with the table as full as it gets, so that probes wrap and collide.
func TestNameIndex(t *testing.T) {
	for _, n := range []int{1, 3, 8, 100, 5000} {
		store := make([]Node, n)
		for i := range store {
			store[i] = Node{ID: i, Name: fmt.Sprintf("n%d", i%(n/2+1))}
		}
		x := newNameIndex(store, n)
		first := map[string]*Node{}
		for i := range store {
			dup := x.add(i)
			want, seen := first[store[i].Name]
			if !seen {
				first[store[i].Name] = &store[i]
			}
			assert.Equal(t, want, dup, "n=%d add %d", n, i)
		}
		for name, want := range first {
			assert.Same(t, want, x.get(name), "n=%d get %s", n, name)
		}
		assert.Nil(t, x.get("absent"))
		assert.Nil(t, x.get(""))
	}
}
