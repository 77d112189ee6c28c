package graph

import (
	"hash/maphash"
	"math/bits"
)

// nameIndex finds top-level nodes by name: an open-addressing table of
// positions in the build's node store (plus one; 0 is empty), probed linearly and at most
// half full. It holds 8 to 16 bytes a node where a map[string]*Node holds
// about 55 (a flat graph of 1,000,000 nodes: 8 MiB against 53 MiB), and a
// name is hashed once for an insertion and its duplicate check together.
type nameIndex struct {
	seed  maphash.Seed
	slots []int32
	nodes []Node
}

// newNameIndex makes an index for up to n nodes of the store nodes.
func newNameIndex(nodes []Node, n int) *nameIndex {
	size := 1 << bits.Len(uint(max(2*n, 8)-1))
	return &nameIndex{seed: maphash.MakeSeed(), slots: make([]int32, size), nodes: nodes}
}

// add enters the node at position i of the store under its name unless a
// node of that name is there, which it returns.
func (x *nameIndex) add(i int) *Node {
	name := x.nodes[i].Name
	mask := len(x.slots) - 1
	for k := int(maphash.String(x.seed, name)) & mask; ; k = (k + 1) & mask {
		s := x.slots[k]
		if s == 0 {
			x.slots[k] = int32(i + 1)
			return nil
		}
		if n := &x.nodes[s-1]; n.Name == name {
			return n
		}
	}
}

// get returns the node of that name, nil if none.
func (x *nameIndex) get(name string) *Node {
	mask := len(x.slots) - 1
	for k := int(maphash.String(x.seed, name)) & mask; ; k = (k + 1) & mask {
		s := x.slots[k]
		if s == 0 {
			return nil
		}
		if n := &x.nodes[s-1]; n.Name == name {
			return n
		}
	}
}
