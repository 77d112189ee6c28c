package csr

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

type kv struct{ k, v int }

// randomAdds is a random count of keys and values to add to them, up to
// most values (some keys empty, some repeated).
func randomAdds(rng *rand.Rand, keys, most int) (int, []kv) {
	n := rng.IntN(keys)
	var adds []kv
	if n > 0 {
		for i := rng.IntN(most); i > 0; i-- {
			adds = append(adds, kv{rng.IntN(n), rng.Int()})
		}
	}
	return n, adds
}

// TestBuildGroupsInOrder compares Build with appending each value to its
// key's own slice, on random keys (some keys empty, some repeated).
func TestBuildGroupsInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 100; round++ {
		n, adds := randomAdds(rng, 20, 60)
		want := make([][]int, n)
		for _, a := range adds {
			want[a.k] = append(want[a.k], a.v)
		}
		g := Build(n, func(add func(int, int)) {
			for _, a := range adds {
				add(a.k, a.v)
			}
		})
		require.Equal(t, n, g.Keys())
		for k := range n {
			require.Equal(t, len(want[k]), len(g.Of(k)), "round %d key %d", round, k)
			for i, v := range want[k] {
				require.Equal(t, v, g.Of(k)[i])
			}
			require.Equal(t, len(g.Of(k)), cap(g.Of(k)), "a key's values end where the next key's begin")
		}
	}
	require.Equal(t, 0, Groups[int]{}.Keys())
}

// Built into the arrays of earlier groups, larger and smaller, the groups
// are those Build makes.
func TestBuildReusingGroupsAsBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var old Groups[int]
	for round := 0; round < 100; round++ {
		n, adds := randomAdds(rng, 30, 90)
		each := func(add func(int, int)) {
			for _, a := range adds {
				add(a.k, a.v)
			}
		}
		want := Build(n, each)
		old = BuildReusing(old, n, each)
		require.Equal(t, want.Keys(), old.Keys(), "round %d", round)
		for k := range n {
			require.Equal(t, want.Of(k), old.Of(k), "round %d key %d", round, k)
		}
	}
}

// With the values counted by the caller, the groups are those Build makes,
// each added once.
func TestBuildCountedGroupsAsBuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := 0; round < 100; round++ {
		n, adds := randomAdds(rng, 30, 90)
		calls := 0
		each := func(add func(int, int)) {
			calls++
			for _, a := range adds {
				add(a.k, a.v)
			}
		}
		counts := make([]int32, n+1)
		for _, a := range adds {
			counts[a.k+1]++
		}
		// Into a new array, an array with room (kept) and one without.
		kind := round % 3
		if len(adds) == 0 {
			kind = 0
		}
		var items []int
		switch kind {
		case 1:
			items = make([]int, len(adds)+round%5)
		case 2:
			items = make([]int, max(0, len(adds)-1))
		}
		got := BuildCounted(counts, func(total int) []int {
			require.Equal(t, len(adds), total, "the counts' sum")
			return items
		}, each)
		require.Equal(t, 1, calls, "each is called once")
		if kind == 1 {
			k := 0
			for len(got.Of(k)) == 0 {
				k++
			}
			require.Same(t, &items[0], &got.Of(k)[0], "the values are kept in items")
		}
		want := Build(n, each)
		require.Equal(t, want.Keys(), got.Keys())
		for k := range n {
			require.Equal(t, want.Of(k), got.Of(k), "round %d key %d", round, k)
		}
	}
}
