package security

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	attrpb "github.com/wamuir/graft/tensorflow/core/framework/attr_value_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
	"google.golang.org/protobuf/encoding/prototext"

	"github.com/tfscan/tfscan/graph"
	"github.com/tfscan/tfscan/savedmodel"
)

func TestScan(t *testing.T) {
	mk := func(name, op string) *graph.Node { return &graph.Node{Name: name, Op: op} }
	filename := mk("save/filename", "Const")
	save := mk("save/SaveV2", "SaveV2")
	save.Inputs = []graph.Input{{Node: filename}}
	saveDep := mk("save/control_dependency", "Identity")
	saveDep.SetControlInputs([]*graph.Node{save})
	restoreFn := &graph.Function{Name: "__inference__traced_restore_9"}
	restoreInFn := mk("RestoreV2", "RestoreV2")
	restoreInFn.Func = restoreFn // its path is "__inference__traced_restore_9/RestoreV2"
	restoreFn.Nodes = []*graph.Node{restoreInFn}
	restoreCall := mk("StatefulPartitionedCall_2", "StatefulPartitionedCall")
	restoreCall.SetCalls([]*graph.Function{restoreFn})

	rogueSave := mk("rogue/SaveV2", "SaveV2")
	readFile := mk("ReadFile", "ReadFile")
	pyFunc := mk("PyFunc", "PyFunc")
	pyFunc1 := mk("PyFunc_1", "PyFunc") // a run of nodes of one op
	printStderr := mk("print_stderr", "PrintV2")
	printStderr.Attrs = map[string]*attrpb.AttrValue{"output_stream": {Value: &attrpb.AttrValue_S{S: []byte("stderr")}}}
	printFile := mk("print_file", "PrintV2")
	printFile.Attrs = map[string]*attrpb.AttrValue{"output_stream": {Value: &attrpb.AttrValue_S{S: []byte("file:///tmp/x")}}}

	top := []*graph.Node{filename, save, saveDep, restoreCall, rogueSave, readFile, pyFunc, pyFunc1, printStderr, printFile}
	g := &graph.Graph{
		Nodes:    append(append([]*graph.Node{}, top...), restoreInFn),
		TopLevel: len(top),
		MetaGraph: &savedmodel.MetaGraph{Def: &mgpb.MetaGraphDef{SaverDef: &mgpb.SaverDef{
			FilenameTensorName: "save/filename:0",
			SaveTensorName:     "save/control_dependency:0",
			RestoreOpName:      "StatefulPartitionedCall_2",
		}}},
	}
	var got []string
	for _, f := range Scan(g) {
		got = append(got, f.Op+"@"+f.Path)
	}
	assert.Equal(t, []string{"PyFunc@PyFunc", "PyFunc@PyFunc_1", "ReadFile@ReadFile", "PrintV2@print_file", "SaveV2@rogue/SaveV2"}, got)
}

func TestScanWithoutSaverReportsCheckpointOps(t *testing.T) {
	n := &graph.Node{Name: "r", Op: "RestoreV2"}
	g := &graph.Graph{Nodes: []*graph.Node{n}, TopLevel: 1, MetaGraph: &savedmodel.MetaGraph{Def: &mgpb.MetaGraphDef{}}}
	assert.Len(t, Scan(g), 1)
}

// TestScanBuiltGraph checks Scan on graphs Build made, which tell the ops
// they hold (graph.Graph.HasAnyOp): an unsafe op in a function body is found,
// and a graph without any is not walked for them.
func TestScanBuiltGraph(t *testing.T) {
	scan := func(text string) []string {
		def := &mgpb.MetaGraphDef{}
		require.NoError(t, prototext.Unmarshal([]byte(text), def))
		mg := &savedmodel.MetaGraph{Tags: []string{"serve"}, Def: def}
		g, err := graph.Build(&savedmodel.Model{Path: "m", MetaGraphs: []*savedmodel.MetaGraph{mg}}, mg)
		require.NoError(t, err)
		var got []string
		for _, f := range Scan(g) {
			got = append(got, f.Op+"@"+f.Path)
		}
		return got
	}
	fn := func(op string) string {
		return `graph_def {
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } }
  node { name: "p" op: "PartitionedCall" input: "x"
    attr { key: "Tin" value { list { type: DT_STRING } } } attr { key: "Tout" value { list { type: DT_STRING } } }
    attr { key: "f" value { func { name: "f" } } } }
  library { function {
    signature { name: "f" input_arg { name: "a" type: DT_STRING } output_arg { name: "y" type: DT_STRING } }
    node_def { name: "r" op: "` + op + `" input: "a" ` + map[string]string{"ReadFile": "", "Identity": `attr { key: "T" value { type: DT_STRING } }`}[op] + ` }
    ret { key: "y" value: "r:` + map[string]string{"ReadFile": "contents", "Identity": "output"}[op] + `:0" } } } }`
	}
	assert.Equal(t, []string{"ReadFile@p/f/r"}, scan(fn("ReadFile")))
	assert.Empty(t, scan(fn("Identity")))
}
