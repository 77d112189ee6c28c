package placement

import (
	"unsafe"

	"github.com/tfscan/tfscan/internal/hugepage"
)

// Extent is what Reserve knows of a graph before it is built: its nodes
// and their inputs, data and control, its functions' included, and
// whether it has functions, which the flattening may add nodes for.
type Extent struct {
	Nodes, Inputs int
	Functions     bool
}

// Reserve makes ready the arrays a simulation of a graph of extent e is
// lent, and the slabs and arrays its flattening fills; with beside, also
// those of the Scratch that Beside gives, but for the islands' array: a
// scan places beside its target the --from source, which lists no islands
// (Options.DevicesOnly). Each page
// of them is written once: the first write of a page the process has not
// touched yet stops the writer for the kernel to map it (a few
// microseconds, or a few hundred for a huge page, which the arrays are
// backed by where the system has them), and the arrays of a graph of
// 200,000 nodes span about ten thousand pages. A scan reserves them on a
// core that loading the model leaves idle (the build is one goroutine),
// so that its flattening and simulations find the pages mapped. A
// flattening that makes more nodes than reserved makes slabs of its own
// for the rest, and arrays of its own where its graph's are longer than
// reserved, and a simulation of more nodes than the reserved arrays hold
// (lentRoom) lends new ones, as an empty Scratch does.
func (sc *Scratch) Reserve(e Extent, beside bool) {
	n, inputs, room := e.Nodes, e.Inputs, lentRoom(e.Nodes, e.Functions)
	if k := len(sc.slabs); k*pnodeSlab < n {
		// The slabs are cut from one array, which huge pages can back.
		all := hugepage.Make[pnode]((n+pnodeSlab-1)/pnodeSlab*pnodeSlab - k*pnodeSlab)
		hugepage.Touch(all[:n-k*pnodeSlab])
		for ; len(all) > 0; all = all[pnodeSlab:] {
			sc.slabs = append(sc.slabs, all[:pnodeSlab:pnodeSlab])
		}
	}
	// The arrays without pointers are cut from one block: the flattening's,
	// then those lent to the simulations.
	flat := flatWords(n, inputs, room)
	if sc.flatArrays.Free() >= flat {
		flat = 0
	}
	w := flat + sc.lentWords(room, reservedInt32s[:])
	if beside {
		sc.beside = &Scratch{}
		w += sc.beside.lentWords(room, reservedBeside[:])
	}
	if w == 0 {
		return
	}
	b := newBlock(w)
	if flat > 0 {
		sc.flatArrays = b.Split(flat)
	}
	sc.reserveLent(&b, room, reservedInt32s[:])
	if beside {
		sc.beside.reserveLent(&b, room, reservedBeside[:])
	}
}

// flatWords is the words of the arrays a flattening of about n nodes and
// inputs inputs fills (flatArray): the first placement node of each graph
// node (sim.firstOf, which is also the first instances' nodeIndex:
// firstIndex), the out edges' counts, each node's lookup class and its CPU lookup
// (cpuLookups) (room's nodes each, and one more), the class sizes
// classer counts, each node's flags and kinds (walk), the pins of
// every input and the out edges of every node.
func flatWords(n, inputs, room int) int {
	room++
	return hugepage.Words[int32](n) + 4*hugepage.Words[int32](room) + 2*hugepage.Words[uint8](room) +
		hugepage.Words[pin](inputs) + hugepage.Words[outEdge](inputs)
}

// flatArray is n zeroed elements of T, a type without pointers, for the
// flattened graph: cut from the arrays Reserve made ready while they have
// room, else a new array. They live as long as the flattened graph.
func flatArray[T any](sc *Scratch, n int) []T {
	if sc == nil {
		return make([]T, n)
	}
	return hugepage.Cut[T](&sc.flatArrays, n)
}

// lentRoom is the length of the arrays Reserve makes ready for a graph of
// n nodes: a flattening adds nodes of its own (a call's arguments and
// results, a body's instances beyond its first, lowered control flow),
// a few percent more on the corpus's larger models and a few dozen on its
// small ones (TestReservedRoomHoldsTheFlattenedGraph), and an array
// shorter than a simulation's nodes is not lent at all; so the arrays take
// an eighth and 64 more. A graph without functions adds none: 64 more.
func lentRoom(n int, functions bool) int {
	if !functions {
		return n + 64
	}
	return n + n/8 + 64
}

// ReserveSize is about the bytes Reserve(e, beside) allocates, the
// huge-page alignment's pads included.
func ReserveSize(e Extent, beside bool) uint64 {
	n, room := e.Nodes, lentRoom(e.Nodes, e.Functions)
	lent := func(int32s int) uint64 {
		return uint64(room) * uint64(unsafe.Sizeof(group{})+unsafe.Sizeof(int8(0))+uintptr(int32s)*unsafe.Sizeof(int32(0)))
	}
	block := lent(len(reservedInt32s)) + 8*uint64(flatWords(n, e.Inputs, room))
	if beside {
		block += lent(len(reservedBeside))
	}
	return hugepage.MakeBytes(uint64(n)*uint64(unsafe.Sizeof(pnode{}))) + hugepage.MakeBytes(block)
}

// reservedInt32s are the int32 arrays Reserve makes ready, reservedBeside
// those it makes ready beside.
var (
	reservedInt32s = [...]int{lentRows, lentParent, lentReasons, lentSlots, lentIslands}
	reservedBeside = [...]int{lentRows, lentParent, lentReasons, lentSlots}
)

// lentWords is the words of the arrays reserveLent cuts for a simulation,
// room long: those the Scratch lacks.
func (sc *Scratch) lentWords(room int, int32s []int) int {
	w := 0
	if cap(sc.groups) < room {
		w += hugepage.Words[group](room)
	}
	if cap(sc.int8s[lentDev]) < room {
		w += hugepage.Words[int8](room)
	}
	for _, k := range int32s {
		if cap(sc.int32s[k]) < room {
			w += hugepage.Words[int32](room)
		}
	}
	return w
}

// reserveLent cuts from b (lentWords long at least) the arrays, room
// long, lent to a simulation that a simulation of any graph makes
// (colocate, assignAll, transfers), where the Scratch has none yet. Apart,
// each array but the groups of a graph of 200,000 nodes would be under
// the 2 MiB of one huge page.
func (sc *Scratch) reserveLent(b *hugepage.Block, room int, int32s []int) {
	if cap(sc.groups) < room {
		sc.groups, sc.fresh.groups = hugepage.Cut[group](b, room), true
	}
	if cap(sc.int8s[lentDev]) < room {
		sc.int8s[lentDev], sc.fresh.int8s[lentDev] = hugepage.Cut[int8](b, room), true
	}
	for _, k := range int32s {
		if cap(sc.int32s[k]) < room {
			sc.int32s[k], sc.fresh.int32s[k] = hugepage.Cut[int32](b, room), true
		}
	}
}

// newBlock is a block of w words, each of its pages written once.
func newBlock(w int) hugepage.Block {
	b := hugepage.NewBlock(w)
	hugepage.Touch(b.Rest())
	return b
}
