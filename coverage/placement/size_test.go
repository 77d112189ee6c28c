package placement

import (
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
	if s := unsafe.Sizeof(group{}); s > 72 {
		t.Errorf("group is %d bytes, more than 72", s)
	}
}
