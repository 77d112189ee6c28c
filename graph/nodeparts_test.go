package graph

import (
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"
)

// A node stays small: every walk over a graph of 200,000 nodes reads them
// all, and its time grows with their size. Its dtypes and rare edges are
// behind a pointer each; a field added to Node belongs there unless most
// nodes have it.
func TestNodeIsSmall(t *testing.T) {
	assert.LessOrEqual(t, unsafe.Sizeof(Node{}), uintptr(136))
}

// A copy of a node (Node is copied by value, as auto mixed precision
// copies one) given other edges or dtypes leaves its original's as they
// were.
func TestCopiedNodeOwnsWhatItSets(t *testing.T) {
	a, b := &Node{Name: "a"}, &Node{Name: "b"}
	f := &Function{Name: "f"}
	orig := &Node{Name: "n"}
	orig.SetControlInputs([]*Node{a})
	orig.SetCalls([]*Function{f})
	orig.SetTypes([]tpb.DataType{tpb.DataType_DT_FLOAT}, []tpb.DataType{tpb.DataType_DT_FLOAT})

	cp := *orig
	cp.SetControlInputs([]*Node{b})
	cp.SetTypes([]tpb.DataType{tpb.DataType_DT_HALF}, nil)

	assert.Equal(t, []*Node{a}, orig.ControlInputs())
	assert.Equal(t, []*Function{f}, orig.Calls())
	assert.Equal(t, []tpb.DataType{tpb.DataType_DT_FLOAT}, orig.InputTypes())
	assert.Equal(t, []*Node{b}, cp.ControlInputs())
	assert.Equal(t, []*Function{f}, cp.Calls(), "the copy keeps the calls it did not set")
	assert.Equal(t, []tpb.DataType{tpb.DataType_DT_HALF}, cp.InputTypes())
	assert.Nil(t, cp.OutputTypes())

	var bare Node
	assert.Nil(t, bare.ControlInputs())
	assert.Nil(t, bare.Calls())
	assert.Nil(t, bare.InputTypes())
}

// An input is a node and two indexes: a graph has about two for each of
// its nodes, and every walk of its edges reads them.
func TestInputIsSmall(t *testing.T) {
	assert.LessOrEqual(t, unsafe.Sizeof(Input{}), uintptr(16))
}

// An output index past int32's range stays past every node's outputs.
func TestIndex32Saturates(t *testing.T) {
	assert.Equal(t, int32(7), index32(7))
	assert.Equal(t, int32(math.MaxInt32), index32(1<<40))
	assert.Equal(t, int32(math.MinInt32), index32(-1<<40))
}
