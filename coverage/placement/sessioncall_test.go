package placement

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// sizeLib is a function reading a table through its resource argument.
const sizeLib = `library { function {
  signature { name: "size" input_arg { name: "t" type: DT_RESOURCE } output_arg { name: "n" type: DT_INT64 } is_stateful: true }
  node_def { name: "sz" op: "LookupTableSizeV2" input: "t" }
  ret { key: "n" value: "sz:size:0" }
} }`

// A session's placer places a call as one node, exempt from resource
// colocation (colocation_graph.cc:100-108, :772-781): the table stays where
// its own kernels put it, and the body's reader follows the table when the
// call runs, or fails there (docs/placement.md#calls-in-a-session-graph). A
// reader in the graph itself is colocated with the table.
func TestSessionCallResourceArgument(t *testing.T) {
	table := nd("table", "HashTableV2", nil, ta("key_dtype", "DT_STRING"), ta("value_dtype", "DT_INT64"))
	viaCall := "graph_def { " + table +
		nd("call", "StatefulPartitionedCall", in("table"), tla("Tin", "DT_RESOURCE"), tla("Tout", "DT_INT64"), funcA("f", "size")) +
		sizeLib + " }"
	direct := "graph_def { " + table + nd("sz", "LookupTableSizeV2", in("table")) + " }"
	base := cpuAll("HashTableV2", "LookupTableSizeV2") + "HashTableV2 GPU\nStatefulPartitionedCall DEFAULT\n"
	tests := []struct {
		name, graph, reg       string
		table, reader, warning string
	}{
		{"reader on CPU only, through a call", viaCall, base, "GPU:0", "CPU:0", "will fail at run time"},
		{"reader on both, through a call", viaCall, base + "LookupTableSizeV2 GPU\n", "GPU:0", "GPU:0", ""},
		{"reader on CPU only, in the graph", direct, base, "CPU:0", "CPU:0", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := simulate(t, buildGraph(t, tc.graph), "GPU", tc.reg, Options{})
			d := devices(r)
			assert.Equal(t, tc.table, d["table"])
			reader := "sz"
			if _, ok := d["call/sz"]; ok {
				reader = "call/sz"
			}
			assert.Equal(t, tc.reader, d[reader], "%v", d)
			w := strings.Join(r.Warnings, "\n")
			if tc.warning == "" {
				assert.NotContains(t, w, "will fail at run time")
			} else {
				assert.Contains(t, w, tc.warning)
				assert.Contains(t, w, "through call call")
			}
		})
	}
}

// A function placed on its own whose table handle reaches its reader only
// through a nested call: the handle's resource lives where the reader can
// run (docs/placement.md#resource-arguments), so nothing refuses.
func TestResourceArgumentThroughNestedCall(t *testing.T) {
	lib := `library {
function {
  signature { name: "outer" input_arg { name: "t" type: DT_RESOURCE } output_arg { name: "n" type: DT_INT64 } is_stateful: true }
  node_def { name: "call" op: "StatefulPartitionedCall" input: "t"
    attr { key: "Tin" value { list { type: DT_RESOURCE } } } attr { key: "Tout" value { list { type: DT_INT64 } } }
    attr { key: "f" value { func { name: "size" } } } }
  ret { key: "n" value: "call:output:0" }
}
` + strings.TrimPrefix(sizeLib, "library {")
	reg := cpuAll("LookupTableSizeV2") + "StatefulPartitionedCall DEFAULT\nVarHandleOp DEFAULT\n"
	r := simulate(t, buildGraph(t, "graph_def { "+lib+" }"), "GPU", reg, Options{})
	assert.Empty(t, r.Error)
	assert.Equal(t, "CPU:0", devices(r)["sz"], "%v", devices(r))
}
