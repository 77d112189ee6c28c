package graph

import (
	"unsafe"

	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"

	"github.com/tfscan/tfscan/savedmodel"
)

// A large graph repeats a few attr sets over and over (every Conv2D of a
// tower has the same dtype, strides, padding and data format), and the
// binary decoder gives NodeDefs whose attr holds the same small value the
// same AttrValue message (savedmodel/wire.go, sharedMax). So nodes of one
// op whose attrs are the same messages under the same names have the same
// completed attrs and the same dtypes: newNode works them out for the
// first such node and hands the later ones the same map and slices, which
// hold exactly what working them out again would give. Messages the
// decoder never shares (tensors, funcs) and large sets are not looked up;
// a Build whose lookups mostly miss (a text model, decoded without
// sharing) stops looking.

// maxSetAttrs bounds the attrs of an OpDef whose nodes' sets are looked
// up, and maxSetExtra the attrs of a node that its OpDef does not declare
// ("_class", "_output_shapes").
const (
	maxSetAttrs = 12
	maxSetExtra = 4
)

// attrKey identifies a node's attrs by message: those its OpDef declares
// in the OpDef's order (nil where absent), then the others in name order,
// their names in names.
type attrKey struct {
	vals  [maxSetAttrs]*attrpb.AttrValue
	names [maxSetExtra]string
}

// attrSet is what a node's op and attrs give: the attrs completed with the
// OpDef's defaults (nil when none was missing, so that the node keeps its
// own map) and the dtypes of its inputs and outputs.
type attrSet struct {
	attrs map[string]*attrpb.AttrValue
	types *dtypes
}

// setsFor reports whether the nodes of an op with these OpDef attrs have
// their sets looked up: not too many, no name twice, none that only a
// message of the node's own can fill.
func setsFor(defs []*opdefpb.OpDef_AttrDef) bool {
	if len(defs) > maxSetAttrs {
		return false
	}
	for i, a := range defs {
		for _, b := range defs[:i] {
			if a.GetName() == b.GetName() {
				return false
			}
		}
		// A tensor or func attr without default (a Const's value) is in
		// every node's set, and such values are no key (sharedKind):
		// every lookup would miss.
		if (a.GetType() == "tensor" || a.GetType() == "func") && a.GetDefaultValue() == nil {
			return false
		}
	}
	return true
}

// setKey returns the key of the attrs of a node whose OpDef declares defs,
// or false when the set is not looked up (a message the decoder does not
// share, too many attrs).
func setKey(defs []*opdefpb.OpDef_AttrDef, attrs map[string]*attrpb.AttrValue) (attrKey, bool) {
	var k attrKey
	found := 0
	for i, a := range defs {
		v, ok := attrs[a.GetName()]
		if !ok {
			continue
		}
		if !sharedKind(v) {
			return k, false
		}
		k.vals[i] = v
		found++
	}
	if found == len(attrs) {
		return k, true
	}
	extra := 0
	for name, v := range attrs {
		if declared(defs, name) {
			continue
		}
		if extra == maxSetExtra || len(defs)+extra == maxSetAttrs || !sharedKind(v) {
			return k, false
		}
		// Insertion in name order.
		i := extra
		for ; i > 0 && k.names[i-1] > name; i-- {
			k.names[i], k.vals[len(defs)+i] = k.names[i-1], k.vals[len(defs)+i-1]
		}
		k.names[i], k.vals[len(defs)+i] = name, v
		extra++
	}
	return k, true
}

func declared(defs []*opdefpb.OpDef_AttrDef, name string) bool {
	for _, a := range defs {
		if a.GetName() == name {
			return true
		}
	}
	return false
}

// sharedKind reports whether v is of a kind the decoder shares.
func sharedKind(v *attrpb.AttrValue) bool { return v != nil && savedmodel.Shareable(v) }

// attrSetStats counts set lookups, to stop looking when most miss.
type attrSetStats struct{ hits, misses int }

// useful reports whether looking up sets still pays: after the first
// thousand misses, only while hits are at least a quarter of the misses.
func (s *attrSetStats) useful() bool {
	return s.misses < 1024 || 4*s.hits >= s.misses
}

// AttrsID is the identity of an attr map: the same for nodes handed one
// map (see above), 0 for none. Walks that work something out once per
// attr map key their memos by it. A map value is a pointer to the
// runtime's map, which this reads as reflect.Value.Pointer does, without
// an interface and a call per node.
func AttrsID(attrs map[string]*attrpb.AttrValue) uintptr {
	return *(*uintptr)(unsafe.Pointer(&attrs))
}
