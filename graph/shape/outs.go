package shape

// outsShift sets the outputs a chunk of packedOuts holds: 16,384, 512 KiB.
const (
	outsShift = 14
	outsChunk = 1 << outsShift
)

// packedOuts are the packed outputs of the inferred nodes, addressed by
// one index each, in chunks of outsChunk (the first no longer than first):
// memory grows with the outputs kept, which the nodes alike share
// (Shapes.inferred), rather than with the graph's nodes, and no output is
// copied as it grows. A node's outputs lie at consecutive indexes of one
// chunk, or of chunks cut from one array where they are more than a chunk
// holds.
type packedOuts struct {
	chunks [][]packed // output k is chunks[k>>outsShift][k&(outsChunk-1)]
	next   int        // the index the next node's outputs start at
	first  int        // the first chunk's length at most (the graph's nodes)
}

// add makes room for m outputs and returns the index of the first, and
// the m of them to fill.
func (o *packedOuts) add(m int) (int, []packed) {
	c, off := o.next>>outsShift, o.next&(outsChunk-1)
	if m == 0 || c < len(o.chunks) && off+m <= len(o.chunks[c]) {
		k := o.next
		o.next += m
		if m == 0 {
			return k, nil
		}
		return k, o.chunks[c][off : off+m : off+m]
	}
	if c < len(o.chunks) {
		c++ // the rest of chunk c stays unused
	}
	slots := (m + outsChunk - 1) >> outsShift
	size := slots << outsShift
	if c == 0 && slots == 1 {
		size = min(outsChunk, max(o.first, m))
	}
	all := make([]packed, size)
	for rest := all; len(rest) > 0; rest = rest[min(len(rest), outsChunk):] {
		k := min(len(rest), outsChunk)
		o.chunks = append(o.chunks, rest[:k:k])
	}
	o.next = c<<outsShift + m
	return c << outsShift, all[:m:m]
}

// at is output k, false for an index add never gave.
func (o *packedOuts) at(k int) (*packed, bool) {
	c, off := k>>outsShift, k&(outsChunk-1)
	if k < 0 || k >= o.next || c >= len(o.chunks) || off >= len(o.chunks[c]) {
		return nil, false
	}
	return &o.chunks[c][off], true
}
