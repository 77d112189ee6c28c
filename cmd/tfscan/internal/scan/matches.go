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
	km := ns.matched[ix]
	if km == nil {
		if ns.matched == nil {
			ns.matched = map[*coverage.Index]*keyMatches{}
		}
		st := ix.Stack()
		km = &keyMatches{lowers: st != nil && st.Mode != nil, m: make([]*coverage.Match, 2*len(ns.keys))}
		ns.matched[ix] = km
	}
	n := ns.list[i]
	if n.OpDef == nil {
		// Not a kernel (an unknown op, a function call by name): matched
		// by the node, not its key.
		m := ix.MatchKeyed(n, ns.keys[ns.key[i]])
		return &m
	}
	slot := 2 * int(ns.key[i])
	if km.lowers && ns.float32(i) {
		slot++
	}
	if km.m[slot] == nil {
		m := ix.MatchKeyed(n, ns.keys[ns.key[i]])
		km.m[slot] = &m
	}
	return km.m[slot]
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
