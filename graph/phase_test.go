package graph

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	fpb "github.com/wamuir/graft/tensorflow/core/framework/function_go_proto"

	"github.com/tfscan/tfscan/internal/testutil"
	"github.com/tfscan/tfscan/savedmodel"
)

func load(t *testing.T, path string) *Graph {
	t.Helper()
	m, err := savedmodel.Load(path)
	require.NoError(t, err)
	mg, err := SelectMetaGraph(m, nil)
	require.NoError(t, err)
	g, err := Build(m, mg)
	require.NoError(t, err)
	return g
}

// phaseOf returns the phase of the node at path.
func phaseOf(t *testing.T, g *Graph, ph []Phase, path string) string {
	t.Helper()
	return ph[nodeByPath(t, g, path).ID].String()
}

func countPhases(ph []Phase) map[string]int {
	c := map[string]int{}
	for _, p := range ph {
		c[p.String()]++
	}
	return c
}

// TestPhasesKeras checks the phases of the generated Keras-style SavedModel
// (savedmodel/modelgen KerasSavedModel): the serving call is the step, the
// saver's restore, the init op's table import and the object graph's
// resource functions are load, __traced_save is save, and the traced
// call_and_return_conditional_losses nobody calls is unreachable.
func TestPhasesKeras(t *testing.T) {
	g := load(t, filepath.Join("..", "testdata", "models", "keras_saved_model"))
	ph := g.Phases("")
	const call = "serving_default/StatefulPartitionedCall/__inference_signature_wrapper_210/StatefulPartitionedCall/__inference_call_150/"
	for path, want := range map[string]string{
		call + "dense/MatMul":                                "step",
		call + "string_lookup/None_Lookup/LookupTableFindV2": "step",
		"hash_table":           "step", // the lookup needs the handle on every call
		"dense/kernel":         "step",
		"serving_default_word": "step",
		// the init op (__saved_model_init_op) fills the table once
		"NoOp": "load",
		"__saved_model_init_op/StatefulPartitionedCall_1/__inference_<lambda>_100/key_value_init/LookupTableImportV2": "load",
		// saver_def: restore_op_name, and the filename both use
		"StatefulPartitionedCall_3": "load",
		"StatefulPartitionedCall_3/__inference__traced_restore_270/RestoreV2":        "load",
		"StatefulPartitionedCall_3/__inference__traced_restore_270/AssignVariableOp": "load",
		"saver_filename": "load",
		// saver_def: save_tensor_name
		"StatefulPartitionedCall_2":                                                 "save",
		"StatefulPartitionedCall_2/__inference__traced_save_250/SaveV2":             "save",
		"StatefulPartitionedCall_2/__inference__traced_save_250/MergeV2Checkpoints": "save",
		"dense/kernel/Read/ReadVariableOp":                                          "save",
		// object graph: the table resource's functions
		"__inference__creator_80/hash_table":                              "load",
		"__inference__initializer_90/key_value_init/LookupTableImportV2":  "load",
		"__inference__destroyer_95/Const":                                 "load",
		"__inference_call_and_return_conditional_losses_175/dense/MatMul": "unreachable",
		"__inference_call_and_return_conditional_losses_175/dense/Relu6":  "unreachable",
	} {
		assert.Equal(t, want, phaseOf(t, g, ph, path), path)
	}
	assert.Equal(t, map[string]int{"step": 23, "load": 27, "save": 18, "unreachable": 14}, countPhases(ph))
	assert.Equal(t, ph, g.Phases("serving_default"), "the only served signature")

	// A signature that does not exist steps nothing; what load needs stays load.
	none := g.Phases("nope")
	assert.Equal(t, "unreachable", phaseOf(t, g, none, call+"dense/MatMul"))
	assert.Equal(t, "load", phaseOf(t, g, none, "hash_table"))
}

// TestPhasesTF1 checks a TF1 SavedModel: saver_def names save/restore_all
// and save/Identity, the variables collection names each initializer,
// legacy_init_op the init op; tf.global_variables_initializer's "init" is
// in no collection and runs neither at load nor on a step.
func TestPhasesTF1(t *testing.T) {
	g := load(t, filepath.Join(testutil.Corpus(t), "tf", "sm_half_plus_two_v1"))
	ph := g.Phases("")
	for path, want := range map[string]string{
		"y": "step", "y2": "step", "a": "step", "a/read": "step", "ParseExample/ParseExample": "step",
		"save/restore_all": "load", "save/RestoreV2": "load", "save/Const": "load",
		"save/SaveV2": "save", "save/MergeV2Checkpoints": "save", "save/Identity": "save",
		"a/Assign": "load", "a/initial_value": "load",
		"group_deps": "load", "Assign": "load",
		"init": "unreachable", "filename_tensor/Assign": "unreachable",
	} {
		assert.Equal(t, want, phaseOf(t, g, ph, path), path)
	}
	// One signature: the others' outputs no longer step.
	one := g.Phases("regress_x_to_y")
	assert.Equal(t, "step", phaseOf(t, g, one, "y"))
	assert.Equal(t, "unreachable", phaseOf(t, g, one, "y3"))
}

// TestPhasesWithoutMetadata checks a graph with neither signatures nor a
// saver_def: its sinks step, except those that are evidently the saver
// (restore and save ops) or initialisation (an Assign, a NoOp grouping
// them). Inside a called function the body runs what PruneFunctionBody
// keeps: returns, control returns and stateful ops, not a dead Const.
func TestPhasesWithoutMetadata(t *testing.T) {
	g := build(t, `graph_def {
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { } } } }
  node { name: "w/init" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT float_val: 1 } } } }
  node { name: "w/Assign" op: "Assign" input: "w" input: "w/init" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "init" op: "NoOp" input: "^w/Assign" }
  node { name: "y" op: "Mul" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } } }`+callNode("p", "y", "f")+`
  node { name: "save/Const" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING string_val: "ckpt" } } } }
  node { name: "save/names" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: "w" } } } }
  node { name: "save/slices" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: "" } } } }
  node { name: "save/SaveV2" op: "SaveV2" input: "save/Const" input: "save/names" input: "save/slices" input: "w" attr { key: "dtypes" value { list { type: DT_FLOAT } } } }
  node { name: "save/control_dependency" op: "Identity" input: "save/Const" input: "^save/SaveV2" attr { key: "T" value { type: DT_STRING } } }
  node { name: "save/RestoreV2" op: "RestoreV2" input: "save/Const" input: "save/names" input: "save/slices" attr { key: "dtypes" value { list { type: DT_FLOAT } } } }
  node { name: "save/Assign" op: "Assign" input: "w" input: "save/RestoreV2" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "save/restore_all" op: "NoOp" input: "^save/Assign" }
  library {
    function {
      signature { name: "f" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "r" type: DT_FLOAT } is_stateful: true }
      node_def { name: "dead" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT float_val: 2 } } } }
      node_def { name: "print" op: "PrintV2" input: "msg:output:0" }
      node_def { name: "msg" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING string_val: "hi" } } } }
      node_def { name: "r" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
      ret { key: "r" value: "r:output:0" }
    }
  }
}`)
	ph := g.Phases("")
	for path, want := range map[string]string{
		"x": "step", "y": "step", "w": "step", "p": "step",
		"p/f/r": "step", "p/f/print": "step", "p/f/msg": "step", "p/f/dead": "unreachable",
		"w/Assign": "load", "init": "load", "w/init": "load",
		"save/restore_all": "load", "save/RestoreV2": "load", "save/Const": "load",
		"save/control_dependency": "save", "save/SaveV2": "save",
	} {
		assert.Equal(t, want, phaseOf(t, g, ph, path), path)
	}
}

// retNodes finds what a map of the body's names finds (the last node of a
// name), with few results and with many, names repeated, results naming
// no node, and on the corpus's functions.
func TestRetNodes(t *testing.T) {
	byMap := func(f *Function) map[*Node]int {
		byName := map[string]*Node{}
		for _, n := range f.Nodes {
			byName[n.Name] = n
		}
		want := map[*Node]int{}
		for _, ref := range f.Def.GetRet() {
			name, _, _ := strings.Cut(ref, ":")
			if n := byName[name]; n != nil {
				want[n]++
			}
		}
		for _, name := range f.Def.GetControlRet() {
			if n := byName[name]; n != nil {
				want[n]++
			}
		}
		return want
	}
	count := func(ns []*Node) map[*Node]int {
		got := map[*Node]int{}
		for _, n := range ns {
			got[n]++
		}
		return got
	}
	var fns []*Function
	for _, rets := range []int{1, 3, 8, 9, 20} {
		f := &Function{Def: &fpb.FunctionDef{Ret: map[string]string{}, ControlRet: map[string]string{}}}
		for i := range 12 {
			f.Nodes = append(f.Nodes, &Node{Name: fmt.Sprintf("n%d", i%10)}) // n0 and n1 twice
		}
		last := map[string]*Node{}
		for _, n := range f.Nodes {
			last[n.Name] = n
		}
		// The results as the build resolves them (Function.Rets), and
		// as many control results, looked for by name.
		for k := range rets {
			name := fmt.Sprintf("n%d", k%13)
			f.Def.Ret[fmt.Sprintf("r%d", k)] = name + ":out:0"
			f.Rets = append(f.Rets, Input{Node: last[name], Arg: -1})
			f.Def.ControlRet[fmt.Sprintf("c%d", k)] = fmt.Sprintf("n%d", (k+1)%13)
		}
		fns = append(fns, f)
	}
	for _, model := range []string{"sm_simple_while_loop", "sm_static_hashtable", "sm_x_plus_y_debuginfo"} {
		fns = append(fns, load(t, filepath.Join(testutil.Corpus(t), "tf", model)).Functions...)
	}
	for _, f := range fns {
		want := byMap(f)
		assert.NotEmpty(t, want, f.Name)
		assert.Equal(t, want, count(retNodes(f)), "%s: %d results", f.Name, len(f.Def.GetRet()))
	}
}

// phasesWalked is g.Phases(signature) as the phase walks give it, without
// taking the step from the build's reachability (stepIsReachable).
func phasesWalked(g *Graph, signature string) []Phase {
	walked := *g
	walked.reached = false
	return walked.Phases(signature)
}

// A graph whose step starts where the build's reachability did, without
// load or save work, whose functions' bodies run only what their results
// need, takes its step from the build's reachability: the same phases as
// the walk, nodes no root needs (a loop feeding nothing, an unused
// output) unreachable. A graph with save work, a stateful body or a step
// of one signature among several walks.
func TestPhasesFromReachability(t *testing.T) {
	const loop = `
  node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { tensor { dtype: DT_INT32 int_val: 0 } } } }
  node { name: "enter" op: "Enter" input: "c" attr { key: "T" value { type: DT_INT32 } } attr { key: "frame_name" value { s: "l" } } }
  node { name: "merge" op: "Merge" input: "enter" input: "next" attr { key: "T" value { type: DT_INT32 } } attr { key: "N" value { i: 2 } } }
  node { name: "next" op: "NextIteration" input: "merge" attr { key: "T" value { type: DT_INT32 } } }`
	const flat = `
  node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
  node { name: "k" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor { dtype: DT_FLOAT float_val: 1 } } } }
  node { name: "y" op: "Mul" input: "x" input: "k" input: "^k" attr { key: "T" value { type: DT_FLOAT } } }
  node { name: "z" op: "Relu" input: "y" attr { key: "T" value { type: DT_FLOAT } } }`
	call := callNode("p", "z", "f")
	const body = `
    signature { name: "f" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "r" type: DT_FLOAT } }
    node_def { name: "r" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "dead" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "r" value: "r:output:0" }`
	for _, tc := range []struct {
		name, text string
		sigs       []string
		signature  string
		fromReach  bool
		want       map[string]string
	}{
		{"flat", "graph_def {" + flat + "}", nil, "", true, map[string]string{"x": "step", "k": "step", "y": "step", "z": "step"}},
		{"loop feeding nothing", "graph_def {" + flat + loop + "}", nil, "", true, map[string]string{"z": "step", "merge": "unreachable", "next": "unreachable", "c": "unreachable"}},
		{"save work", "graph_def {" + flat + `
  node { name: "s" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING string_val: "ckpt" } } } }
  node { name: "n" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { dim { size: 1 } } string_val: "k" } } } }
  node { name: "save" op: "SaveV2" input: "s" input: "n" input: "n" input: "k" attr { key: "dtypes" value { list { type: DT_FLOAT } } } }
}`, nil, "", false, map[string]string{"z": "step", "save": "save", "s": "save"}},
		{"function", "graph_def {" + flat + call + "library { function {" + body + "} } }", nil, "", true,
			map[string]string{"z": "step", "p": "step", "p/f/r": "step", "p/f/dead": "unreachable"}},
		{"stateful body", "graph_def {" + flat + call + "library { function {" + body + `
    node_def { name: "print" op: "PrintV2" input: "msg:output:0" }
    node_def { name: "msg" op: "Const" attr { key: "dtype" value { type: DT_STRING } } attr { key: "value" value { tensor { dtype: DT_STRING string_val: "hi" } } } }
} } }`, nil, "", false, map[string]string{"p/f/r": "step", "p/f/print": "step", "p/f/dead": "unreachable"}},
		{"served", "graph_def {" + flat + call + "library { function {" + body + "} } }", []string{"serving_default=p:0"}, "", true,
			map[string]string{"z": "step", "serving_default/p/f/r": "step", "serving_default/p/f/dead": "unreachable"}},
		{"one of two served", "graph_def {" + flat + call + "library { function {" + body + "} } }", []string{"a=p:0", "b=y:0"}, "b", false,
			map[string]string{"y": "step", "z": "unreachable", "a/p/f/r": "unreachable"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := build(t, tc.text, tc.sigs...)
			require.Equal(t, tc.fromReach, g.stepIsReachable(g.phaseRoots(tc.signature)))
			ph := g.Phases(tc.signature)
			assert.Equal(t, phasesWalked(g, tc.signature), ph)
			for path, want := range tc.want {
				assert.Equal(t, want, phaseOf(t, g, ph, path), path)
			}
		})
	}
}
