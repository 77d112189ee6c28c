package modelgen

import (
	"fmt"
	"os"
	"path/filepath"

	fpb "github.com/wamuir/graft/tensorflow/core/framework/function_go_proto"
	gpb "github.com/wamuir/graft/tensorflow/core/framework/graph_go_proto"
	nodepb "github.com/wamuir/graft/tensorflow/core/framework/node_def_go_proto"
	opdefpb "github.com/wamuir/graft/tensorflow/core/framework/op_def_go_proto"
	mgpb "github.com/wamuir/graft/tensorflow/core/protobuf/for_core_protos_go_proto"
	"google.golang.org/protobuf/proto"
)

// Hostile is a model TensorFlow refuses to import or load, each for one
// reason (graph/validate.go says which TensorFlow check refuses it). Every
// other part of it is valid, so that the refusal is the only problem.
type Hostile struct {
	// Name is the file (a binary GraphDef, "*.pb") or the SavedModel
	// directory that WriteHostile writes.
	Name string
	// Where names what TensorFlow refuses: `node "a"`, `function "f"` or
	// `function "f", node "n"`.
	Where string
	// Refusal is TensorFlow's message for it.
	Refusal string
	// Graph is the GraphDef: the file itself, or the SavedModel's graph.
	Graph *gpb.GraphDef
}

// Bytes is the file's content: the GraphDef, or a SavedModel whose
// serving_default signature maps x (the Placeholder "x") to y.
func (h Hostile) Bytes() ([]byte, error) {
	if filepath.Ext(h.Name) == ".pb" {
		return proto.MarshalOptions{Deterministic: true}.Marshal(h.Graph)
	}
	mg := &mgpb.MetaGraphDef{
		MetaInfoDef: &mgpb.MetaGraphDef_MetaInfoDef{Tags: []string{"serve"}},
		GraphDef:    h.Graph,
		SignatureDef: map[string]*mgpb.SignatureDef{"serving_default": {
			Inputs:     map[string]*mgpb.TensorInfo{"x": tensorInfo("x:0", f32)},
			Outputs:    map[string]*mgpb.TensorInfo{"y": tensorInfo("y:0", f32)},
			MethodName: "tensorflow/serving/predict",
		}},
	}
	return proto.MarshalOptions{Deterministic: true}.Marshal(&mgpb.SavedModel{SavedModelSchemaVersion: 1, MetaGraphs: []*mgpb.MetaGraphDef{mg}})
}

// File is where WriteHostile puts h, relative to its directory.
func (h Hostile) File() string {
	if filepath.Ext(h.Name) == ".pb" {
		return h.Name
	}
	return filepath.Join(h.Name, "saved_model.pb")
}

// WriteHostile writes every hostile model under dir.
func WriteHostile(dir string) error {
	for _, h := range HostileModels() {
		b, err := h.Bytes()
		if err != nil {
			return fmt.Errorf("%s: %w", h.Name, err)
		}
		p := filepath.Join(dir, h.File())
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// HostileModels returns the hostile models in a fixed order: first the
// GraphDefs TensorFlow's importer refuses, then SavedModels whose function
// library it refuses.
func HostileModels() []Hostile {
	x := node("x", "Placeholder", nil, attrs{"dtype": aType(f32), "shape": aShape()})
	id := func(name string, in ...string) *nodepb.NodeDef {
		return node(name, "Identity", in, attrs{"T": aType(f32)})
	}
	gd := func(lib *fpb.FunctionDefLibrary, nodes ...*nodepb.NodeDef) *gpb.GraphDef {
		return &gpb.GraphDef{Node: nodes, Library: lib, Versions: versions()}
	}
	call := func(name, op, fn string, in ...string) *nodepb.NodeDef {
		return node(name, op, in, attrs{"Tin": aTypes(f32), "Tout": aTypes(f32), "f": aFunc(fn),
			"config": aStr(""), "config_proto": aStr(""), "executor_type": aStr("")})
	}
	// fn is float → float: its body's nodes, returning ret.
	fn := func(name, ret string, body ...*nodepb.NodeDef) *fpb.FunctionDef {
		return &fpb.FunctionDef{
			Signature: &opdefpb.OpDef{Name: name, InputArg: []*opdefpb.OpDef_ArgDef{arg("a", f32)}, OutputArg: []*opdefpb.OpDef_ArgDef{arg("b", f32)}},
			NodeDef:   body,
			Ret:       map[string]string{"b": ret},
		}
	}
	lib := func(fs ...*fpb.FunctionDef) *fpb.FunctionDefLibrary { return &fpb.FunctionDefLibrary{Function: fs} }
	// while runs cond and body over one float.
	while := func(name, cond, body string, in string) *nodepb.NodeDef {
		return node(name, "While", []string{in}, attrs{"T": aTypes(f32), "cond": aFunc(cond), "body": aFunc(body),
			"output_shapes": aShapes(shape()), "parallel_iterations": aInt(10)})
	}
	cond := &fpb.FunctionDef{
		Signature: &opdefpb.OpDef{Name: "cond", InputArg: []*opdefpb.OpDef_ArgDef{arg("a", f32)}, OutputArg: []*opdefpb.OpDef_ArgDef{arg("c", boolean)}},
		NodeDef: []*nodepb.NodeDef{
			constNode("zero", f32Tensor(nil, []float32{0})),
			node("less", "Less", []string{"a", "zero:output:0"}, attrs{"T": aType(f32)}),
		},
		Ret: map[string]string{"c": "less:z:0"},
	}
	double := func(name string) *fpb.FunctionDef {
		return fn(name, "add:z:0", node("add", "AddV2", []string{"a", "a"}, attrs{"T": aType(f32)}))
	}
	return []Hostile{
		{Name: "cycle.pb", Where: `node "a"`, Refusal: "2 nodes in a cycle",
			Graph: gd(nil, x, id("a", "b"), id("b", "a"), id("y", "x"))},
		{Name: "duplicate_node.pb", Where: `node "a"`, Refusal: "Node 'a' is not unique",
			Graph: gd(nil, x, id("a", "x"), id("a", "x"), id("y", "a"))},
		{Name: "empty_op.pb", Where: `node "a"`, Refusal: "Node 'a' does not specify an operation",
			Graph: gd(nil, x, node("a", "", []string{"x"}, nil), id("y", "x"))},
		{Name: "dangling_input.pb", Where: `node "y"`, Refusal: "Node 'y': Unknown input node 'nope:0'",
			Graph: gd(nil, x, id("y", "nope:0"))},
		{Name: "dangling_control.pb", Where: `node "y"`, Refusal: "Node 'y': Unknown input node '^nope'",
			Graph: gd(nil, x, id("y", "x", "^nope"))},
		{Name: "invalid_output.pb", Where: `node "y"`, Refusal: "Node 'y': Connecting to invalid output 1 of source node x which has 1 outputs.",
			Graph: gd(nil, x, id("y", "x:1"))},
		{Name: "invalid_name.pb", Where: `node "a b"`, Refusal: "Node 'a b': Node name contains invalid characters",
			Graph: gd(nil, x, id("a b", "x"), id("y", "a b"))},
		{Name: "control_order.pb", Where: `node "y"`, Refusal: "Node 'y': Control dependencies must come after regular dependencies",
			Graph: gd(nil, x, node("y", "AddV2", []string{"x", "^x", "x"}, attrs{"T": aType(f32)}))},
		{Name: "duplicate_function", Where: `function "f"`,
			Refusal: "Cannot add function 'f' because a different function with the same name already exists.",
			Graph:   gd(lib(double("f"), fn("f", "a")), x, call("y", "PartitionedCall", "f", "x"))},
		{Name: "function_named_like_op", Where: `function "Relu"`,
			Refusal: "Cannot add function 'Relu' because an op with the same name already exists.",
			Graph:   gd(lib(double("Relu")), x, call("y", "PartitionedCall", "Relu", "x"))},
		{Name: "missing_function", Where: `node "y"`, Refusal: `Failed to find function "nope" in function library`,
			Graph: gd(nil, x, call("y", "StatefulPartitionedCall", "nope", "x"))},
		{Name: "missing_while_body", Where: `function "f", node "w"`, Refusal: "Function nope is not defined.",
			Graph: gd(lib(cond, fn("f", "w:output:0", while("w", "cond", "nope", "a"))), x, call("y", "PartitionedCall", "f", "x"))},
		{Name: "self_recursive", Where: `function "f"`, Refusal: "Function f is self recursive and TensorFlow does not support this scenario.",
			Graph: gd(lib(fn("f", "again:b:0", node("again", "f", []string{"a"}, nil))), x, node("y", "f", []string{"x"}, nil))},
		{Name: "call_drops_outputs", Where: `node "c"`, Refusal: "Function instantiation included invalid output index: 0 not in [0, 0).",
			Graph: gd(lib(double("f")), x, node("c", "PartitionedCall", []string{"x"}, attrs{"Tin": aTypes(f32), "Tout": aTypes(),
				"f": aFunc("f"), "config": aStr(""), "config_proto": aStr(""), "executor_type": aStr("")}), id("y", "x"))},
		{Name: "while_body_runs_itself", Where: `function "body"`,
			Refusal: "There is a cyclic dependency between functions. Could not resolve ['body'].",
			Graph:   gd(lib(cond, fn("body", "w:output:0", while("w", "cond", "body", "a"))), x, while("y", "cond", "body", "x"))},
		{Name: "mutual_recursion", Where: `function "ping"`,
			Refusal: "There is a cyclic dependency between functions. Could not resolve ['entry', 'ping', 'pong'].",
			Graph: gd(lib(
				fn("entry", "p:output:0", call("p", "PartitionedCall", "ping", "a")),
				fn("ping", "p:output:0", call("p", "StatefulPartitionedCall", "pong", "a")),
				fn("pong", "p:b:0", node("p", "ping", []string{"a"}, nil)),
			), x, call("y", "PartitionedCall", "entry", "x"))},
		{Name: "function_dangling_input", Where: `function "f", node "add"`, Refusal: "input nope:z:0 is not found: {{node add}}",
			Graph: gd(lib(fn("f", "add:z:0", node("add", "AddV2", []string{"a", "nope:z:0"}, attrs{"T": aType(f32)}))), x, call("y", "PartitionedCall", "f", "x"))},
		{Name: "function_cycle", Where: `function "f", node "p"`, Refusal: "2 nodes in a cycle",
			Graph: gd(lib(fn("f", "q:output:0",
				node("p", "Identity", []string{"q:output:0"}, attrs{"T": aType(f32)}),
				node("q", "Identity", []string{"p:output:0"}, attrs{"T": aType(f32)}),
			)), x, call("y", "PartitionedCall", "f", "x"))},
	}
}
