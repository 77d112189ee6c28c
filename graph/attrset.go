package graph

import (
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// A large graph repeats a few attr sets over and over (every Conv2D of a
// tower has the same dtype, strides, padding and data format), and the
// binary decoder gives NodeDefs whose attr holds the same small value the
// same AttrValue message (savedmodel/wire.go, sharedMax). So nodes of one
// op whose attrs are the same messages under the same names have the same
// completed attrs and the same dtypes: newNode works them out for the
// first such node and hands the later ones the same map and slices, which
// hold exactly what working them out again would give. Messages the
// decoder never shares (tensors, funcs) and sets of more than maxSetAttrs
// attrs are not looked up; a Build whose lookups mostly miss (a text
// model, decoded without sharing) stops looking.

// maxSetAttrs is the largest attr count of a node whose set is looked up.
const maxSetAttrs = 10

// attrKey identifies a node's attrs by name and message, in name order.
type attrKey struct {
	n     int
	names [maxSetAttrs]string
	vals  [maxSetAttrs]*attrpb.AttrValue
}

// attrSet is what a node's op and attrs give: the attrs completed with the
// OpDef's defaults (nil when none was missing, so that the node keeps its
// own map) and the dtypes of its inputs and outputs.
type attrSet struct {
	attrs   map[string]*attrpb.AttrValue
	in, out []tpb.DataType
}

// setKey returns the key of attrs, or false when the set is not looked up.
func setKey(attrs map[string]*attrpb.AttrValue) (attrKey, bool) {
	var k attrKey
	if len(attrs) > maxSetAttrs {
		return k, false
	}
	for name, v := range attrs {
		switch x := v.GetValue().(type) {
		case *attrpb.AttrValue_Tensor, *attrpb.AttrValue_Func:
			return k, false
		case *attrpb.AttrValue_List:
			if len(x.List.GetTensor()) > 0 || len(x.List.GetFunc()) > 0 {
				return k, false
			}
		}
		// Insertion in name order.
		i := k.n
		for ; i > 0 && k.names[i-1] > name; i-- {
			k.names[i], k.vals[i] = k.names[i-1], k.vals[i-1]
		}
		k.names[i], k.vals[i] = name, v
		k.n++
	}
	return k, true
}

// attrSetStats counts set lookups, to stop looking when most miss.
type attrSetStats struct{ hits, misses int }

// useful reports whether looking up sets still pays: after the first
// thousand misses, only while hits are at least a quarter of the misses.
func (s *attrSetStats) useful() bool {
	return s.misses < 1024 || 4*s.hits >= s.misses
}
