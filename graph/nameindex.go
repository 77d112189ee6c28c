package graph

import (
	"hash/maphash"
	"math/bits"

	"github.com/tfscan/tfscan/internal/hugepage"
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
	// The slots are read before they are written, at random: their pages
	// are written first (hugepage.Touch), huge ones where the table spans
	// them (hugepage.Advise; not hugepage.Make, whose pads would count in
	// the load's heap, as the node array's would).
	if wide {
		x.wide = make([]uint64, size)
		hugepage.Advise(x.wide)
		hugepage.Touch(x.wide)
	} else {
		x.narrow = make([]uint32, size)
		hugepage.Advise(x.narrow)
		hugepage.Touch(x.narrow)
	}
	return x
}

// add enters the node at position i of the store under its name unless a
// node of that name is there, which it returns.
func (x *nameIndex) add(i int) *Node {
	return x.addHashed(i, maphash.String(x.seed, x.nodes[i].Name))
}

// addAll enters the first n nodes of the store, their names set, as add
// would one after the other, and returns the node each later one of a
// name met, by position (nil when no name repeats). It hashes every name
// first and enters the nodes in the order of their first slot, grouped
// in runs of the table, so that the table is written front to back
// rather than at random: a large table's slots are each a cache miss,
// and its pages first touched, when written in the nodes' order. Nodes of
// one name hash alike and enter in position order, so the first stays.
func (x *nameIndex) addAll(n int) map[int]*Node {
	size := max(len(x.narrow), len(x.wide))
	hashes := make([]uint64, n)
	for i := range hashes {
		hashes[i] = maphash.String(x.seed, x.nodes[i].Name)
	}
	// Counting sort of the positions by run: the top bits of the first
	// slot, at most 4,096 runs.
	shift := max(bits.Len(uint(size-1))-12, 0)
	start := make([]int32, size>>shift+1)
	for _, h := range hashes {
		start[(int(h)&(size-1))>>shift+1]++
	}
	for r := 1; r < len(start); r++ {
		start[r] += start[r-1]
	}
	order := make([]int32, n)
	for i, h := range hashes {
		r := (int(h) & (size - 1)) >> shift
		order[start[r]] = int32(i)
		start[r]++
	}
	var dups map[int]*Node
	for _, i := range order {
		if d := x.addHashed(int(i), hashes[i]); d != nil {
			if dups == nil {
				dups = map[int]*Node{}
			}
			dups[int(i)] = d
		}
	}
	return dups
}

// addHashed is add with the hash h of the node's name given.
func (x *nameIndex) addHashed(i int, h uint64) *Node {
	name := x.nodes[i].Name
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
