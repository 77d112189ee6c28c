package scan

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	kdpb "github.com/wamuir/graft/tensorflow/core/framework/kernel_def_go_proto"
	tpb "github.com/wamuir/graft/tensorflow/core/framework/types_go_proto"

	"github.com/tfscan/tfscan/coverage"
	"github.com/tfscan/tfscan/graph"
)

// reluPack has Relu kernels on dev for the types given (none: any type).
func reluPack(dev string, types ...tpb.DataType) *coverage.Index {
	k := &kdpb.KernelDef{Op: "Relu", DeviceType: dev}
	if len(types) > 0 {
		k.Constraint = []*kdpb.KernelDef_AttrConstraint{{Name: "T", AllowedValues: &attrpb.AttrValue{
			Value: &attrpb.AttrValue_List{List: &attrpb.AttrValue_ListValue{Type: types}}}}}
	}
	return coverage.NewIndex(&coverage.Pack{Name: dev, DeviceType: dev, Kernels: []*kdpb.KernelDef{k}}, nil)
}

// keyedMatcher answers as its index does: with the prepared key when the
// key holds every attr the index constrains and the node is the graph's
// own, else by a lookup of its own.
func TestKeyedMatcher(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "g.pbtxt"), []byte(`
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "h" op: "Placeholder" attr { key: "dtype" value { type: DT_HALF } } }
node { name: "relu_f" op: "Relu" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "relu_h" op: "Relu" input: "h" attr { key: "T" value { type: DT_HALF } } }
`), 0o644))
	_, g, err := Load(filepath.Join(dir, "g.pbtxt"), nil)
	require.NoError(t, err)
	byName := map[string]*graph.Node{}
	for _, n := range g.Nodes {
		byName[n.Name] = n
	}
	reluF, reluH := byName["relu_f"], byName["relu_h"]
	require.NotNil(t, reluF)
	require.NotNil(t, reluH)

	// Keys built for a target that constrains nothing on Relu leave T
	// out: an index that constrains T must not take them.
	ns := PrepareNodes(g, nil, []Target{{Name: "any", Index: reluPack("XPU")}})
	halfOnly := reluPack("CPU", tpb.DataType_DT_HALF)
	k := ns.keyed(g, halfOnly, nil)
	for _, n := range []*graph.Node{reluF, reluH, reluF} {
		assert.Equal(t, reluPack("CPU", tpb.DataType_DT_HALF).Match(n), k.Match(n), n.Name)
	}
	assert.False(t, k.Match(reluF).Reason.Covered())
	assert.True(t, k.Match(reluH).Reason.Covered())

	// Keys that hold T: a copy of a node with other attrs (what auto
	// mixed precision makes, keeping the ID) must not take its original's.
	floatOnly := reluPack("XPU", tpb.DataType_DT_FLOAT)
	ns = PrepareNodes(g, nil, []Target{{Name: "float", Index: floatOnly}})
	k = ns.keyed(g, floatOnly, nil)
	assert.True(t, k.Match(reluF).Reason.Covered())
	half := *reluF
	half.Attrs = map[string]*attrpb.AttrValue{"T": {Value: &attrpb.AttrValue_Type{Type: tpb.DataType_DT_HALF}}}
	half.SetTypes([]tpb.DataType{tpb.DataType_DT_HALF}, []tpb.DataType{tpb.DataType_DT_HALF})
	assert.False(t, k.Match(&half).Reason.Covered())
}
