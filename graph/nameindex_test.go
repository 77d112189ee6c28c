package graph

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNameIndex checks the index, of either slot width and filled one
// node at a time or all at once (addAll), against a map over names that
// repeat, with the table as full as it gets, so that probes wrap and
// collide.
func TestNameIndex(t *testing.T) {
	for _, c := range []struct {
		n    int
		wide bool
	}{{1, false}, {3, false}, {8, false}, {100, false}, {5000, false}, {3, true}, {100, true}, {5000, true}} {
		n := c.n
		store := make([]Node, n)
		for i := range store {
			store[i] = Node{ID: i, Name: fmt.Sprintf("n%d", i%(n/2+1))}
		}
		x := newNameIndexOf(store, n, c.wide)
		first := map[string]*Node{}
		for i := range store {
			dup := x.add(i)
			want, seen := first[store[i].Name]
			if !seen {
				first[store[i].Name] = &store[i]
			}
			assert.Equal(t, want, dup, "n=%d wide=%v add %d", n, c.wide, i)
		}
		for name, want := range first {
			assert.Same(t, want, x.get(name), "n=%d wide=%v get %s", n, c.wide, name)
		}
		assert.Nil(t, x.get("absent"))
		assert.Nil(t, x.get(""))

		// addAll enters them all at once, with the same result.
		all := newNameIndexOf(store, n, c.wide)
		dups := all.addAll(n)
		seen := map[string]bool{}
		for i := range store {
			var want *Node
			if seen[store[i].Name] {
				want = first[store[i].Name]
			}
			seen[store[i].Name] = true
			assert.Equal(t, want, dups[i], "n=%d wide=%v addAll %d", n, c.wide, i)
		}
		for name, want := range first {
			assert.Same(t, want, all.get(name), "n=%d wide=%v addAll get %s", n, c.wide, name)
		}
		assert.Nil(t, all.get("absent"))
	}
}
