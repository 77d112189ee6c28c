package training

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/savedmodel"
)

// stepGraph is a two-replica all-reduce as MirroredStrategy builds it: the
// gradients packed by ConcatV2 into one CollectiveReduceV2 per replica
// (group_size a Const), and a call XLA must compile of a function that
// calls another.
const stepGraph = `
node { name: "g0" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 6 } } } } }
node { name: "g1" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 4 } } } } }
node { name: "axis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
node { name: "concat" op: "ConcatV2" input: "g0" input: "g1" input: "axis" attr { key: "N" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tidx" value { type: DT_INT32 } } }
node { name: "group_size" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 2 } } } }
node { name: "key" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
node { name: "r0" op: "CollectiveReduceV2" input: "concat" input: "group_size" input: "key" input: "key" device: "/device:GPU:0"
  attr { key: "T" value { type: DT_FLOAT } } attr { key: "merge_op" value { s: "Add" } } attr { key: "final_op" value { s: "Id" } }
  attr { key: "communication_hint" value { s: "auto" } } attr { key: "Nordering_token" value { i: 0 } } }
node { name: "r1" op: "CollectiveReduceV2" input: "concat" input: "group_size" input: "key" input: "key" device: "/device:GPU:1"
  attr { key: "T" value { type: DT_FLOAT } } attr { key: "merge_op" value { s: "Add" } } attr { key: "final_op" value { s: "Id" } }
  attr { key: "communication_hint" value { s: "auto" } } attr { key: "Nordering_token" value { i: 0 } } }
node { name: "call" op: "StatefulPartitionedCall" input: "g0"
  attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } }
  attr { key: "f" value { func { name: "outer" } } } attr { key: "_XlaMustCompile" value { b: true } } }
node { name: "plain" op: "StatefulPartitionedCall" input: "g0"
  attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } }
  attr { key: "f" value { func { name: "inner" } } } }
library {
  function { signature { name: "outer" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "c" op: "PartitionedCall" input: "x"
      attr { key: "Tin" value { list { type: DT_FLOAT } } } attr { key: "Tout" value { list { type: DT_FLOAT } } }
      attr { key: "f" value { func { name: "inner" } } } }
    ret { key: "y" value: "c:output:0" } }
  function { signature { name: "inner" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "n" op: "Neg" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "n:y:0" } }
}
`

func loadStep(t *testing.T) *graph.Graph {
	t.Helper()
	p := filepath.Join(t.TempDir(), "step.pbtxt")
	require.NoError(t, os.WriteFile(p, []byte(stepGraph), 0o644))
	m, err := savedmodel.Load(p)
	require.NoError(t, err)
	mg, err := graph.SelectMetaGraph(m, nil)
	require.NoError(t, err)
	g, err := graph.Build(m, mg)
	require.NoError(t, err)
	return g
}

// TestFindCollectives reads the replicas from the group_size Const, the
// packed gradients from the ConcatV2 and the bytes from the shapes given.
func TestFindCollectives(t *testing.T) {
	g := loadStep(t)
	bytes := func(n *graph.Node, _ int) (int64, bool) {
		if n.Name == "concat" {
			return 40, true
		}
		return 0, false
	}
	c := FindCollectives(g, bytes)
	require.NotNil(t, c)
	assert.Equal(t, []CollectiveOp{{Op: "CollectiveReduceV2", Hint: "auto", Count: 2}}, c.Ops)
	assert.Equal(t, 2, c.Replicas)
	assert.Equal(t, 2, c.Tensors)
	assert.True(t, c.Known)
	assert.Equal(t, int64(40), c.PerReplica())
	assert.Equal(t, 1, c.Groups())
	copies, b := c.RingCost()
	assert.Equal(t, 4, copies) // each of 2 replicas sends 2 chunks
	assert.Equal(t, int64(80), b)
	copies, b = c.OneDeviceCost()
	assert.Equal(t, 4, copies) // 2 gradients there and back
	assert.Equal(t, int64(80), b)

	unknown := FindCollectives(g, func(*graph.Node, int) (int64, bool) { return 0, false })
	assert.False(t, unknown.Known)
}

// TestCosts: r replicas, s bytes each, in g groups of v tensors.
func TestCosts(t *testing.T) {
	for _, tc := range []struct {
		replicas, nodes, tensors int
		bytes                    int64
		ring, one                int
		ringBytes                int64
	}{
		{replicas: 1, nodes: 1, tensors: 3, bytes: 100},
		{replicas: 2, nodes: 2, tensors: 3, bytes: 200, ring: 4, one: 6, ringBytes: 200},
		{replicas: 4, nodes: 8, tensors: 5, bytes: 400, ring: 48, one: 30, ringBytes: 600},
	} {
		c := &Collectives{Replicas: tc.replicas, ReduceNodes: make([]*graph.Node, tc.nodes), ReduceBytes: tc.bytes, Tensors: tc.tensors}
		ring, rb := c.RingCost()
		one, ob := c.OneDeviceCost()
		assert.Equal(t, tc.ring, ring, "%+v", tc)
		assert.Equal(t, tc.ringBytes, rb, "%+v", tc)
		assert.Equal(t, tc.one, one, "%+v", tc)
		assert.Equal(t, tc.ringBytes, ob, "%+v", tc)
	}
}

// TestCompiledFunctions: the marked call's function and what it calls,
// not the unmarked call.
func TestCompiledFunctions(t *testing.T) {
	cs := CompiledFunctions(loadStep(t))
	require.Len(t, cs, 1)
	assert.Equal(t, "call", cs[0].Caller.Name)
	var names []string
	for _, f := range cs[0].Bodies {
		names = append(names, f.Name)
	}
	assert.Equal(t, []string{"outer", "inner"}, names)
}

func TestLibrariesAndXLADevices(t *testing.T) {
	for pack, want := range map[string]string{"cuda": "NCCL", "rocm": "RCCL", "ascend": "HCCL", "intel-xpu": "oneCCL", "musa": ""} {
		l, ok := LibraryOf(pack)
		assert.Equal(t, want, l.Name, pack)
		assert.Equal(t, want != "", ok, pack)
		if ok {
			assert.NotEmpty(t, l.Source, pack)
		}
	}
	for _, tc := range []struct{ pack, mech, want string }{
		{"cuda", "kernel", "xla"}, {"rocm", "kernel", "xla"}, {"xla", "xla_cluster", "xla"},
		{"enflame-gcu", "xla_cluster", "enflame-gcu"}, {"musa", "kernel", ""}, {"ascend", "graph_offload", ""},
	} {
		d, ok := XLADeviceOf(tc.pack, tc.mech, "src")
		assert.Equal(t, tc.want, d.Pack, tc.pack)
		assert.Equal(t, tc.want != "", ok, tc.pack)
	}
}
