package shape

import (
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each node's outputs get their own consecutive elements, across chunk
// boundaries and for nodes with more outputs than a chunk holds; an index
// never given is refused; and what is allocated follows what is kept, not
// the hint past the first chunk.
func TestPackedOutsKeepEachNodesOutputsApart(t *testing.T) {
	for _, c := range []struct {
		name string
		hint int
		outs []int
	}{
		{"small graph", 10, []int{1, 0, 3, 1, 1, 1, 1, 1, 1, 1, 2}},
		{"past the first chunk", 5, []int{4, 4, 4}},
		{"chunk boundaries", 1 << 20, append(slices.Repeat([]int{1}, outsChunk-1), 2, 1, outsChunk, 3)},
		{"more than a chunk", 100, []int{1, 2*outsChunk + 5, 1, outsChunk + 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := packedOuts{first: c.hint}
			seen := map[*packed]bool{}
			starts := make([]int, len(c.outs))
			for n, m := range c.outs {
				var fill []packed
				starts[n], fill = o.add(m)
				require.Len(t, fill, m)
				for i := 0; i < m; i++ {
					p, ok := o.at(starts[n] + i)
					require.True(t, ok, "node %d output %d", n, i)
					assert.Same(t, &fill[i], p, "node %d output %d: filled where it is read", n, i)
					assert.False(t, seen[p], "node %d output %d given twice", n, i)
					seen[p] = true
					p.bits = uint32(n)
					first, _ := o.at(starts[n])
					assert.Equal(t, uintptr(unsafe.Pointer(first))+uintptr(i)*unsafe.Sizeof(packed{}), uintptr(unsafe.Pointer(p)), "node %d's outputs are consecutive", n)
				}
			}
			kept, held := 0, 0
			for n, m := range c.outs {
				kept += m
				for i := 0; i < m; i++ {
					p, _ := o.at(starts[n] + i)
					assert.Equal(t, uint32(n), p.bits)
				}
			}
			for _, ch := range o.chunks {
				held += len(ch)
			}
			assert.LessOrEqual(t, held, 2*kept+outsChunk)
			_, ok := o.at(o.next)
			assert.False(t, ok)
			_, ok = o.at(-1)
			assert.False(t, ok)
		})
	}
}

// The first chunk of a small graph's outputs is no larger than its nodes.
func TestPackedOutsFirstChunkFitsTheGraph(t *testing.T) {
	o := packedOuts{first: 26}
	o.add(1)
	require.Len(t, o.chunks, 1)
	assert.Equal(t, 26, len(o.chunks[0]))
}
