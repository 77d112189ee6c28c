package placement

import (
	"math"
	"reflect"
	"testing"
	"unsafe"
)

// The flattened graph holds a pnode per node of the model and of every
// inlined body, and a colocation group per node: what they weigh is what a
// simulation of a large model allocates (BenchmarkPlacement200k). A field
// added to either should be one that cannot be derived or kept apart
// (pextra); raise these bounds only knowingly.
func TestFlattenedGraphStaysSmall(t *testing.T) {
	if s := unsafe.Sizeof(pnode{}); s > 64 {
		t.Errorf("pnode is %d bytes, more than 64", s)
	}
	if s := unsafe.Sizeof(group{}); s > 24 {
		t.Errorf("group is %d bytes, more than 24", s)
	}
	// A group's candidates are an int8 index in candLists (internCands),
	// which holds orderings of distinct devices among maxDevs at most.
	lists, k := 0, 1
	for n := maxDevs; n > 0; n-- {
		k *= n
		lists += k
	}
	if lists > math.MaxInt8 {
		t.Errorf("%d devices make %d candidate lists, more than a group's int8 indexes", maxDevs, lists)
	}
	// A group holds no pointer, so that the collector does not scan the
	// slab of them (sim.gslab).
	for f := range reflect.TypeFor[group]().Fields() {
		switch f.Type.Kind() {
		case reflect.Int32, reflect.Int8, reflect.Uint8, reflect.Bool:
		default:
			t.Errorf("group.%s is a %s: a group holds integers and bools only", f.Name, f.Type)
		}
	}
}

// A node's inputs and control inputs are its spans of the flattened
// graph's two arrays (links): each node reads its own, however long, and
// an empty span reads as empty.
func TestLinksReadEachNodesSpan(t *testing.T) {
	ln := links{pins: []pin{{1, 0}, {2, 1}, {3, 0}}, ctrls: []int32{4, 5}}
	a := &pnode{in: span{0, 2}, ctrl: span{0, 1}}
	b := &pnode{in: span{2, 1}, ctrl: span{1, 1}}
	none := &pnode{in: span{3, 0}}
	if got := ln.inputs(a); !reflect.DeepEqual(got, []pin{{1, 0}, {2, 1}}) {
		t.Errorf("inputs(a) = %v", got)
	}
	if got := ln.inputs(b); !reflect.DeepEqual(got, []pin{{3, 0}}) {
		t.Errorf("inputs(b) = %v", got)
	}
	if got := ln.waits(b); !reflect.DeepEqual(got, []int32{5}) {
		t.Errorf("waits(b) = %v", got)
	}
	if len(ln.inputs(none)) != 0 || len(ln.waits(none)) != 0 {
		t.Error("an empty span reads as not empty")
	}
	// A span's capacity ends with it: an append copies rather than
	// writing over the next node's.
	_ = append(ln.inputs(a), pin{9, 9})
	if ln.pins[2] != (pin{3, 0}) {
		t.Errorf("an append to a's inputs wrote over b's: %v", ln.pins[2])
	}
}
