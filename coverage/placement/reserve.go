package placement

import (
	"os"
	"unsafe"
)

// Reserve makes ready the arrays a simulation of a graph of about n
// placement nodes is lent, and the slabs its flattening fills; with
// beside, also those of the Scratch that Beside gives, but for the
// islands' array: a scan places beside its target the --from source,
// which lists no islands (Options.DevicesOnly). Each page of them
// is written once: the first write of a page the process has not touched
// yet stops the writer for the kernel to map it (a few microseconds), and
// the arrays of a graph of 200,000 nodes span about ten thousand pages.
// A scan reserves them on a core that loading the model leaves idle
// (the build is one goroutine), so that its flattening and simulations
// find the pages mapped. A flattening that makes more nodes than reserved
// makes slabs of its own for the rest, and a simulation of more nodes
// than the reserved arrays hold (lentRoom) lends new ones, as an empty
// Scratch does.
func (sc *Scratch) Reserve(n int, beside bool) {
	for k := len(sc.slabs); k*pnodeSlab < n; k++ {
		sc.slabs = append(sc.slabs, touched(make([]pnode, pnodeSlab), pnodeSlab))
	}
	sc.reserveLent(n, reservedInt32s[:])
	if beside {
		sc.beside = &Scratch{}
		sc.beside.reserveLent(n, reservedBeside[:])
	}
}

// lentRoom is the length of the arrays Reserve makes ready for a graph of
// n nodes: a flattening adds nodes of its own (a call's arguments and
// results, a body's instances beyond its first), a few percent more on
// the corpus's larger models and a few dozen on its small ones
// (TestReservedRoomHoldsTheFlattenedGraph), and an array shorter than a
// simulation's nodes is not lent at all; so the arrays take an eighth and
// 64 more. Only the first n elements are touched: the room beyond is
// mapped by the simulation that uses it, if one does.
func lentRoom(n int) int { return n + n/8 + 64 }

// ReserveSize is about the bytes Reserve(n, beside) allocates.
func ReserveSize(n int, beside bool) uint64 {
	lent := func(int32s int) uint64 {
		return uint64(lentRoom(n)) * uint64(unsafe.Sizeof(group{})+unsafe.Sizeof(int(0))+uintptr(int32s)*unsafe.Sizeof(int32(0)))
	}
	size := uint64(n)*uint64(unsafe.Sizeof(pnode{})) + lent(len(reservedInt32s))
	if beside {
		size += lent(len(reservedBeside))
	}
	return size
}

// reservedInt32s are the int32 arrays Reserve makes ready, reservedBeside
// those it makes ready beside.
var (
	reservedInt32s = [...]int{lentRows, lentParent, lentReasons, lentSlots, lentIslands}
	reservedBeside = [...]int{lentRows, lentParent, lentReasons, lentSlots}
)

// reserveLent makes ready the arrays lent to a simulation of about n
// nodes that a simulation of any graph makes (colocate, assignAll,
// transfers), with lentRoom's room.
func (sc *Scratch) reserveLent(n int, int32s []int) {
	room := lentRoom(n)
	if cap(sc.groups) < room {
		sc.groups, sc.fresh.groups = touched(make([]group, room), n), true
	}
	if cap(sc.ints[lentDev]) < room {
		sc.ints[lentDev], sc.fresh.ints[lentDev] = touched(make([]int, room), n), true
	}
	for _, k := range int32s {
		if cap(sc.int32s[k]) < room {
			sc.int32s[k], sc.fresh.int32s[k] = touched(make([]int32, room), n), true
		}
	}
}

// pageSize is the size of the pages touched maps.
var pageSize = os.Getpagesize()

// touched writes one element of a in every page its first n elements
// span, and returns a.
func touched[T any](a []T, n int) []T {
	var zero T
	step := max(1, pageSize/max(1, int(unsafe.Sizeof(zero))))
	for i := 0; i < min(n, len(a)); i += step {
		a[i] = zero
	}
	return a
}
