package shape

// outsShift sets the outputs a chunk of packedOuts holds: 16,384, 512 KiB.
const (
	outsShift = 14
	outsChunk = 1 << outsShift
)

// packedOuts are the packed outputs of the inferred nodes, addressed by
// one index each, in chunks of outsChunk (the first no longer than the
// graph asks for): memory grows with the outputs kept, which the nodes
// alike share (Shapes.inferred), rather than with the graph's nodes, and
// no output is copied as it grows. A node's outputs lie at consecutive
// indexes of one chunk, or of chunks cut from one array where they are
// more than a chunk holds.
type packedOuts struct {
	chunks [][]packed // output k is chunks[k>>outsShift][k&(outsChunk-1)]
	next   int        // the index the next node's outputs start at
}

// add makes room for m outputs and returns the index of the first; hint
// sizes the first chunk (the graph's nodes).
func (o *packedOuts) add(m, hint int) int {
	c, off := o.next>>outsShift, o.next&(outsChunk-1)
	if m == 0 || c < len(o.chunks) && off+m <= len(o.chunks[c]) {
		k := o.next
		o.next += m
		return k
	}
	if c < len(o.chunks) {
		c++ // the rest of chunk c stays unused
	}
	slots := (m + outsChunk - 1) >> outsShift
	size := slots << outsShift
	if c == 0 && slots == 1 {
		size = min(outsChunk, max(hint, m))
	}
	all := make([]packed, size)
	for len(all) > 0 {
		k := min(len(all), outsChunk)
		o.chunks = append(o.chunks, all[:k:k])
		all = all[k:]
	}
	o.next = c<<outsShift + m
	return c << outsShift
}

// at is output k, false for an index add never gave.
func (o *packedOuts) at(k int) (*packed, bool) {
	c, off := k>>outsShift, k&(outsChunk-1)
	if k < 0 || k >= o.next || c >= len(o.chunks) || off >= len(o.chunks[c]) {
		return nil, false
	}
	return &o.chunks[c][off], true
}
