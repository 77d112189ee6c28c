package scan

import (
	"github.com/tfscan/tfscan/coverage"
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
	km = ns.matched[ix]
	if km == nil {
		if ns.matched == nil {
			ns.matched = map[*coverage.Index]*keyMatches{}
		}
		km = &keyMatches{lowers: lowers(ix), m: make([]*coverage.Match, 2*len(ns.keys))}
		ns.matched[ix] = km
	}
	if ns.list[i].OpDef == nil {
		return km, 0, false
	}
	slot = 2 * int(ns.key[i])
	if km.lowers && ns.float32(i) {
		slot++
	}
	return km, slot, true
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
	ns.class = make([]int32, len(ns.list))
	index := map[classKey]int32{}
	for i, n := range ns.list {
		ck := classKey{key: ns.key[i], f32: ns.splitF32 && ns.float32(i), calls: n.OpDef == nil && len(n.Calls) > 0, reached: n.Reachable}
		if dt := ns.dtypes[i]; len(dt) > 0 {
			ck.dtypes = &dt[0]
		}
		if ns.phases != nil {
			ck.phase = uint8(ns.phases[n.ID])
		}
		k, ok := index[ck]
		if !ok {
			k = int32(len(ns.cls))
			index[ck] = k
			ns.cls = append(ns.cls, nodeClass{first: int32(i), op: n.Op, dtypes: ns.dtypes[i], phase: ns.phaseName(n),
				counts: ns.counts(n), reachable: n.Reachable})
		}
		ns.cls[k].nodes++
		ns.class[i] = k
	}
	return ns.cls
}
