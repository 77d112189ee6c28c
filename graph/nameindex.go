package graph

import (
	"hash/maphash"
	"math/bits"
)

// nameIndex finds top-level nodes by name: an open-addressing table,
// probed linearly and at most half full, whose slots hold a node's
// position in the build's node store (plus one; 0 is empty) beside the
// high half of its name's hash, so that a probe reads a node only when
// the halves agree. It holds 16 to 32 bytes a node where a
// map[string]*Node holds about 55 (a flat graph of 1,000,000 nodes:
// 16 MiB against 53 MiB), and a name is hashed once for an insertion and
// its duplicate check together.
type nameIndex struct {
	seed  maphash.Seed
	slots []uint64
	nodes []Node
}

// newNameIndex makes an index for up to n nodes of the store nodes.
func newNameIndex(nodes []Node, n int) *nameIndex {
	size := 1 << bits.Len(uint(max(2*n, 8)-1))
	return &nameIndex{seed: maphash.MakeSeed(), slots: make([]uint64, size), nodes: nodes}
}

// add enters the node at position i of the store under its name unless a
// node of that name is there, which it returns.
func (x *nameIndex) add(i int) *Node {
	name := x.nodes[i].Name
	h := maphash.String(x.seed, name)
	tag, mask := h>>32<<32, len(x.slots)-1
	for k := int(h) & mask; ; k = (k + 1) & mask {
		s := x.slots[k]
		if s == 0 {
			x.slots[k] = tag | uint64(i+1)
			return nil
		}
		if s&^(1<<32-1) == tag {
			if n := &x.nodes[uint32(s)-1]; n.Name == name {
				return n
			}
		}
	}
}

// get returns the node of that name, nil if none.
func (x *nameIndex) get(name string) *Node {
	h := maphash.String(x.seed, name)
	tag, mask := h>>32<<32, len(x.slots)-1
	for k := int(h) & mask; ; k = (k + 1) & mask {
		s := x.slots[k]
		if s == 0 {
			return nil
		}
		if s&^(1<<32-1) == tag {
			if n := &x.nodes[uint32(s)-1]; n.Name == name {
				return n
			}
		}
	}
}
