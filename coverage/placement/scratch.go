package placement

import (
	"github.com/tfscan/tfscan/internal/csr"
	"github.com/tfscan/tfscan/internal/hugepage"
)

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
	// flatArrays are the arrays Reserve made ready for a flattening
	// (flatArray).
	flatArrays hugepage.Block
	// flat is the flattened graph of the last simulation that built one
	// (share.go), in slabs.
	flat *flattened
	// cpu are the CPU's kernel lookups of flat's nodes (share.go).
	cpu *cpuLookups
	// int8s and int32s are the arrays a simulation makes of
	// its own, by use (lentInt8s, lentInt32s), lent to each simulation in
	// turn (lend).
	int8s      [lentInt8s][]int8
	int32s     [lentInt32s][]int32
	groupNodes members
	// fresh tells which lent arrays no simulation has been lent yet:
	// Reserve's, zero as made, which lend need not clear again.
	fresh struct {
		int8s  [lentInt8s]bool
		int32s [lentInt32s]bool
		groups bool
	}
	// usedSlabs counts the slabs handed out (pnodes): those after them
	// are Reserve's, zero as made.
	usedSlabs int
	// spareDev and spareReasons are the arrays a lazy Result reads,
	// given back by a Result that kept them (Result.Own), lent again
	// once the next Result keeps its own.
	spareDev     []int8
	spareReasons []int32
	// beside is the Scratch Reserve made ready for Beside to give.
	beside *Scratch
}

// The arrays a simulation makes of its own, by use. A simulation of a
// million nodes makes about 35 MB of them, garbage once its Result is read:
// lent by a Scratch, the simulations of a scan's targets use one set
// rather than leave one each for the collector (which would mark the
// loaded model and everything the scan shares to free them). The Result
// of a simulation reads some of them (Options.LazyNodes): it must be done
// with before the Scratch is lent to another simulation.
const (
	lentDev = iota // sim.dev
	lentInt8s
)

const (
	lentRows       = iota // sim.rowOf
	lentParent            // sim.parent
	lentReasons           // sim.reasons
	lentGenerators        // assignNodes' generators, by capacity
	lentSlots             // transfers' slots
	lentIslands           // islands' components
	lentCPUComps          // cpuComponents' components
	lentInt32s
)

// lend is n zeroed elements of *keep, which keeps the array for the next
// simulation; a new array when it is too short. fresh tells an array
// nothing has written to since it was made, which needs no clearing (the
// clearing of a 200,000-node model's arrays writes about 45 MB); it is
// false once the array is lent.
func lend[T any](keep *[]T, fresh *bool, n int) []T {
	wasFresh := *fresh
	*fresh = false
	if cap(*keep) < n {
		*keep = make([]T, n)
		return *keep
	}
	*keep = (*keep)[:n]
	if !wasFresh {
		clear(*keep)
	}
	return *keep
}

// lentInt8 is the Scratch's int8 array of use k, n zeroed elements (a new
// array without a Scratch).
func (sc *Scratch) lentInt8(k, n int) []int8 {
	if sc == nil {
		return make([]int8, n)
	}
	return lend(&sc.int8s[k], &sc.fresh.int8s[k], n)
}

// lentInt32 is lentInt8's int32 array of use k.
func (sc *Scratch) lentInt32(k, n int) []int32 {
	if sc == nil {
		return make([]int32, n)
	}
	return lend(&sc.int32s[k], &sc.fresh.int32s[k], n)
}

// spareInt32 is the empty int32 array of use k, whose capacity an earlier
// simulation grew; keepInt32 gives it back grown.
func (sc *Scratch) spareInt32(k int) []int32 {
	if sc == nil {
		return nil
	}
	return sc.int32s[k][:0]
}

// keepInt32 keeps a, an array of use k appended to, for the next use.
func (sc *Scratch) keepInt32(k int, a []int32) {
	if sc != nil {
		sc.int32s[k], sc.fresh.int32s[k] = a[:0], false
	}
}

// pnodeSlab is the size of the builder's node slabs.
const pnodeSlab = 1024

// pnodes is the builder's k-th slab of nodes, zeroed.
func (sc *Scratch) pnodes(k int) []pnode {
	if sc == nil {
		return make([]pnode, pnodeSlab)
	}
	used := k < sc.usedSlabs
	sc.usedSlabs = max(sc.usedSlabs, k+1)
	if k < len(sc.slabs) {
		if used {
			clear(sc.slabs[k])
		}
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
	return lend(&sc.groups, &sc.fresh.groups, n)
}

// members is csr.Build's groups of n keys into the Scratch's arrays for
// the colocation groups' members (sim.groupMembers), which the next
// simulation lent the Scratch overwrites.
func (sc *Scratch) members(n int, each func(add func(int, int32))) members {
	if sc == nil {
		return csr.Build(n, each)
	}
	sc.groupNodes = csr.BuildReusing(sc.groupNodes, n, each)
	return sc.groupNodes
}

// keepNodeArrays leaves the arrays the last simulation's lazy Result reads
// (its devices and reasons) to that Result: the next simulation is lent
// the spare ones, if any were given back, else new ones.
func (sc *Scratch) keepNodeArrays() {
	sc.int8s[lentDev], sc.spareDev = sc.spareDev, nil
	sc.int32s[lentReasons], sc.spareReasons = sc.spareReasons, nil
	sc.fresh.int8s[lentDev], sc.fresh.int32s[lentReasons] = false, false
}

// giveNodeArrays takes back the arrays keepNodeArrays left to a Result,
// as the spare ones.
func (sc *Scratch) giveNodeArrays(dev []int8, reasons []int32) {
	sc.spareDev, sc.spareReasons = dev[:0], reasons[:0]
}
