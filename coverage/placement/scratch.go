package placement

// Scratch is what simulations pass on to the next (Options.Scratch): the
// flattened graph of the last simulation that built one (in its slabs of
// placement nodes), which later simulations of the same graph and options
// read, and the colocation groups, a few hundred bytes per node of the
// flattened graph, which a simulation allocates afresh otherwise. A
// simulation changes nothing of the flattened graph, and a Result holds no
// group, so the next simulation may clear and reuse them. The zero value
// is ready; a nil *Scratch lends nothing.
type Scratch struct {
	slabs  [][]pnode
	groups []group
	// flat is the flattened graph of the last simulation that built one
	// (share.go), in slabs.
	flat *flattened
	// cpu are the CPU's kernel lookups of flat's nodes (share.go).
	cpu *cpuLookups
}

// pnodeSlab is the size of the builder's node slabs.
const pnodeSlab = 1024

// pnodes is the builder's k-th slab of nodes, zeroed.
func (sc *Scratch) pnodes(k int) []pnode {
	if sc == nil {
		return make([]pnode, pnodeSlab)
	}
	if k < len(sc.slabs) {
		clear(sc.slabs[k])
		return sc.slabs[k]
	}
	slab := make([]pnode, pnodeSlab)
	sc.slabs = append(sc.slabs, slab)
	return slab
}

// groupSlab is n colocation groups, zeroed.
func (sc *Scratch) groupSlab(n int) []group {
	if sc == nil {
		return make([]group, n)
	}
	if cap(sc.groups) < n {
		sc.groups = make([]group, n)
		return sc.groups
	}
	g := sc.groups[:n]
	clear(g)
	return g
}
