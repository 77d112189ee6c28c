package placement

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/internal/hugepage"
)

// A Scratch reserved for a graph's nodes lends what it reserved: the
// flattening fills its slabs and cuts its arrays (its node index and its
// nodes' flags among them) from the reserved block, the simulation takes
// its groups and arrays, and Beside gives the Scratch reserved beside it,
// once. The Results are those of simulations lent nothing.
func TestReservedArraysAreLent(t *testing.T) {
	g := buildGraph(t, graphText(
		placeholder("x", "DT_FLOAT", 2, 3),
		constNode("c", "DT_FLOAT", []int64{2, 3}),
		nd("a", "AddV2", in("x", "c"), ta("T", "DT_FLOAT")),
		nd("r", "Relu", in("a"), ta("T", "DT_FLOAT")),
		nd("s", "Softplus", in("r"), ta("T", "DT_FLOAT")),
	))
	reg := cpuOps + `
AddV2 GPU T=float32
Relu GPU T=float32
Const GPU dtype=float32
Placeholder DEFAULT
`
	tm, cm := matchers(t, "GPU", reg)
	want, err := Simulate(g, tm, cm, Options{})
	require.NoError(t, err)

	var sc Scratch
	sc.Reserve(Extent{Nodes: len(g.Nodes), Inputs: 2 * len(g.Nodes)}, true)
	slab, groups, parent := &sc.slabs[0][0], &sc.groups[0], &sc.int32s[lentParent][0]
	flat := sc.flatArrays.Rest()
	reserved := sc.beside
	require.NotNil(t, reserved)
	besideGroups := &reserved.groups[0]

	got, err := Simulate(g, tm, cm, Options{Scratch: &sc})
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Len(t, sc.slabs, 1)
	assert.Same(t, slab, &sc.slabs[0][0], "the flattening's slab")
	assert.Same(t, groups, &sc.groups[0], "the groups")
	assert.Same(t, parent, &sc.int32s[lentParent][0], "an int32 array")
	require.NotNil(t, sc.flat)
	assert.Same(t, (*int32)(unsafe.Pointer(&flat[0])), &sc.flat.firstOf[0], "the flattening's first array")
	assert.Less(t, sc.flatArrays.Free(), len(flat)-hugepage.Words[int32](len(g.Nodes)), "more than one array cut")
	inBlock := func(p unsafe.Pointer) bool {
		lo, hi := uintptr(unsafe.Pointer(&flat[0])), uintptr(unsafe.Pointer(&flat[len(flat)-1]))
		return uintptr(p) >= lo && uintptr(p) <= hi
	}
	assert.True(t, inBlock(unsafe.Pointer(&sc.flat.nodes[0].inst.nodes.pos[0])), "the top level's node index")
	require.NotEmpty(t, sc.flat.opFlags())
	assert.True(t, inBlock(unsafe.Pointer(&sc.flat.flags[0])), "the nodes' flags")
	assert.True(t, inBlock(unsafe.Pointer(&sc.flat.kinds[0])), "the nodes' kinds")

	b := sc.Beside()
	assert.Same(t, reserved, b)
	assert.NotSame(t, b, sc.Beside(), "given once")
	got, err = Simulate(g, tm, cm, Options{Scratch: b})
	require.NoError(t, err)
	assert.Equal(t, want, got)
	assert.Same(t, besideGroups, &b.groups[0])
}

// ReserveSize counts what Reserve allocates (the pacing of a scan's load
// allows for it), up to a slab.
func TestReserveSize(t *testing.T) {
	pnodeSize, groupSize := uint64(unsafe.Sizeof(pnode{})), uint64(unsafe.Sizeof(group{}))
	for _, e := range []Extent{{Nodes: 5000, Inputs: 9000}, {Nodes: 5000, Inputs: 9000, Functions: true}} {
		for _, beside := range []bool{false, true} {
			var sc Scratch
			sc.Reserve(e, beside)
			got := uint64(0)
			for _, s := range sc.slabs {
				got += uint64(len(s)) * pnodeSize
			}
			add := func(sc *Scratch) {
				assert.Len(t, sc.groups, lentRoom(e.Nodes, e.Functions))
				got += uint64(len(sc.groups))*groupSize + uint64(len(sc.int8s[lentDev]))
				for _, a := range sc.int32s {
					got += uint64(len(a)) * 4
				}
			}
			add(&sc)
			got += 8 * uint64(sc.flatArrays.Free())
			if beside {
				add(sc.beside)
			}
			want := ReserveSize(e, beside)
			assert.InDelta(t, float64(want), float64(got), float64(pnodeSlab*pnodeSize), "%+v, beside %v", e, beside)
		}
	}
}
