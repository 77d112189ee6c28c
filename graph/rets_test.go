package graph

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBuildFunctionRets checks each form of a FunctionDef's ret value as
// Build resolves it into Function.Rets: an argument, a node's output by
// arg name and index (flattened over a list output and over a called
// function's results), GraphDef style "node:index", and what names
// nothing.
func TestBuildFunctionRets(t *testing.T) {
	rets := []struct{ ret, want string }{
		{"x", "arg 1"},
		{"s:output:2", "s:2"}, // Split's one output is a list of num_split
		{"u:idx:0", "u:1"},
		{"sp:output_values:1", "sp:3"}, // after a list of num_split indices
		{"u:1", "u:1"},
		{"c:b:0", "c:1"}, // c calls g by op name: g's second result
		{"s:output:0", "s:0"},
		{"missing:output:0", "none"},
		{"u:nope:0", "none"},
		{"u:idx:-1", "none"},
		{"u:idx:x", "none"},
		{"w", "none"}, // neither an argument nor an output
	}
	outs, retMap := "", ""
	for i, r := range rets {
		outs += fmt.Sprintf(`output_arg { name: "r%d" type: DT_FLOAT } `, i)
		retMap += fmt.Sprintf(`ret { key: "r%d" value: %q } `, i, r.ret)
	}
	outs += `output_arg { name: "unset" type: DT_FLOAT }`
	g, _ := buildErr(t, `graph_def { library {
  function {
    signature { name: "f" input_arg { name: "d" type: DT_INT32 } input_arg { name: "x" type: DT_FLOAT } `+outs+` }
    node_def { name: "s" op: "Split" input: "d" input: "x" attr { key: "num_split" value { i: 3 } } attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "u" op: "Unique" input: "x" attr { key: "T" value { type: DT_FLOAT } } attr { key: "out_idx" value { type: DT_INT32 } } }
    node_def { name: "sp" op: "SparseSplit" input: "d" input: "d" input: "x" input: "d" attr { key: "num_split" value { i: 2 } } attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "c" op: "g" input: "x" }
    node_def { name: "w" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    `+retMap+`
  }
  function {
    signature { name: "g" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "a" type: DT_FLOAT } output_arg { name: "b" type: DT_FLOAT } }
    ret { key: "a" value: "x" } ret { key: "b" value: "x" }
  } } }`)
	f := g.FunctionByName["f"]
	require.NotNil(t, f)
	require.Len(t, f.Rets, len(rets)+1)
	show := func(in Input) string {
		switch {
		case in.Node != nil:
			return fmt.Sprintf("%s:%d", in.Node.Name, in.Output)
		case in.Arg >= 0:
			return fmt.Sprintf("arg %d", in.Arg)
		}
		return "none"
	}
	for i, r := range rets {
		assert.Equal(t, r.want, show(f.Rets[i]), "ret %q", r.ret)
	}
	assert.Equal(t, "none", show(f.Rets[len(rets)]), "an output_arg without a ret")
	assert.Equal(t, []string{"arg 0", "arg 0"}, []string{show(g.FunctionByName["g"].Rets[0]), show(g.FunctionByName["g"].Rets[1])})
}
