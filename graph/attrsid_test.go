package graph

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
)

// An attr map's identity is reflect's pointer of it: one for the map
// however it is passed, another for another map even with the same
// contents, and 0 for none.
func TestAttrsIDIsTheMapsPointer(t *testing.T) {
	a := map[string]*attrpb.AttrValue{"T": {}}
	b := map[string]*attrpb.AttrValue{"T": a["T"]}
	same := a
	require.Equal(t, reflect.ValueOf(a).Pointer(), AttrsID(a))
	require.Equal(t, reflect.ValueOf(b).Pointer(), AttrsID(b))
	require.Equal(t, AttrsID(a), AttrsID(same))
	require.NotEqual(t, AttrsID(a), AttrsID(b))
	require.Zero(t, AttrsID(nil))
	require.NotZero(t, AttrsID(map[string]*attrpb.AttrValue{}))
}
