// Package csr groups values by a small integer key in one array
// (compressed sparse rows): a graph's consumers by producer, a placement
// node's out edges, the members of each colocation group. A model of
// 200,000 nodes would otherwise grow a slice per key, and keep as many
// slice headers.
package csr

import "github.com/tfscan/tfscan/internal/hugepage"

// Groups are values grouped by a key in [0, Keys()): key k's lie in the
// order they were added. The zero value has no keys.
type Groups[T any] struct {
	// start[k] is where key k's values begin in items, start[Keys()] the
	// end of the last.
	start []int32
	items []T
}

// Build groups the values each adds under keys in [0, n). It calls each
// twice, to count and then to fill, and each must add the same values in
// the same order both times.
func Build[T any](n int, each func(add func(key int, v T))) Groups[T] {
	return BuildReusing(Groups[T]{}, n, each)
}

// BuildReusing is Build into the arrays of old where they are large
// enough: old is overwritten. A caller that builds groups of one size
// again and again, each done with before the next, keeps one set.
func BuildReusing[T any](old Groups[T], n int, each func(add func(key int, v T))) Groups[T] {
	var start []int32
	if cap(old.start) >= n+1 {
		start = old.start[:n+1]
		clear(start)
	} else {
		start = make([]int32, n+1)
		hugepage.Advise(start)
	}
	each(func(k int, _ T) { start[k+1]++ })
	return fill(start, func(int) []T { return old.items }, each)
}

// BuildCounted is Build where the caller has counted the values: counts
// has n+1 elements, counts[k+1] the number of values of key k (counts[0]
// is 0), and each is called once, to fill. The groups keep counts, and
// the values are kept in the array items gives for their number, the
// counts' sum, where its capacity holds them all (nil: a new array).
func BuildCounted[T any](counts []int32, items func(total int) []T, each func(add func(key int, v T))) Groups[T] {
	return fill(counts, items, each)
}

// fill makes the groups of the values each adds, counted in start (key
// k's at start[k+1]), into the array room gives for their number where it
// is large enough (nil room: a new array).
func fill[T any](start []int32, room func(total int) []T, each func(add func(key int, v T))) Groups[T] {
	n := len(start) - 1
	for k := 0; k < n; k++ {
		start[k+1] += start[k]
	}
	var items []T
	if room != nil {
		items = room(int(start[n]))
	}
	if cap(items) >= int(start[n]) {
		items = items[:start[n]] // every element is set below
	} else {
		items = make([]T, start[n])
		hugepage.Advise(items)
	}
	// During the fill start[k] is key k's next free slot; after it, the
	// start of key k+1: shifted back into place below.
	each(func(k int, v T) {
		items[start[k]] = v
		start[k]++
	})
	copy(start[1:], start[:n])
	start[0] = 0
	return Groups[T]{start: start, items: items}
}

// Keys is the number of keys, 0 for the zero value.
func (g Groups[T]) Keys() int { return max(len(g.start)-1, 0) }

// Of is key k's values, shared: read them, do not append to them.
func (g Groups[T]) Of(k int) []T {
	a, b := g.start[k], g.start[k+1]
	return g.items[a:b:b]
}
