package graph

import (
	"hash/maphash"
	"math/bits"
)

// nameIndex finds top-level nodes by name: an open-addressing table,
// probed linearly and at most half full, whose slots hold a node's
// position in the build's node store (plus one; 0 is empty) beside high
// bits of its name's hash, so that a probe reads a node only when those
// agree. Up to narrowMax nodes a slot is 4 bytes (an 8-bit tag), beyond
// 8 (a 32-bit tag): 8 to 16 bytes a node where a map[string]*Node holds
// about 55 (a flat graph of 1,000,000 nodes: 8 MiB against 53 MiB), so
// that the table's pages, each touched first at random, are few. A name is
// hashed once for an insertion and its duplicate check together.
type nameIndex struct {
	seed   maphash.Seed
	narrow []uint32
	wide   []uint64
	nodes  []Node
}

// narrowMax is the most nodes an index of 4-byte slots holds: the low 24
// bits of a slot are the position.
const narrowMax = 1<<24 - 1

// newNameIndex makes an index for up to n nodes of the store nodes.
func newNameIndex(nodes []Node, n int) *nameIndex {
	return newNameIndexOf(nodes, n, n > narrowMax)
}

// newNameIndexOf is newNameIndex with the slots' width chosen.
func newNameIndexOf(nodes []Node, n int, wide bool) *nameIndex {
	size := 1 << bits.Len(uint(max(2*n, 8)-1))
	x := &nameIndex{seed: maphash.MakeSeed(), nodes: nodes}
	if wide {
		x.wide = make([]uint64, size)
	} else {
		x.narrow = make([]uint32, size)
	}
	return x
}

// add enters the node at position i of the store under its name unless a
// node of that name is there, which it returns.
func (x *nameIndex) add(i int) *Node {
	name := x.nodes[i].Name
	h := maphash.String(x.seed, name)
	if x.wide != nil {
		tag, mask := h>>32<<32, len(x.wide)-1
		for k := int(h) & mask; ; k = (k + 1) & mask {
			s := x.wide[k]
			if s == 0 {
				x.wide[k] = tag | uint64(i+1)
				return nil
			}
			if s&^(1<<32-1) == tag {
				if n := &x.nodes[uint32(s)-1]; n.Name == name {
					return n
				}
			}
		}
	}
	tag, mask := uint32(h>>56)<<24, len(x.narrow)-1
	for k := int(h) & mask; ; k = (k + 1) & mask {
		s := x.narrow[k]
		if s == 0 {
			x.narrow[k] = tag | uint32(i+1)
			return nil
		}
		if s&^(1<<24-1) == tag {
			if n := &x.nodes[s&(1<<24-1)-1]; n.Name == name {
				return n
			}
		}
	}
}

// get returns the node of that name, nil if none.
func (x *nameIndex) get(name string) *Node {
	h := maphash.String(x.seed, name)
	if x.wide != nil {
		tag, mask := h>>32<<32, len(x.wide)-1
		for k := int(h) & mask; ; k = (k + 1) & mask {
			s := x.wide[k]
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
	tag, mask := uint32(h>>56)<<24, len(x.narrow)-1
	for k := int(h) & mask; ; k = (k + 1) & mask {
		s := x.narrow[k]
		if s == 0 {
			return nil
		}
		if s&^(1<<24-1) == tag {
			if n := &x.nodes[s&(1<<24-1)-1]; n.Name == name {
				return n
			}
		}
	}
}
