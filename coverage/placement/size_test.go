package placement

import (
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
	if s := unsafe.Sizeof(pnode{}); s > 120 {
		t.Errorf("pnode is %d bytes, more than 120", s)
	}
	if s := unsafe.Sizeof(group{}); s > 40 {
		t.Errorf("group is %d bytes, more than 40", s)
	}
	// A group holds no pointer, so that the collector does not scan the
	// slab of them (sim.gslab).
	for f := range reflect.TypeFor[group]().Fields() {
		switch f.Type.Kind() {
		case reflect.Int32, reflect.Bool:
		default:
			t.Errorf("group.%s is a %s: a group holds int32s and bools only", f.Name, f.Type)
		}
	}
}

// The inputs of the flattened graph's nodes are slices of shared arrays
// (chunks): each is as long as asked and its capacity ends there, so that
// an append to one copies instead of writing over the next node's.
func TestChunksHandOutSlicesApart(t *testing.T) {
	var c chunks[pin]
	if got := c.take(0); got != nil {
		t.Errorf("take(0) = %v, want nil", got)
	}
	a, b := c.take(3), c.take(2)
	if len(a) != 3 || cap(a) != 3 || len(b) != 2 || cap(b) != 2 {
		t.Fatalf("len/cap %d/%d and %d/%d, want 3/3 and 2/2", len(a), cap(a), len(b), cap(b))
	}
	b[0] = pin{n: 7}
	_ = append(a, pin{n: 9})
	if b[0] != (pin{n: 7}) {
		t.Errorf("an append to one slice wrote over the next: %v", b[0])
	}
	if &a[2] == &b[0] {
		t.Error("the slices overlap")
	}
	// A request longer than a chunk gets an array of its own.
	long := c.take(chunkLen + 1)
	if len(long) != chunkLen+1 {
		t.Errorf("len %d, want %d", len(long), chunkLen+1)
	}
}
