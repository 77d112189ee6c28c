package placement

// Flattened is the flattened graph sc holds, nil when none: a test checks
// that simulations share it.
func Flattened(sc *Scratch) any {
	if sc.flat == nil {
		return nil
	}
	return sc.flat
}

// CPULookups are the CPU's kernel lookups sc holds, nil when none.
func CPULookups(sc *Scratch) any {
	if sc.cpu == nil {
		return nil
	}
	return sc.cpu
}

// FlattenedNodes is the number of nodes of the flattened graph sc holds.
func FlattenedNodes(sc *Scratch) int {
	if sc.flat == nil {
		return 0
	}
	return len(sc.flat.nodes)
}

// LentRoom is lentRoom.
var LentRoom = lentRoom

// LookupClasses are the lookup classes of the graph sc flattened as the
// build works them out, and as a walk of its nodes alone does.
func LookupClasses(sc *Scratch) (built, walked []int32, builtN, walkedN int) {
	walked, walkedN = lookupClasses(nil, sc.flat.nodes)
	return sc.flat.classOf, walked, sc.flat.classes, walkedN
}

// lookupClasses is the classer's walk of nodes alone, apart from the
// build's resolving of their inputs.
func lookupClasses(sc *Scratch, nodes []*pnode) ([]int32, int) {
	c := newClasser(sc, nodes)
	for i, p := range nodes {
		c.add(i, p)
	}
	return c.classes()
}
