package scan

import (
	"slices"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/internal/hugepage"
	"github.com/tfscan/tfscan/internal/lastfew"
)

// keyMatches are one index's matches of the prepared nodes by key: nodes
// with one key match alike (coverage.Index.MatchKeyed), and a scan asks of
// every node for the source, every target and their placements, so a
// match is found by the key's index rather than by hashing the key each
// time.
type keyMatches struct {
	// lowers: the index's precision mode treats float32 nodes apart, so
	// a key has a second match for them (at 2*key+1).
	lowers bool
	m      []*coverage.Match
}

// match is the node at position i matched by ix: the same Match as
// ix.MatchKeyed(node, its key), shared by every node of its key (read
// only).
func (ns *Nodes) match(ix *coverage.Index, i int) *coverage.Match {
	km, slot, ok := ns.slot(ix, i)
	if !ok {
		// Not a kernel (an unknown op, a function call by name): matched
		// by the node, not its key.
		m := ix.MatchKeyed(ns.list[i], ns.keys[ns.key[i]])
		return &m
	}
	n := ns.list[i]
	if km.m[slot] == nil {
		m := ix.MatchKeyed(n, ns.keys[ns.key[i]])
		km.m[slot] = &m
	}
	return km.m[slot]
}

// slot is where ix's match of the node at position i is kept among
// km's, false for a node matched by itself rather than its key (match):
// nodes of one slot match alike.
func (ns *Nodes) slot(ix *coverage.Index, i int) (km *keyMatches, slot int, ok bool) {
	km = ns.keyMatches(ix)
	if ns.nodeBits()[i]&bitKernel == 0 {
		return km, 0, false
	}
	slot = 2 * int(ns.key[i])
	if km.lowers && ns.float32(i) {
		slot++
	}
	return km, slot, true
}

// keyMatches are ix's matches by key, made empty on the first call.
func (ns *Nodes) keyMatches(ix *coverage.Index) *keyMatches {
	km := ns.matched[ix]
	if km == nil {
		if ns.matched == nil {
			ns.matched = map[*coverage.Index]*keyMatches{}
		}
		km = &keyMatches{lowers: lowers(ix), m: make([]*coverage.Match, 2*len(ns.keys))}
		ns.matched[ix] = km
	}
	return km
}

// settle makes every match of the prepared nodes against each of ixs that
// a placement or a coverage can ask for, and tells every node float32 or
// not where one of ixs lowers them, so that from then on the nodes'
// matches are only read (readBehind reads one target's while the next is
// placed). A key's match is made from its first node, as from any: nodes
// of one slot match alike.
func (ns *Nodes) settle(ixs []*coverage.Index) {
	bits := ns.nodeBits()
	split := false
	for _, ix := range ixs {
		split = split || lowers(ix)
	}
	// The first node of each slot a lowering index has; every node told
	// float32 or not, the kernels for their slots and the others for the
	// classes (classesFor).
	first := slices.Repeat([]int32{-1}, 2*len(ns.keys))
	for i := range ns.list {
		f32 := split && ns.float32(i)
		if bits[i]&bitKernel == 0 {
			continue
		}
		slot := 2 * int(ns.key[i])
		if f32 {
			slot++
		}
		if first[slot] < 0 {
			first[slot] = int32(i)
		}
	}
	for _, ix := range ixs {
		ns.keyMatches(ix)
		for _, i := range first {
			if i >= 0 {
				ns.match(ix, int(i))
			}
		}
	}
}

// lowers tells whether ix's precision mode matches float32 nodes apart
// from the others of their key (coverage.Index.MatchKeyed).
func lowers(ix *coverage.Index) bool {
	st := ix.Stack()
	return st != nil && st.Mode != nil
}

// float32 is coverage.Float32Node of the node at position i, worked out
// once.
func (ns *Nodes) float32(i int) bool {
	if b := ns.bits; len(b) == len(ns.list) && b[i]&bitF32Known != 0 {
		return b[i]&bitF32 != 0 // PrepareNodes told
	}
	if ns.f32 == nil {
		ns.f32 = make([]uint8, len(ns.list))
	}
	if ns.f32[i] == 0 {
		ns.f32[i] = 1
		if coverage.Float32Node(ns.list[i]) {
			ns.f32[i] = 2
		}
	}
	return ns.f32[i] == 2
}

// nodeClass is a class of prepared nodes that every target matches alike
// and counts alike: one key (so one op), a function call by name or not,
// one dtype list, phase and reachability, and float32 or not once a
// target's precision mode tells those apart (classesFor). A model of
// 200,000 nodes has a few thousand; a target's figures are counted per
// class, not per node.
type nodeClass struct {
	first     int32 // position of the first node
	nodes     int
	op        string
	dtypes    []string
	phase     string
	counts    bool
	reachable bool
}

// classesFor are the classes in which ix matches every node alike: they
// tell float32 nodes apart only from the first index that lowers them
// (reading every node's attrs for that is the classes' main cost).
func (ns *Nodes) classesFor(ix *coverage.Index) []nodeClass {
	if lowers(ix) && !ns.splitF32 {
		ns.splitF32 = true
		ns.cls, ns.class = nil, nil
	}
	return ns.classes()
}

// classes are the prepared nodes' classes, in the order of their first
// nodes (Nodes.class is each node's), made once phases are known.
func (ns *Nodes) classes() []nodeClass {
	if ns.class != nil {
		return ns.cls
	}
	type classKey struct {
		key     int32
		f32     bool
		calls   bool
		dtypes  *string // the interned list's first name (nil: none)
		phase   uint8
		reached bool
	}
	ns.class = hugepage.Cut[int32](&ns.arrays, len(ns.list))
	index := map[classKey]int32{}
	// What a node's key holds beside its match key is read from arrays by
	// position (a graph node is 216 bytes, they hold a byte or four), and the
	// last few keys are tried before the map: nodes in the graph's order
	// cycle through a layer's few classes.
	bits := ns.nodeBits()
	var phaseAt []graph.Phase
	if ns.phases != nil {
		phaseAt = ns.phasesByPosition()
	}
	var recent lastfew.Cache[classKey, int32]
	for i := range ns.list {
		ck := classKey{key: ns.key[i], f32: ns.splitF32 && ns.float32(i), calls: bits[i]&bitCalls != 0, reached: bits[i]&bitReached != 0}
		if dt := ns.dtypesOf(i); len(dt) > 0 {
			ck.dtypes = &dt[0]
		}
		if phaseAt != nil {
			ck.phase = uint8(phaseAt[i])
		}
		k, ok := recent.Get(ck)
		if !ok {
			if k, ok = index[ck]; !ok {
				k = int32(len(ns.cls))
				index[ck] = k
				n := ns.list[i]
				ns.cls = append(ns.cls, nodeClass{first: int32(i), op: n.Op, dtypes: ns.dtypesOf(i), phase: ns.phaseName(n),
					counts: ns.counts(n), reachable: n.Reachable})
			}
			recent.Put(ck, k)
		}
		ns.cls[k].nodes++
		ns.class[i] = k
	}
	return ns.cls
}

// Bits of a prepared node (Nodes.nodeBits).
const (
	bitKernel   = 1 << iota // an OpDef: a kernel's node (Nodes.slot)
	bitCalls                // no OpDef, and calls functions (by name)
	bitReached              // graph.Node.Reachable
	bitF32Known             // bitF32 is known (PrepareNodes)
	bitF32                  // coverage.Float32Node
)

// nodeBits are each prepared node's bits by position, as PrepareNodes
// records them (or worked out here, for Nodes made otherwise).
func (ns *Nodes) nodeBits() []uint8 {
	if len(ns.bits) != len(ns.list) {
		ns.bits = make([]uint8, len(ns.list))
		for i, n := range ns.list {
			ns.bits[i] = bitsOf(n)
		}
	}
	return ns.bits
}

func bitsOf(n *graph.Node) uint8 {
	var b uint8
	if n.OpDef != nil {
		b |= bitKernel
	} else if len(n.Calls()) > 0 {
		b |= bitCalls
	}
	if n.Reachable {
		b |= bitReached
	}
	return b
}

// phasesByPosition are the nodes' phases by position, from the phases by
// graph.Node.ID: a walk of the IDs in order, or those phases where every
// node is at its ID. The caller does not change them.
func (ns *Nodes) phasesByPosition() []graph.Phase {
	if ns.at == nil {
		return ns.phases // every node at its ID
	}
	out := make([]graph.Phase, len(ns.list))
	for id, i := range ns.at {
		if i >= 0 {
			out[i] = ns.phases[id]
		}
	}
	return out
}
